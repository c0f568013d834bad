"""The browser on the 25,000-session store: first rows after the first frame, paging to the
end (every conversation exactly once), and resident memory.

Run: ``python -m tests.bench.bench_browser``
"""

from __future__ import annotations

import asyncio
import resource
import statistics
import time

from hermes_tui.config import Config
from hermes_tui.store import Store, count_sessions
from hermes_tui.tui.app import build_app
from hermes_tui.tui.screens import browser
from hermes_tui.tui.widgets.session_table import SessionTable

from .common import NOW, big_store, machine


def rss_mb() -> float:
    with open("/proc/self/status", encoding="utf-8") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def first_rows(path) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """Seconds from the browser's first frame (mount) to its first rows on screen."""
    marks: dict[str, float] = {}
    mount, loaded = browser.BrowserScreen.on_mount, browser.BrowserScreen.on_page_loaded

    def on_mount(self) -> None:  # type: ignore[no-untyped-def]
        marks["frame"] = time.perf_counter()
        mount(self)

    def on_page_loaded(self, message) -> None:  # type: ignore[no-untyped-def]
        loaded(self, message)
        marks.setdefault("rows", time.perf_counter())

    browser.BrowserScreen.on_mount = on_mount  # type: ignore[method-assign]
    browser.BrowserScreen.on_page_loaded = on_page_loaded  # type: ignore[method-assign]
    try:
        started = time.perf_counter()
        app = build_app(path, Config(), now=lambda: NOW)
        async with app.run_test(size=(160, 48)) as pilot:
            while "rows" not in marks:
                await pilot.pause(0.01)
            return marks["rows"] - marks["frame"], marks["rows"] - started
    finally:
        browser.BrowserScreen.on_mount = mount  # type: ignore[method-assign]
        browser.BrowserScreen.on_page_loaded = loaded  # type: ignore[method-assign]


async def page_to_end(path) -> tuple[int, int, float, float]:  # type: ignore[no-untyped-def]
    app = build_app(path, Config(), now=lambda: NOW)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = app.screen
        table = screen.query_one(SessionTable)
        while not table.sessions:
            await pilot.pause(0.01)
        started = time.perf_counter()
        pages = 1
        while screen.next_cursor is not None:  # type: ignore[attr-defined]
            before = len(table.sessions)
            table.move_cursor(row=before - 1)
            while len(table.sessions) == before and screen.next_cursor is not None:  # type: ignore[attr-defined]
                await pilot.pause(0.005)
            pages += 1
        ids = [r.root_id for r in table.sessions]
        assert len(ids) == len(set(ids)), "a conversation appeared twice"
        return len(ids), pages, time.perf_counter() - started, rss_mb()


def main() -> None:
    path = big_store()
    print(f"machine: {machine()}")
    firsts = [asyncio.run(first_rows(path)) for _ in range(5)]
    frame = [f[0] * 1000 for f in firsts]
    start = [f[1] * 1000 for f in firsts]
    print(
        f"first rows after the first frame: median {statistics.median(frame):.0f} ms "
        f"(max {max(frame):.0f} ms); after app start: median {statistics.median(start):.0f} ms"
    )
    seen, pages, seconds, rss = asyncio.run(page_to_end(path))
    total = count_sessions(Store.open(path), browser.BrowserScreen().query_state)
    print(
        f"paged to the end: {seen:,} conversations in {pages} pages, {seconds:.1f} s "
        f"({seconds / pages * 1000:.0f} ms a page); store count {total:,}; "
        f"every conversation once: {seen == total}"
    )
    print(f"resident memory with all {seen:,} rows loaded: {rss:.0f} MB")


if __name__ == "__main__":
    main()
