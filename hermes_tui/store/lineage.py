"""How sessions relate: compression lineages, branches, resets and delegate children.

A child session is classified by its parent (HERMES_AGENT_BEHAVIOUR.md §1.6):

* **branch** — ``/branch``: ``model_config._branched_from`` names the parent, or the parent
  ended ``'branched'`` before the child started. A separate conversation.
* **reset** — a gateway ``/new``/reset: ``_reset_from`` names the parent, or the parent
  ended with a reset reason and both share a non-empty ``session_key``. Separate too.
* **delegate** — a subagent run (``_delegate_from`` names the parent). Part of its parent.
* **compression** — the parent ended ``'compression'`` and the child is none of the above:
  the same conversation, continued. A lineage is root → … → tip.
* anything else is treated like a delegate (ephemeral, goes with its parent), as Hermes does.

Markers are compared with the parent's id, so a marker a continuation inherited from its
root (Hermes copies ``model_config``) does not make it look like a branch.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable

RESET_REASONS = (
    "new_session",
    "session_reset",
    "idle",
    "daily",
    "suspended",
    "resume_pending_expired",
)
_RESET_SQL = ", ".join(f"'{r}'" for r in RESET_REASONS)
MAX_DEPTH = 256


def _marker_sql(alias: str, marker: str) -> str:
    return (
        f"(CASE WHEN json_valid({alias}.model_config) "
        f"THEN json_extract({alias}.model_config, '$.{marker}') END)"
    )


def _delegate_marker_sql(a: str) -> str:
    return f"{_marker_sql(a, '_delegate_from')} IS {a}.parent_session_id"


def branch_sql(a: str = "s") -> str:
    """Explicit markers win over the legacy end-reason heuristics (a delegate child that
    started after its parent ended is still a delegate)."""
    return (
        f"({_marker_sql(a, '_branched_from')} = {a}.parent_session_id"
        f" OR (NOT {_delegate_marker_sql(a)} AND EXISTS (SELECT 1 FROM sessions bp"
        f" WHERE bp.id = {a}.parent_session_id AND bp.end_reason = 'branched'"
        f" AND {a}.started_at >= bp.ended_at)))"
    )


def reset_sql(a: str = "s") -> str:
    return (
        f"({_marker_sql(a, '_reset_from')} = {a}.parent_session_id"
        f" OR (NOT {_delegate_marker_sql(a)} AND EXISTS (SELECT 1 FROM sessions rp"
        f" WHERE rp.id = {a}.parent_session_id AND rp.end_reason IN ({_RESET_SQL})"
        f" AND {a}.session_key IS NOT NULL AND {a}.session_key != ''"
        f" AND {a}.session_key = rp.session_key)))"
    )


def orphan_sql(a: str = "s") -> str:
    return (
        f"({a}.parent_session_id IS NOT NULL AND NOT EXISTS "
        f"(SELECT 1 FROM sessions op WHERE op.id = {a}.parent_session_id))"
    )


def listable_sql(a: str = "s") -> str:
    """Rows that stand for a conversation in lists: roots, orphans, branches and resets."""
    return (
        f"({a}.parent_session_id IS NULL OR {orphan_sql(a)} OR {branch_sql(a)} OR {reset_sql(a)})"
    )


def continuation_sql(child: str, parent: str) -> str:
    """*child* continues *parent* by compression (the parent row is joined as *parent*)."""
    return (
        f"({parent}.end_reason = 'compression'"
        f" AND {child}.parent_session_id = {parent}.id"
        f" AND {_marker_sql(child, '_branched_from')} IS NOT {parent}.id"
        f" AND {_marker_sql(child, '_delegate_from')} IS NOT {parent}.id"
        f" AND {_marker_sql(child, '_reset_from')} IS NOT {parent}.id)"
    )


def lineage_cte(start: str) -> str:
    """``WITH RECURSIVE lin(id)``: *start* (an SQL expression) and its compression descendants."""
    return (
        f"WITH RECURSIVE lin(id) AS (SELECT {start} "
        f"UNION SELECT c.id FROM lin JOIN sessions p ON p.id = lin.id "
        f"JOIN sessions c ON c.parent_session_id = p.id WHERE {continuation_sql('c', 'p')})"
    )


def _marker(model_config: str | None, name: str) -> object:
    if not model_config:
        return None
    try:
        value = json.loads(model_config)
    except (ValueError, TypeError):
        return None
    return value.get(name) if isinstance(value, dict) else None


def child_kind(parent: sqlite3.Row, child: sqlite3.Row) -> str:
    """``branch`` | ``reset`` | ``delegate`` | ``compression`` | ``other`` (see module doc).

    Explicit markers naming this parent decide first; then Hermes' legacy heuristics."""
    config = child["model_config"]
    pid = parent["id"]
    if _marker(config, "_branched_from") == pid:
        return "branch"
    if _marker(config, "_reset_from") == pid:
        return "reset"
    if _marker(config, "_delegate_from") == pid:
        return "delegate"
    ended = parent["ended_at"]
    if (
        parent["end_reason"] == "branched"
        and ended is not None
        and (child["started_at"] or 0) >= ended
    ):
        return "branch"
    key = child["session_key"]
    if parent["end_reason"] in RESET_REASONS and key and key == parent["session_key"]:
        return "reset"
    if parent["end_reason"] == "compression":
        return "compression"
    return "other"


