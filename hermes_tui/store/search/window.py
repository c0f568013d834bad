"""Windows of messages around an anchor, bookends, and whole-session reads.

Order is ``messages.id`` (insertion order), as everywhere in Hermes; never the timestamp
(in-place compaction re-inserts kept messages with their old timestamps). A window holds
the *visible* rows: live ones and compacted history (``active=1 OR compacted=1``); rows a
user rewound (``active=0, compacted=0``) never appear. Stores without those columns: every
row is visible.

Finding the neighbours of an anchor by id is the hot path of scrolling (budget 1 ms):

* In a short session (the common case) one query on ``idx_messages_session`` returns the
  nearest ids; it reads every index entry of the session, which is cheap when there are few.
* In a long session (more than :data:`WALK_FROM` messages, e.g. 28,000 rows of a cron
  marathon) the rows next to the anchor are read by rowid instead (``id < ? ORDER BY id
  DESC``), keeping those of the session: O(window) when the session's rows are close
  together, as they are. Only when that walk meets mostly other sessions' rows (at the
  session's edges, or in a busy gateway store) does it fall back to the index.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Iterable, Sequence

from .. import lineage
from ..db import Capabilities
from ..models import Message, message_from_row
from .models import SearchError, SessionMeta, Window

WALK_FROM = 256
WALK_STEPS = (16, 128)
BOOKEND_ROLES = ("user", "assistant")
READ_ALL_UPTO = 30
READ_HEAD = 20
READ_TAIL = 10


# -- sessions ----------------------------------------------------------------------------


def session_meta(
    conn: sqlite3.Connection, caps: Capabilities, session_id: str
) -> SessionMeta | None:
    row = conn.execute(
        f"SELECT s.id, s.source, s.started_at, {caps.session_col('title')} AS title, "
        f"{caps.session_col('model')} AS model, "
        f"{caps.session_col('message_count', '0')} AS message_count, "
        f"{caps.session_col('parent_session_id')} AS parent_session_id, "
        f"{caps.session_col('archived', '0')} AS archived FROM sessions s WHERE s.id = ?",
        (session_id,),
    ).fetchone()
    if row is None:
        return None
    return SessionMeta(
        session_id=row["id"],
        source=row["source"] or "unknown",
        started_at=row["started_at"],
        title=row["title"] or None,
        model=row["model"] or None,
        message_count=int(row["message_count"] or 0),
        parent_session_id=row["parent_session_id"] or None,
        archived=bool(row["archived"] or 0),
    )


def require_meta(conn: sqlite3.Connection, caps: Capabilities, session_id: str) -> SessionMeta:
    meta = session_meta(conn, caps, session_id)
    if meta is None:
        raise SearchError(f"session_id not found: {session_id}")
    return meta


def lineage_root(
    conn: sqlite3.Connection, session_id: str, cache: dict[str, str] | None = None
) -> str:
    """The topmost ancestor through ``parent_session_id`` (any kind of parent), as Hermes
    groups search hits; a missing parent or a cycle stops the walk."""
    if cache is not None and session_id in cache:
        return cache[session_id]
    current, seen = session_id, {session_id}
    while len(seen) < lineage.MAX_DEPTH:
        row = conn.execute(
            "SELECT parent_session_id FROM sessions WHERE id = ?", (current,)
        ).fetchone()
        parent = row[0] if row else None
        if not parent or parent in seen:
            break
        exists = conn.execute("SELECT 1 FROM sessions WHERE id = ?", (parent,)).fetchone()
        if exists is None:
            break
        seen.add(parent)
        current = parent
    if cache is not None:
        cache[session_id] = current
    return current


# -- rows --------------------------------------------------------------------------------

_WANTED = (
    "id",
    "session_id",
    "role",
    "content",
    "timestamp",
    "tool_calls",
    "tool_call_id",
    "tool_name",
    "finish_reason",
    "token_count",
    "active",
    "compacted",
)


@functools.lru_cache(maxsize=32)
def _columns(caps: Capabilities) -> str:
    """The message columns a window shows (reasoning blobs are never read)."""
    return ", ".join(f"m.{c}" for c in _WANTED if c in caps.message_columns or c == "id")


def is_visible(message: Message) -> bool:
    return message.active or message.compacted


def fetch_messages(
    conn: sqlite3.Connection, caps: Capabilities, ids: Iterable[int]
) -> dict[int, Message]:
    wanted = list(dict.fromkeys(ids))
    out: dict[int, Message] = {}
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        marks = ", ".join("?" for _ in chunk)
        sql = f"SELECT {_columns(caps)} FROM messages m WHERE m.id IN ({marks})"
        for row in conn.execute(sql, chunk):
            out[row["id"]] = message_from_row(row)
    return out


def get_message(conn: sqlite3.Connection, caps: Capabilities, message_id: int) -> Message | None:
    row = conn.execute(
        f"SELECT {_columns(caps)} FROM messages m WHERE m.id = ?", (message_id,)
    ).fetchone()
    return None if row is None else message_from_row(row)


def _walk(
    conn: sqlite3.Connection, session_id: str, anchor: int, n: int, before: bool
) -> list[int] | None:
    """The nearest *n* ids of the session by rowid walk, or None if the walk was too long."""
    op, order = ("<", "DESC") if before else (">", "ASC")
    found: list[int] = []
    cursor = anchor
    for step in WALK_STEPS:
        rows = conn.execute(
            f"SELECT id, session_id FROM messages WHERE id {op} ? ORDER BY id {order} LIMIT ?",
            (cursor, step),
        ).fetchall()
        for message_id, owner in rows:
            if owner == session_id:
                found.append(message_id)
                if len(found) == n:
                    return found
        if len(rows) < step:
            return found  # the end of the table: nothing further exists
        cursor = rows[-1][0]
    return None


def _indexed(
    conn: sqlite3.Connection, session_id: str, anchor: int, n: int, before: bool
) -> list[int]:
    op, order = ("<", "DESC") if before else (">", "ASC")
    return [
        row[0]
        for row in conn.execute(
            f"SELECT id FROM messages WHERE session_id = ? AND id {op} ? ORDER BY id {order} "
            "LIMIT ?",
            (session_id, anchor, n),
        )
    ]


def neighbour_ids(
    conn: sqlite3.Connection, session_id: str, anchor: int, n: int, before: bool, size: int
) -> list[int]:
    """Ids of the session's *n* rows nearest to *anchor* on one side, nearest first."""
    if n <= 0:
        return []
    if size > WALK_FROM:
        walked = _walk(conn, session_id, anchor, n, before)
        if walked is not None:
            return walked
    return _indexed(conn, session_id, anchor, n, before)


