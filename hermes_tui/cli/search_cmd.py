"""``hermes sessions search``: discovery, scroll, read and browse from the command line.

``--json`` prints exactly what the ``session_search`` tool returns, as one line of JSON
(errors included, as ``{"success": false, "error": ...}`` with a non-zero exit). The human
output is the same data laid out for a terminal: stored text cleaned of escapes and
controls, one line per message cut to the terminal's width, the match in bold reverse
video on a terminal (and between ``>>>``/``<<<`` when piped).
"""

from __future__ import annotations

import argparse
import json
import shutil
from collections.abc import Sequence

from ..store import Store
from ..store.errors import AmbiguousReference, SessionNotFound, StoreError
from ..store.models import Message
from ..store.resolve import resolve_in
from ..store.search import (
    Discovery,
    Hit,
    ScrollView,
    SearchError,
    Segment,
    SessionRead,
    browse,
    discover,
    read_session,
    scroll,
    session_search,
)
from ..textsafe import cell_width, clean, fit
from .common import CliError, Context, stdout_is_tty
from .tables import session_table

HIGHLIGHT = ("\x1b[1;7m", "\x1b[0m")
MARKERS = (">>>", "<<<")
ROLE_WIDTH = 10
SORTS = ("relevance", "newest", "oldest")


class _Args:
    """The validated arguments (every problem is one line, before the store is opened)."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.query = " ".join(args.query).strip()
        self.limit = _whole(args.limit, "--limit", 1, 10)
        self.window = _whole(args.window, "--window", 1, 20) if args.window is not None else 5
        self.sort = (args.sort or "relevance").strip().lower()
        if self.sort not in SORTS:
            raise CliError(f"--sort must be one of: {', '.join(SORTS)}")
        self.roles = (
            tuple(r.strip() for r in args.roles.split(",") if r.strip()) if args.roles else None
        )
        self.around = (
            _whole(args.around, "--around", 0, 1 << 62) if args.around is not None else None
        )
        self.session = args.session_id
        if self.around is not None and not self.session:
            raise CliError("--around needs --session-id")
        if args.window is not None and self.around is None:
            raise CliError("--window only applies when scrolling (--session-id ID --around MSG_ID)")
        if self.session and self.query:
            raise CliError("give either a QUERY or --session-id, not both")


def _whole(value: str, flag: str, lo: int, hi: int) -> int:
    try:
        number = int(str(value).strip())
    except ValueError:
        number = lo - 1
    if not lo <= number <= hi:
        upper = "" if hi >= 1 << 62 else f" to {hi}"
        raise CliError(f"{flag} must be a whole number from {lo}{upper} (got {value!r})")
    return number


def _resolve(store: Store, reference: str) -> str:
    with store.snapshot() as conn:
        return resolve_in(conn, reference)


def cmd_search(ctx: Context, args: argparse.Namespace) -> int:
    if args.json:
        return _json(ctx, args)
    opts = _Args(args)
    store = ctx.open_store()
    out = _Printer()
    try:
        if opts.session and opts.around is not None:
            out.scroll(
                scroll(store, _resolve(store, opts.session), opts.around, window=opts.window)
            )
        elif opts.session:
            out.read(read_session(store, _resolve(store, opts.session)))
        elif not opts.query:
            rows = browse(store, limit=opts.limit)
            print("\n".join(session_table(list(rows))) if rows else "No sessions found.")
        else:
            out.discovery(
                discover(
                    store,
                    opts.query,
                    limit=opts.limit,
                    sort=opts.sort,  # type: ignore[arg-type]
                    roles=opts.roles,
                    include_archived=args.archived,
                )
            )
    except SearchError as exc:
        raise CliError(str(exc)) from None
    return 0


def _json(ctx: Context, args: argparse.Namespace) -> int:
    """``--json``: the tool's JSON, errors as JSON too."""
    try:
        opts = _Args(args)
        store = ctx.open_store()
        session = _resolve(store, opts.session) if opts.session else None
        result = session_search(
            store,
            query=opts.query or None,
            limit=opts.limit,
            sort=None if opts.sort == "relevance" else opts.sort,
            role_filter=",".join(opts.roles) if opts.roles else None,
            session_id=session,
            around_message_id=opts.around,
            window=opts.window,
            include_archived=args.archived,
        )
    except (CliError, SessionNotFound, AmbiguousReference) as exc:
        result = {"success": False, "error": str(exc)}
    except StoreError as exc:
        result = {"success": False, "error": f"Session database not available: {exc.one_line()}"}
    print(json.dumps(result, ensure_ascii=False))
    return 0 if result.get("success") else 1


