"""Connections to state.db: read-only short reads, short retried writes, capabilities.

Rules (SPEC §1): reads open their own read-only connection for one short unit of work and
never write; writes are one short ``BEGIN IMMEDIATE`` transaction, retried with jittered
backoff while another process holds the lock; an existing store is never migrated; the
database file is never opened outside SQLite (that would drop SQLite's POSIX locks).
Connections are not shared between threads: every call opens its own.
"""

from __future__ import annotations

import errno
import functools
import os
import random
import sqlite3
import stat
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from . import schema
from .errors import (
    NotAHermesStore,
    StoreCorrupt,
    StoreEmpty,
    StoreLocked,
    StoreMissing,
    StoreReadOnly,
    StoreUnreadable,
)

T = TypeVar("T")

READ_BUSY_TIMEOUT = 5.0
WRITE_BUSY_TIMEOUT = 1.0
WRITE_ATTEMPTS = 15
RETRY_SLEEP = (0.020, 0.150)


class Cancelled(Exception):
    """A read was abandoned because its caller no longer wants the result."""


@dataclass(frozen=True)
class Capabilities:
    """What an existing store has, detected once at open (never repaired)."""

    schema_version: int | None
    tables: frozenset[str]
    session_columns: frozenset[str]
    message_columns: frozenset[str]
    has_fts: bool
    has_trigram: bool
    journal_mode: str
    read_only_reason: str | None = None

    @property
    def read_only(self) -> bool:
        return self.read_only_reason is not None

    def session_col(self, name: str, fallback: str = "NULL", alias: str = "s") -> str:
        """``alias.name`` if the column exists, else a literal stand-in (older schemas)."""
        return f"{alias}.{name}" if name in self.session_columns else fallback

    def message_col(self, name: str, fallback: str = "NULL", alias: str = "m") -> str:
        return f"{alias}.{name}" if name in self.message_columns else fallback


@functools.cache
def sqlite_features() -> tuple[bool, bool]:
    """(FTS5 available, trigram tokenizer available) in this Python's SQLite."""
    conn = sqlite3.connect(":memory:")
    try:
        try:
            conn.execute("CREATE VIRTUAL TABLE f USING fts5(x)")
        except sqlite3.OperationalError:
            return False, False
        try:
            conn.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='trigram')")
        except sqlite3.OperationalError:
            return True, False
        return True, True
    finally:
        conn.close()


def _uri(path: Path, mode: str) -> str:
    return f"{path.absolute().as_uri()}?mode={mode}"


def _is_lock_error(exc: BaseException) -> bool:
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


def _raise_translated(exc: sqlite3.Error, path: Path) -> None:
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


