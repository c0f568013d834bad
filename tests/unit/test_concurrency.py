"""Living beside Hermes: other processes writing, locks, and a read path that never writes."""

from __future__ import annotations

import hashlib
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from hermes_tui.store import (
    ListQuery,
    NewMessage,
    Store,
    StoreLocked,
    append_message,
    count_sessions,
    get_messages,
    get_row,
    get_session,
    list_sessions,
    rename_session,
    resolve_reference,
    store_stats,
)
from hermes_tui.store.generate import generate_store

from ..conftest import NOW

HOLDER = textwrap.dedent(
    """
    import sqlite3, sys, time
    path, mode, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
    conn = sqlite3.connect(path, isolation_level=None)
    if mode == "exclusive":
        conn.execute("PRAGMA journal_mode = DELETE")
        conn.execute("BEGIN EXCLUSIVE")
    else:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("UPDATE sessions SET title = title")
    print("locked", flush=True)
    time.sleep(seconds)
    conn.execute("COMMIT")
    print("released", flush=True)
    """
)


def _hold(path: Path, mode: str, seconds: float) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path), mode, str(seconds)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
    return proc


@pytest.fixture
def busy_store(tmp_path: Path) -> Store:
    path = tmp_path / "state.db"
    generate_store(path, sessions=60, messages=600, now=NOW, seed=1)
    return Store.open(path, busy_timeout=2.0, write_timeout=0.05, write_attempts=4)


def test_reads_succeed_while_another_process_holds_the_write_lock(busy_store: Store) -> None:
    proc = _hold(busy_store.path, "immediate", 4.0)
    try:
        started = time.monotonic()
        rows = list_sessions(busy_store, limit=10).items
        assert len(rows) == 10
        assert count_sessions(busy_store, ListQuery()) > 10
        with sqlite3.connect(busy_store.path, timeout=5) as direct:
            total = direct.execute("SELECT COUNT(*) FROM messages").fetchone()[0]
        assert store_stats(busy_store).total_messages == total > 600
        assert time.monotonic() - started < 2.0
        with pytest.raises(StoreLocked, match="locked by another process"):
            rename_session(busy_store, rows[0].root_id, "blocked")
    finally:
        proc.wait(timeout=10)


def test_writes_retry_until_the_other_writer_commits(busy_store: Store) -> None:
    patient = Store.open(busy_store.path, write_timeout=0.2, write_attempts=15)
    sid = list_sessions(patient, limit=1).items[0].root_id
    proc = _hold(patient.path, "immediate", 0.6)
    try:
        started = time.monotonic()
        rename_session(patient, sid, "written after the lock")
        assert time.monotonic() - started >= 0.3
    finally:
        proc.wait(timeout=10)
    assert get_session(patient, sid).title == "written after the lock"


def test_a_lock_that_outlasts_the_timeout_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    generate_store(path, sessions=5, messages=20, now=NOW)
    store = Store.open(path, busy_timeout=0.3)
    proc = _hold(path, "exclusive", 3.0)
    try:
        started = time.monotonic()
        with pytest.raises(StoreLocked) as info:
            list_sessions(store)
        assert time.monotonic() - started < 2.0
        assert str(path) in str(info.value) and "try again" in str(info.value)
    finally:
        proc.wait(timeout=10)
    assert list_sessions(store).items  # fine again once released


def _fingerprint(path: Path) -> list[tuple[str, int, float, str]]:
    out = []
    for suffix in ("", "-wal"):
        p = path.with_name(path.name + suffix)
        if p.exists():
            st = p.stat()
            out.append(
                (suffix, st.st_size, st.st_mtime, hashlib.sha256(p.read_bytes()).hexdigest())
            )
    return out


def test_the_read_path_writes_nothing(busy_store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    statements: list[str] = []
    original = Store._connect_ro

    def traced(self: Store) -> sqlite3.Connection:
        conn = original(self)
        conn.set_trace_callback(statements.append)
        return conn

    monkeypatch.setattr(Store, "_connect_ro", traced)
    watcher = sqlite3.connect(busy_store.path)
    version = watcher.execute("PRAGMA data_version").fetchone()[0]
    before = _fingerprint(busy_store.path)

    store = Store.open(busy_store.path)
    for sort in ("started", "last_active"):
        page = list_sessions(store, ListQuery(sort=sort, text="the", pinned_first=True), limit=5)
    row = page.items[0]
    count_sessions(store, ListQuery())
    store_stats(store)
    get_row(store, row.id)
    get_messages(store, row.id)
    resolve_reference(store, "latest")
    resolve_reference(store, row.id[:12], follow_tip=True)

    assert statements, "the trace saw the reads"
    writes = [
        s for s in statements
        if s.split(None, 1)[0].upper() in {"INSERT", "UPDATE", "DELETE", "CREATE", "DROP",
                                           "ALTER", "REPLACE", "VACUUM", "REINDEX"}
        or "BEGIN IMMEDIATE" in s.upper() or "BEGIN EXCLUSIVE" in s.upper()
        or ("PRAGMA" in s.upper() and "=" in s)
    ]  # fmt: skip
    assert writes == []
    assert watcher.execute("PRAGMA data_version").fetchone()[0] == version
    assert _fingerprint(busy_store.path) == before
    watcher.close()


def test_interleaved_writer_process_and_our_appends(busy_store: Store) -> None:
    """Another process appends while we append: nothing lost, counters exact."""
    sid = list_sessions(busy_store, limit=1).items[0].id
    writer = textwrap.dedent(
        f"""
        import sqlite3, time
        conn = sqlite3.connect({str(busy_store.path)!r}, isolation_level=None, timeout=5)
        for n in range(40):
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("INSERT INTO messages (session_id, role, content, timestamp) "
                         "VALUES (?, 'assistant', ?, ?)", ({sid!r}, f"theirs {{n}}", time.time()))
            conn.execute("UPDATE sessions SET message_count = message_count + 1 "
                         "WHERE id = ?", ({sid!r},))
            conn.execute("COMMIT")
            time.sleep(0.005)
        """
    )
    before = get_session(busy_store, sid).message_count
    patient = Store.open(busy_store.path, write_timeout=1.0)
    proc = subprocess.Popen([sys.executable, "-c", writer])
    for n in range(40):
        append_message(patient, sid, NewMessage("user", f"ours {n}"))
    assert proc.wait(timeout=30) == 0
    after = get_session(patient, sid)
    assert after.message_count == before + 80
    texts = [m.content for m in get_messages(patient, sid)]
    assert sum(t.startswith("ours ") for t in texts) == 40
    assert sum(t.startswith("theirs ") for t in texts) == 40
