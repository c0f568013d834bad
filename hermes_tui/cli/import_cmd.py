"""``hermes sessions import --from claude|codex [PATH ...]``: bring Claude Code and Codex
CLI history into the store (see :mod:`hermes_tui.store.importers`)."""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from datetime import datetime
from pathlib import Path

from ..store import Store
from ..store.importers import (
    ImportOptions,
    ImportProgress,
    ImportReport,
    NoTranscripts,
    SessionOutcome,
    import_history,
    tool_name,
)
from ..store.importers.run import LABELS
from ..textsafe import clean, fit
from .common import CliError, Context

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
_DURATION = re.compile(
    r"(\d+(?:\.\d+)?)\s*(s|sec|secs|seconds?|m|min|mins|minutes?|h|hours?|d|days?|w|weeks?)?"
)
_SINCE_FORMS = "a date (2026-07-05, 2026-07-05 14:30) or a duration (30m, 12h, 7d, 2w)"


def parse_since(text: str, now: float | None = None) -> float:
    """``--since``: a duration back from now (a bare number is days) or a date/time
    (local time unless it carries a zone)."""
    value = text.strip()
    match = _DURATION.fullmatch(value.lower())
    if match:
        unit = (match.group(2) or "d")[0]
        return (time.time() if now is None else now) - float(match.group(1)) * _UNITS[unit]
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise CliError(f"--since {text!r}: expected {_SINCE_FORMS}") from None
    return moment.timestamp()  # naive → local time, as the user typed it


_VERB = {
    ("created", False): "imported",
    ("updated", False): "updated",
    ("created", True): "would import",
    ("updated", True): "would update",
    ("failed", False): "failed",
    ("failed", True): "failed",
}


def _line(outcome: SessionOutcome, dry_run: bool) -> str:
    verb = _VERB[(outcome.status, dry_run)]
    if outcome.status == "failed":
        return f"  {fit(verb, 13)} {clean(outcome.path, keep_newlines=False)} — {outcome.reason}"
    count = f"{outcome.messages} msgs" if outcome.status == "created" else f"+{outcome.added} msgs"
    if outcome.status == "updated" and outcome.hidden:
        count += f" −{outcome.hidden}"
    label = clean(outcome.title, keep_newlines=False)
    if outcome.parent_session_id:
        label = f"↳ sub-agent of {outcome.parent_session_id}"
    elif not label:
        label = clean(Path(outcome.path).name, keep_newlines=False)
    # The title is the last column: cut to 60 cells, not padded.
    columns = f"  {fit(verb, 13)} {fit(outcome.session_id or '', 25)} {fit(count, 12)}"
    return f"{columns} {fit(label, 60).rstrip()}"


def _tally(counts: list[tuple[str, int]]) -> str:
    return ", ".join(f"{clean(reason, keep_newlines=False)} {n}" for reason, n in counts)


def _print_text(report: ImportReport, store_path: Path) -> None:
    label = LABELS[report.tool]
    where = ", ".join(clean(p, keep_newlines=False) for p in report.paths)
    if report.dry_run:
        print("Dry run: nothing was written.")
    print(f"{label} history from {where} → {clean(str(store_path), keep_newlines=False)}")
    for outcome in report.outcomes:
        if outcome.status in ("created", "updated", "failed"):
            print(_line(outcome, report.dry_run))
    would = "would be " if report.dry_run else ""
    print(
        f"Sessions: {report.count('created')} {would}imported, "
        f"{report.count('updated')} {would}updated, {report.count('unchanged')} unchanged, "
        f"{report.count('skipped')} skipped, {report.count('failed')} failed "
        f"({report.files} files)."
    )
    summary = report.as_dict()["messages"]
    print(
        f"Messages: {summary['added']} {would}added, {summary['updated']} {would}updated, "
        f"{summary['hidden']} {would}hidden (no longer on the live branch)."
    )
    if report.skipped_sessions:
        print(f"Skipped sessions: {_tally(report.skipped_sessions.most_common())}.")
    if report.skipped_records:
        print(f"Skipped records: {_tally(report.skipped_records.most_common())}.")
    if report.cancelled:
        print("Stopped before the end; run the same command again to continue.")
    if not report.dry_run and report.count("created"):
        print(f"Browse them: hermes sessions list --source {report.tool}")
    for problem in report.problems:
        print(f"warning: {clean(str(problem), keep_newlines=False)}", file=sys.stderr)


def _show_progress(step: ImportProgress) -> None:
    """One updating line on a terminal's stderr, wiped after the last file."""
    text = f"{step.files_done}/{step.files_total} files · {step.messages_added} messages"
    done = step.files_done >= step.files_total
    print("\r" + (" " * len(text) + "\r" if done else text), end="", file=sys.stderr, flush=True)


def cmd_import(ctx: Context, args: argparse.Namespace) -> int:
    tool = tool_name(args.source)
    options = ImportOptions(
        dry_run=args.dry_run,
        since=parse_since(args.since) if args.since else None,
        subagents=not args.no_subagents,
    )
    path = ctx.db_path
    if path.exists():
        store: Store | None = Store.open(path)
    else:
        store = None if args.dry_run else Store.create(path)
    show = sys.stderr.isatty() and not args.json
    try:
        report = import_history(
            store,
            tool,
            [Path(p) for p in args.paths],
            options,
            progress=_show_progress if show else None,
        )
    except NoTranscripts as exc:
        raise CliError(str(exc)) from None
    if args.json:
        print(json.dumps(report.as_dict(), ensure_ascii=False, indent=2))
    else:
        _print_text(report, path)
    return 1 if report.count("failed") else 0


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """Register ``hermes sessions import``."""
    p = sub.add_parser(
        "import",
        help="import Claude Code or Codex CLI history",
        description="Import Claude Code or Codex CLI conversations into the session store. "
        "Importing again is safe: unchanged sessions are left alone and sessions that grew "
        "get only their new messages.",
    )
    p.add_argument(
        "--from",
        dest="source",
        required=True,
        choices=["claude", "codex", "claude-code", "codex-cli"],
        help="which tool's history",
    )
    p.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="transcript files or folders (default: $CLAUDE_CONFIG_DIR/projects or "
        "~/.claude/projects; $CODEX_HOME/sessions or ~/.codex/sessions)",
    )
    p.add_argument(
        "--dry-run", action="store_true", help="show what would be imported; write nothing"
    )
    p.add_argument("--since", metavar="DATE", help=f"only sessions active since: {_SINCE_FORMS}")
    p.add_argument("--no-subagents", action="store_true", help="skip sub-agent transcripts")
    p.add_argument("--json", action="store_true", help="print a JSON summary")
    p.set_defaults(handler=cmd_import)
