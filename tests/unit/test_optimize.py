"""`optimize`: refuses while another process writes; VACUUM only with exclusive access."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from hermes_tui.store import Store
from hermes_tui.store.generate import generate_store
from hermes_tui.store.optimize import StoreBusy, optimize, writer_active
from tests.conftest import NOW


def _segments(path: Path, table: str) -> int:
    """Leaf segments of an FTS5 index (rows of its %_data table beyond the structure)."""
    with closing(sqlite3.connect(path)) as conn:
        return conn.execute(f"SELECT COUNT(*) FROM {table}_data").fetchone()[0]


@pytest.fixture
def fragmented(home: Path) -> Store:
    generate_store(home / "state.db", 200, 4_000, now=NOW, seed=2)
    conn = sqlite3.connect(home / "state.db", isolation_level=None)
    for i in range(300):  # many small transactions = many small FTS segments
        conn.execute("DELETE FROM messages WHERE id = ?", (i + 1,))
    conn.close()
    return Store.open(home / "state.db")


def test_optimize_merges_and_vacuums_when_alone(fragmented: Store) -> None:
    before = {t: _segments(fragmented.path, t) for t in ("messages_fts", "messages_fts_trigram")}
    result = optimize(fragmented)
    assert result.fts_tables == ("messages_fts", "messages_fts_trigram")
    assert result.merge_steps >= 2 and result.vacuumed and result.vacuum_skipped is None
    for table, count in before.items():
        assert _segments(fragmented.path, table) < count
    with closing(sqlite3.connect(fragmented.path)) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("PRAGMA freelist_count").fetchone()[0] == 0
        for table in ("messages_fts", "messages_fts_trigram"):
            conn.execute(f"INSERT INTO {table}({table}) VALUES ('integrity-check')")
        conn.commit()
        hits = conn.execute(
            "SELECT COUNT(*) FROM messages_fts WHERE messages_fts MATCH 'docker'"
        ).fetchone()[0]
        assert hits > 0


def test_optimize_refuses_while_another_process_writes(fragmented: Store) -> None:
    writer = sqlite3.connect(fragmented.path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    try:
        assert writer_active(fragmented, timeout=0.1)
        with pytest.raises(StoreBusy, match="Another process is writing"):
            optimize(fragmented)
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert not writer_active(fragmented, timeout=0.1)


def test_vacuum_skipped_while_another_connection_is_open(fragmented: Store) -> None:
    reader = sqlite3.connect(f"file:{fragmented.path}?mode=ro", uri=True)
    reader.execute("SELECT COUNT(*) FROM sessions").fetchone()
    try:
        result = optimize(fragmented)
    finally:
        reader.close()
    assert not result.vacuumed and "another process has the store open" in result.vacuum_skipped
    assert result.merge_steps >= 2
