"""What an export is asked to do, what it would do (the plan), and what it did."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..filters import SessionFilter

Format = Literal["jsonl", "md", "qmd", "html", "trace"]
FORMATS: tuple[Format, ...] = ("jsonl", "md", "qmd", "html", "trace")
Lineage = Literal["single", "logical"]

# Formats that write one file per session into a folder (md/qmd always, trace in bulk).
PER_FILE: frozenset[str] = frozenset({"md", "qmd"})


class ExportError(ValueError):
    """An export that cannot run as asked (one line, worded for the user); nothing written."""


class VerificationFailed(ExportError):
    """``--delete-after-verified``: a written file or the store did not check out; nothing
    was deleted. The export files stay; ``result`` says what was written (when known)."""

    def __init__(self, message: str, result: ExportResult | None = None) -> None:
        super().__init__(message)
        self.result = result


@dataclass(frozen=True)
class ExportRequest:
    """One export. Choose the sessions with exactly one of ``session_ids`` (exactly these
    sessions), ``conversations`` (the whole conversation each id belongs to: every
    compression segment and subagent run, as a filter export takes them), ``filter`` (ended
    conversations matching it, archived and pinned included, oldest first) or ``everything``
    (every session of the store, open ones too; JSONL and user prompts only).

    ``output`` is a file for jsonl/html/user prompts/a single trace, a folder for md/qmd and
    bulk traces; ``None`` picks a name under ``$HERMES_HOME/session-exports``. ``redact``
    ``None`` means the format's default (on for traces only)."""

    format: Format = "jsonl"
    session_ids: tuple[str, ...] = ()
    conversations: tuple[str, ...] = ()
    filter: SessionFilter | None = None
    everything: bool = False
    output: Path | None = None
    redact: bool | None = None
    only_user_prompts: bool = False
    lineage: Lineage = "single"
    force: bool = False
    delete_after_verified: bool = False

    @property
    def redacting(self) -> bool:
        return self.format == "trace" if self.redact is None else self.redact

    @property
    def per_file(self) -> bool:
        """One file per session (or per lineage) in a folder, rather than one stream."""
        if self.only_user_prompts:
            return False
        return self.format in PER_FILE or (self.format == "trace" and not self.single)

    @property
    def single(self) -> bool:
        """Exactly one session asked for by id."""
        return len(self.session_ids) == 1 and not self.conversations


@dataclass(frozen=True, slots=True)
class Entry:
    """One session as the plan lists it."""

    id: str
    source: str
    title: str | None
    started_at: float
    ended_at: float | None
    model: str | None
    message_count: int


@dataclass(frozen=True, slots=True)
class Item:
    """One unit of output: a session, or (``lineage="logical"``) a lineage's segments in
    order, read and written together. ``unit`` is the conversation it belongs to (its root),
    which JSONL records carry so a restore puts conversations back whole."""

    session_ids: tuple[str, ...]
    unit: str
    path: Path | None = None  # its own file (md/qmd, bulk trace)

    @property
    def id(self) -> str:
        """The session the item is named after: a lineage's newest segment (as Hermes)."""
        return self.session_ids[-1]


@dataclass(frozen=True)
class ExportPlan:
    """What :func:`~.api.export_sessions` would write (a dry run): the items in order, the
    sessions they hold, where they go, and which conversations the filter matched but an
    export leaves out (still open)."""

    request: ExportRequest
    items: tuple[Item, ...]
    entries: dict[str, Entry]
    output: Path | None  # the file or folder written (None: a stream)
    description: str  # the filter as words, or what was asked for
    spared_open: tuple[str, ...] = ()
    existing: tuple[Path, ...] = ()  # targets that exist (an error without force)

    @property
    def session_ids(self) -> tuple[str, ...]:
        return tuple(sid for item in self.items for sid in item.session_ids)

    @property
    def session_count(self) -> int:
        return sum(len(item.session_ids) for item in self.items)


@dataclass(frozen=True)
class ExportResult:
    """What was written. ``paths`` are the files (one for a stream-like format); ``folder``
    and ``manifest`` are set for per-file exports. A cancelled export keeps the per-session
    files finished before it stopped; a single-file export that is cancelled writes nothing."""

    format: Format
    paths: tuple[Path, ...] = ()
    folder: Path | None = None
    manifest: Path | None = None
    sessions: int = 0
    messages: int = 0
    prompts: int = 0
    redacted: bool = False
    to_stream: bool = False
    cancelled: bool = False
    skipped: tuple[str, ...] = ()  # sessions deleted between planning and reading them
    deleted: tuple[str, ...] = ()  # --delete-after-verified: sessions deleted after checking


@dataclass(frozen=True, slots=True)
class Added:
    """What writing one item added (None from a writer: its sessions are gone)."""

    sessions: int
    messages: int
    prompts: int = 0
