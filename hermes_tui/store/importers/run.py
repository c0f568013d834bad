"""One import run: find the transcripts, reconstruct each, write each in its own
transaction, report progress after every file and a summary at the end.

This is what the CLI and the TUI call (:func:`import_history`); it is synchronous and
meant for a thread worker. A bad line is reported and skipped, a bad file is reported and
the run goes on; only a problem with the store itself (locked, read-only) stops it, and
what was written before stays written (a re-run continues where it stopped).
"""

from __future__ import annotations

import dataclasses
import hashlib
import sqlite3
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..db import Store
from .claude import parse_claude
from .codex import parse_codex
from .discover import Found, default_paths, find_transcripts, repo_root
from .transcript import CLAUDE, CODEX, Problem, Transcript
from .writer import (
    Imported,
    SessionOutcome,
    imported_by_hash,
    imported_session_id,
    write_transcript,
)

ALIASES = {"claude": CLAUDE, CLAUDE: CLAUDE, "codex": CODEX, CODEX: CODEX}
LABELS = {CLAUDE: "Claude Code", CODEX: "Codex CLI"}


class NoTranscripts(ValueError):
    """Nothing to import where we looked (the message names the place)."""


@dataclass(frozen=True, slots=True)
class ImportOptions:
    dry_run: bool = False
    since: float | None = None  # only sessions active at or after this epoch time
    subagents: bool = True


@dataclass(frozen=True, slots=True)
class ImportProgress:
    """Reported after each file: enough for a progress bar and a running tally."""

    files_done: int
    files_total: int
    path: Path
    outcome: SessionOutcome
    sessions_written: int
    messages_added: int


@dataclass(slots=True)
class ImportReport:
    tool: str
    dry_run: bool
    paths: list[str]
    outcomes: list[SessionOutcome] = field(default_factory=list)
    skipped_records: Counter[str] = field(default_factory=Counter)
    problems: list[Problem] = field(default_factory=list)
    files: int = 0
    cancelled: bool = False

    def count(self, status: str) -> int:
        return sum(1 for o in self.outcomes if o.status == status)

    @property
    def messages_added(self) -> int:
        return sum(o.added for o in self.outcomes)

    @property
    def skipped_sessions(self) -> Counter[str]:
        return Counter(o.reason or "" for o in self.outcomes if o.status in ("skipped", "failed"))

    def as_dict(self) -> dict[str, Any]:
        """The ``--json`` summary."""
        return {
            "source": self.tool,
            "dry_run": self.dry_run,
            "paths": self.paths,
            "files": self.files,
            "cancelled": self.cancelled,
            "sessions": {
                status: self.count(status)
                for status in ("created", "updated", "unchanged", "skipped", "failed")
            },
            "messages": {
                "added": self.messages_added,
                "updated": sum(o.updated for o in self.outcomes),
                "hidden": sum(o.hidden for o in self.outcomes),
            },
            "skipped_sessions": dict(self.skipped_sessions.most_common()),
            "skipped_records": dict(self.skipped_records.most_common()),
            "problems": [dataclasses.asdict(p) for p in self.problems],
            "results": [dataclasses.asdict(o) for o in self.outcomes],
        }


def tool_name(value: str) -> str:
    """``claude``/``claude-code`` → ``claude-code``; ``codex``/``codex-cli`` → ``codex-cli``."""
    try:
        return ALIASES[value.strip().lower()]
    except KeyError:
        raise ValueError(f"unknown source {value!r} (expected claude or codex)") from None


def _skip(found: Found, tool: str, reason: str, status: str = "skipped") -> SessionOutcome:
    return SessionOutcome(tool, str(found.path), found.path.stem, status, reason=reason)


def _parse(tool: str, found: Found, data: bytes) -> Transcript:
    if tool == CLAUDE:
        t = parse_claude(found.path, data, subagent=found.subagent)
    else:
        t = parse_codex(found.path, data, thread_name=found.thread_name)
    t.content_sha256 = hashlib.sha256(data).hexdigest()
    t.byte_size = len(data)
    t.git_repo_root = repo_root(t.cwd)
    return t


