"""Reusing idle read-only connections for the scroll shape (budget: 1 ms).

A fresh connection spends 0.3–0.45 ms parsing Hermes' schema (tables, indexes, triggers,
FTS tables) before its first statement — half of a scroll, which the TUI issues on every
key press. So scroll and read take a connection from a small process-wide pool and give it
back afterwards, instead of opening and closing one each time.

The store's rules still hold: the connections are read-only (``mode=ro``), in autocommit
mode, and never left inside a transaction (an idle connection is not a WAL reader, so it
cannot hold back Hermes' checkpoints); a connection is used by one thread at a time (taken
out of the pool under a lock); one that saw an error is closed, not returned; and if the
file at the path is replaced (restored, repaired) the pooled connections to the old file
are closed. At most :data:`MAX_IDLE` connections per store, for the :data:`MAX_STORES` most
recently used stores, stay open. Set :data:`MAX_IDLE` to 0 to open a fresh connection
every time.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from ..db import Cancelled, Store, preflight, translate_error

MAX_IDLE = 4
MAX_STORES = 2

_lock = threading.Lock()
_idle: OrderedDict[str, tuple[tuple[int, int], list[sqlite3.Connection]]] = OrderedDict()


def _identity(path: Path) -> tuple[int, int]:
    st = preflight(path)  # the store's own checks and messages (missing, empty, …)
    return st.st_dev, st.st_ino


def _take(key: str, identity: tuple[int, int]) -> sqlite3.Connection | None:
    with _lock:
        entry = _idle.get(key)
        if entry is None:
            return None
        known, conns = entry
        if known != identity:
            del _idle[key]
            stale = conns
        else:
            return conns.pop() if conns else None
    for conn in stale:
        conn.close()
    return None


def _give_back(key: str, identity: tuple[int, int], conn: sqlite3.Connection) -> None:
    evicted: list[sqlite3.Connection] = []
    with _lock:
        known, conns = _idle.setdefault(key, (identity, []))
        _idle.move_to_end(key)
        while len(_idle) > MAX_STORES:  # the least recently used store's connections go
            evicted.extend(_idle.popitem(last=False)[1][1])
        keep = known == identity and len(conns) < MAX_IDLE
        if keep:
            conns.append(conn)
    for old in evicted:
        old.close()
    if not keep:
        conn.close()


def _connect(store: Store) -> sqlite3.Connection:
    try:
        conn = sqlite3.connect(
            f"{store.path.absolute().as_uri()}?mode=ro",
            uri=True,
            timeout=store.busy_timeout,
            isolation_level=None,
            check_same_thread=False,  # handed to one thread at a time, under _lock
        )
    except sqlite3.Error as exc:
        raise translate_error(exc, store.path) from exc
    conn.row_factory = sqlite3.Row
    return conn


@contextmanager
def pooled_read(
    store: Store, cancelled: Callable[[], bool] | None = None
) -> Iterator[sqlite3.Connection]:
    """Like :meth:`Store.read`, on a reused connection when one is idle. A call whose
    *cancelled* already says so raises :class:`Cancelled` before any work."""
    if cancelled is not None and cancelled():
        raise Cancelled()
    key = os.fspath(store.path.absolute())
    identity = _identity(store.path)
    conn = _take(key, identity) or _connect(store)
    if cancelled is not None:
        conn.set_progress_handler(lambda: 1 if cancelled() else 0, 2_000)
    reusable = False
    try:
        yield conn
        reusable = not conn.in_transaction
    except sqlite3.Error as exc:
        translated = translate_error(exc, store.path)
        if translated is exc:
            raise
        raise translated from exc
    finally:
        # Only a connection whose work ended normally goes back: after an exception a
        # cursor could still be referenced (by the traceback) and keep a read open.
        conn.set_progress_handler(None, 0)
        if reusable and MAX_IDLE > 0:
            _give_back(key, identity, conn)
        else:
            conn.close()


def close_idle() -> None:
    """Close every pooled connection (tests; an app shutting down)."""
    with _lock:
        entries = list(_idle.values())
        _idle.clear()
    for _, conns in entries:
        for conn in conns:
            conn.close()
