"""Writing one reconstructed transcript into the store, idempotently.

The session id is derived from the foreign session id (``YYYYMMDD_HHMMSS_<8 hex>``: its
start in local time and hex digits of a hash), and ``origin_json.imported_from`` records
the foreign id, file, size and SHA-256, so a re-import finds the same row. Every message
row carries the id of its foreign record(s) in ``platform_message_id``; a re-import
inserts the rows not yet stored, updates rows whose record grew (an API message whose
last lines arrived later), and hides (``active = 0``, as Hermes' rewind does) rows a
later rewind abandoned. Counters and token totals are recomputed in the same
transaction, so they stay exact. One write transaction per session.

Imported sessions are left open (``ended_at`` NULL), as upstream Hermes leaves them:
Hermes' automatic maintenance prunes *ended* sessions past ``retention_days``, and an
ended import of old history would be deleted by it — often when Claude Code has
already removed the transcript (it keeps 30 days), so it could not be imported again.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from dataclasses import dataclass, field
from typing import Any

from ..db import Capabilities, Store
from ..messages import NewMessage, encode_content, insert_message, live_filter
from ..sessions import NewSession, insert_session
from .identity import apply_import_title, session_id_for
from .sync import Diff, diff_rows, stored_rows
from .transcript import Transcript

_ID_ATTEMPTS = 4


@dataclass(slots=True)
class SessionOutcome:
    """What happened (or, in a dry run, would happen) to one foreign session."""

    tool: str
    path: str
    foreign_id: str
    status: str  # created | updated | unchanged | skipped | failed
    session_id: str | None = None
    reason: str | None = None
    added: int = 0
    updated: int = 0
    hidden: int = 0
    messages: int = 0
    title: str | None = None
    parent_session_id: str | None = None
    started_at: float | None = None


@dataclass(slots=True)
class _Plan:
    status: str
    session_id: str
    reason: str | None = None
    existing: sqlite3.Row | None = None
    origin: dict[str, Any] = field(default_factory=dict)
    diff: Diff | None = None
    attach: bool = False


def _origin_column(caps: Capabilities) -> str:
    # Older stores without origin_json keep the marker in model_config.
    return "origin_json" if "origin_json" in caps.session_columns else "model_config"


def _load(text: str | None) -> dict[str, Any]:
    try:
        value = json.loads(text or "{}")
    except (ValueError, TypeError):
        return {}
    return value if isinstance(value, dict) else {}


def _imported_from(row: sqlite3.Row, caps: Capabilities) -> dict[str, Any]:
    value = _load(row[_origin_column(caps)]).get("imported_from")
    return value if isinstance(value, dict) else {}


def _find(conn: sqlite3.Connection, caps: Capabilities, t: Transcript) -> tuple[str, Any]:
    """(id to use, existing row or None): by primary key first, then by foreign id."""
    free: str | None = None
    for attempt in range(_ID_ATTEMPTS):
        sid = session_id_for(t, attempt)
        row = conn.execute("SELECT * FROM sessions WHERE id = ?", (sid,)).fetchone()
        if row is None:
            free = free or sid
        elif row["source"] == t.tool and _imported_from(row, caps).get("foreign_session_id") == (
            t.foreign_id
        ):
            return sid, row
    found = imported_session_id(conn, caps, t.tool, t.foreign_id)
    if found is not None:
        return found, conn.execute("SELECT * FROM sessions WHERE id = ?", (found,)).fetchone()
    if free is None:
        raise RuntimeError(f"no free session id for {t.foreign_id}")
    return free, None


def imported_session_id(
    conn: sqlite3.Connection, caps: Capabilities, tool: str, foreign_id: str
) -> str | None:
    """The session an earlier import made of this foreign session, if any."""
    column = _origin_column(caps)
    row = conn.execute(
        f"SELECT id FROM sessions WHERE source = ? AND json_valid({column}) "
        f"AND json_extract({column}, '$.imported_from.foreign_session_id') = ? "
        "ORDER BY started_at, id LIMIT 1",
        (tool, foreign_id),
    ).fetchone()
    return None if row is None else str(row[0])


@dataclass(frozen=True, slots=True)
class Imported:
    """An earlier import, as the fast "unchanged file" check needs it."""

    session_id: str
    foreign_id: str
    has_parent: bool
    messages: int
    title: str | None


def imported_by_hash(store: Store, tool: str) -> dict[str, Imported]:
    """Earlier imports of *tool* by the SHA-256 of their file: one query per run, so an
    unchanged transcript is recognised without being parsed."""
    caps = store.capabilities
    column = _origin_column(caps)
    title = caps.session_col("title", alias="sessions")
    with store.read() as conn:
        rows = conn.execute(
            f"SELECT id, json_extract({column}, '$.imported_from.content_sha256'), "
            f"json_extract({column}, '$.imported_from.foreign_session_id'), "
            f"parent_session_id, message_count, {title} FROM sessions "
            f"WHERE source = ? AND json_valid({column})",
            (tool,),
        ).fetchall()
    return {
        str(r[1]): Imported(str(r[0]), str(r[2]), r[3] is not None, int(r[4] or 0), r[5])
        for r in rows
        if isinstance(r[1], str) and isinstance(r[2], str)
    }


def _appended(previous: dict[str, Any], t: Transcript, data: bytes) -> bool:
    """Is the file what was imported last time plus more lines (an append-only log)?"""
    size = previous.get("byte_size")
    if not isinstance(size, int) or size > len(data):
        return False
    return hashlib.sha256(data[:size]).hexdigest() == previous.get("content_sha256")


def _plan(
    conn: sqlite3.Connection,
    caps: Capabilities,
    t: Transcript,
    data: bytes,
    parent_id: str | None,
) -> _Plan:
    sid, existing = _find(conn, caps, t)
    if existing is None:
        return _Plan("created", sid, diff=diff_rows([], t.rows, hide=False))
    previous = _imported_from(existing, caps)
    attach = parent_id is not None and existing["parent_session_id"] is None
    plan = _Plan("unchanged", sid, existing=existing, origin=previous, attach=attach)
    if previous.get("content_sha256") == t.content_sha256 and not attach:
        return plan
    stored = stored_rows(conn, caps, sid)
    if stored and all(row.key is None for row in stored):
        plan.status, plan.reason = "skipped", "already imported by another tool (kept as is)"
        return plan
    if any(row.key is None for row in stored):
        plan.status, plan.reason = "skipped", "continued in Hermes since it was imported"
        return plan
    appended = _appended(previous, t, data)
    # A TypeScript-era Codex file is rewritten on every turn: add and update, never hide.
    if not appended and not t.path.name.endswith(".json"):
        plan.status = "skipped"
        plan.reason = "the file changed in place since the last import; kept the imported copy"
        return plan
    plan.diff = diff_rows(stored, t.rows, hide=appended)
    plan.status = "updated"
    return plan


def _origin(t: Transcript, previous: dict[str, Any], now: float) -> dict[str, Any]:
    last = "last_foreign_uuid" if t.tool == "claude-code" else "last_foreign_line"
    return {
        **t.origin,
        "tool": t.tool,
        "path": str(t.path),
        "foreign_session_id": t.foreign_id,
        "imported_at": previous.get("imported_at", now),
        "refreshed_at": now,
        "source_started_at": t.started_at,
        "source_ended_at": t.ended_at,
        "content_sha256": t.content_sha256,
        "byte_size": t.byte_size,
        last: t.last_record,
        "cli_version": t.cli_version,
        "parent_foreign_session_id": t.parent_foreign_id,
        "usage": t.usage.as_dict(),
    }


def _message(row: Any) -> NewMessage:
    return NewMessage(
        role=row.role,
        content=row.content,
        tool_calls=list(row.tool_calls) or None,
        tool_call_id=row.tool_call_id,
        tool_name=row.tool_name,
        reasoning=row.reasoning,
        finish_reason=row.finish_reason,
        timestamp=row.timestamp,
        platform_message_id=row.key,
    )


def _apply_diff(conn: sqlite3.Connection, caps: Capabilities, sid: str, diff: Diff) -> None:
    for row in diff.inserts:
        insert_message(conn, caps, sid, _message(row))
    columns = [
        c
        for c in ("content", "tool_calls", "reasoning", "tool_call_id", "tool_name")
        if c in caps.message_columns
    ]
    for message_id, row in diff.updates:
        values = {
            "content": encode_content(row.content),
            "tool_calls": json.dumps(list(row.tool_calls), ensure_ascii=False)
            if row.tool_calls
            else None,
            "reasoning": row.reasoning,
            "tool_call_id": row.tool_call_id,
            "tool_name": row.tool_name,
        }
        sets = ", ".join(f"{c} = ?" for c in columns)
        conn.execute(
            f"UPDATE messages SET {sets} WHERE id = ?", (*(values[c] for c in columns), message_id)
        )
    if "active" in caps.message_columns:
        for flag, ids in ((0, diff.hide), (1, diff.show)):
            conn.executemany(
                "UPDATE messages SET active = ? WHERE id = ?", [(flag, i) for i in ids]
            )


def _refresh(
    conn: sqlite3.Connection, caps: Capabilities, sid: str, t: Transcript, origin: dict[str, Any]
) -> int:
    """Recompute the counters from the live rows, set the foreign token totals; returns
    the live message count."""
    count, calls = conn.execute(
        "SELECT COUNT(*), COALESCE(SUM(CASE WHEN json_valid(m.tool_calls) "
        "THEN json_array_length(m.tool_calls) ELSE 0 END), 0) "
        f"FROM messages m WHERE m.session_id = ? AND {live_filter(caps)}",
        (sid,),
    ).fetchone()
    usage = t.usage
    values: dict[str, Any] = {
        "message_count": count,
        "tool_call_count": calls,
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cache_read_tokens": usage.cache_read_tokens,
        "cache_write_tokens": usage.cache_write_tokens,
        "reasoning_tokens": usage.reasoning_tokens,
        "api_call_count": usage.api_calls,
    }
    if t.model:
        values["model"] = t.model
    column = _origin_column(caps)
    row = conn.execute(f"SELECT {column} FROM sessions WHERE id = ?", (sid,)).fetchone()
    values[column] = json.dumps(
        {**_load(row[0]), "imported_from": origin}, ensure_ascii=False, sort_keys=True
    )
    values = {k: v for k, v in values.items() if k in caps.session_columns}
    sets = ", ".join(f"{k} = ?" for k in values)
    conn.execute(f"UPDATE sessions SET {sets} WHERE id = ?", (*values.values(), sid))
    return int(count)


def _delegate_config(conn: sqlite3.Connection, sid: str, parent_id: str) -> str:
    row = conn.execute("SELECT model_config FROM sessions WHERE id = ?", (sid,)).fetchone()
    current = _load(row[0]) if row else {}
    return json.dumps({**current, "_delegate_from": parent_id}, ensure_ascii=False)


def _execute(
    conn: sqlite3.Connection, caps: Capabilities, t: Transcript, plan: _Plan, parent_id: str | None
) -> SessionOutcome:
    outcome = _outcome(t, plan, parent_id)
    if plan.status not in ("created", "updated"):
        return outcome
    now = time.time()
    sid = plan.session_id
    if plan.existing is None:
        insert_session(
            conn,
            caps,
            NewSession(
                source=t.tool,
                id=sid,
                model=t.model,
                model_config=json.dumps({"_delegate_from": parent_id}) if parent_id else None,
                parent_session_id=parent_id,
                cwd=t.cwd,
                git_branch=t.git_branch,
                git_repo_root=t.git_repo_root,
                started_at=t.started_at if t.started_at is not None else now,
            ),
        )
        # Sub-agent children stay untitled (lists hide them); titles are unique store-wide.
        outcome.title = apply_import_title(conn, sid, t.title) if parent_id is None else None
    elif plan.attach and parent_id is not None:
        conn.execute(
            "UPDATE sessions SET parent_session_id = ?, model_config = ? WHERE id = ?",
            (parent_id, _delegate_config(conn, sid, parent_id), sid),
        )
    if plan.diff is not None:
        _apply_diff(conn, caps, sid, plan.diff)
    outcome.messages = _refresh(conn, caps, sid, t, _origin(t, plan.origin, now))
    return outcome


def _outcome(t: Transcript, plan: _Plan, parent_id: str | None) -> SessionOutcome:
    diff = plan.diff
    existing = plan.existing
    status = plan.status
    if status == "updated" and (diff is None or diff.empty) and not plan.attach:
        status = "unchanged"  # only bookkeeping lines were added to the file
    new_title = t.title if parent_id is None else None
    return SessionOutcome(
        tool=t.tool,
        path=str(t.path),
        foreign_id=t.foreign_id,
        status=status,
        session_id=plan.session_id,
        reason=plan.reason,
        added=len(diff.inserts) if diff else 0,
        updated=len(diff.updates) if diff else 0,
        hidden=len(diff.hide) if diff else 0,
        messages=len(t.rows),
        title=dict(existing).get("title") if existing is not None else new_title,
        parent_session_id=parent_id
        if existing is None or plan.attach
        else existing["parent_session_id"],
        started_at=t.started_at,
    )


def write_transcript(
    store: Store | None,
    t: Transcript,
    data: bytes,
    parent_id: str | None = None,
    *,
    dry_run: bool = False,
) -> SessionOutcome:
    """Import one transcript (one write transaction), or say what would happen.

    *store* may be None only for a dry run against a store that does not exist yet.
    """
    if store is None:
        plan = _Plan("created", session_id_for(t), diff=diff_rows([], t.rows, hide=False))
        return _outcome(t, plan, parent_id)
    caps = store.capabilities
    with store.snapshot() as conn:
        plan = _plan(conn, caps, t, data, parent_id)
    if dry_run or plan.status not in ("created", "updated"):
        return _outcome(t, plan, parent_id)

    def work(conn: sqlite3.Connection) -> SessionOutcome:
        # Planned again inside the transaction: another process may have written since.
        return _execute(conn, caps, t, _plan(conn, caps, t, data, parent_id), parent_id)

    return store.write(work)
