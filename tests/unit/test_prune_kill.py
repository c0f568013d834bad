"""A prune killed with SIGKILL at random points leaves the store whole: either the whole
batch is deleted (and its verified trash file exists) or none of it is."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hermes_tui.store import Store
from hermes_tui.store.filters import build_filter
from hermes_tui.store.generate import generate_store
from hermes_tui.store.prune import preview, prune_selection
from hermes_tui.store.trash import verify
from tests.conftest import NOW

ROOT = Path(__file__).resolve().parents[2]
RUNS = 12
CHILD = f"""
import sys
from pathlib import Path
from hermes_tui.store import Store
from hermes_tui.store.execute import execute
from hermes_tui.store.filters import build_filter
from hermes_tui.store.prune import preview, prune_selection
store = Store.open(Path(sys.argv[1]))
now = {NOW!r}
selection = prune_selection(build_filter({{"older_than": "20d"}}, now), now=now)
found = preview(store, selection, now=now)
print("ready", flush=True)
execute(store, found, now=now)
print("done", flush=True)
"""


def _copy(template: Path, target: Path) -> None:
    target.parent.mkdir(parents=True)
    src = sqlite3.connect(template)
    dst = sqlite3.connect(target)
    src.backup(dst)
    dst.execute("PRAGMA journal_mode = WAL")
    src.close()
    dst.close()


def _ids(path: Path) -> set[str]:
    with sqlite3.connect(path) as conn:
        return {r[0] for r in conn.execute("SELECT id FROM sessions")}


def _check_whole(path: Path) -> None:
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        messages = conn.execute("SELECT COUNT(*) FROM messages").fetchone()[0]
        for table in ("messages_fts", "messages_fts_trigram"):
            conn.execute(f"INSERT INTO {table}({table}) VALUES ('integrity-check')")
            assert conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] == messages
        orphans = conn.execute(
            "SELECT COUNT(*) FROM messages m LEFT JOIN sessions s ON s.id = m.session_id "
            "WHERE s.id IS NULL"
        ).fetchone()[0]
        assert orphans == 0


def _run(path: Path, delay: float | None) -> tuple[int, float]:
    env = {**os.environ, "HERMES_HOME": str(path.parent), "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    )
    assert child.stdout is not None and child.stdout.readline().strip() == "ready"
    start = time.perf_counter()
    if delay is not None:
        time.sleep(delay)
        child.send_signal(signal.SIGKILL)
    child.wait(timeout=120)
    return child.returncode, time.perf_counter() - start


@pytest.mark.slow
def test_sigkill_at_random_points_is_all_or_nothing(tmp_path: Path) -> None:
    template = tmp_path / "template.db"
    generate_store(template, 600, 16_000, now=NOW, seed=21)
    everything = _ids(template)
    store = Store.open(template)
    found = preview(store, prune_selection(build_filter({"older_than": "20d"}, NOW), now=NOW))
    planned = {sid for m in found.matches for sid in m.session_ids}
    assert len(planned) > 400

    calibrate = tmp_path / "calibrate" / "state.db"
    _copy(template, calibrate)
    code, full = _run(calibrate, None)
    assert code == 0 and everything - _ids(calibrate) == planned

    rng = random.Random(1234)
    outcomes: list[str] = []
    for run in range(RUNS):
        path = tmp_path / f"run{run}" / "state.db"
        _copy(template, path)
        code, _ = _run(path, rng.uniform(0.0, full * 0.98))
        _check_whole(path)
        deleted = everything - _ids(path)
        trash = sorted((path.parent / "session-trash").glob("*.jsonl"))
        if deleted:
            assert deleted == planned, f"run {run}: part of the batch was deleted"
            (file,) = trash
            assert verify(file).sessions == len(planned)  # the undo is complete
            outcomes.append("all")
        else:
            outcomes.append("none")
        if code != -signal.SIGKILL:
            assert code == 0 and deleted == planned
    assert outcomes.count("none") >= 3, outcomes  # most kills land before the commit