class _Printer:
    def __init__(self) -> None:
        self.tty = stdout_is_tty()
        self.width = max(40, shutil.get_terminal_size((100, 24)).columns)

    def cut(self, text: str, width: int) -> str:
        text = clean(text, keep_newlines=False)
        if cell_width(text) <= width:
            return text
        return fit(text, max(1, width - 1)).rstrip() + "…"

    def snippet(self, segments: Sequence[Segment]) -> str:
        on, off = HIGHLIGHT if self.tty else MARKERS
        # Snippets are one line already; clean() without re-joining words keeps the
        # spaces around the match.
        return "".join(f"{on}{clean(s.text)}{off}" if s.match else clean(s.text) for s in segments)

    def line(self, message: Message, mark: str = " ", ids: bool = False) -> str:
        text = message.content or ""
        if not text and message.tool_calls:
            text = f"[tool calls: {', '.join(message.tool_names)}]"
        if message.role == "tool" and message.tool_name:
            text = f"[{message.tool_name}] {text}"
        role = message.role
        prefix = f"  {mark} " + (f"{message.id:>8} " if ids else "") + f"{role:<{ROLE_WIDTH}} "
        body = self.cut(text, self.width - cell_width(prefix))
        if mark == "▶" and self.tty:
            body = f"\x1b[1m{body}\x1b[0m"
        return prefix + body

    def gap(self, count: int, what: str = "") -> str:
        noun = "message" if count == 1 else "messages"
        return f"  ┊ … {count} {noun}{what} …"

    def header(self, title: str | None, parts: Sequence[str]) -> list[str]:
        name = self.cut(title, self.width - 4) if title else "(untitled)"
        on, off = ("\x1b[1m", "\x1b[0m") if self.tty else ("", "")
        return [
            f"{on}{name}{off}",
            "   " + " · ".join(clean(p, keep_newlines=False) for p in parts if p),
        ]

    def discovery(self, result: Discovery) -> None:
        if not result.hits:
            print(result.reason or "No matching sessions found.")
        for n, hit in enumerate(result.hits, 1):
            if n > 1:
                print()
            self.hit(n, hit)
        if result.hits:
            count = len(result.hits)
            print(f"\n{count} conversation{'s' * (count != 1)} · sorted by {result.sort}")
        if result.warning:
            print(f"Note: {result.warning}")

    def hit(self, n: int, hit: Hit) -> None:
        print(f"{n}. {self.header(hit.root.title, [])[0]}")
        where = [hit.root.source, hit.root.when, hit.session_id]
        if hit.parent_session_id:
            where.append(f"conversation {hit.parent_session_id}")
        where.append(f"match #{hit.match_message_id} ({hit.matched_role})")
        print("   " + " · ".join(clean(p, keep_newlines=False) for p in where))
        print("   " + self.snippet(hit.snippet))
        lines: list[str] = []
        if hit.bookend_start:
            lines.extend(self.line(m) for m in hit.bookend_start)
        if hit.gap_before:
            lines.append(self.gap(hit.gap_before))
        lines.extend(
            self.line(m, "▶" if m.id == hit.match_message_id else " ") for m in hit.window.messages
        )
        if hit.gap_after:
            lines.append(self.gap(hit.gap_after))
        lines.extend(self.line(m) for m in hit.bookend_end)
        print("\n".join(lines))

    def scroll(self, view: ScrollView) -> None:
        window = view.window
        for line in self.header(
            view.meta.title, [view.meta.source, view.meta.when, window.session_id]
        ):
            print(line)
        if view.warning:
            print(f"Note: {view.warning}")
        if window.at_start:
            print("  ┊ start of the session")
        for m in window.messages:
            print(self.line(m, "▶" if m.id == window.anchor_id else " ", ids=True))
        if window.at_end:
            print("  ┊ end of the session")
        first, last = window.messages[0].id, window.messages[-1].id
        base = f"hermes sessions search --session-id {window.session_id} --window {window.width}"
        hints = []
        if not window.at_start:
            hints.append(f"back: {base} --around {first}")
        if not window.at_end:
            hints.append(f"forward: {base} --around {last}")
        for hint in hints:
            print(hint)

    def read(self, result: SessionRead) -> None:
        meta = result.meta
        for line in self.header(
            meta.title,
            [meta.source, meta.when, meta.session_id, f"{result.message_count} messages"],
        ):
            print(line)
        for m in result.head:
            print(self.line(m, ids=True))
        if result.truncated:
            hidden = result.message_count - len(result.head) - len(result.tail)
            print(self.gap(hidden, f" not shown (scroll with --around {result.head[-1].id})"))
            for m in result.tail:
                print(self.line(m, ids=True))
        if not result.head:
            print("  (no messages)")


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``hermes sessions search``."""
    p = sub.add_parser(
        "search",
        help="search conversations (FTS5 syntax), or scroll/read one",
        description=(
            'Search past conversations: words (all must match), "exact phrases", OR, NOT, '
            "prefix*; anything else is searched literally. With --session-id ID: read that "
            "session, or --around MSG_ID to scroll it. With no query: the most recent "
            "conversations."
        ),
    )
    p.add_argument("query", nargs="*", metavar="QUERY", help="what to look for")
    p.add_argument("--limit", default="3", help="conversations to show, 1–10 (default 3)")
    p.add_argument("--sort", help="relevance (default), newest or oldest")
    p.add_argument("--roles", help="comma-separated roles to search (default user,assistant)")
    p.add_argument("--archived", action="store_true", help="include archived conversations")
    p.add_argument("--session-id", metavar="ID", help="read (or with --around, scroll) a session")
    p.add_argument("--around", metavar="MSG_ID", help="scroll: the message to center on")
    p.add_argument("--window", metavar="N", help="scroll: messages each side, 1–20 (default 5)")
    p.add_argument("--json", action="store_true", help="print the session_search tool's JSON")
    p.set_defaults(handler=cmd_search)
