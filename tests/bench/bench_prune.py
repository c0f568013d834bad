"""Preview and prune of ~5,000 conversations on a COPY of the 25,000-session store, with a
concurrent reader listing sessions the whole time; then restore of the trash.

Run: ``HERMES_TUI_BENCH_DIR=/work/main/bench-data python -m tests.bench.bench_prune``
The shared store is only read (SQLite backup API, read-only); the copy lives in
``$PRUNE_BENCH_TMP`` (default ``/tmp/prune-bench``) and is deleted at the end.
"""

from __future__ import annotations

import itertools
import json
import multiprocessing as mp
import os
import shutil
import sqlite3
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from hermes_tui.store import ListQuery, Store, list_sessions
from hermes_tui.store.execute import ExecuteResult, Progress, execute
from hermes_tui.store.filters import SessionFilter
from hermes_tui.store.lineage import listable_sql
from hermes_tui.store.listing import last_active_sql
from hermes_tui.store.prune import preview, prune_selection
from hermes_tui.store.restore import restore_file

from .common import NOW, big_store, machine, p, report, timings

TARGET = 5_000
T = TypeVar("T")


def copy_store(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    src = sqlite3.connect(f"{source.absolute().as_uri()}?mode=ro", uri=True)
    dst = sqlite3.connect(target)
    try:
        src.backup(dst, pages=65_536)
    finally:
        src.close()
        dst.close()


def bound_for(store: Store, count: int) -> float:
    """The last-activity bound that selects about *count* of the oldest conversations."""
    sql = (
        f"SELECT {last_active_sql(store.capabilities)} AS k FROM sessions s "
        f"WHERE {listable_sql()} AND s.ended_at IS NOT NULL ORDER BY k LIMIT 1 OFFSET ?"
    )
    with store.read() as conn:
        return float(conn.execute(sql, (count,)).fetchone()[0])


def reader(path: str, stop: mp.Event, out: mp.Queue) -> None:  # type: ignore[type-arg]
    """Another process listing the first page, as the TUI would, until told to stop."""
    store = Store.open(Path(path))
    latencies: list[float] = []
    while not stop.is_set():
        start = time.perf_counter()
        list_sessions(store, ListQuery(), limit=50)
        latencies.append(time.perf_counter() - start)
        time.sleep(0.05)
    out.put(latencies)


def with_reader(path: Path, work: Callable[[], T]) -> tuple[T, list[float]]:
    ctx = mp.get_context("spawn")
    stop, out = ctx.Event(), ctx.Queue()
    proc = ctx.Process(target=reader, args=(str(path), stop, out))
    proc.start()
    time.sleep(2.0)  # let it start and warm up
    try:
        result = work()
    finally:
        stop.set()
    latencies = out.get(timeout=120)
    proc.join(timeout=30)
    return result, latencies


def summary(label: str, values: list[float]) -> None:
    print(
        f"{label:<44} p50 {statistics.median(values) * 1000:8.1f} ms   "
        f"p95 {p(values, 0.95) * 1000:8.1f} ms   max {max(values) * 1000:8.1f} ms   "
        f"(n={len(values)})",
        flush=True,
    )


def main() -> None:
    source = big_store()
    folder = Path(os.environ.get("PRUNE_BENCH_TMP", "/tmp/prune-bench"))
    shutil.rmtree(folder, ignore_errors=True)
    path = folder / "state.db"
    print(f"machine: {machine()}")
    started = time.perf_counter()
    copy_store(source, path)
    print(f"copied {source} → {path} ({path.stat().st_size / 1e9:.1f} GB) in "
          f"{time.perf_counter() - started:.0f} s\n", flush=True)  # fmt: skip
    try:
        run(path)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def run(path: Path) -> None:
    store = Store.open(path)
    f = SessionFilter(older_than=bound_for(store, TARGET))
    selection = prune_selection(f, now=NOW)
    found = preview(store, selection, now=NOW)
    report(f"preview ({found.count:,} matches)", timings(
        lambda: preview(store, selection, now=NOW), runs=5, warmup=1))  # fmt: skip
    doomed = json.dumps([s for m in found.matches for s in m.session_ids])
    with store.read() as conn:
        messages = conn.execute(
            "SELECT COUNT(*) FROM messages WHERE session_id IN (SELECT value FROM json_each(?))",
            (doomed,),
        ).fetchone()[0]
    print(f"matches: {found.count:,} conversations = {found.session_count:,} sessions, "
          f"{messages:,} messages; spared {found.spared_counts()}", flush=True)  # fmt: skip

    _, idle = with_reader(path, lambda: time.sleep(6))
    summary("reader: first list page, store idle", idle)

    phases: dict[str, float] = {}

    def progress(step: Progress) -> None:
        phases.setdefault(step.phase, time.perf_counter())

    def prune() -> ExecuteResult:
        phases["start"] = time.perf_counter()
        return execute(store, found, progress=progress, now=NOW)

    result, during = with_reader(path, prune)
    total = phases["done"] - phases["start"]
    print(f"prune (one transaction): {total:.1f} s for {result.count:,} conversations, "
          f"{result.messages:,} messages", flush=True)  # fmt: skip
    for a, b in itertools.pairwise(["start", "checking", "saving", "deleting", "done"]):
        print(f"  {a:>9} → {b:<9} {phases[b] - phases[a]:7.2f} s")
    trash = result.trash[0]
    print(f"  trash file {trash.stat().st_size / 1e6:.0f} MB")
    summary("reader: first list page, during the prune", during)

    started = time.perf_counter()
    restored = restore_file(store, trash)
    seconds = time.perf_counter() - started
    print(f"restore of the trash: {seconds:.1f} s for {len(restored.restored):,} sessions, "
          f"{restored.messages:,} messages", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
