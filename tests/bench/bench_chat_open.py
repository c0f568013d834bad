"""Opening long conversations in the chat pane: time from Enter (the screen pushed) to its
first screen of messages, for sessions of about 2,000 and 15,000 messages (and the largest).

Run: ``python -m tests.bench.bench_chat_open``
"""

from __future__ import annotations

import asyncio
import sqlite3
import statistics
import time

from hermes_tui.config import Config
from hermes_tui.tui.app import build_app
from hermes_tui.tui.messages import OpenSession
from hermes_tui.tui.screens import chat as chat_module

from .common import NOW, big_store, machine

RUNS = 7


def pick(path, target: int) -> tuple[str, int]:  # type: ignore[no-untyped-def]
    """The session whose live message count is closest to *target*."""
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        row = conn.execute(
            "SELECT id, message_count FROM sessions ORDER BY ABS(message_count - ?) LIMIT 1",
            (target,),
        ).fetchone()
    return row[0], row[1]


async def open_times(path, session_id: str) -> list[float]:  # type: ignore[no-untyped-def]
    shown: list[float] = []
    original = chat_module.ChatScreen.on_loaded

    async def on_loaded(self, message) -> None:  # type: ignore[no-untyped-def]
        await original(self, message)
        self.call_after_refresh(lambda: shown.append(time.perf_counter()))

    chat_module.ChatScreen.on_loaded = on_loaded  # type: ignore[method-assign]
    times = []
    try:
        # resume=False: a benchmark must not re-open (write) rows of the shared store.
        app = build_app(path, Config(), now=lambda: NOW)
        async with app.run_test(size=(160, 48)) as pilot:
            await pilot.pause(0.5)
            for _ in range(RUNS):
                before = len(shown)
                started = time.perf_counter()
                app.post_message(OpenSession(session_id, resumed=False))
                while len(shown) == before:
                    await pilot.pause(0.002)
                times.append(shown[-1] - started)
                app.pop_screen()
                await pilot.pause(0.1)
    finally:
        chat_module.ChatScreen.on_loaded = original  # type: ignore[method-assign]
    return times


def main() -> None:
    path = big_store()
    print(f"machine: {machine()}")
    for target in (2_000, 15_000, 1_000_000):
        session_id, count = pick(path, target)
        times = asyncio.run(open_times(path, session_id))
        print(
            f"open a {count:,}-message session: median {statistics.median(times) * 1000:.0f} ms"
            f"  (min {min(times) * 1000:.0f}, max {max(times) * 1000:.0f})"
        )


if __name__ == "__main__":
    main()
