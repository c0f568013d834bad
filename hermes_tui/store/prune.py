"""Which conversations a prune or archive would touch: the preview (SPEC §7).

:func:`preview` reads one consistent snapshot and returns every match (oldest activity
first) and every conversation the filters match but the rules spare, with the reason:

* ``open`` — some session of the unit (a lineage segment or a subagent run) has no
  ``ended_at``: a running Hermes may still write to it. Never included.
* ``pinned`` — some session of the unit is pinned, unless ``include_pinned``.
* ``archived`` — prune only: some segment is archived, unless ``include_archived``.
  Archive never matches a conversation that is archived already.

:func:`.execute.execute` takes a preview and re-evaluates exactly the same rules for the
previewed ids inside its write transaction (:func:`evaluate`).
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from . import filters, lineage
from .db import Cancelled, Capabilities, Store
from .filters import FilterError, SessionFilter
from .listing import last_active_sql
from .units import SessionGraph

Action = Literal["prune", "archive"]
SpareReason = Literal["open", "pinned", "archived"]


@dataclass(frozen=True, slots=True)
class Selection:
    """What to act on: the action, its filter (final, defaults applied) and the opt-ins."""

    action: Action
    filter: SessionFilter
    include_pinned: bool = False
    include_archived: bool = False


def prune_selection(
    f: SessionFilter, *, now: float, include_pinned: bool = False, include_archived: bool = False
) -> Selection:
    """A prune: a bare one gets the implicit ``--older-than 90``."""
    return Selection("prune", filters.with_prune_default(f, now), include_pinned, include_archived)


def archive_selection(f: SessionFilter, *, include_pinned: bool = False) -> Selection:
    """An archive: refused without a filter (it would hide every ended conversation)."""
    if f.is_empty():
        raise FilterError(
            "Refusing to archive every ended session: pass at least one filter "
            "(e.g. --newer-than 5h, --source cli, --title codex)."
        )
    return Selection("archive", f, include_pinned, False)


@dataclass(frozen=True, slots=True)
class Match:
    """One logical conversation (as lists show it) and what acting on it touches."""

    id: str  # the conversation's listable row (its lineage root)
    tip_id: str  # the segment lists and resume show
    title: str | None
    source: str
    model: str | None
    started_at: float
    last_active: float
    messages: int  # live-transcript count over the lineage (the counters Hermes keeps)
    session_ids: tuple[str, ...]  # sessions the action changes, sorted
    staying: tuple[str, ...]  # branch/reset children kept (their parent link is cleared)
    archived: bool
    pinned: bool


@dataclass(frozen=True, slots=True)
class Spared:
    match: Match
    reason: SpareReason


@dataclass(frozen=True)
class Preview:
    selection: Selection
    matches: tuple[Match, ...]
    spared: tuple[Spared, ...]
    taken_at: float
    message_rows: int = 0  # every message row the action would delete (inactive included)

    @property
    def action(self) -> Action:
        return self.selection.action

    @property
    def count(self) -> int:
        return len(self.matches)

    @property
    def oldest(self) -> float | None:
        return min((m.last_active for m in self.matches), default=None)

    @property
    def newest(self) -> float | None:
        return max((m.last_active for m in self.matches), default=None)

    @property
    def session_count(self) -> int:
        return sum(len(m.session_ids) for m in self.matches)

    def spared_counts(self) -> dict[SpareReason, int]:
        counts: dict[SpareReason, int] = {"open": 0, "pinned": 0, "archived": 0}
        for s in self.spared:
            counts[s.reason] += 1
        return counts

    def description(self) -> str:
        return filters.describe(self.selection.filter)


def _select_sql(
    caps: Capabilities, selection: Selection, ids: Sequence[str] | None
) -> tuple[str, list[Any]]:
    active = last_active_sql(caps)
    where, params = filters.where_sql(caps, selection.filter, active)
    if ids is not None:
        where += " AND s.id IN (SELECT value FROM json_each(?))"
        params.append(json.dumps(list(ids)))
    total = filters.lineage_total(
        lambda a: f"COALESCE({caps.session_col('message_count', '0', a)}, 0)"
    )
    sql = (
        f"SELECT s.id, s.started_at, {active} AS last_active, s.source, "
        f"{caps.session_col('title')} AS title, {caps.session_col('model')} AS model, "
        f"{total} AS messages, s.ended_at, s.end_reason, "
        f"COALESCE({caps.session_col('archived', '0')}, 0) AS archived, "
        f"COALESCE({caps.session_col('pinned', '0')}, 0) AS pinned "
        f"FROM sessions s WHERE {where} ORDER BY last_active, s.id"
    )
    return sql, params


def _tip(conn: sqlite3.Connection, caps: Capabilities, row: sqlite3.Row) -> tuple[str, Any, Any]:
    """(tip id, title, model) as lists show them: the tip's, else the root's."""
    if row["end_reason"] != "compression":
        return row["id"], row["title"], row["model"]
    tip = lineage.lineage_path(conn, row["id"])[-1]
    found = conn.execute(
        f"SELECT {caps.session_col('title')} AS title, {caps.session_col('model')} AS model "
        "FROM sessions s WHERE s.id = ?",
        (tip,),
    ).fetchone()
    if found is None:
        return row["id"], row["title"], row["model"]
    return tip, found["title"] or row["title"], found["model"] or row["model"]


def _column(row: sqlite3.Row, graph: SessionGraph, session_id: str, name: str) -> object:
    """A column of a unit member: the candidate row itself, or a relative from the graph."""
    return row[name] if session_id == row["id"] else graph.flag(session_id, name)


def evaluate(
    conn: sqlite3.Connection,
    caps: Capabilities,
    selection: Selection,
    ids: Sequence[str] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> tuple[list[Match], list[Spared]]:
    """Matches and spared conversations on *conn* (optionally only the listable *ids*)."""
    filters.register_functions(conn)
    sql, params = _select_sql(caps, selection, ids)
    rows = conn.execute(sql, params).fetchall()
    graph = SessionGraph.load(conn, caps)
    action = selection.action
    matches: list[Match] = []
    spared: list[Spared] = []
    for row in rows:
        if cancelled is not None and cancelled():
            raise Cancelled()
        unit = graph.unit(row["id"])
        members = unit.session_ids
        # A session missing from the graph reads as open: when unsure, spare.
        is_open = any(_column(row, graph, sid, "ended_at") is None for sid in members)
        pinned = any(bool(_column(row, graph, sid, "pinned")) for sid in members)
        archived_lineage = [bool(_column(row, graph, sid, "archived")) for sid in unit.lineage]
        if action == "archive" and all(archived_lineage):
            continue  # already archived: archive is idempotent
        tip_id, title, model = _tip(conn, caps, row)
        touched = unit.lineage if action == "archive" else members
        match = Match(
            id=row["id"],
            tip_id=tip_id,
            title=title,
            source=row["source"],
            model=model,
            started_at=float(row["started_at"] or 0.0),
            last_active=float(row["last_active"] or 0.0),
            messages=int(row["messages"] or 0),
            session_ids=tuple(sorted(touched)),
            staying=tuple(sorted(unit.staying)),
            archived=any(archived_lineage),
            pinned=pinned,
        )
        if is_open:
            spared.append(Spared(match, "open"))
        elif pinned and not selection.include_pinned:
            spared.append(Spared(match, "pinned"))
        elif action == "prune" and match.archived and not selection.include_archived:
            spared.append(Spared(match, "archived"))
        else:
            matches.append(match)
    return matches, spared


def preview(
    store: Store,
    selection: Selection,
    *,
    now: float | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> Preview:
    """What *selection* would change, read in one snapshot. Changes nothing.

    Raises FilterError when a filter needs a column this store lacks."""
    with store.snapshot(cancelled) as conn:
        matches, spared = evaluate(conn, store.capabilities, selection, cancelled=cancelled)
        rows = 0
        if selection.action == "prune" and matches:
            ids = json.dumps([sid for m in matches for sid in m.session_ids])
            rows = conn.execute(
                "SELECT COUNT(*) FROM messages WHERE session_id IN "
                "(SELECT value FROM json_each(?))",
                (ids,),
            ).fetchone()[0]
    taken = time.time() if now is None else now
    return Preview(selection, tuple(matches), tuple(spared), taken, int(rows))
