"""Which sessions an export writes, in which order and grouping (read in one snapshot).

* ``session_ids`` — exactly those sessions (``--session-id``); with ``lineage="logical"``
  each becomes its whole compression lineage, root → tip, as one item. With
  ``delete_after_verified`` the item set is everything deleting it removes (its lineage and
  its delegate/subagent runs, :func:`.sessions.conversation_ids`), each in its own file.
* ``conversations`` — each id's whole conversation, as a filter export takes it.
* ``filter`` — the filter engine of prune (:func:`.prune.evaluate`): ended conversations only
  (open ones are reported as spared), archived and pinned included, oldest activity first.
* ``everything`` — every session in the store, conversations by last activity.

Within a conversation the order is the lineage (root → tip), then other segments and the
delegate runs by start time. Sessions that belong together carry the same ``unit``.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable

from .. import lineage
from ..db import Cancelled, Capabilities
from ..errors import SessionNotFound
from ..filters import describe
from ..listing import last_active_sql
from ..prune import Selection, evaluate
from ..units import SessionGraph
from .model import Entry, ExportRequest, Item


def _order(conn: sqlite3.Connection, ids: Iterable[str]) -> list[str]:
    wanted = list(ids)
    if len(wanted) <= 1:
        return wanted
    rows = conn.execute(
        "SELECT id, started_at FROM sessions WHERE id IN (SELECT value FROM json_each(?))",
        (json.dumps(wanted),),
    ).fetchall()
    return [r[0] for r in sorted(rows, key=lambda r: (r[1] or 0.0, r[0]))]


def unit_items(
    conn: sqlite3.Connection,
    root: str,
    segments: Iterable[str],
    going: Iterable[str],
    *,
    logical: bool,
) -> list[Item]:
    """The items of one conversation: its lineage in resume order, then the rest."""
    members = list(segments)
    if len(members) > 1:
        inside = set(members)
        path = [sid for sid in lineage.lineage_path(conn, root) if sid in inside]
    else:
        path = members
    rest = _order(conn, [s for s in members if s not in path]) + _order(conn, going)
    if logical:
        return [Item(tuple(path), root), *(Item((s,), root) for s in rest)]
    return [Item((s,), root) for s in [*path, *rest]]


def _exists(conn: sqlite3.Connection, session_id: str) -> None:
    if conn.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone() is None:
        raise SessionNotFound(session_id)


def _by_id(conn: sqlite3.Connection, request: ExportRequest) -> list[Item]:
    items: list[Item] = []
    logical = request.lineage == "logical"
    for sid in request.session_ids:
        _exists(conn, sid)
        root = lineage.compression_root(conn, sid)
        if request.delete_after_verified:
            members = lineage.lineage_members(conn, sid)
            going, _ = lineage.dependents(conn, members)
            items += unit_items(conn, root, members, going, logical=logical)
        elif logical:
            items.append(Item(tuple(lineage.lineage_path(conn, sid)), root))
        else:
            items.append(Item((sid,), root))
    return items


def _conversations(conn: sqlite3.Connection, request: ExportRequest) -> list[Item]:
    items: list[Item] = []
    seen: set[str] = set()
    for sid in request.conversations:
        _exists(conn, sid)
        root = lineage.compression_root(conn, sid)
        if root in seen:
            continue
        seen.add(root)
        members = lineage.lineage_members(conn, root)
        going, _ = lineage.dependents(conn, members)
        items += unit_items(conn, root, members, going, logical=request.lineage == "logical")
    return items


def _graph_items(
    conn: sqlite3.Connection,
    graph: SessionGraph,
    roots: Iterable[str],
    logical: bool,
    cancelled: Callable[[], bool] | None,
) -> list[Item]:
    items: list[Item] = []
    for root in roots:
        if cancelled is not None and cancelled():
            raise Cancelled()
        unit = graph.unit(root)
        items += unit_items(conn, root, unit.lineage, unit.going, logical=logical)
    return items


def _everything(
    conn: sqlite3.Connection,
    caps: Capabilities,
    logical: bool,
    cancelled: Callable[[], bool] | None,
) -> list[Item]:
    roots = [
        r[0]
        for r in conn.execute(
            f"SELECT s.id, {last_active_sql(caps)} AS last_active FROM sessions s "
            f"WHERE {lineage.listable_sql('s')} ORDER BY last_active, s.id"
        )
    ]
    items = _graph_items(conn, SessionGraph.load(conn, caps), roots, logical, cancelled)
    # Rows no conversation reaches (a parent cycle, say) still belong in "everything".
    covered = {sid for item in items for sid in item.session_ids}
    leftover = [r[0] for r in conn.execute("SELECT id FROM sessions ORDER BY started_at, id")]
    items += [Item((sid,), sid) for sid in leftover if sid not in covered]
    return items


def select(
    conn: sqlite3.Connection,
    caps: Capabilities,
    request: ExportRequest,
    cancelled: Callable[[], bool] | None = None,
) -> tuple[list[Item], tuple[str, ...], str]:
    """(items in order, open conversations a filter matched but left out, description)."""
    if request.session_ids:
        ids = ", ".join(request.session_ids)
        return _by_id(conn, request), (), f"session {ids}"
    if request.conversations:
        n = len(request.conversations)
        return _conversations(conn, request), (), f"{n} selected conversation(s)"
    logical = request.lineage == "logical"
    if request.everything:
        return _everything(conn, caps, logical, cancelled), (), "every session"
    assert request.filter is not None
    selection = Selection("prune", request.filter, include_pinned=True, include_archived=True)
    matches, spared = evaluate(conn, caps, selection, cancelled=cancelled)
    graph = SessionGraph.load(conn, caps)
    items = _graph_items(conn, graph, [m.id for m in matches], logical, cancelled)
    return items, tuple(s.match.tip_id for s in spared), describe(request.filter)


def entries(conn: sqlite3.Connection, caps: Capabilities, ids: list[str]) -> dict[str, Entry]:
    """The list-view facts of these sessions, by id."""
    sql = (
        f"SELECT s.id, s.source, {caps.session_col('title')} AS title, s.started_at, "
        f"s.ended_at, {caps.session_col('model')} AS model, "
        f"COALESCE({caps.session_col('message_count', '0')}, 0) AS message_count "
        "FROM sessions s WHERE s.id IN (SELECT value FROM json_each(?))"
    )
    found: dict[str, Entry] = {}
    for start in range(0, len(ids), 5_000):
        for row in conn.execute(sql, (json.dumps(ids[start : start + 5_000]),)):
            found[row["id"]] = Entry(
                id=row["id"],
                source=str(row["source"] or ""),
                title=row["title"] if isinstance(row["title"], str) else None,
                started_at=float(row["started_at"] or 0.0),
                ended_at=None if row["ended_at"] is None else float(row["ended_at"]),
                model=row["model"] if isinstance(row["model"], str) else None,
                message_count=int(row["message_count"] or 0),
            )
    return found
