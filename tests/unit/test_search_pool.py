"""Scroll reuses idle read-only connections, safely."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from hermes_tui.store import Cancelled, Store, StoreMissing
from hermes_tui.store.search import SearchError, pool, read_session, scroll

from .searchkit import add_session, copy_store


@pytest.fixture(autouse=True)
def empty_pool():
    pool.close_idle()
    yield
    pool.close_idle()


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[sqlite3.Connection]:
    made: list[sqlite3.Connection] = []
    original = pool._connect

    def connect(store: Store) -> sqlite3.Connection:
        made.append(original(store))
        return made[-1]

    monkeypatch.setattr(pool, "_connect", connect)
    return made


def test_scrolls_reuse_one_connection(store: Store, counted) -> None:
    sid, ids = add_session(store, [("user", f"line {n}") for n in range(20)])
    for anchor in ids:
        assert scroll(store, sid, anchor, window=3).window.anchor_id == anchor
    read_session(store, sid)
    assert len(counted) == 1
    assert not counted[0].in_transaction


def test_a_failed_call_does_not_return_its_connection(store: Store, counted) -> None:
    sid, ids = add_session(store, [("user", "hello"), ("assistant", "hi")])
    with pytest.raises(SearchError):
        scroll(store, "missing", ids[0])
    scroll(store, sid, ids[0])
    assert len(counted) == 2


def test_cancellation_works_and_is_not_left_behind(store: Store, counted) -> None:
    sid, ids = add_session(store, [("user", f"line {n}") for n in range(50)])
    with pytest.raises(Cancelled):
        scroll(store, sid, ids[10], cancelled=lambda: True)
    assert scroll(store, sid, ids[10], cancelled=lambda: False).window.messages_before == 5
    assert scroll(store, sid, ids[11]).window.messages_before == 5  # no handler left behind


def test_a_replaced_file_gets_a_fresh_connection(store: Store, tmp_path: Path, counted) -> None:
    sid, ids = add_session(store, [("user", "first store")])
    scroll(store, sid, ids[0])
    other = Store.create(tmp_path / "other" / "state.db")
    osid, oids = add_session(other, [("user", "second store")])
    replacement = copy_store(other, tmp_path / "copy")
    replacement.replace(store.path)  # a restore from backup, done by another program
    for suffix in ("-wal", "-shm"):
        Path(str(store.path) + suffix).unlink(missing_ok=True)
    assert scroll(store, osid, oids[0]).window.messages[0].content == "second store"
    assert len(counted) == 2


def test_a_missing_file_is_the_stores_error(store: Store) -> None:
    sid, ids = add_session(store, [("user", "x")])
    scroll(store, sid, ids[0])
    store.path.unlink()
    with pytest.raises(StoreMissing):
        scroll(store, sid, ids[0])


def test_threads_scroll_at_once(store: Store) -> None:
    sid, ids = add_session(store, [("user", f"line {n}") for n in range(200)])
    errors: list[BaseException] = []

    def work(offset: int) -> None:
        try:
            for anchor in ids[offset::7]:
                view = scroll(store, sid, anchor, window=2)
                assert view.window.anchor_id == anchor
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(7)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert sum(len(conns) for _, conns in pool._idle.values()) <= pool.MAX_IDLE


def test_pooling_can_be_switched_off(store: Store, counted, monkeypatch) -> None:
    monkeypatch.setattr(pool, "MAX_IDLE", 0)
    sid, ids = add_session(store, [("user", "x"), ("assistant", "y")])
    scroll(store, sid, ids[0])
    scroll(store, sid, ids[1])
    assert len(counted) == 2
