"""List pages, counts, stats and resolution on the 25,000-session store.

Run: ``python -m tests.bench.bench_store``
"""

from __future__ import annotations

import sqlite3

from hermes_tui.store import ListQuery, Store, count_sessions, list_sessions, store_stats
from hermes_tui.store.listing import _filters
from hermes_tui.store.resolve import latest_session

from .common import big_store, machine, report, timings


def main() -> None:
    path = big_store()
    store = Store.open(path)
    with sqlite3.connect(path) as conn:
        sessions = conn.execute("SELECT COUNT(*) FROM sessions").fetchone()[0]
        messages = conn.execute("SELECT MAX(id) FROM messages").fetchone()[0]
    print(
        f"store: {sessions:,} sessions, {messages:,} messages, {path.stat().st_size / 1e9:.1f} GB"
    )
    print(f"machine: {machine()}\n")

    for sort in ("started", "last_active"):
        query = ListQuery(sort=sort)  # type: ignore[arg-type]
        report(f"list first page (50, {sort})", timings(lambda q=query: list_sessions(store, q)))
        cursor = None
        for _ in range(20):
            cursor = list_sessions(store, query, cursor=cursor).next_cursor
        report(
            f"list page 21 (50, {sort})",
            timings(lambda q=query, c=cursor: list_sessions(store, q, cursor=c)),
        )
    report("list filtered by source (telegram)", timings(
        lambda: list_sessions(store, ListQuery(source="telegram"))))  # fmt: skip
    report("list filtered by text ('deploy')", timings(
        lambda: list_sessions(store, ListQuery(text="deploy")), runs=7))  # fmt: skip
    report("count (N of M)", timings(lambda: count_sessions(store, ListQuery())))
    report("stats", timings(lambda: store_stats(store), runs=7))
    report("resolve 'latest'", timings(lambda: latest_session(store), runs=7))

    with store.read() as conn:
        where, params = _filters(store.capabilities, ListQuery())
        sql = (
            f"SELECT s.id FROM sessions s WHERE {' AND '.join(where)} "
            "ORDER BY s.started_at DESC, s.id DESC LIMIT 51"
        )
        plan = [row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + sql, params)]
    print("\nEXPLAIN QUERY PLAN (list, started):")
    for line in plan:
        print("  " + line)


if __name__ == "__main__":
    main()
