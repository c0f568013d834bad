"""Importing Claude Code and Codex CLI history into the store (no Textual, no Rich).

Call :func:`import_history` from a thread worker; it reports progress per file and
returns an :class:`ImportReport`. Formats and reconstruction: TRANSCRIPT_FORMATS.md.
"""

from .run import (
    ImportOptions,
    ImportProgress,
    ImportReport,
    NoTranscripts,
    import_history,
    tool_name,
)
from .transcript import CLAUDE, CODEX, Problem
from .writer import SessionOutcome

__all__ = [
    "CLAUDE",
    "CODEX",
    "ImportOptions",
    "ImportProgress",
    "ImportReport",
    "NoTranscripts",
    "Problem",
    "SessionOutcome",
    "import_history",
    "tool_name",
]
