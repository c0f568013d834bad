"""Session rows: create, end, reopen, rename, pin, archive, delete a conversation.

Each function is one short write transaction. Actions on "a conversation" act on the whole
compression lineage (and, for delete, its delegate children), as SPEC §2 and §7 say.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import lineage, schema
from .db import Capabilities, Store
from .errors import SessionIsOpen, SessionNotFound, StoreReadOnly
from .ids import new_session_id
from .models import IMPORTED_SOURCES, Session, session_from_row
from .titles import apply_title, sanitize_title
from .trash import TrashWriter, detached_parents, move_transcripts, save_sessions


def get_session(store: Store, session_id: str) -> Session | None:
    with store.read() as conn:
        row = conn.execute("SELECT * FROM sessions WHERE id = ?", (session_id,)).fetchone()
    return None if row is None else session_from_row(row)


def require_session(store: Store, session_id: str) -> Session:
    session = get_session(store, session_id)
    if session is None:
        raise SessionNotFound(session_id)
    return session


@dataclass(frozen=True, slots=True)
class NewSession:
    """Columns for a new session row; ``None`` leaves a column at its default."""

    source: str
    id: str | None = None
    title: str | None = None
    model: str | None = None
    model_config: str | None = None
    system_prompt: str | None = None
    parent_session_id: str | None = None
    cwd: str | None = None
    git_branch: str | None = None
    git_repo_root: str | None = None
    user_id: str | None = None
    session_key: str | None = None
    chat_id: str | None = None
    chat_type: str | None = None
    thread_id: str | None = None
    billing_provider: str | None = None
    billing_base_url: str | None = None
    started_at: float | None = None


def insert_session(conn: sqlite3.Connection, caps: Capabilities, spec: NewSession) -> str:
    """Insert the row inside the caller's transaction; returns its id."""
    started = time.time() if spec.started_at is None else spec.started_at
    session_id = spec.id or new_session_id(spec.source, started)
    values: dict[str, Any] = {
        name: getattr(spec, name)
        for name in NewSession.__dataclass_fields__
        if name not in ("id", "title", "started_at") and getattr(spec, name) is not None
    }
    values.update(id=session_id, started_at=started)
    values = {k: v for k, v in values.items() if k in caps.session_columns}
    columns = ", ".join(values)
    marks = ", ".join("?" for _ in values)
    conn.execute(f"INSERT INTO sessions ({columns}) VALUES ({marks})", tuple(values.values()))
    title = sanitize_title(spec.title)
    if title is not None and "title" in caps.session_columns:
        apply_title(conn, session_id, title)
    return session_id


def create_session(store: Store, spec: NewSession) -> str:
    return store.write(lambda conn: insert_session(conn, store.capabilities, spec))


def end_session(store: Store, session_id: str, reason: str) -> bool:
    """Mark an open session ended; the first reason wins (as Hermes does)."""
    return store.write(
        lambda conn: (
            conn.execute(
                "UPDATE sessions SET ended_at = ?, end_reason = ? "
                "WHERE id = ? AND ended_at IS NULL",
                (time.time(), reason, session_id),
            ).rowcount
            > 0
        )
    )


def reopen_session(store: Store, session_id: str) -> bool:
    """Resuming re-opens the row: clears ``ended_at`` and ``end_reason``."""
    return store.write(
        lambda conn: (
            conn.execute(
                "UPDATE sessions SET ended_at = NULL, end_reason = NULL WHERE id = ?", (session_id,)
            ).rowcount
            > 0
        )
    )


def rename_session(store: Store, session_id: str, raw_title: str | None) -> str | None:
    """Set (or, for an empty result, clear) the title; returns what was stored."""
    title = sanitize_title(raw_title)

    def work(conn: sqlite3.Connection) -> str | None:
        if conn.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone() is None:
            raise SessionNotFound(session_id)
        apply_title(conn, session_id, title)
        return title

    return store.write(work)


