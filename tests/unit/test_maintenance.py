"""Automatic maintenance: nonsense config deletes nothing; the prune spares what it must."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from hermes_tui.config import MaintenanceConfig, parse_config
from hermes_tui.store import Store, set_pinned
from hermes_tui.store import maintenance as mt
from hermes_tui.store.db import meta_get
from hermes_tui.store.filters import DAY
from hermes_tui.store.trash import verify
from tests.conftest import NOW


def _ids(store: Store) -> set[str]:
    with store.read() as conn:
        return {r[0] for r in conn.execute("SELECT id FROM sessions")}


@pytest.fixture
def aged(store: Store, make_session) -> dict[str, str]:
    s = {
        "old": make_session(ago=120 * DAY, messages=[("user", "old one")]),
        "old2": make_session(ago=200 * DAY, messages=[("user", "older")]),
        "recent": make_session(ago=10 * DAY, messages=[("user", "recent")]),
        "pinned": make_session(ago=300 * DAY, messages=[("user", "pinned")]),
        "archived": make_session(ago=300 * DAY, archived=True, messages=[("user", "arch")]),
        "open": make_session(ago=300 * DAY, ended=False, messages=[("user", "still open")]),
    }
    set_pinned(store, s["pinned"], True)
    return s


def _old_trash(home: Path) -> Path:
    folder = home / "session-trash"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "20260101_000000.jsonl"
    path.write_text("{}\n")
    return path


NONSENSE = [
    {"retention_days": 0},
    {"retention_days": -1},
    {"retention_days": "abc"},
    {"retention_days": "90"},
    {"retention_days": None},
    {"auto_prune": "false"},
    {"auto_prune": "yes"},
    {"auto_prune": 1},
    {"vacuum_after_prune": "no"},
    {"min_interval_hours": -5},
    {"min_interval_hours": "daily"},
    {"min_vacuum_interval_days": "x"},
    {"min_vacuum_interval_days": -1},
]


@pytest.mark.parametrize("values", NONSENSE, ids=lambda v: f"{v}")
def test_each_nonsense_value_deletes_nothing(store: Store, aged, home: Path, values) -> None:
    config = parse_config({"sessions": values})
    assert not config.sessions.valid
    assert any("automatic maintenance is skipped" in w for w in config.warnings)
    trash = _old_trash(home)
    before = _ids(store)
    result = mt.run_maintenance(store, config.sessions, now=NOW)
    assert result.deleted == 0 and "not valid" in (result.skipped or "")
    assert _ids(store) == before and trash.exists()  # not even old trash is touched
    with store.read() as conn:
        assert meta_get(conn, mt.LAST_PRUNE_KEY) is None


def test_default_maintenance_prunes_old_ended_sparing_pinned_archived_open(
    store: Store, aged, home: Path
) -> None:
    trash = _old_trash(home)
    result = mt.run_maintenance(store, MaintenanceConfig(), now=NOW)
    assert result.skipped is None and result.deleted == 2 and result.messages == 2
    assert _ids(store) == {aged[k] for k in ("recent", "pinned", "archived", "open")}
    assert result.trash_removed == 1 and not trash.exists()
    (file,) = result.trash
    assert verify(file).sessions == 2
    with store.read() as conn:
        assert float(meta_get(conn, mt.LAST_PRUNE_KEY)) == NOW
    again = mt.run_maintenance(store, MaintenanceConfig(), now=NOW + 3600)
    assert again.skipped == "ran less than min_interval_hours ago" and again.deleted == 0


def test_interval_future_stamp_and_unparsable_stamp(store: Store, aged) -> None:
    store.write(lambda c: c.execute(
        "INSERT INTO state_meta (key, value) VALUES (?, ?)", (mt.LAST_PRUNE_KEY, str(NOW + DAY))
    ))  # fmt: skip
    assert mt.run_maintenance(store, MaintenanceConfig(), now=NOW).deleted == 0
    store.write(lambda c: c.execute(
        "UPDATE state_meta SET value = 'garbage' WHERE key = ?", (mt.LAST_PRUNE_KEY,)
    ))  # fmt: skip
    assert mt.run_maintenance(store, MaintenanceConfig(), now=NOW).deleted == 2


def test_auto_prune_off_still_clears_old_trash(store: Store, aged, home: Path) -> None:
    trash = _old_trash(home)
    result = mt.run_maintenance(store, MaintenanceConfig(auto_prune=False), now=NOW)
    assert result.skipped == "auto_prune is off" and result.deleted == 0
    assert not trash.exists() and len(_ids(store)) == 6


def test_retention_and_batches(store: Store, make_session, monkeypatch) -> None:
    ids = [make_session(ago=(40 + i) * DAY, messages=[("user", "x")]) for i in range(7)]
    monkeypatch.setattr(mt, "BATCH", 3)
    result = mt.run_maintenance(store, MaintenanceConfig(retention_days=30.5), now=NOW)
    assert result.deleted == 7 and len(result.trash) == 3 and _ids(store) == set()
    assert sum(verify(p).sessions for p in result.trash) == len(ids)


def test_batches_also_bounded_by_messages(store: Store, make_session, monkeypatch) -> None:
    for i in range(4):
        make_session(ago=(40 + i) * DAY, messages=[("user", "x"), ("assistant", "y")])
    monkeypatch.setattr(mt, "BATCH_MESSAGES", 3)  # 2 + 2 > 3: one conversation per batch
    result = mt.run_maintenance(store, MaintenanceConfig(retention_days=30), now=NOW)
    assert result.deleted == 4 and len(result.trash) == 4 and result.messages == 8


def test_vacuum_only_when_alone_and_worthwhile(home: Path, make_session, store: Store) -> None:
    big = "lorem ipsum dolor " * 4000
    for i in range(30):
        make_session(ago=(100 + i) * DAY, messages=[("user", big), ("assistant", big)])
    keep = make_session(ago=DAY, messages=[("user", "keep")])
    other = sqlite3.connect(store.path)  # another process has the store open
    other.execute("SELECT COUNT(*) FROM sessions").fetchone()
    result = mt.run_maintenance(store, MaintenanceConfig(), now=NOW)
    assert result.deleted == 30 and not result.vacuumed
    assert "another process has the store open" in (result.vacuum_skipped or "")
    other.close()
    assert _ids(store) == {keep}
    # Alone, with free pages: VACUUM runs and is remembered.
    vacuumed = mt._vacuum(store, MaintenanceConfig(), NOW)
    assert vacuumed == (True, None)
    with store.read() as conn:
        assert conn.execute("PRAGMA freelist_count").fetchone()[0] == 0
        assert float(meta_get(conn, mt.LAST_VACUUM_KEY)) == NOW
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert mt._vacuum(store, MaintenanceConfig(), NOW + DAY)[1] == (
        "vacuumed recently (min_vacuum_interval_days)"
    )
    assert mt._vacuum(store, MaintenanceConfig(vacuum_after_prune=False), NOW)[0] is False