class _Run:
    def __init__(self, store: Store | None, tool: str, options: ImportOptions) -> None:
        self.store = store
        self.tool = tool
        self.options = options
        self.ids: dict[str, str] = {}  # foreign session id → Hermes id, for sub-agents
        self.known: dict[str, Imported] = imported_by_hash(store, tool) if store else {}

    def parent_id(self, t: Transcript) -> str | None:
        if t.parent_foreign_id is None:
            return None
        if t.parent_foreign_id in self.ids:
            return self.ids[t.parent_foreign_id]
        if self.store is None:
            return None
        with self.store.read() as conn:
            return imported_session_id(
                conn, self.store.capabilities, self.tool, t.parent_foreign_id
            )

    def one(self, found: Found, report: ImportReport) -> SessionOutcome:
        options = self.options
        if found.skip_reason:
            return _skip(found, self.tool, found.skip_reason)
        if found.subagent and not options.subagents:
            return _skip(found, self.tool, "sub-agent (--no-subagents)")
        if options.since is not None and found.mtime < options.since:
            return _skip(found, self.tool, "not active since --since")
        try:
            data = found.path.read_bytes()
        except OSError as exc:
            report.problems.append(Problem(str(found.path), None, f"cannot read: {exc.strerror}"))
            return _skip(found, self.tool, "unreadable file", "failed")
        known = self.known.get(hashlib.sha256(data).hexdigest())
        if known is not None and (known.has_parent or not found.subagent):
            # The very file imported before: nothing to parse, nothing to write.
            self.ids[known.foreign_id] = known.session_id
            return SessionOutcome(
                self.tool,
                str(found.path),
                known.foreign_id,
                "unchanged",
                session_id=known.session_id,
                messages=known.messages,
                title=known.title,
            )
        try:
            t = _parse(self.tool, found, data)
        except Exception as exc:  # one odd file must not stop the run
            report.problems.append(Problem(str(found.path), None, f"cannot parse: {exc!r}"))
            return _skip(found, self.tool, "could not be parsed", "failed")
        report.skipped_records.update(t.skipped)
        report.problems.extend(t.problems)
        if not t.rows:
            return _skip(found, self.tool, "no conversation in it")
        if t.is_subagent and not options.subagents:
            return _skip(found, self.tool, "sub-agent (--no-subagents)")
        if t.origin.get("subagent_without_parent"):
            return _skip(found, self.tool, "internal Codex sub-agent (no parent thread)")
        if options.since is not None and (t.ended_at or 0.0) < options.since:
            return _skip(found, self.tool, "not active since --since")
        try:
            outcome = write_transcript(
                self.store, t, data, self.parent_id(t), dry_run=options.dry_run
            )
        except sqlite3.IntegrityError as exc:
            report.problems.append(Problem(str(found.path), None, f"not imported: {exc}"))
            return _skip(found, self.tool, "rejected by the store", "failed")
        if outcome.session_id and outcome.status != "skipped":
            self.ids[t.foreign_id] = outcome.session_id
        return outcome


def import_history(
    store: Store | None,
    tool: str,
    paths: Sequence[Path] | None = None,
    options: ImportOptions | None = None,
    *,
    progress: Callable[[ImportProgress], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    env: Mapping[str, str] | None = None,
) -> ImportReport:
    """Import Claude Code (``tool="claude"``) or Codex CLI (``"codex"``) history.

    *paths* default to the tool's own folder (``$CLAUDE_CONFIG_DIR``/``$CODEX_HOME``
    honoured). *store* may be None only with ``options.dry_run`` (no store yet).
    *progress* is called after every file; *cancelled* is polled between files.
    Raises :class:`NoTranscripts` when there is nothing to import where we looked.
    """
    tool = tool_name(tool)
    options = options or ImportOptions()
    if store is None and not options.dry_run:
        raise ValueError("a store is needed unless this is a dry run")
    explicit = bool(paths)
    roots = [Path(p).expanduser() for p in paths] if paths else default_paths(tool, env)
    for root in roots:
        if not root.exists():
            if explicit:
                raise NoTranscripts(f"No such file or folder: {root}")
            hint = "CLAUDE_CONFIG_DIR" if tool == CLAUDE else "CODEX_HOME"
            raise NoTranscripts(
                f"No {LABELS[tool]} history found at {root} (set {hint} or give a PATH)"
            )
    found = find_transcripts(tool, roots)
    if not found:
        where = ", ".join(str(r) for r in roots)
        raise NoTranscripts(f"No {LABELS[tool]} transcripts found in {where}")
    report = ImportReport(tool, options.dry_run, [str(r) for r in roots], files=len(found))
    run = _Run(store, tool, options)
    written = added = 0
    for done, item in enumerate(found, start=1):
        if cancelled is not None and cancelled():
            report.cancelled = True
            break
        outcome = run.one(item, report)
        report.outcomes.append(outcome)
        if outcome.status in ("created", "updated"):
            written += 1
            added += outcome.added
        if progress is not None:
            progress(ImportProgress(done, len(found), item.path, outcome, written, added))
    return report