def _both_sides(
    conn: sqlite3.Connection, session_id: str, anchor: int, n: int, size: int
) -> tuple[list[int], list[int]]:
    """Both sides' nearest ids; one statement for a short session."""
    if size > WALK_FROM:
        return (
            neighbour_ids(conn, session_id, anchor, n, True, size),
            neighbour_ids(conn, session_id, anchor, n, False, size),
        )
    rows = conn.execute(
        "SELECT 0, id FROM (SELECT id FROM messages WHERE session_id = ?1 AND id < ?2 "
        "ORDER BY id DESC LIMIT ?3) UNION ALL SELECT 1, id FROM (SELECT id FROM messages "
        "WHERE session_id = ?1 AND id > ?2 ORDER BY id ASC LIMIT ?3)",
        (session_id, anchor, n),
    ).fetchall()
    return [r[1] for r in rows if r[0] == 0], [r[1] for r in rows if r[0] == 1]


def visible_side(
    conn: sqlite3.Connection,
    caps: Capabilities,
    session_id: str,
    anchor: int,
    n: int,
    before: bool,
    size: int = 0,
    keep: tuple[str, ...] | None = None,
    first: tuple[list[int], dict[int, Message]] | None = None,
) -> list[Message]:
    """The *n* visible messages nearest to *anchor* on one side (optionally only roles
    *keep* with non-empty content), in id order. *first* is a batch of ids (nearest first)
    and their rows already read."""
    out: list[Message] = []
    cursor = anchor
    want = n + 4
    while len(out) < n:
        if first is not None:
            ids, rows = first
            first = None
        else:
            ids = neighbour_ids(conn, session_id, cursor, want, before, size)
            rows = fetch_messages(conn, caps, ids)
        if not ids:
            break
        for message_id in ids:
            message = rows.get(message_id)
            if message is None or not is_visible(message):
                continue
            if keep is not None and (message.role not in keep or not message.content):
                continue
            out.append(message)
            if len(out) == n:
                break
        if len(ids) < want:
            break
        cursor = ids[-1]
        want = min(want * 2, 512)
    out.sort(key=lambda m: m.id)
    return out


def around(
    conn: sqlite3.Connection, caps: Capabilities, session_id: str, anchor: int, n: int, size: int
) -> tuple[list[Message], list[Message]]:
    """The *n* visible messages on each side of *anchor*: in the common case two
    statements (the ids of both sides, then their rows)."""
    want = n + 4
    ids_before, ids_after = _both_sides(conn, session_id, anchor, want, size)
    rows = fetch_messages(conn, caps, ids_before + ids_after)
    before = visible_side(conn, caps, session_id, anchor, n, True, size, first=(ids_before, rows))
    after = visible_side(conn, caps, session_id, anchor, n, False, size, first=(ids_after, rows))
    return before, after


