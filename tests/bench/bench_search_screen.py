"""The search screen on the 25,000-session store: time from the last keystroke to the
results on screen, for every query class of the engine benchmark.

Run: ``python -m tests.bench.bench_search_screen``
"""

from __future__ import annotations

import asyncio
import statistics
import time

from textual.widgets import Input

from hermes_tui.config import Config
from hermes_tui.tui.app import Start, build_app
from hermes_tui.tui.screens import search as screen_module

from .bench_search import CLASSES
from .common import NOW, big_store, machine, p

RUNS = 5


async def measure() -> dict[str, list[float]]:
    shown: dict[int, float] = {}
    original = screen_module.SearchScreen.on_searched

    def on_searched(self, message) -> None:  # type: ignore[no-untyped-def]
        original(self, message)
        if message.generation == self.generation:
            shown[message.generation] = time.perf_counter()

    screen_module.SearchScreen.on_searched = on_searched  # type: ignore[method-assign]
    timings: dict[str, list[float]] = {}
    try:
        app = build_app(big_store(), Config(), start=Start(search=""), now=lambda: NOW)
        async with app.run_test(size=(160, 48)) as pilot:
            await pilot.pause(0.5)
            screen = app.screen
            field = screen.query_one("#search-query", Input)
            for label, queries in CLASSES.items():
                for _ in range(RUNS):
                    for query in queries:
                        field.value = query[:-1]  # everything but the last keystroke
                        await pilot.pause(0.15)
                        pressed = time.perf_counter()
                        field.insert_text_at_cursor(query[-1])
                        generation = screen.generation + 1
                        while generation not in shown:
                            await pilot.pause(0.002)
                        timings.setdefault(label, []).append(shown[generation] - pressed)
    finally:
        screen_module.SearchScreen.on_searched = original  # type: ignore[method-assign]
    return timings


def main() -> None:
    print(f"machine: {machine()}")
    print("last keystroke → results on screen (debounce 40 ms included)")
    for label, values in asyncio.run(measure()).items():
        print(
            f"  {label:<24} p50 {statistics.median(values) * 1000:6.1f} ms   "
            f"p95 {p(values, 0.95) * 1000:6.1f} ms"
        )


if __name__ == "__main__":
    main()
