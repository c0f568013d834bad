"""Search on the 25,000-session / 1,000,000-message store: discovery per query class, scroll.

Run: ``python -m tests.bench.bench_search [--runs 7] [--baseline]``

Each class has five queries; each query runs once to warm up, then ``--runs`` times, each
call a full ``discover()`` (its own read-only connection, candidates, ranking, windows,
bookends, snippets — what the TUI and the tool get). p50/p95 are over all the runs of the
class. ``cpu`` is the process CPU time of the same calls: on a machine shared with other
jobs the wall time includes waiting for a core; the CPU time is the work itself.
``--baseline`` also times Hermes Agent 0.19's query shape (ORDER BY rank LIMIT 300 with a
snippet per row) for comparison.
"""

from __future__ import annotations

import argparse
import os
import random
import sqlite3
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from hermes_tui.store import Store
from hermes_tui.store.search import discover, scroll
from hermes_tui.store.search.emit import to_fts5
from hermes_tui.store.search.sanitize import parse_query

from .common import big_store, machine, p

CLASSES: dict[str, list[str]] = {
    "single word": ["docker", "kubernetes", "pytest", "grafana", "webhook"],
    "two words": ["docker kubernetes", "database migration", "memory leak", "redis cache",
                  "async worker"],
    "phrase": ['"database migration"', '"memory leak"', '"flaky regression"',
               '"rollback certificate"', '"the docker"'],
    "prefix": ["deploy*", "kube*", "migrat*", "con*", "bench*"],
    "OR": ["docker OR kubernetes", "redis OR postgres", "grafana OR prometheus",
           "helm OR terraform", "nginx OR proxy"],
    "rare word": ["xylophone", "quasar", "zeppelin", "mandragora", "kaleidoscope"],
    "common word": ["the", "of", "and", "to", "is"],
    "hyphenated": ["chat-send", "wrong-book", "v2.1.3-beta", "my-app.config.ts",
                   "alice@example.com"],
    "CJK, 3+ characters": ["桂林的", "修改youer服务端", "ラーメン", "서울에서", "中欧红利基金"],
    "CJK, 2 characters": ["旅行", "桂林", "東京", "서울", "会議"],
}  # fmt: skip
STRESS = ["co*", "c*"]
BUDGET_P50, BUDGET_P95, BUDGET_SCROLL = 0.050, 0.150, 0.001


def timed(fn: Callable[[], object], runs: int) -> tuple[list[float], list[float]]:
    fn()
    walls, cpus = [], []
    for _ in range(runs):
        w, c = time.perf_counter(), time.process_time()
        fn()
        cpus.append(time.process_time() - c)
        walls.append(time.perf_counter() - w)
    return walls, cpus


def line(
    label: str,
    walls: list[float],
    cpus: list[float],
    p50_budget: float | None = None,
    p95_budget: float | None = None,
) -> str:
    p50, p95 = statistics.median(walls), p(walls, 0.95)
    verdict = ""
    if p50_budget is not None:
        within = p50 <= p50_budget and (p95_budget is None or p95 <= p95_budget)
        verdict = "  ok" if within else "  OVER"
    text = (
        f"{label:<26} p50 {p50 * 1000:7.1f} ms  p95 {p95 * 1000:7.1f} ms   "
        f"cpu p50 {statistics.median(cpus) * 1000:6.1f} ms{verdict}"
    )
    print(text, flush=True)
    return text


def hermes_baseline(path: Path, query: str) -> None:
    """Hermes Agent 0.19's discovery query: rank every match, snippet 300 of them (the
    query sanitized as Hermes would, e.g. ``chat-send`` → ``"chat-send"``)."""
    tree = parse_query(query).tree
    assert tree is not None
    query = to_fts5(tree)
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        conn.execute(
            "SELECT m.id, m.session_id, snippet(messages_fts, 0, '>>>', '<<<', '...', 40) "
            "FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid "
            "JOIN sessions s ON s.id = m.session_id WHERE messages_fts MATCH ? "
            "AND m.role IN ('user', 'assistant') AND s.source NOT IN ('tool') "
            "AND (m.active = 1 OR m.compacted = 1) ORDER BY rank LIMIT 300",
            (query,),
        ).fetchall()
    finally:
        conn.close()


def scroll_targets(path: Path, count: int, seed: int = 7) -> list[tuple[str, int]]:
    rng = random.Random(seed)
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        top = conn.execute("SELECT MAX(id) FROM messages").fetchone()[0]
        targets = []
        while len(targets) < count:
            row = conn.execute(
                "SELECT id, session_id FROM messages WHERE id >= ? AND role IN "
                "('user', 'assistant') ORDER BY id LIMIT 1",
                (rng.randint(1, top),),
            ).fetchone()
            if row:
                targets.append((row[1], row[0]))
        return targets
    finally:
        conn.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--baseline", action="store_true")
    args = parser.parse_args()
    path = big_store()
    store = Store.open(path)
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        sessions = conn.execute("SELECT COUNT(*) FROM sessions").fetchone()[0]
        messages = conn.execute("SELECT MAX(id) FROM messages").fetchone()[0]
    print(
        f"store: {sessions:,} sessions, {messages:,} messages, {path.stat().st_size / 1e9:.1f} GB"
    )
    print(f"machine: {machine()}, SQLite {sqlite3.sqlite_version}")
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}\n")

    print("discovery (limit 3, relevance): every class, five queries each")
    for label, queries in CLASSES.items():
        walls: list[float] = []
        cpus: list[float] = []
        for query in queries:
            w, c = timed(lambda q=query: discover(store, q), args.runs)
            walls += w
            cpus += c
        line(label, walls, cpus, BUDGET_P50, BUDGET_P95)
    for limit, sort in ((10, "relevance"), (3, "newest")):
        walls, cpus = [], []
        for queries in CLASSES.values():
            w, c = timed(
                lambda q=queries[0], n=limit, o=sort: discover(store, q, limit=n, sort=o),  # type: ignore[arg-type]
                3,
            )
            walls += w
            cpus += c
        line(f"all classes, limit {limit}, {sort}", walls, cpus)

    print("\nshort prefixes (outside the classes; see the README):")
    for query in STRESS:
        line(query, *timed(lambda q=query: discover(store, q), 3))

    print("\nscroll (window 5) around 300 random user/assistant messages")
    targets = scroll_targets(path, 300)
    for sid, mid in targets[:5]:
        scroll(store, sid, mid)
    walls, cpus = [], []
    for sid, mid in targets:
        w, c = time.perf_counter(), time.process_time()
        scroll(store, sid, mid)
        cpus.append(time.process_time() - c)
        walls.append(time.perf_counter() - w)
    line("scroll", walls, cpus, BUDGET_SCROLL)

    if args.baseline:
        print("\nHermes Agent 0.19's query shape (rank all, snippet 300), for comparison")
        for label, queries in CLASSES.items():
            if label.startswith("CJK"):
                continue
            line(label, *timed(lambda q=queries[0]: hermes_baseline(path, q), 2))
    print(f"\nload average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