def session_bounds(conn: sqlite3.Connection, session_id: str) -> tuple[int, int, int]:
    """(smallest id, largest id, row count) of the session: one pass over its index entries."""
    lo, hi, count = conn.execute(
        "SELECT MIN(id), MAX(id), COUNT(*) FROM messages WHERE session_id = ?", (session_id,)
    ).fetchone()
    return (int(lo), int(hi), int(count)) if count else (0, -1, 0)


def count_visible(
    conn: sqlite3.Connection,
    caps: Capabilities,
    session_id: str,
    ranges: Sequence[tuple[int, int]],
) -> list[int]:
    """Visible messages of the session with ``lo < id < hi``, for each range, in one pass."""
    if not ranges:
        return []
    sums = ", ".join("COALESCE(SUM(id > ? AND id < ?), 0)" for _ in ranges)
    bounds = [value for pair in ranges for value in pair]
    totals = conn.execute(
        f"SELECT {sums} FROM messages WHERE session_id = ?", (*bounds, session_id)
    ).fetchone()
    if "active" not in caps.message_columns:
        return [int(t) for t in totals]
    compacted = "AND COALESCE(compacted, 0) = 0" if "compacted" in caps.message_columns else ""
    rewound = conn.execute(
        f"SELECT {sums} FROM messages WHERE session_id = ? AND active = 0 {compacted}",
        (*bounds, session_id),
    ).fetchone()
    return [int(t) - int(r) for t, r in zip(totals, rewound, strict=True)]


# -- shapes ------------------------------------------------------------------------------

FAR = 1 << 62


def scroll_window(
    conn: sqlite3.Connection,
    caps: Capabilities,
    session_id: str,
    anchor: Message,
    width: int,
    size: int,
) -> Window:
    """The scroll shape's slice: ±*width* visible messages of every role, anchor included."""
    before, after = around(conn, caps, session_id, anchor.id, width, size)
    return Window(
        session_id=session_id,
        anchor_id=anchor.id,
        messages=(*before, anchor, *after),
        messages_before=len(before),
        messages_after=len(after),
        width=width,
    )


def anchored_view(
    conn: sqlite3.Connection,
    caps: Capabilities,
    session_id: str,
    anchor: Message,
    *,
    width: int = 5,
    bookend: int = 3,
    keep_roles: Sequence[str] = BOOKEND_ROLES,
    size: int = 0,
) -> tuple[tuple[Message, ...], Window, tuple[Message, ...], int, int]:
    """Discovery's view of a hit: (bookend_start, window, bookend_end, gap_before, gap_after).

    As Hermes' ``get_anchored_view``: the window is ±*width* visible messages; rows whose
    role is not in *keep_roles* are then dropped from it (the anchor always stays), while
    ``messages_before/after`` count the whole slice. The bookends are the first and last
    *bookend* user/assistant messages with content *outside* the slice, so they never
    repeat a window message and are empty when the slice reaches that end. The gaps count
    the visible messages between a bookend and the slice (never negative).
    """
    before, after = around(conn, caps, session_id, anchor.id, width, size)
    raw = [*before, anchor, *after]
    keep = set(keep_roles)
    shown = tuple(m for m in raw if m.id == anchor.id or m.role in keep)
    first_id, last_id = raw[0].id, raw[-1].id
    lo, hi = -1, FAR
    if size > WALK_FROM:
        # Long session: learn its id range once, then walk inwards from both ends.
        lo, hi, _ = session_bounds(conn, session_id)
        lo, hi = lo - 1, hi + 1
    start = [
        m
        for m in visible_side(conn, caps, session_id, lo, bookend, False, size, BOOKEND_ROLES)
        if m.id < first_id
    ]
    end = [
        m
        for m in visible_side(conn, caps, session_id, hi, bookend, True, size, BOOKEND_ROLES)
        if m.id > last_id
    ]
    gap_before, gap_after = count_visible(
        conn,
        caps,
        session_id,
        [(start[-1].id if start else -1, first_id), (last_id, end[0].id if end else FAR)],
    )
    window = Window(session_id, anchor.id, shown, len(before), len(after), width)
    return tuple(start), window, tuple(end), gap_before, gap_after


def read_messages(
    conn: sqlite3.Connection, caps: Capabilities, session_id: str
) -> tuple[int, list[Message], list[Message]]:
    """(visible count, head, tail): all when at most 30, else the first 20 and last 10."""
    lo, hi, rows = session_bounds(conn, session_id)
    if rows == 0:
        return 0, [], []
    (count,) = count_visible(conn, caps, session_id, [(lo - 1, hi + 1)])
    size = WALK_FROM + 1  # the bounds are known: walk inwards from them
    if count <= READ_ALL_UPTO:
        return count, visible_side(conn, caps, session_id, lo - 1, READ_ALL_UPTO, False, size), []
    head = visible_side(conn, caps, session_id, lo - 1, READ_HEAD, False, size)
    tail = visible_side(conn, caps, session_id, hi + 1, READ_TAIL, True, size)
    return count, head, tail
