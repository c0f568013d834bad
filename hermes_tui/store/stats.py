"""Store-wide figures for ``hermes sessions stats`` and the stats screen.

Two scans: one ``GROUP BY`` over sessions (source × model) and a ``COUNT(*)`` over the
smallest messages index; everything else is derived in Python from those rows.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable

from .db import Store
from .models import Stats


def _file_size(store: Store, suffix: str = "") -> int:
    try:
        return store.path.with_name(store.path.name + suffix).stat().st_size
    except OSError:
        return 0


def store_stats(store: Store, cancelled: Callable[[], bool] | None = None) -> Stats:
    caps = store.capabilities
    archived = caps.session_col("archived", "0")
    pinned = caps.session_col("pinned", "0")
    cost = (
        f"COALESCE({caps.session_col('actual_cost_usd')}, "
        f"{caps.session_col('estimated_cost_usd')}, 0)"
    )
    sql = (
        "SELECT s.source AS source, COALESCE(s.model, '') AS model, "
        f"SUM(COALESCE({archived}, 0) = 0) AS visible, "
        f"SUM(COALESCE({archived}, 0) = 1) AS archived, "
        "SUM(s.ended_at IS NULL) AS open, "
        f"SUM(COALESCE({pinned}, 0) = 1) AS pinned, "
        "MIN(s.started_at) AS oldest, MAX(s.started_at) AS newest, "
        "SUM(COALESCE(s.input_tokens, 0)) AS input, SUM(COALESCE(s.output_tokens, 0)) AS output, "
        f"SUM({cost}) AS cost, COUNT(*) AS sessions "
        "FROM sessions s GROUP BY s.source, COALESCE(s.model, '')"
    )
    with store.snapshot(cancelled) as conn:
        rows = conn.execute(sql).fetchall()
        total_messages = int(conn.execute("SELECT COUNT(*) FROM messages").fetchone()[0])
    by_source: dict[str, int] = defaultdict(int)
    by_model: dict[str, list[float]] = defaultdict(lambda: [0, 0, 0, 0.0])
    for row in rows:
        by_source[row["source"]] += int(row["visible"] or 0)
        entry = by_model[row["model"] or "unknown"]
        entry[0] += int(row["sessions"] or 0)
        entry[1] += int(row["input"] or 0)
        entry[2] += int(row["output"] or 0)
        entry[3] += float(row["cost"] or 0.0)
    starts = [r["oldest"] for r in rows if r["oldest"] is not None]
    ends = [r["newest"] for r in rows if r["newest"] is not None]
    return Stats(
        total_sessions=sum(by_source.values()),
        total_messages=total_messages,
        archived_sessions=sum(int(r["archived"] or 0) for r in rows),
        open_sessions=sum(int(r["open"] or 0) for r in rows),
        pinned_sessions=sum(int(r["pinned"] or 0) for r in rows),
        by_source=tuple(
            sorted(((s, n) for s, n in by_source.items() if n), key=lambda x: (-x[1], x[0]))
        ),
        database_bytes=_file_size(store),
        wal_bytes=_file_size(store, "-wal"),
        oldest_started=min(starts) if starts else None,
        newest_started=max(ends) if ends else None,
        input_tokens=sum(int(r["input"] or 0) for r in rows),
        output_tokens=sum(int(r["output"] or 0) for r in rows),
        by_model=tuple(
            sorted(
                ((m, int(v[0]), int(v[1]), int(v[2]), float(v[3])) for m, v in by_model.items()),
                key=lambda x: (-x[1], x[0]),
            )
        ),
    )