_ROW_COLS = "id, parent_session_id, end_reason, ended_at, started_at, model_config, session_key"


def _row(conn: sqlite3.Connection, session_id: str) -> sqlite3.Row | None:
    return conn.execute(f"SELECT {_ROW_COLS} FROM sessions WHERE id = ?", (session_id,)).fetchone()


def children(conn: sqlite3.Connection, session_id: str) -> list[sqlite3.Row]:
    return conn.execute(
        f"SELECT {_ROW_COLS} FROM sessions WHERE parent_session_id = ? ORDER BY started_at, id",
        (session_id,),
    ).fetchall()


def continuations(conn: sqlite3.Connection, parent: sqlite3.Row) -> list[sqlite3.Row]:
    if parent["end_reason"] != "compression":
        return []
    return [c for c in children(conn, parent["id"]) if child_kind(parent, c) == "compression"]


def compression_root(conn: sqlite3.Connection, session_id: str) -> str:
    """The first segment of the conversation *session_id* belongs to."""
    ancestors = compression_ancestors(conn, session_id)
    return ancestors[-1] if ancestors else session_id


def _last_message_time(conn: sqlite3.Connection, session_id: str) -> float:
    row = conn.execute(
        "SELECT MAX(timestamp) FROM messages WHERE session_id = ?", (session_id,)
    ).fetchone()
    return float(row[0] or 0.0)


def _forward(conn: sqlite3.Connection, start: sqlite3.Row, seen: set[str]) -> list[str]:
    path: list[str] = []
    current = start
    while len(seen) < MAX_DEPTH:
        step = compression_tip_step(conn, current, seen)
        if step is None:
            break
        seen.add(step["id"])
        path.append(step["id"])
        current = step
    return path


def compression_tip_step(
    conn: sqlite3.Connection, current: sqlite3.Row, seen: set[str]
) -> sqlite3.Row | None:
    """The continuation a resume follows. Among several (a retried compression) prefer
    one that was itself compressed, then a live one, then the latest message (as Hermes)."""
    nexts = [c for c in continuations(conn, current) if c["id"] not in seen]
    if not nexts:
        return None
    return max(
        nexts,
        key=lambda c: (
            c["end_reason"] == "compression",
            c["ended_at"] is None,
            _last_message_time(conn, c["id"]),
            c["started_at"] or 0.0,
        ),
    )


def compression_tip(conn: sqlite3.Connection, session_id: str) -> str:
    """Follow compression forward from *session_id* to the segment a resume continues."""
    start = _row(conn, session_id)
    if start is None:
        return session_id
    path = _forward(conn, start, {session_id})
    return path[-1] if path else session_id


def compression_ancestors(conn: sqlite3.Connection, session_id: str) -> list[str]:
    """The segments *session_id* continues by compression, nearest first."""
    current = _row(conn, session_id)
    ancestors: list[str] = []
    seen = {session_id}
    while current is not None and len(ancestors) < MAX_DEPTH:
        pid = current["parent_session_id"]
        parent = _row(conn, pid) if pid else None
        if parent is None or parent["id"] in seen or child_kind(parent, current) != "compression":
            break
        seen.add(parent["id"])
        ancestors.append(parent["id"])
        current = parent
    return ancestors


def lineage_path(conn: sqlite3.Connection, session_id: str) -> list[str]:
    """Root → … → *session_id* → … → tip: the segments a resume of it reads, in order."""
    start = _row(conn, session_id)
    if start is None:
        return [session_id]
    up = compression_ancestors(conn, session_id)
    return [*reversed(up), session_id, *_forward(conn, start, {session_id, *up})]


def lineage_members(conn: sqlite3.Connection, session_id: str) -> list[str]:
    """Every segment of the conversation: the root and all compression descendants."""
    root = compression_root(conn, session_id)
    members = [root]
    frontier = [root]
    seen = {root}
    while frontier:
        row = _row(conn, frontier.pop())
        if row is None:
            continue
        for child in continuations(conn, row):
            if child["id"] not in seen:
                seen.add(child["id"])
                members.append(child["id"])
                frontier.append(child["id"])
    return members


def dependents(conn: sqlite3.Connection, session_ids: Iterable[str]) -> tuple[list[str], list[str]]:
    """For a set being deleted: (delegate/other descendants that go with it,
    branch/reset children that stay and become roots)."""
    doomed = list(dict.fromkeys(session_ids))
    seen = set(doomed)
    going: list[str] = []
    staying: list[str] = []
    frontier = list(doomed)
    while frontier:
        parent = _row(conn, frontier.pop())
        if parent is None:
            continue
        for child in children(conn, parent["id"]):
            if child["id"] in seen:
                continue
            seen.add(child["id"])
            if child_kind(parent, child) in ("branch", "reset"):
                staying.append(child["id"])
            else:
                going.append(child["id"])
                frontier.append(child["id"])
    return going, staying
