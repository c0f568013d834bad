"""The browse, scroll and read shapes (no query)."""

from __future__ import annotations

from collections.abc import Callable

from .. import lineage
from ..db import Cancelled, Store
from ..listing import ListQuery, list_sessions
from ..models import SessionRow
from .models import ScrollView, SearchError, SessionRead
from .pool import pooled_read
from .window import get_message, lineage_root, read_messages, require_meta, scroll_window

BROWSE_SOURCES = ("tool", "subagent")
MAX_WINDOW = 20
MAX_PAGES = 5


def browse(
    store: Store,
    *,
    limit: int = 3,
    exclude_lineage_of: str | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> tuple[SessionRow, ...]:
    """The most recently active conversations (tips of their lineages), as Hermes' browse:
    archived, ``tool``/``subagent`` sessions, branches and the caller's own conversation
    left out."""
    if cancelled is not None and cancelled():
        raise Cancelled()
    query = ListQuery(sort="last_active", exclude_sources=BROWSE_SOURCES)
    exclude_root = None
    if exclude_lineage_of:
        with store.read(cancelled) as conn:
            exclude_root = lineage_root(conn, exclude_lineage_of)
    rows: list[SessionRow] = []
    cursor = None
    for _ in range(MAX_PAGES):
        page = list_sessions(store, query, cursor=cursor, limit=limit + 5, cancelled=cancelled)
        for row in page.items:
            if row.parent_session_id:
                continue
            if exclude_lineage_of and (
                row.root_id == exclude_root or exclude_lineage_of in (row.id, row.root_id)
            ):
                continue
            rows.append(row)
            if len(rows) >= limit:
                return tuple(rows)
        if not page.has_more:
            break
        cursor = page.next_cursor
    return tuple(rows)


def scroll(
    store: Store,
    session_id: str,
    around_message_id: int,
    *,
    window: int = 5,
    exclude_lineage_of: str | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> ScrollView:
    """±*window* messages around a message of a session (the scroll shape).

    Pass ``messages[-1].id`` to go forward, ``messages[0].id`` to go back: that boundary
    message appears in both windows. If the message lives in another segment of the same
    compression lineage, the window is taken there, with a warning (as Hermes). The anchor
    itself is shown even if it was rewound; its neighbours are the visible messages."""
    if not 1 <= window <= MAX_WINDOW:
        raise SearchError(f"window must be between 1 and {MAX_WINDOW}")
    caps = store.capabilities
    with pooled_read(store, cancelled) as conn:
        meta = require_meta(conn, caps, session_id)
        anchor = get_message(conn, caps, around_message_id)
        warning = None
        if anchor is not None and anchor.session_id != session_id:
            owner = anchor.session_id
            if lineage.compression_root(conn, owner) != lineage.compression_root(conn, session_id):
                anchor = None
            else:
                warning = (
                    f"around_message_id {around_message_id} lives in {owner} "
                    f"(child of {session_id}); rebound transparently"
                )
                meta = require_meta(conn, caps, owner)
        if anchor is None:
            raise SearchError(
                f"around_message_id {around_message_id} not in session_id {session_id}"
            )
        if exclude_lineage_of:
            roots: dict[str, str] = {}
            own = lineage_root(conn, exclude_lineage_of, roots)
            if (
                anchor.session_id == exclude_lineage_of
                or lineage_root(conn, anchor.session_id, roots) == own
            ):
                raise SearchError(
                    "scroll rejected: anchor lives in the current session lineage "
                    "(already in your active context)"
                )
        view = scroll_window(conn, caps, meta.session_id, anchor, window, meta.message_count)
    return ScrollView(meta, view, warning)


def read_session(
    store: Store, session_id: str, *, cancelled: Callable[[], bool] | None = None
) -> SessionRead:
    """A session's messages: all of them up to 30, else the first 20 and the last 10."""
    caps = store.capabilities
    with pooled_read(store, cancelled) as conn:
        meta = require_meta(conn, caps, session_id)
        count, head, tail = read_messages(conn, caps, session_id)
    return SessionRead(meta, count, tuple(head), tuple(tail))
