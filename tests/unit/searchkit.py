"""Helpers for the search tests: building sessions with exact flags, oracles, old stores."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path

from hermes_tui.store import NewMessage, NewSession, Store
from hermes_tui.store.messages import insert_message
from hermes_tui.store.sessions import insert_session

NOW = 1_796_000_000.0
DAY = 86_400.0


def add_session(
    store: Store,
    messages: Sequence[tuple[str, str]],
    *,
    source: str = "cli",
    ago: float = 3600.0,
    title: str | None = None,
    parent: str | None = None,
    end_reason: str = "cli_close",
    archived: bool = False,
    config: dict | None = None,
    model: str | None = None,
    step: float = 10.0,
) -> tuple[str, list[int]]:
    """A session started *ago* seconds before NOW with *messages* (role, text); returns
    (id, message ids)."""
    started = NOW - ago

    def work(conn: sqlite3.Connection) -> tuple[str, list[int]]:
        sid = insert_session(
            conn,
            store.capabilities,
            NewSession(
                source=source, title=title, parent_session_id=parent, model=model,
                model_config=json.dumps(config) if config else None, started_at=started,
            ),
        )  # fmt: skip
        ids = []
        ts = started
        for role, text in messages:
            ts += step
            ids.append(
                insert_message(conn, store.capabilities, sid, NewMessage(role, text, timestamp=ts))
            )
        conn.execute(
            "UPDATE sessions SET ended_at = ?, end_reason = ?, archived = ? WHERE id = ?",
            (ts + 1, end_reason, int(archived), sid),
        )
        return sid, ids

    return store.write(work)


def interleaved(
    store: Store, count: int, *, ago: float = 7200.0
) -> tuple[str, str, list[int], list[int]]:
    """Two sessions whose messages alternate in id order (a busy gateway store)."""

    def work(conn: sqlite3.Connection) -> tuple[str, str, list[int], list[int]]:
        a = insert_session(
            conn, store.capabilities, NewSession(source="telegram", started_at=NOW - ago)
        )
        b = insert_session(
            conn, store.capabilities, NewSession(source="discord", started_at=NOW - ago)
        )
        ids_a, ids_b = [], []
        for n in range(count):
            role = "user" if n % 2 == 0 else "assistant"
            ts = NOW - ago + n
            ids_a.append(
                insert_message(
                    conn, store.capabilities, a, NewMessage(role, f"alpha line {n}", timestamp=ts)
                )
            )
            ids_b.append(
                insert_message(
                    conn, store.capabilities, b, NewMessage(role, f"beta line {n}", timestamp=ts)
                )
            )
        return a, b, ids_a, ids_b

    return store.write(work)


def set_flags(store: Store, ids: Iterable[int], *, active: int, compacted: int) -> None:
    ids = list(ids)
    marks = ", ".join("?" for _ in ids)
    store.write(
        lambda conn: conn.execute(
            f"UPDATE messages SET active = ?, compacted = ? WHERE id IN ({marks})",
            (active, compacted, *ids),
        )
    )


def oracle_sessions(
    store: Store, needle: str, roles: Sequence[str] = ("user", "assistant")
) -> set[str]:
    """Sessions a substring search must find: visible messages of the roles containing
    *needle* (case-insensitive), in shown sessions."""
    found = set()
    with store.read() as conn:
        for row in conn.execute(
            "SELECT m.session_id, m.content, m.role, m.active, m.compacted, s.source, s.archived "
            "FROM messages m JOIN sessions s ON s.id = m.session_id"
        ):
            if row["role"] not in roles or row["source"] in ("tool", "subagent"):
                continue
            if row["archived"] or not (row["active"] or row["compacted"]):
                continue
            if needle.lower() in (row["content"] or "").lower():
                found.add(row["session_id"])
    return found


def copy_store(store: Store, target: Path) -> Path:
    target.mkdir(parents=True, exist_ok=True)
    path = target / "state.db"
    with sqlite3.connect(store.path) as src, sqlite3.connect(path) as dst:
        src.backup(dst)
    return path


def drop_tables(path: Path, *tables: str) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        for table in tables:
            for suffix in ("insert", "delete", "update"):
                conn.execute(f"DROP TRIGGER IF EXISTS {table}_{suffix}")
            conn.execute(f"DROP TABLE IF EXISTS {table}")
    finally:
        conn.close()


def old_store(path: Path) -> Path:
    """A store from an older Hermes: no active/compacted/archived columns, no trigram."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.executescript(
        """
        CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT NOT NULL, model TEXT,
            parent_session_id TEXT, started_at REAL NOT NULL, ended_at REAL, end_reason TEXT,
            message_count INTEGER DEFAULT 0, title TEXT);
        CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL,
            role TEXT NOT NULL, content TEXT, tool_call_id TEXT, tool_calls TEXT,
            tool_name TEXT, timestamp REAL NOT NULL);
        CREATE INDEX idx_messages_session ON messages(session_id, timestamp);
        CREATE VIRTUAL TABLE messages_fts USING fts5(content);
        CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
            INSERT INTO messages_fts(rowid, content) VALUES (new.id, COALESCE(new.content, ''));
        END;
        """
    )
    conn.close()
    return path


def clone_path(src: Path, dst_dir: Path) -> Path:
    dst_dir.mkdir(parents=True, exist_ok=True)
    shutil.copy(src, dst_dir / "state.db")
    return dst_dir / "state.db"
