"""Opening stores we did not create: older and newer schemas, damaged and unreadable files."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from hermes_tui.store import (
    ListQuery,
    NewMessage,
    NewSession,
    Store,
    StoreCorrupt,
    StoreEmpty,
    StoreMissing,
    StoreReadOnly,
    StoreUnreadable,
    append_message,
    create_session,
    get_messages,
    list_sessions,
    rename_session,
    set_archived,
    set_pinned,
    store_stats,
)
from hermes_tui.store.errors import NotAHermesStore

from ..conftest import running_as_root

OLD_SCHEMA = """
CREATE TABLE schema_version (version INTEGER NOT NULL);
INSERT INTO schema_version VALUES (6);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY, source TEXT NOT NULL, user_id TEXT, model TEXT, model_config TEXT,
    system_prompt TEXT, parent_session_id TEXT, started_at REAL NOT NULL, ended_at REAL,
    end_reason TEXT, message_count INTEGER DEFAULT 0, tool_call_count INTEGER DEFAULT 0,
    input_tokens INTEGER DEFAULT 0, output_tokens INTEGER DEFAULT 0, title TEXT,
    session_key TEXT
);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, role TEXT NOT NULL,
    content TEXT, tool_call_id TEXT, tool_calls TEXT, tool_name TEXT, timestamp REAL NOT NULL,
    token_count INTEGER, finish_reason TEXT
);
CREATE VIRTUAL TABLE messages_fts USING fts5(content);
INSERT INTO sessions (id, source, started_at, ended_at, end_reason, title, message_count)
    VALUES ('20250101_100000_aaaaaa', 'cli', 1735725600, 1735729200, 'cli_close', 'old one', 2);
INSERT INTO messages (session_id, role, content, timestamp) VALUES
    ('20250101_100000_aaaaaa', 'user', 'how did we set up the old server?', 1735725601),
    ('20250101_100000_aaaaaa', 'assistant', 'with ansible', 1735725602);
