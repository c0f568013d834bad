"""The store generator writes a consistent, Hermes-shaped store."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from hermes_tui.store import ListQuery, Store, count_sessions, list_sessions
from hermes_tui.store.generate import generate_store

from ..conftest import NOW


def test_generated_store_is_consistent(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    stats = generate_store(path, sessions=300, messages=3_000, now=NOW, seed=9)
    conn = sqlite3.connect(path)
    total = conn.execute("SELECT COUNT(*) FROM messages").fetchone()[0]
    assert total == stats.messages >= 3_000
    assert conn.execute("SELECT COUNT(*) FROM sessions").fetchone()[0] == stats.sessions
    # Counters match the rows; both search indexes hold every message.
    assert (
        conn.execute(
            "SELECT COUNT(*) FROM sessions s WHERE message_count != "
            "(SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id)"
        ).fetchone()[0]
        == 0
    )
    for table in ("messages_fts", "messages_fts_trigram"):
        assert conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] == total
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    triggers = conn.execute("SELECT COUNT(*) FROM sqlite_master WHERE type = 'trigger'")
    assert triggers.fetchone()[0] == 6
    sources = {r[0] for r in conn.execute("SELECT DISTINCT source FROM sessions")}
    assert {"cli", "telegram", "cron"} <= sources
    assert stats.lineages >= 1
    assert (
        conn.execute("SELECT COUNT(*) FROM sessions WHERE end_reason = 'compression'").fetchone()[0]
        >= stats.lineages
    )
    # Same seed, same store.
    again = tmp_path / "again.db"
    generate_store(again, sessions=300, messages=3_000, now=NOW, seed=9)
    first = conn.execute("SELECT id, title FROM sessions ORDER BY id").fetchall()
    assert (
        sqlite3.connect(again).execute("SELECT id, title FROM sessions ORDER BY id").fetchall()
        == first
    )
    store = Store.open(path)
    assert len(list_sessions(store, limit=500).items) == count_sessions(store, ListQuery())
