"""Listing conversations: keyset pages of logical conversations, filtered in SQL.

One row per logical conversation: the listable session (root, branch, reset or orphan)
stands for its compression lineage and is projected to the lineage's tip. Filters are in
the SQL before the LIMIT (never "fetch N, then filter"); previews, tips and last activity
are computed only for the rows of the page.

Two orders:

* ``started`` — by the conversation's start, newest first. Walks ``idx_sessions_started``
  and stops after ``limit + 1`` matching rows: O(page) work, whatever the store's size.
* ``last_active`` — by the newest message of the conversation. There is no column or index
  for that in Hermes' schema (and we never add one to a user's store), so the key is one
  ``idx_messages_session`` probe per candidate row: O(candidates · log messages).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from . import lineage
from .db import Capabilities, Store
from .messages import live_filter
from .models import IMPORTED_SOURCES, Page, SessionRow, decode_content
from .text import preview as make_preview
from .text import real_user_text

Sort = Literal["last_active", "started"]
ArchivedMode = Literal["hide", "include", "only"]


@dataclass(frozen=True)
class ListQuery:
    """What to list. Every field is applied in SQL before the page limit."""

    sort: Sort = "started"
    source: str | None = None
    exclude_sources: tuple[str, ...] = ("tool",)
    workspace: str | None = None
    workspace_needle: str | None = None
    archived: ArchivedMode = "hide"
    pinned_only: bool = False
    pinned_first: bool = False
    text: str | None = None


def escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def workspace_sql(caps: Capabilities, a: str = "s") -> str:
    return (
        f"COALESCE(NULLIF({caps.session_col('git_repo_root', 'NULL', a)}, ''), "
        f"NULLIF({caps.session_col('cwd', 'NULL', a)}, ''))"
    )


def last_active_sql(caps: Capabilities, a: str = "s") -> str:
    """Newest message of the conversation *a* stands for (its lineage), else its start."""
    own = f"(SELECT MAX(m.timestamp) FROM messages m WHERE m.session_id = {a}.id)"
    whole = (
        f"({lineage.lineage_cte(f'{a}.id')} "
        f"SELECT MAX(m.timestamp) FROM messages m WHERE m.session_id IN (SELECT id FROM lin))"
    )
    return (
        f"COALESCE(CASE WHEN {a}.end_reason = 'compression' THEN {whole} ELSE {own} END, "
        f"{a}.started_at)"
    )


def _first_user_sql(a: str = "s") -> str:
    return (
        f"(SELECT m.content FROM messages m WHERE m.session_id = {a}.id AND m.role = 'user' "
        f"ORDER BY m.timestamp, m.id LIMIT 1)"
    )


def _filters(caps: Capabilities, query: ListQuery) -> tuple[list[str], list[Any]]:
    where = [lineage.listable_sql("s")]
    params: list[Any] = []
    if query.source:
        where.append("s.source = ?")
        params.append(query.source)
    elif query.exclude_sources:
        where.append(f"s.source NOT IN ({', '.join('?' for _ in query.exclude_sources)})")
        params.extend(query.exclude_sources)
    if query.workspace:
        where.append(f"{workspace_sql(caps)} = ?")
        params.append(query.workspace)
    if query.workspace_needle:
        where.append(f"LOWER({workspace_sql(caps)}) LIKE ? ESCAPE '\\'")
        params.append(f"%{escape_like(query.workspace_needle.lower())}%")
    archived = caps.session_col("archived", "0")
    if query.archived == "hide":
        where.append(f"COALESCE({archived}, 0) = 0")
    elif query.archived == "only":
        where.append(f"{archived} = 1")
    if query.pinned_only:
        where.append(f"{caps.session_col('pinned', '0')} = 1")
    if query.text and query.text.strip():
        needle = f"%{escape_like(query.text.strip())}%"
        title = caps.session_col("title")
        tip_match = (
            f"(s.end_reason = 'compression' AND EXISTS ({lineage.lineage_cte('s.id')} "
            f"SELECT 1 FROM lin JOIN sessions x ON x.id = lin.id "
            f"WHERE x.id LIKE ? ESCAPE '\\' OR {caps.session_col('title', 'NULL', 'x')} LIKE ? "
            f"ESCAPE '\\'))"
        )
        where.append(
            f"(s.id LIKE ? ESCAPE '\\' OR {title} LIKE ? ESCAPE '\\' "
            f"OR {_first_user_sql()} LIKE ? ESCAPE '\\' OR {tip_match})"
        )
        params.extend([needle] * 5)
    return where, params


def _phases(caps: Capabilities, query: ListQuery) -> list[str]:
    """Extra conditions run one after another (pinned rows first when asked)."""
    if query.pinned_first and not query.pinned_only and "pinned" in caps.session_columns:
        return ["s.pinned = 1", "COALESCE(s.pinned, 0) = 0"]
    return ["1"]


def count_sessions(
    store: Store, query: ListQuery, cancelled: Callable[[], bool] | None = None
) -> int:
    """How many conversations match (for "N of M"); may read every candidate row."""
    where, params = _filters(store.capabilities, query)
    with store.read(cancelled) as conn:
        row = conn.execute(f"SELECT COUNT(*) FROM sessions s WHERE {' AND '.join(where)}", params)
        return int(row.fetchone()[0])


def _page_ids(
    conn: sqlite3.Connection,
    caps: Capabilities,
    query: ListQuery,
    cursor: tuple[Any, ...] | None,
    limit: int,
) -> tuple[list[tuple[str, float]], tuple[Any, ...] | None]:
    where, params = _filters(caps, query)
    key = "s.started_at" if query.sort == "started" else last_active_sql(caps)
    phases = _phases(caps, query)
    found: list[tuple[str, float, int]] = []
    phase_index, after_key, after_id = (cursor or (0, None, None))[:3]
    for index in range(int(phase_index), len(phases)):
        want = limit + 1 - len(found)
        if want <= 0:
            break
        clauses = [*where, phases[index]]
        args = list(params)
        inner = f"SELECT s.id AS id, {key} AS k FROM sessions s WHERE {' AND '.join(clauses)}"
        resume = after_key is not None and index == phase_index
        if query.sort == "started":
            sql = inner
            if resume:
                sql += " AND s.started_at <= ? AND (s.started_at < ? OR s.id < ?)"
                args += [after_key, after_key, after_id]
            sql += " ORDER BY s.started_at DESC, s.id DESC LIMIT ?"
        else:
            sql = f"SELECT id, k FROM ({inner})"
            if resume:
                sql += " WHERE k < ? OR (k = ? AND id < ?)"
                args += [after_key, after_key, after_id]
            sql += " ORDER BY k DESC, id DESC LIMIT ?"
        args.append(want)
        found.extend((row[0], row[1], index) for row in conn.execute(sql, args))
    if len(found) <= limit:
        return [(sid, k) for sid, k, _ in found], None
    last_id, last_key, last_phase = found[limit - 1]
    return [(sid, k) for sid, k, _ in found[:limit]], (last_phase, last_key, last_id)


def _preview(conn: sqlite3.Connection, caps: Capabilities, members: Sequence[str]) -> str:
    """The first real user message of the conversation, one line, 60 characters."""
    live = live_filter(caps, include_compacted=True)
    fallback = ""
    for member in members:
        rows = conn.execute(
            f"SELECT m.content FROM messages m WHERE m.session_id = ? AND m.role = 'user' "
            f"AND {live} ORDER BY m.timestamp, m.id LIMIT 8",
            (member,),
        ).fetchall()
        for row in rows:
            text = decode_content(row[0]) or ""
            real = real_user_text(text)
            if real:
                return make_preview(real)
            fallback = fallback or make_preview(text)
    return fallback


def build_row(conn: sqlite3.Connection, caps: Capabilities, session_id: str) -> SessionRow | None:
    """Project one listable session to the row lists show (tip, preview, activity)."""
    root = conn.execute("SELECT * FROM sessions WHERE id = ?", (session_id,)).fetchone()
    if root is None:
        return None
    members = (
        lineage.lineage_path(conn, session_id)
        if root["end_reason"] == "compression"
        else [session_id]
    )
    tip_id = members[-1]
    tip = (
        root
        if tip_id == session_id
        else conn.execute("SELECT * FROM sessions WHERE id = ?", (tip_id,)).fetchone()
    )
    marks = ", ".join("?" for _ in members)
    totals = conn.execute(
        f"SELECT SUM(COALESCE(message_count, 0)) FROM sessions WHERE id IN ({marks})", members
    ).fetchone()
    last = conn.execute(
        f"SELECT MAX(timestamp) FROM messages WHERE session_id IN ({marks})", members
    ).fetchone()
    keys = root.keys()
    tip_keys = tip.keys()

    def tip_get(name: str) -> Any:
        return tip[name] if name in tip_keys else None

    def root_get(name: str) -> Any:
        return root[name] if name in keys else None

    return SessionRow(
        id=tip_id,
        root_id=session_id,
        source=root["source"],
        title=tip_get("title") or root_get("title"),
        preview=_preview(conn, caps, members),
        started_at=float(root["started_at"] or 0.0),
        last_active=float(last[0] if last and last[0] is not None else tip["started_at"] or 0.0),
        message_count=int(totals[0] or 0),
        segments=len(members),
        model=tip_get("model") or root_get("model"),
        workspace=(tip_get("git_repo_root") or tip_get("cwd") or None),
        archived=bool(root_get("archived") or 0),
        pinned=bool(root_get("pinned") or 0),
        is_open=tip["ended_at"] is None and root["source"] not in IMPORTED_SOURCES,
        end_reason=tip_get("end_reason"),
        parent_session_id=root_get("parent_session_id"),
    )


def list_sessions(
    store: Store,
    query: ListQuery | None = None,
    *,
    cursor: tuple[Any, ...] | None = None,
    limit: int = 50,
    cancelled: Callable[[], bool] | None = None,
) -> Page[SessionRow]:
    """One page of conversations; pass ``page.next_cursor`` back for the next one."""
    query = query or ListQuery()
    caps = store.capabilities
    with store.snapshot(cancelled) as conn:
        ids, next_cursor = _page_ids(conn, caps, query, cursor, max(1, limit))
        rows = [build_row(conn, caps, sid) for sid, _ in ids]
    return Page(tuple(r for r in rows if r is not None), next_cursor)


def get_row(store: Store, session_id: str) -> SessionRow | None:
    """The list row of the conversation *session_id* belongs to."""
    with store.snapshot() as conn:
        caps = store.capabilities
        root = lineage.compression_root(conn, session_id)
        return build_row(conn, caps, root)