"""


def _schema_sql(path: Path) -> list[tuple[str, str]]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT name, sql FROM sqlite_master ORDER BY name").fetchall()
    finally:
        conn.close()


def test_older_schema_opens_lists_and_is_never_migrated(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    conn = sqlite3.connect(path)
    conn.executescript(OLD_SCHEMA)
    conn.close()
    before = _schema_sql(path)
    store = Store.open(path)
    assert store.capabilities.schema_version == 6
    assert not store.read_only and not store.capabilities.has_trigram
    assert "archived" not in store.capabilities.session_columns
    [row] = list_sessions(store).items
    assert (row.title, row.preview, row.archived, row.message_count) == (
        "old one",
        "how did we set up the old server?",
        False,
        2,
    )
    assert [m.content for m in get_messages(store, row.id)] == [
        "how did we set up the old server?",
        "with ansible",
    ]
    assert store_stats(store).total_sessions == 1
    assert _schema_sql(path) == before, "reading must not migrate an older store"
    # Writes use only the columns that exist.
    append_message(store, row.id, NewMessage("user", "and the backups?"))
    rename_session(store, row.id, "old server")
    assert _schema_sql(path) == before
    with pytest.raises(StoreReadOnly, match="no 'archived' column"):
        set_archived(store, row.id, True)
    # Pinning is our own feature: its column is added on first use, and only then.
    set_pinned(store, row.id, True)
    assert "pinned" in store.capabilities.session_columns
    assert list_sessions(store, ListQuery(pinned_only=True)).items[0].pinned


def test_unknown_extra_columns_are_ignored(store: Store) -> None:
    conn = sqlite3.connect(store.path)
    conn.execute("ALTER TABLE sessions ADD COLUMN last_activity_at REAL")
    conn.execute("ALTER TABLE sessions ADD COLUMN mood TEXT DEFAULT 'calm'")
    conn.execute("ALTER TABLE messages ADD COLUMN sentiment REAL")
    conn.commit()
    conn.close()
    reopened = Store.open(store.path)
    sid = create_session(reopened, NewSession(source="cli", title="extra columns"))
    append_message(reopened, sid, NewMessage("user", "still works"))
    [row] = list_sessions(reopened).items
    assert (row.title, row.preview) == ("extra columns", "still works")


def test_newer_schema_opens_read_only_and_refuses_writes(store: Store) -> None:
    sid = create_session(store, NewSession(source="cli", title="from the future"))
    conn = sqlite3.connect(store.path)
    conn.execute("UPDATE schema_version SET version = 31")
    conn.commit()
    conn.close()
    newer = Store.open(store.path)
    assert newer.read_only
    assert "31" in (newer.capabilities.read_only_reason or "")
    assert list_sessions(newer).items[0].title == "from the future"
    with pytest.raises(StoreReadOnly, match="read-only") as info:
        rename_session(newer, sid, "changed")
    assert str(store.path) in str(info.value)
    assert list_sessions(newer).items[0].title == "from the future"


def test_missing_store_names_path_and_next_step(home: Path) -> None:
    with pytest.raises(StoreMissing) as info:
        Store.open(home / "state.db")
    message = str(info.value)
    assert str(home / "state.db") in message and "hermes demo" in message


def test_zero_length_file(home: Path) -> None:
    home.mkdir()
    (home / "state.db").write_bytes(b"")
    with pytest.raises(StoreEmpty, match="empty") as info:
        Store.open(home / "state.db")
    assert str(home / "state.db") in str(info.value)


def test_directory_in_place_of_the_file(home: Path) -> None:
    (home / "state.db").mkdir(parents=True)
    with pytest.raises(StoreUnreadable, match="directory"):
        Store.open(home / "state.db")


def test_garbage_file_is_reported_corrupt(home: Path) -> None:
    home.mkdir()
    (home / "state.db").write_bytes(b"this is not a database at all\n" * 200)
    with pytest.raises(StoreCorrupt) as info:
        Store.open(home / "state.db")
    assert str(home / "state.db") in str(info.value) and "backup" in str(info.value)


def test_damaged_page_is_reported_corrupt_when_read(store: Store, make_session) -> None:
    for n in range(60):
        make_session(messages=[("user", f"message {n} " + "padding " * 200)], title=f"t{n}")
    conn = sqlite3.connect(store.path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    size = store.path.stat().st_size
    with open(store.path, "r+b") as handle:  # no SQLite connection is open on it now
        for offset in range(4096 * 2, size, 4096 * 3):
            handle.seek(offset)
            handle.write(b"\xff" * 1024)
    with pytest.raises(StoreCorrupt, match="damaged"):
        reopened = Store.open(store.path)
        for _ in range(3):
            list_sessions(reopened, ListQuery(sort="last_active"), limit=100)
            store_stats(reopened)


def test_sqlite_file_without_sessions_is_not_a_hermes_store(home: Path) -> None:
    home.mkdir()
    conn = sqlite3.connect(home / "state.db")
    conn.execute("CREATE TABLE notes (x)")
    conn.commit()
    conn.close()
    with pytest.raises(NotAHermesStore, match="not a Hermes session store"):
        Store.open(home / "state.db")


def test_store_without_fts_still_opens(store: Store) -> None:
    conn = sqlite3.connect(store.path)
    conn.executescript(
        "DROP TRIGGER messages_fts_insert; DROP TRIGGER messages_fts_update; "
        "DROP TRIGGER messages_fts_delete; DROP TABLE messages_fts;"
    )
    conn.close()
    reopened = Store.open(store.path)
    assert not reopened.capabilities.has_fts and reopened.capabilities.has_trigram


PERMISSION_PROBE = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from hermes_tui.store import Store, StoreUnreadable
    try:
        Store.open(Path(sys.argv[1]))
    except StoreUnreadable as exc:
        print(exc)
        sys.exit(0)
    print("opened without error")
    sys.exit(1)
    """
)


def _python_for_nobody() -> str | None:
    """An interpreter the unprivileged user can run (the store needs only the stdlib)."""
    for candidate in (sys.executable, "/usr/bin/python3", "/usr/local/bin/python3"):
        try:
            probe = subprocess.run(
                [candidate, "-c", "pass"], user="nobody", capture_output=True, timeout=30
            )
        except OSError:
            continue
        if probe.returncode == 0:
            return candidate
    return None


def test_permission_denied(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = Path(tempfile.mkdtemp(prefix="hermes-perm-"))
    try:
        folder.chmod(0o755)
        target = folder / "state.db"
        target.write_bytes(store.path.read_bytes())
        target.chmod(0o000)
        python = _python_for_nobody() if running_as_root() else None
        if python is not None:
            # root ignores file modes, so an unprivileged user opens it for real.
            result = subprocess.run(
                [python, "-c", PERMISSION_PROBE, str(target)],
                user="nobody",
                capture_output=True,
                text=True,
                env={"PYTHONPATH": str(Path(__file__).resolve().parents[2]), "PATH": "/usr/bin"},
                timeout=60,
            )
            assert result.returncode == 0, result.stdout + result.stderr
            assert "Permission denied" in result.stdout and str(target) in result.stdout
        else:
            if running_as_root():  # no interpreter "nobody" may run: emulate the kernel's answer
                monkeypatch.setattr(os, "access", lambda path, mode: mode != os.R_OK)
            with pytest.raises(StoreUnreadable, match="Permission denied") as info:
                Store.open(target)
            assert str(target) in str(info.value)
    finally:
        for child in folder.iterdir():
            child.chmod(0o600)
            child.unlink()
        folder.rmdir()
