"""Shared by the benchmarks: the 25,000-session / 1,000,000-message store, and timing."""

from __future__ import annotations

import os
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from hermes_tui.store.generate import generate_store

ROOT = Path(__file__).resolve().parents[2]
NOW = 1_796_000_000.0  # the generator's "now" (2026-11-30), so results are comparable


def bench_dir() -> Path:
    return Path(os.environ.get("HERMES_TUI_BENCH_DIR", ROOT / "bench-data"))


def big_store(sessions: int = 25_000, messages: int = 1_000_000) -> Path:
    """Build (once) or reuse the benchmark store; returns the state.db path."""
    path = bench_dir() / f"{sessions // 1000}k" / "state.db"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        print(f"building {sessions:,} sessions / {messages:,} messages at {path} …", flush=True)
        stats = generate_store(path, sessions, messages, now=NOW, progress=print)
        print(f"built in {stats.seconds:.0f} s", flush=True)
    return path


def timings(fn: Callable[[], object], runs: int = 15, warmup: int = 2) -> list[float]:
    for _ in range(warmup):
        fn()
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def report(label: str, values: list[float]) -> str:
    line = (
        f"{label:<44} p50 {statistics.median(values) * 1000:8.1f} ms   "
        f"p95 {p(values, 0.95) * 1000:8.1f} ms"
    )
    print(line, flush=True)
    return line


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}"
