"""``hermes sessions optimize``: merge the FTS indexes and reclaim space, without risk.

* Refused while another process is writing (a ``BEGIN IMMEDIATE`` that cannot get the
  write lock within a short timeout): optimizing then would only fight Hermes for the lock.
* The FTS indexes are merged with FTS5's ``'merge'`` command and a negative page budget —
  an incremental ``'optimize'`` — in many short write transactions, so a Hermes process
  that starts writing meanwhile waits at most one step.
* ``VACUUM`` runs only with exclusive access: a connection in ``locking_mode=EXCLUSIVE``
  whose ``BEGIN EXCLUSIVE`` succeeds only when no other connection has the store open.
  Otherwise it is skipped and the result says why. VACUUM is transactional in SQLite, so
  the remaining risk is only someone else's broken locking (network filesystems).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

from . import schema
from .db import Store
from .errors import StoreLocked, StoreReadOnly
from .files import is_lock_error, translate_error, uri

MERGE_PAGES = 2_000  # pages written per merge step (~8 MB, a fraction of a second)
PROBE_TIMEOUT = 0.5


class StoreBusy(StoreLocked):
    """Another process is writing, so a maintenance operation was not started."""

    kind = "busy"


@dataclass(frozen=True)
class OptimizeResult:
    fts_tables: tuple[str, ...]
    merge_steps: int
    size_before: int
    size_after: int
    vacuumed: bool
    vacuum_skipped: str | None = None


def store_bytes(store: Store) -> int:
    total = 0
    for suffix in ("", "-wal"):
        try:
            total += store.path.with_name(store.path.name + suffix).stat().st_size
        except OSError:
            pass
    return total


def _connect(store: Store, timeout: float) -> sqlite3.Connection:
    try:
        return sqlite3.connect(
            uri(store.path, "rw"), uri=True, timeout=timeout, isolation_level=None
        )
    except sqlite3.Error as exc:
        raise translate_error(exc, store.path) from exc


def writer_active(store: Store, timeout: float = PROBE_TIMEOUT) -> bool:
    """True when another connection holds the write lock for longer than *timeout*."""
    conn = _connect(store, timeout)
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("ROLLBACK")
        return False
    except sqlite3.OperationalError as exc:
        if is_lock_error(exc):
            return True
        raise translate_error(exc, store.path) from exc
    finally:
        conn.close()


def require_quiet(store: Store, what: str) -> None:
    if store.read_only:
        raise StoreReadOnly(
            f"The session store is read-only ({store.capabilities.read_only_reason})",
            store.path,
            "nothing was changed",
        )
    if writer_active(store):
        raise StoreBusy(
            f"Another process is writing to the session store; {what} was not started",
            store.path,
            "try again when Hermes is idle",
        )


def fts_tables(store: Store) -> tuple[str, ...]:
    caps = store.capabilities
    usable = {"messages_fts": caps.has_fts, "messages_fts_trigram": caps.has_trigram}
    return tuple(t for t, _ in schema.FTS_TABLES if usable.get(t))


def merge_fts(
    store: Store,
    *,
    pages: int = MERGE_PAGES,
    progress: Callable[[str, int], None] | None = None,
) -> int:
    """Merge every FTS index into one segment, a bounded step per transaction."""
    steps = 0
    for table in fts_tables(store):

        def step(conn: sqlite3.Connection, table: str = table) -> bool:
            before = conn.total_changes
            conn.execute(f"INSERT INTO {table}({table}, rank) VALUES ('merge', ?)", (-pages,))
            # FTS5: fewer than 2 changes means there was nothing left to merge.
            return conn.total_changes - before >= 2

        while store.write(step):
            steps += 1
            if progress is not None:
                progress(table, steps)
    return steps


def _exclusive(conn: sqlite3.Connection) -> bool:
    """Take the database for this connection alone; False if anyone else has it open.

    In WAL mode a connection in ``locking_mode=EXCLUSIVE`` gets its ``BEGIN EXCLUSIVE``
    only when no other connection (of any process) has the database open."""
    conn.execute("PRAGMA locking_mode = EXCLUSIVE")
    try:
        conn.execute("BEGIN EXCLUSIVE")
        conn.execute("COMMIT")  # in exclusive locking mode the lock is kept until close
    except sqlite3.OperationalError as exc:
        if is_lock_error(exc):
            return False
        raise
    return True


def others_connected(store: Store, timeout: float = 0.2) -> bool:
    """Does any other connection (a running Hermes, say) have the store open right now?"""
    conn = _connect(store, timeout)
    try:
        return not _exclusive(conn)
    except sqlite3.Error as exc:
        raise translate_error(exc, store.path) from exc
    finally:
        conn.close()


def vacuum_if_alone(store: Store, timeout: float = 0.2) -> str | None:
    """VACUUM with exclusive access; returns why it was skipped (None = done)."""
    conn = _connect(store, timeout)
    try:
        if not _exclusive(conn):
            return "another process has the store open (run it again with Hermes closed)"
        conn.execute("VACUUM")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return None
    except sqlite3.Error as exc:
        raise translate_error(exc, store.path) from exc
    finally:
        conn.close()


def checkpoint(store: Store) -> None:
    """Best effort: fold the WAL back into the database and truncate it."""
    conn = _connect(store, 0.2)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    except sqlite3.OperationalError:
        pass  # readers still need the WAL; Hermes' own checkpoints finish the job later
    finally:
        conn.close()


def optimize(store: Store, *, progress: Callable[[str, int], None] | None = None) -> OptimizeResult:
    """FTS merge then VACUUM (when alone). Raises StoreBusy while another process writes."""
    require_quiet(store, "optimize")
    before = store_bytes(store)
    steps = merge_fts(store, progress=progress)
    skipped = vacuum_if_alone(store)
    if skipped is not None:
        checkpoint(store)
    return OptimizeResult(
        fts_tables(store), steps, before, store_bytes(store), skipped is None, skipped
    )