def ensure_pinned_column(conn: sqlite3.Connection) -> None:
    """Add our `pinned` column (and its partial index) the first time anything is pinned."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(sessions)")}
    if "pinned" not in columns:
        conn.execute(schema.PINNED_COLUMN_SQL)
    conn.execute(schema.PINNED_INDEX_SQL)


def set_pinned(store: Store, session_id: str, pinned: bool) -> list[str]:
    """Pin or unpin a conversation (every segment of its lineage); returns the ids changed.

    The ``pinned`` column is added to the store the first time anything is pinned.
    """

    def work(conn: sqlite3.Connection) -> list[str]:
        if conn.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone() is None:
            raise SessionNotFound(session_id)
        if "pinned" not in store.capabilities.session_columns:
            if not pinned:
                return []
            ensure_pinned_column(conn)
        members = lineage.lineage_members(conn, session_id)
        marks = ", ".join("?" for _ in members)
        changed = [
            row[0]
            for row in conn.execute(
                f"SELECT id FROM sessions WHERE id IN ({marks}) AND COALESCE(pinned, 0) != ?",
                (*members, int(pinned)),
            )
        ]
        conn.execute(
            f"UPDATE sessions SET pinned = ? WHERE id IN ({marks})", (int(pinned), *members)
        )
        return changed

    changed = store.write(work)
    if "pinned" not in store.capabilities.session_columns:
        store.refresh_capabilities()
    return changed


def set_archived(store: Store, session_id: str, archived: bool) -> list[str]:
    """Archive or unarchive a whole compression lineage; returns the ids changed."""

    def work(conn: sqlite3.Connection) -> list[str]:
        if conn.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone() is None:
            raise SessionNotFound(session_id)
        if "archived" not in store.capabilities.session_columns:
            raise _no_archive(store)
        members = lineage.lineage_members(conn, session_id)
        marks = ", ".join("?" for _ in members)
        changed = [
            row[0]
            for row in conn.execute(
                f"SELECT id FROM sessions WHERE id IN ({marks}) AND archived != ?",
                (*members, int(archived)),
            )
        ]
        conn.execute(
            f"UPDATE sessions SET archived = ? WHERE id IN ({marks})", (int(archived), *members)
        )
        return changed

    return store.write(work)


def _no_archive(store: Store) -> StoreReadOnly:
    return StoreReadOnly(
        "This store has no 'archived' column (an older Hermes schema)",
        store.path,
        "update Hermes Agent once so it adds the column; nothing was changed",
    )


@dataclass(frozen=True, slots=True)
class DeleteResult:
    deleted: tuple[str, ...]
    detached: tuple[str, ...]
    messages: int
    trash: Path  # the verified trash file holding them: `hermes sessions restore` it


def conversation_ids(conn: sqlite3.Connection, session_id: str) -> tuple[list[str], list[str]]:
    """(sessions deleting *session_id*'s conversation removes, children that stay as roots)."""
    members = lineage.lineage_members(conn, session_id)
    going, staying = lineage.dependents(conn, members)
    return members + going, staying


def delete_ids(conn: sqlite3.Connection, ids: list[str]) -> tuple[int, list[str]]:
    """Delete these sessions and their messages inside the caller's transaction.

    Children outside the set are detached (``parent_session_id = NULL``) first, so no row is
    left pointing at a deleted parent. Returns (messages deleted, detached ids).
    """
    if not ids:
        return 0, []
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS doomed (id TEXT PRIMARY KEY)")
    conn.execute("DELETE FROM temp.doomed")
    conn.executemany("INSERT OR IGNORE INTO temp.doomed (id) VALUES (?)", [(i,) for i in ids])
    detached = [
        row[0]
        for row in conn.execute(
            "SELECT id FROM sessions WHERE parent_session_id IN (SELECT id FROM temp.doomed) "
            "AND id NOT IN (SELECT id FROM temp.doomed)"
        )
    ]
    conn.execute(
        "UPDATE sessions SET parent_session_id = NULL "
        "WHERE parent_session_id IN (SELECT id FROM temp.doomed) "
        "AND id NOT IN (SELECT id FROM temp.doomed)"
    )
    messages = conn.execute(
        "DELETE FROM messages WHERE session_id IN (SELECT id FROM temp.doomed)"
    ).rowcount
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    for table in ("session_model_usage", "compression_locks"):
        if table in tables:
            conn.execute(f"DELETE FROM {table} WHERE session_id IN (SELECT id FROM temp.doomed)")
    conn.execute("DELETE FROM sessions WHERE id IN (SELECT id FROM temp.doomed)")
    conn.execute("DELETE FROM temp.doomed")
    return messages, detached


def delete_conversation(
    store: Store,
    session_id: str,
    *,
    allow_open: bool = False,
    check: Callable[[sqlite3.Connection, list[str]], None] | None = None,
    now: float | None = None,
) -> DeleteResult:
    """Delete the logical conversation *session_id* belongs to, in one transaction:
    every segment of its compression lineage and their delegate/subagent children.
    Branches and resets survive as roots. An open segment is refused unless allowed.
    *check* sees the ids about to go, inside the transaction; raising refuses the delete.

    Like a prune, it first saves what it deletes to a verified trash file, inside the same
    transaction (no trash, no delete), so `hermes sessions restore` undoes it; Hermes'
    per-session files move next to that trash file."""
    writers: list[TrashWriter] = []

    def work(conn: sqlite3.Connection) -> DeleteResult:
        if conn.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone() is None:
            raise SessionNotFound(session_id)
        members = lineage.lineage_members(conn, session_id)
        going, _ = lineage.dependents(conn, members)
        ids = members + going
        if not allow_open:
            marks = ", ".join("?" for _ in members)
            row = conn.execute(
                f"SELECT id FROM sessions WHERE id IN ({marks}) AND ended_at IS NULL "
                f"AND source NOT IN ({', '.join('?' for _ in IMPORTED_SOURCES)}) LIMIT 1",
                (*members, *sorted(IMPORTED_SOURCES)),
            ).fetchone()
            if row is not None:
                raise SessionIsOpen(row[0])
        if check is not None:
            check(conn, ids)
        when = time.time() if now is None else now
        info = save_sessions(
            conn,
            store.capabilities,
            store.home,
            when,
            dict.fromkeys(ids, members[0]),
            {
                "action": "delete",
                "created_at": when,
                "conversations": [members[0]],
                "detached": detached_parents(conn, ids),
            },
            writers,
        )
        messages, detached = delete_ids(conn, ids)
        return DeleteResult(tuple(ids), tuple(detached), messages, info.path)

    try:
        result = store.write(work)
    except BaseException:
        for writer in writers:
            writer.discard()  # nothing was deleted, so the trash holds nothing lost
        raise
    move_transcripts(store.home, result.deleted, result.trash)
    return result
