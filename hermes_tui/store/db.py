"""Connections to state.db: read-only short reads, short retried writes, capabilities.

Rules (SPEC §1): reads open their own read-only connection for one short unit of work and
never write; writes are one short ``BEGIN IMMEDIATE`` transaction, retried with jittered
backoff while another process holds the lock; an existing store is never migrated; the
database file is never opened outside SQLite (that would drop SQLite's POSIX locks).
Connections are not shared between threads: every call opens its own.
"""

from __future__ import annotations

import os
import random
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from . import schema
from .capabilities import Capabilities, detect_capabilities, sqlite_features
from .errors import StoreLocked, StoreReadOnly
from .files import (
    Cancelled,
    create_store_file,
    is_lock_error,
    preflight,
    raise_translated,
    secure_file_modes,
    translate_error,
    uri,
)

__all__ = [
    "Cancelled",
    "Capabilities",
    "Store",
    "create_store_file",
    "detect_capabilities",
    "meta_get",
    "meta_set",
    "preflight",
    "secure_file_modes",
    "sqlite_features",
    "translate_error",
]

T = TypeVar("T")

READ_BUSY_TIMEOUT = 5.0
WRITE_BUSY_TIMEOUT = 1.0
WRITE_ATTEMPTS = 15
RETRY_SLEEP = (0.020, 0.150)


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
                uri(self.path, "ro"),
                uri=True,
                timeout=self.busy_timeout,
                isolation_level=None,
            )
        except sqlite3.Error as exc:
            raise_translated(exc, self.path)
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
            raise_translated(exc, self.path)
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
                uri(self.path, "rw"),
                uri=True,
                timeout=self.write_timeout,
                isolation_level=None,
            )
        except sqlite3.Error as exc:
            raise_translated(exc, self.path)
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
                    if not is_lock_error(exc):
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
                    if not is_lock_error(exc):
                        raise
                    last = exc
                    time.sleep(random.uniform(*RETRY_SLEEP))
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
        except sqlite3.DatabaseError as exc:
            raise_translated(exc, self.path)
        finally:
            conn.close()
        raise StoreLocked(
            f"The session store stayed locked by another process ({last})",
            self.path,
            "wait for the other Hermes process to finish, then try again",
        )


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
