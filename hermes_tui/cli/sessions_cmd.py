"""``hermes sessions list|stats|rename|delete|pin|unpin|pinned|unarchive``."""

from __future__ import annotations

import argparse
import json
import shlex
from pathlib import Path

from .. import store as st
from ..store import ListQuery, Store
from ..store.listing import count_sessions
from ..store.resolve import resolve_in
from ..store.sessions import conversation_ids
from ..textsafe import clean
from . import export_cmd, import_cmd, prune_cmd
from .common import Context, confirm
from .tables import row_json, session_table


def _resolve(store: Store, reference: str) -> str:
    with store.snapshot() as conn:
        return resolve_in(conn, reference)


def _print_rows(rows: list[st.SessionRow], as_json: bool, empty: str) -> None:
    if as_json:
        print(json.dumps([row_json(r) for r in rows], ensure_ascii=False, indent=2))
    elif not rows:
        print(empty)
    else:
        print("\n".join(session_table(rows)))


def cmd_list(ctx: Context, args: argparse.Namespace) -> int:
    if args.limit < 1:
        raise ValueError("--limit must be at least 1")
    store = ctx.open_store()
    needle = args.workspace
    if needle and needle.startswith(("~", "/", ".")):
        needle = str(Path(needle).expanduser().resolve())
    query = ListQuery(sort="started", source=args.source, workspace_needle=needle)
    page = st.list_sessions(store, query, limit=args.limit)
    rows = list(page.items)
    _print_rows(rows, args.json, "No sessions found.")
    if page.has_more and not args.json:
        total = count_sessions(store, query)
        print(
            f"\nShowing {len(rows)} of {total:,} sessions (newest first); use --limit to see more."
        )
    return 0


def cmd_pinned(ctx: Context, args: argparse.Namespace) -> int:
    store = ctx.open_store()
    page = st.list_sessions(
        store, ListQuery(pinned_only=True, archived="include", exclude_sources=()), limit=1000
    )
    _print_rows(list(page.items), args.json, "No pinned sessions.")
    return 0


def _megabytes(size: int) -> str:
    return f"{size / 1_000_000:.1f} MB"


def cmd_stats(ctx: Context, args: argparse.Namespace) -> int:
    store = ctx.open_store()
    stats = st.store_stats(store)
    if args.json:
        print(
            json.dumps(
                {
                    "total_sessions": stats.total_sessions,
                    "total_messages": stats.total_messages,
                    "archived_sessions": stats.archived_sessions,
                    "open_sessions": stats.open_sessions,
                    "pinned_sessions": stats.pinned_sessions,
                    "by_source": dict(stats.by_source),
                    "database_bytes": stats.database_bytes,
                    "wal_bytes": stats.wal_bytes,
                    "oldest_started_at": stats.oldest_started,
                    "newest_started_at": stats.newest_started,
                    "input_tokens": stats.input_tokens,
                    "output_tokens": stats.output_tokens,
                    "by_model": [
                        {
                            "model": m,
                            "sessions": n,
                            "input_tokens": i,
                            "output_tokens": o,
                            "cost_usd": round(c, 6),
                        }
                        for m, n, i, o, c in stats.by_model
                    ],
                    "path": str(store.path),
                },
                ensure_ascii=False,
                indent=2,
            )
        )
        return 0
    print(f"Total sessions: {stats.total_sessions}")
    print(f"Total messages: {stats.total_messages}")
    for source, count in stats.by_source:
        print(f"  {clean(source, keep_newlines=False)}: {count} session{'s' * (count != 1)}")
    print(f"Database size: {_megabytes(stats.database_bytes + stats.wal_bytes)}")
    extras = [
        ("Archived", stats.archived_sessions),
        ("Pinned", stats.pinned_sessions),
        ("Open", stats.open_sessions),
    ]
    print("  ".join(f"{label}: {value}" for label, value in extras))
    return 0


def cmd_rename(ctx: Context, args: argparse.Namespace) -> int:
    store = ctx.open_store()
    session_id = _resolve(store, args.session)
    stored = st.rename_session(store, session_id, " ".join(args.title))
    if stored is None:
        print(f"Session '{session_id}' title cleared.")
    else:
        print(f"Session '{session_id}' renamed to: {clean(stored, keep_newlines=False)}")
    return 0


