"""Export of ~1,000 conversations from the 25,000-session store to Markdown and to one HTML
page (and, for comparison, JSONL and a redacted HTML page), into a temporary folder.

Run: ``HERMES_TUI_BENCH_DIR=/work/main/bench-data python -m tests.bench.bench_export``
The store is only read (exports never write to it); the output folder is deleted at the end.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

from hermes_tui.store import Store
from hermes_tui.store.export import ExportRequest, export_sessions, plan_export
from hermes_tui.store.filters import SessionFilter
from hermes_tui.store.lineage import listable_sql
from hermes_tui.store.listing import last_active_sql

from .common import big_store, machine

TARGET = 1_000


def bound_for(store: Store, count: int) -> float:
    """The last-activity bound that selects about *count* of the oldest ended conversations."""
    sql = (
        f"SELECT {last_active_sql(store.capabilities)} AS k FROM sessions s "
        f"WHERE {listable_sql()} AND s.ended_at IS NOT NULL ORDER BY k LIMIT 1 OFFSET ?"
    )
    with store.read() as conn:
        return float(conn.execute(sql, (count,)).fetchone()[0])


def size_of(paths: list[Path]) -> int:
    return sum(p.stat().st_size for p in paths)


def run(store: Store, folder: Path) -> None:
    f = SessionFilter(older_than=bound_for(store, TARGET))
    started = time.perf_counter()
    plan = plan_export(store, ExportRequest(format="md", filter=f, output=folder / "md"))
    planned = time.perf_counter() - started
    print(
        f"selection: {len(plan.items):,} files = {plan.session_count:,} sessions "
        f"(filter + units + file names: {planned:.2f} s)",
        flush=True,
    )
    cases = [
        ("md", ExportRequest(format="md", filter=f, output=folder / "md")),
        ("html", ExportRequest(format="html", filter=f, output=folder / "all.html")),
        (
            "html --redact",
            ExportRequest(format="html", filter=f, output=folder / "red.html", redact=True),
        ),
        ("jsonl", ExportRequest(format="jsonl", filter=f, output=folder / "all.jsonl")),
    ]
    for label, request in cases:
        started = time.perf_counter()
        result = export_sessions(store, request)
        seconds = time.perf_counter() - started
        size = size_of(list(result.paths))
        rate = result.messages / seconds if seconds else 0.0
        print(
            f"{label:<14} {seconds:7.1f} s  {result.sessions:,} sessions, "
            f"{result.messages:,} messages ({rate:,.0f}/s), {len(result.paths):,} file(s), "
            f"{size / 1e6:,.1f} MB",
            flush=True,
        )


def main() -> None:
    path = big_store()
    print(f"machine: {machine()}")
    print(f"store: {path} ({path.stat().st_size / 1e9:.1f} GB), read only\n", flush=True)
    folder = Path(tempfile.mkdtemp(prefix="export-bench-"))
    try:
        run(Store.open(path), folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
