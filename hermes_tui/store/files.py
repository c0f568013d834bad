"""The database file itself: problems found before opening it (stat only), SQLite errors
turned into typed errors that name the path and the next step, and a new store's creation
(schema version 22, WAL, mode 0600)."""

from __future__ import annotations

import errno
import os
import sqlite3
import stat
from pathlib import Path

from . import schema
from .capabilities import sqlite_features
from .errors import (
    StoreCorrupt,
    StoreEmpty,
    StoreLocked,
    StoreMissing,
    StoreReadOnly,
    StoreUnreadable,
)


class Cancelled(Exception):
    """A read was abandoned because its caller no longer wants the result."""


def uri(path: Path, mode: str) -> str:
    return f"{path.absolute().as_uri()}?mode={mode}"


def is_lock_error(exc: BaseException) -> bool:
    text = str(exc).lower()
    return isinstance(exc, sqlite3.OperationalError) and ("locked" in text or "busy" in text)


def translate_error(exc: sqlite3.Error, path: Path) -> Exception:
    """Turn a sqlite3 error about the file into a typed StoreError; others pass through."""
    text = str(exc).lower()
    if "interrupted" in text:
        return Cancelled()
    if "locked" in text or "busy" in text:
        return StoreLocked(
            "The session store is locked by another process",
            path,
            "wait for the other Hermes process to finish, then try again",
        )
    if "not a database" in text or "malformed" in text or "corrupt" in text:
        return StoreCorrupt(
            f"The session store is damaged ({exc})",
            path,
            "restore a backup of state.db, or run `hermes sessions repair` if your Hermes "
            "has it (`sqlite3 state.db .recover` salvages what it can)",
        )
    if "readonly" in text or "read-only" in text:
        return StoreReadOnly(
            "The session store cannot be written here",
            path,
            "check the permissions of the file and its folder",
        )
    if "unable to open" in text or "disk i/o" in text or "authorization" in text:
        return StoreUnreadable(
            f"The session store cannot be opened ({exc})",
            path,
            "check that the file and its folder are readable (the folder must allow "
            "SQLite's -shm file)",
        )
    return exc


def raise_translated(exc: sqlite3.Error, path: Path) -> None:
    translated = translate_error(exc, path)
    if translated is exc:
        raise exc
    raise translated from exc


def preflight(path: Path) -> os.stat_result:
    """Check the path with stat() only (no open), giving each problem its own message."""
    try:
        st = path.stat()
    except FileNotFoundError:
        raise StoreMissing(
            "No session store yet",
            path,
            "Hermes creates it with your first conversation; run `hermes demo` to try a demo store",
        ) from None
    except PermissionError:
        raise StoreUnreadable(
            "Permission denied reaching the session store",
            path,
            "check the permissions of HERMES_HOME",
        ) from None
    except OSError as exc:
        raise StoreUnreadable(
            f"The session store cannot be reached ({exc.strerror})", path, "check the path"
        ) from None
    if stat.S_ISDIR(st.st_mode):
        raise StoreUnreadable(
            "A directory is where the session store file should be",
            path,
            "move that directory aside so the path holds Hermes' state.db",
        )
    if not stat.S_ISREG(st.st_mode):
        raise StoreUnreadable("The session store is not a regular file", path, "check the path")
    if st.st_size == 0:
        raise StoreEmpty(
            "The session store is an empty (0-byte) file",
            path,
            "restore state.db from a backup, or move the empty file aside so Hermes starts "
            "a new one",
        )
    if not os.access(path, os.R_OK):
        raise StoreUnreadable(
            "Permission denied reading the session store",
            path,
            "check the file's owner and mode (`ls -l`); it should be readable by you",
        )
    return st


def secure_file_modes(path: Path) -> None:
    """chmod 0600 the database and its -wal/-shm by path (never by opening them)."""
    for candidate in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        try:
            st = candidate.lstat()
        except FileNotFoundError:
            continue
        if stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) != 0o600:
            candidate.chmod(0o600)


def create_store_file(path: Path) -> None:
    """Create a new store with Hermes' schema version 22, WAL, mode 0600."""
    parent = path.parent
    if not parent.exists():
        parent.mkdir(parents=True, mode=0o700)
    # O_EXCL: only a brand-new inode is opened here, before any SQLite connection to it
    # exists in this process, so no SQLite lock can be dropped by this close.
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:
        return
    except OSError as exc:
        if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            raise StoreUnreadable(
                "Cannot create the session store here", path, "check the folder's permissions"
            ) from exc
        raise
    os.close(fd)
    fts, trigram = sqlite_features()
    script = ["BEGIN IMMEDIATE;", schema.TABLES_SQL, schema.INDEXES_SQL]
    script += [schema.FTS_SQL] if fts else []
    script += [schema.FTS_TRIGRAM_SQL] if trigram else []
    script.append(
        "INSERT INTO schema_version (version) SELECT "
        f"{schema.SCHEMA_VERSION} WHERE NOT EXISTS (SELECT 1 FROM schema_version);"
    )
    script.append("COMMIT;")
    conn = sqlite3.connect(uri(path, "rw"), uri=True, isolation_level=None, timeout=5.0)
    try:
        conn.execute("PRAGMA journal_mode = WAL")
        # executescript runs the whole script; BEGIN/COMMIT inside make it one transaction.
        conn.executescript("\n".join(script))
    except sqlite3.Error as exc:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise_translated(exc, path)
    finally:
        conn.close()
    secure_file_modes(path)