class Store:
    """A handle on one state.db: its path, its capabilities, and how to talk to it."""

    def __init__(
        self,
        path: Path,
        capabilities: Capabilities,
        *,
        busy_timeout: float = READ_BUSY_TIMEOUT,
        write_timeout: float = WRITE_BUSY_TIMEOUT,
        write_attempts: int = WRITE_ATTEMPTS,
    ) -> None:
        self.path = path
        self.capabilities = capabilities
        self.busy_timeout = busy_timeout
        self.write_timeout = write_timeout
        self.write_attempts = write_attempts

    # -- opening -------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        path: Path,
        *,
        busy_timeout: float = READ_BUSY_TIMEOUT,
        write_timeout: float = WRITE_BUSY_TIMEOUT,
        write_attempts: int = WRITE_ATTEMPTS,
    ) -> Store:
        """Open an existing store without changing it; raises a StoreError if unusable."""
        path = Path(path)
        preflight(path)
        store = cls(
            path,
            Capabilities(None, frozenset(), frozenset(), frozenset(), False, False, ""),
            busy_timeout=busy_timeout,
            write_timeout=write_timeout,
            write_attempts=write_attempts,
        )
        store.refresh_capabilities()
        return store

    @classmethod
    def create(cls, path: Path, **kwargs: float) -> Store:
        """Open *path*, creating a new Hermes-compatible store (mode 0600) if it is absent."""
        path = Path(path)
        if not path.exists():
            create_store_file(path)
        return cls.open(path, **kwargs)  # type: ignore[arg-type]

    @property
    def home(self) -> Path:
        return self.path.parent

    @property
    def read_only(self) -> bool:
        return self.capabilities.read_only

    def refresh_capabilities(self) -> Capabilities:
        with self.read() as conn:
            caps = detect_capabilities(conn, self.path)
        reason = caps.read_only_reason
        version = caps.schema_version
        if reason is None and version is not None and version > schema.SCHEMA_VERSION:
            reason = (
                f"its schema version {version} is newer than the "
                f"{schema.SCHEMA_VERSION} this hermes_tui knows; opened read-only"
            )
        if reason is None and not (
            os.access(self.path, os.W_OK) and os.access(self.path.parent, os.W_OK)
        ):
            reason = "you do not have write permission on it; opened read-only"
        self.capabilities = Capabilities(
            caps.schema_version,
            caps.tables,
            caps.session_columns,
            caps.message_columns,
            caps.has_fts,
            caps.has_trigram,
            caps.journal_mode,
            reason,
        )
        return self.capabilities

    # -- reads ---------------------------------------------------------------------

    def _connect_ro(self) -> sqlite3.Connection:
        try:
            conn = sqlite3.connect(
                _uri(self.path, "ro"),
                uri=True,
                timeout=self.busy_timeout,
                isolation_level=None,
            )
        except sqlite3.Error as exc:
            _raise_translated(exc, self.path)
        conn.row_factory = sqlite3.Row
        return conn

    @contextmanager
    def read(self, cancelled: Callable[[], bool] | None = None) -> Iterator[sqlite3.Connection]:
        """A read-only connection for one short unit of work, closed afterwards.

        *cancelled* is polled while SQLite works; when it returns True the statement is
        interrupted and :class:`Cancelled` is raised.
        """
        conn = self._connect_ro()
        if cancelled is not None:
            conn.set_progress_handler(lambda: 1 if cancelled() else 0, 2_000)
        try:
            yield conn
            if conn.in_transaction:
                conn.execute("COMMIT")
        except sqlite3.Error as exc:
            _raise_translated(exc, self.path)
        finally:
            conn.close()

    @contextmanager
    def snapshot(self, cancelled: Callable[[], bool] | None = None) -> Iterator[sqlite3.Connection]:
        """A read-only connection inside one read transaction (a consistent view)."""
        with self.read(cancelled) as conn:
            conn.execute("BEGIN")
            yield conn

    # -- writes --------------------------------------------------------------------

    def _connect_rw(self) -> sqlite3.Connection:
        try:
            conn = sqlite3.connect(
                _uri(self.path, "rw"),
                uri=True,
                timeout=self.write_timeout,
                isolation_level=None,
            )
        except sqlite3.Error as exc:
            _raise_translated(exc, self.path)
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA foreign_keys = ON")
        return conn

    def write(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run *work* in one ``BEGIN IMMEDIATE`` transaction, retrying while locked.

        *work* must only touch the database (it may run more than once).
        """
        if self.read_only:
            raise StoreReadOnly(
                f"The session store is read-only ({self.capabilities.read_only_reason})",
                self.path,
                "nothing was changed",
            )
        last: BaseException | None = None
        conn = self._connect_rw()
        try:
            for _ in range(self.write_attempts):
                try:
                    conn.execute("BEGIN IMMEDIATE")
                except sqlite3.OperationalError as exc:
                    if not _is_lock_error(exc):
                        raise
                    last = exc
                    time.sleep(random.uniform(*RETRY_SLEEP))
                    continue
                try:
                    result = work(conn)
                    conn.execute("COMMIT")
                    return result
                except sqlite3.OperationalError as exc:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    if not _is_lock_error(exc):
                        raise
                    last = exc
                    time.sleep(random.uniform(*RETRY_SLEEP))
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
        except sqlite3.DatabaseError as exc:
            _raise_translated(exc, self.path)
        finally:
            conn.close()
        raise StoreLocked(
            f"The session store stayed locked by another process ({last})",
            self.path,
            "wait for the other Hermes process to finish, then try again",
        )


def detect_capabilities(conn: sqlite3.Connection, path: Path) -> Capabilities:
    objects = {
        row[0]
        for row in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")
    }
    if "sessions" not in objects or "messages" not in objects:
        raise NotAHermesStore(
            "This SQLite file is not a Hermes session store (no sessions/messages tables)",
            path,
            "check HERMES_HOME points at your Hermes folder",
        )
    session_columns = frozenset(r[1] for r in conn.execute("PRAGMA table_info(sessions)"))
    message_columns = frozenset(r[1] for r in conn.execute("PRAGMA table_info(messages)"))
    version = None
    if "schema_version" in objects:
        row = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()
        version = row[0] if row else None

    def usable(table: str) -> bool:
        if table not in objects:
            return False
        try:
            conn.execute(f"SELECT rowid FROM {table} LIMIT 0").fetchall()
        except sqlite3.OperationalError:
            return False  # e.g. "no such module: fts5" in this Python's SQLite
        return True

    journal = conn.execute("PRAGMA journal_mode").fetchone()[0]
    return Capabilities(
        schema_version=version,
        tables=frozenset(objects),
        session_columns=session_columns,
        message_columns=message_columns,
        has_fts=usable("messages_fts"),
        has_trigram=usable("messages_fts_trigram"),
        journal_mode=str(journal).lower(),
    )


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
    conn = sqlite3.connect(_uri(path, "rw"), uri=True, isolation_level=None, timeout=5.0)
    try:
        conn.execute("PRAGMA journal_mode = WAL")
        # executescript runs the whole script; BEGIN/COMMIT inside make it one transaction.
        conn.executescript("\n".join(script))
    except sqlite3.Error as exc:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        _raise_translated(exc, path)
    finally:
        conn.close()
    secure_file_modes(path)


def meta_get(conn: sqlite3.Connection, key: str) -> str | None:
    try:
        row = conn.execute("SELECT value FROM state_meta WHERE key = ?", (key,)).fetchone()
    except sqlite3.OperationalError:
        return None  # an older store without state_meta
    return None if row is None else row[0]


def meta_set(conn: sqlite3.Connection, key: str, value: str) -> None:
    conn.execute(
        "INSERT INTO state_meta (key, value) VALUES (?, ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (key, value),
    )