def cmd_delete(ctx: Context, args: argparse.Namespace) -> int:
    store = ctx.open_store()
    session_id = _resolve(store, args.session)
    with store.snapshot() as conn:
        ids, staying = conversation_ids(conn, session_id)
        marks = ", ".join("?" for _ in ids)
        open_ids = [
            r[0]
            for r in conn.execute(
                f"SELECT id FROM sessions WHERE id IN ({marks}) AND ended_at IS NULL", ids
            )
        ]
        messages = conn.execute(
            f"SELECT COUNT(*) FROM messages WHERE session_id IN ({marks})", ids
        ).fetchone()[0]
    if not args.yes:
        extra = []
        if len(ids) > 1:
            extra.append(f"this removes the whole conversation: {len(ids)} sessions")
        extra.append(f"{messages} message{'s' * (messages != 1)}")
        if staying:
            extra.append(f"{len(staying)} branch(es) stay as their own conversations")
        if open_ids:
            extra.append("it is still open (a running Hermes may be using it)")
        print(f"Note: {'; '.join(extra)}.")
        if not confirm(f"Delete session '{session_id}' and all its messages? [y/N] "):
            print("Cancelled.")
            return 0
    result = st.delete_conversation(store, session_id, allow_open=True)
    print(f"Deleted session '{session_id}'.")
    if len(result.deleted) > 1:
        others = len(result.deleted) - 1
        print(f"  (with {others} related session{'s' * (others != 1)} of the same conversation)")
    undo = shlex.quote(str(result.trash))
    print(f"Saved to the trash; undo with: hermes sessions restore {undo}")
    return 0


def cmd_pin(ctx: Context, args: argparse.Namespace, pinned: bool) -> int:
    store = ctx.open_store()
    session_id = _resolve(store, args.session)
    st.set_pinned(store, session_id, pinned)
    print(f"{'Pinned' if pinned else 'Unpinned'} session '{session_id}'.")
    return 0


def cmd_unarchive(ctx: Context, args: argparse.Namespace) -> int:
    store = ctx.open_store()
    session_id = _resolve(store, args.session)
    changed = st.set_archived(store, session_id, False)
    if changed:
        print(f"Unarchived session '{session_id}' ({len(changed)} session(s) in its lineage).")
    else:
        print(f"Session '{session_id}' was not archived.")
    return 0


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """Register the verbs of ``hermes sessions``."""
    p = sub.add_parser("list", help="list conversations, newest first")
    p.add_argument("--source", help="only this source (cli, tui, telegram, cron, ...)")
    p.add_argument("--limit", type=int, default=20, help="how many rows (default 20)")
    p.add_argument("--workspace", metavar="NEEDLE", help="workspace path substring or folder name")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=cmd_list)

    p = sub.add_parser("stats", help="totals, sessions per source, database size")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=cmd_stats)

    p = sub.add_parser("rename", help="set or clear a session's title")
    p.add_argument("session", metavar="ID", help="id, unique id prefix or title")
    p.add_argument("title", nargs="*", metavar="TITLE", help="new title (empty clears it)")
    p.set_defaults(handler=cmd_rename)

    p = sub.add_parser("delete", help="delete a conversation and its messages")
    p.add_argument("session", metavar="ID", help="id, unique id prefix or title")
    p.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")
    p.set_defaults(handler=cmd_delete)

    for name, pinned in (("pin", True), ("unpin", False)):
        p = sub.add_parser(name, help=f"{name} a conversation (pinned ones are never pruned)")
        p.add_argument("session", metavar="ID", help="id, unique id prefix or title")
        p.set_defaults(handler=lambda c, a, pinned=pinned: cmd_pin(c, a, pinned))

    p = sub.add_parser("pinned", help="list pinned conversations")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=cmd_pinned)

    p = sub.add_parser("unarchive", help="bring an archived conversation back into lists")
    p.add_argument("session", metavar="ID", help="id, unique id prefix or title")
    p.set_defaults(handler=cmd_unarchive)
    import_cmd.add_parsers(sub)
    prune_cmd.add_parsers(sub)  # prune, archive, restore, optimize
    export_cmd.add_parsers(sub)
