"""``hermes sessions prune|archive|restore|optimize``.

Wording follows Hermes (HERMES_AGENT_BEHAVIOUR.md §6.5, §6.7), plus what Hermes leaves
out: what the filters also matched but the rules spare (open, pinned, archived), the trash
file a prune writes and the command that undoes it. Rows show the conversation as lists
do (its newest segment's id and title) and its last activity, which the age filters use.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

from ..paths import trash_dir
from ..store import Store
from ..store.execute import ExecuteResult, Progress, execute
from ..store.optimize import optimize, others_connected, store_bytes
from ..store.prune import Match, Preview, archive_selection, preview, prune_selection
from ..store.restore import RestoreResult, restore_file
from ..store.trash import has_trailer, verify
from ..textsafe import cell_width, clean, fit
from ..timefmt import local_minutes
from .common import CliError, Context, confirm
from .filter_args import add_filter_arguments, filter_from_args

SHOWN_BEFORE_CONFIRM = 15
# Deleting or restoring messages runs Hermes' FTS triggers: ~6,000 messages/s on the
# benchmark machine (README). Beyond this many, one transaction holds the write lock longer
# than a running Hermes retries (~15 s), so it is refused while others have the store open.
LARGE_ROWS = 50_000
ROWS_PER_SECOND = 6_000


def guard_long_lock(store: Store, rows: int, force: bool, doing: str) -> None:
    """Refuse a long write transaction while another process has the store open."""
    if force or rows < LARGE_ROWS or not others_connected(store):
        return
    raise CliError(
        f"Another process has the session store open (a running Hermes?), and {doing} "
        f"{rows:,} messages in one transaction holds the store's write lock for about "
        f"{rows // ROWS_PER_SECOND} s, longer than Hermes waits to save its messages. "
        "Close Hermes first, do it in smaller steps, or pass --force."
    )


def _row(m: Match, id_width: int, mark: str = "") -> str:
    model = clean((m.model or "").rsplit("/", 1)[-1], keep_newlines=False)
    title = fit(clean(m.title, keep_newlines=False), 36).rstrip()
    flags = [f"[{mark}]"] if mark else ["[pinned]"] * m.pinned + ["[archived]"] * m.archived
    tail = " ".join([title, *flags] if title else flags)
    return (
        f"  {fit(m.tip_id, id_width)}  {fit(local_minutes(m.last_active), 17)} "
        f"{fit(clean(m.source, keep_newlines=False), 10)} {fit(model, 24)} "
        f"{m.messages:>4} msgs  {tail}".rstrip()
    )


def _span(p: Preview) -> str:
    return f"oldest {local_minutes(p.oldest)}, newest {local_minutes(p.newest)}"


def _verb(p: Preview) -> str:
    return "deleted" if p.action == "prune" else "archived"


def _spared_lines(p: Preview) -> list[str]:
    counts = p.spared_counts()
    how = {
        "open": "still open: a running Hermes may be using them",
        "pinned": "pass --include-pinned to include them",
        "archived": "pass --include-archived to include them",
    }
    return [
        f"  {n} {reason} session(s) also match and will NOT be {_verb(p)} ({how[reason]})."
        for reason, n in counts.items()
        if n
    ]


def print_preview(p: Preview, *, limit: int | None, show_spared_rows: bool) -> None:
    shown = list(p.matches if limit is None else p.matches[:limit])
    spared = list(p.spared) if show_spared_rows else []
    ids = [m.tip_id for m in shown] + [s.match.tip_id for s in spared]
    width = max((cell_width(i) for i in ids), default=0)
    if p.matches:
        print(f"{p.count} session(s) match ({p.description()}; {_span(p)}):")
    else:
        print(f"No sessions match ({p.description()}).")
    for m in shown:
        print(_row(m, width))
    if len(shown) < p.count:
        print(f"  … and {p.count - len(shown)} more")
    if p.session_count > p.count:
        print(
            f"  (these {p.count} conversations hold {p.session_count} sessions: their "
            "compression segments and subagent runs go with them)"
        )
    for line in _spared_lines(p):
        print(line)
    if spared:
        print("Spared:")
        for s in spared:
            print(_row(s.match, width, s.reason))


def _progress() -> Callable[[Progress], None] | None:
    if not sys.stderr.isatty():
        return None
    words = {
        "checking": "Checking",
        "saving": "Saving to trash",
        "deleting": "Deleting",
        "archiving": "Archiving",
    }

    def show(step: Progress) -> None:
        if step.phase == "done":
            print("\r\033[K", end="", file=sys.stderr, flush=True)
        else:
            text = f"{words[step.phase]}… {step.done}/{step.total}"
            print(f"\r\033[K{text}", end="", file=sys.stderr, flush=True)

    return show


def _report(result: ExecuteResult) -> None:
    if result.action == "prune":
        print(f"Pruned {result.count} session(s).")
    else:
        print(
            f"Archived {result.count} session(s). They're hidden from listings but fully "
            "recoverable (nothing was deleted)."
        )
    if result.changed:
        print(f"  {len(result.changed)} session(s) changed since the preview and were left alone:")
        for c in result.changed[:20]:
            print(f"    {c.id}: {c.reason}")
        if len(result.changed) > 20:
            print(f"    … and {len(result.changed) - 20} more")
    if result.detached:
        print(f"  {len(result.detached)} branch(es) of them stay as their own conversations.")
    for path in result.trash:
        print(f"Saved to trash: {path}")
        print(f"Undo with: hermes sessions restore {path}")
    if result.action == "archive" and result.done:
        print("Undo with: hermes sessions unarchive <id>, for each of:")
        for m in result.done[:50]:
            print(f"  {m.tip_id}")
        if len(result.done) > 50:
            print(f"  … and {len(result.done) - 50} more")


def _run(ctx: Context, args: argparse.Namespace, action: str) -> int:
    now = time.time()
    given = filter_from_args(args, now)
    if action == "prune":
        selection = prune_selection(
            given,
            now=now,
            include_pinned=args.include_pinned,
            include_archived=args.include_archived,
        )
    else:
        selection = archive_selection(given, include_pinned=args.include_pinned)
    store = ctx.open_store()
    found = preview(store, selection, now=now)
    done_word = "deleted" if action == "prune" else "archived"
    if args.dry_run:
        print_preview(found, limit=None, show_spared_rows=True)
        print(f"Dry run — nothing {done_word}.")
        return 0
    if not found.matches:
        print_preview(found, limit=0, show_spared_rows=False)
        return 0
    if action == "prune":
        guard_long_lock(store, found.message_rows, args.force, "deleting")
    if not args.yes:
        print_preview(found, limit=SHOWN_BEFORE_CONFIRM, show_spared_rows=False)
        question = "Delete" if action == "prune" else "Archive"
        if not confirm(f"{question} these {found.count} session(s) ({_span(found)})? [y/N] "):
            print("Cancelled.")
            return 0
    result = execute(store, found, progress=_progress())
    _report(result)
    return 0


def cmd_prune(ctx: Context, args: argparse.Namespace) -> int:
    return _run(ctx, args, "prune")


def cmd_archive(ctx: Context, args: argparse.Namespace) -> int:
    return _run(ctx, args, "archive")


def _trash_file(ctx: Context, name: str) -> Path:
    path = Path(name).expanduser()
    if not path.exists() and (trash_dir(ctx.home) / name).is_file():
        return trash_dir(ctx.home) / name
    return path


def _print_restore(result: RestoreResult) -> None:
    n, m = len(result.restored), result.messages
    if result.dry_run:
        print(f"Would restore {n} session(s) ({m} messages) from {result.path}.")
    else:
        print(f"Restored {n} session(s) ({m} messages) from {result.path}.")
    if not result.verified:
        print("  (no end marker in this file, so it could not be checked for completeness)")
    if result.skipped:
        print(f"  Skipped {len(result.skipped)} conversation(s):")
        for s in result.skipped:
            print(f"    {s.unit}: {s.reason}")
    for note in result.notes:
        print(f"  Note: {clean(note, keep_newlines=False)}")


def cmd_restore(ctx: Context, args: argparse.Namespace) -> int:
    store = ctx.open_store()
    for name in args.files:
        path = _trash_file(ctx, name)
        try:
            if not args.dry_run and path.is_file() and has_trailer(path):
                guard_long_lock(store, verify(path).messages, args.force, "restoring")
            result = restore_file(store, path, dry_run=args.dry_run)
        except FileNotFoundError:
            raise CliError(f"No such trash file: {path}") from None
        except ValueError as exc:
            raise CliError(f"{exc}; nothing was restored.") from None
        _print_restore(result)
    return 0


def _mb(size: int) -> str:
    return f"{size / 1_000_000:.1f} MB"


def cmd_optimize(ctx: Context, args: argparse.Namespace) -> int:
    store = ctx.open_store()
    print("Optimizing session store (FTS merge + VACUUM)…", flush=True)
    before = store_bytes(store)
    result = optimize(store)
    print(f"Optimized {len(result.fts_tables)} FTS index(es).")
    if result.vacuum_skipped:
        print(f"VACUUM skipped: {result.vacuum_skipped}.")
    after = result.size_after
    print(f"Database size: {_mb(before)} -> {_mb(after)} (reclaimed {_mb(max(0, before - after))})")
    return 0


def _common(p: argparse.ArgumentParser, *, prune: bool) -> None:
    add_filter_arguments(p)
    p.add_argument("--dry-run", action="store_true", help="list every match; change nothing")
    p.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")
    p.add_argument("--include-pinned", action="store_true", help="include pinned conversations too")
    if prune:
        p.add_argument(
            "--include-archived", action="store_true", help="include archived conversations too"
        )
        p.add_argument(
            "--force", action="store_true", help="run a large prune even while Hermes is running"
        )


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """Register ``prune``, ``archive``, ``restore`` and ``optimize``."""
    p = sub.add_parser(
        "prune",
        help="delete ended conversations matching filters (to the trash; undo with restore)",
        description="Without filters: conversations inactive for 90 days. Open ones are "
        "never touched; pinned and archived ones only when included.",
    )
    _common(p, prune=True)
    p.set_defaults(handler=cmd_prune)

    p = sub.add_parser(
        "archive",
        help="hide ended conversations matching filters (undo with unarchive)",
        description="Needs at least one filter. Archived conversations are hidden from "
        "lists but kept.",
    )
    _common(p, prune=False)
    p.set_defaults(handler=cmd_archive)

    p = sub.add_parser("restore", help="put back sessions a prune moved to the trash")
    p.add_argument("files", nargs="+", metavar="FILE", help="a file in $HERMES_HOME/session-trash")
    p.add_argument("--dry-run", action="store_true", help="report what would be restored")
    p.add_argument(
        "--force", action="store_true", help="run a large restore even while Hermes is running"
    )
    p.set_defaults(handler=cmd_restore)

    p = sub.add_parser(
        "optimize", help="merge the search index and reclaim space (not while Hermes writes)"
    )
    p.set_defaults(handler=cmd_optimize)
