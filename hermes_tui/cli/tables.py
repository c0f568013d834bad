"""Session tables for the terminal, laid out as Hermes does but aligned by cell width."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import PurePath

from ..store import SessionRow
from ..textsafe import clean, fit
from ..timefmt import relative_time


def _workspace_name(row: SessionRow) -> str:
    return PurePath(row.workspace).name if row.workspace else ""


def _marks(row: SessionRow) -> str:
    marks = ("📌" if row.pinned else "") + ("▣" if row.archived else "")
    return f"{marks} " if marks else ""


def session_table(rows: Sequence[SessionRow], now: float | None = None) -> list[str]:
    """Hermes' four layouts of ``hermes sessions list`` (HERMES_AGENT_BEHAVIOUR.md §6.1),
    padded by terminal cells instead of code points so CJK and emoji stay aligned."""
    now = time.time() if now is None else now

    def title(r: SessionRow) -> str:
        return _marks(r) + clean(r.title, keep_newlines=False) if r.title else "—"

    def preview(r: SessionRow) -> str:
        return clean(r.preview, keep_newlines=False) or "—"

    def workspace(r: SessionRow) -> str:
        return clean(_workspace_name(r), keep_newlines=False) or "—"

    def active(r: SessionRow) -> str:
        return relative_time(r.last_active, now)

    def source(r: SessionRow) -> str:
        return r.source

    has_workspace = any(r.workspace for r in rows)
    has_title = any(r.title for r in rows)
    # (header, field width, cells of content shown, value)
    columns: list[tuple[str, int, int, Callable[[SessionRow], str]]]
    if has_workspace and has_title:
        rule = 110
        columns = [("Title", 28, 26, title), ("Workspace", 18, 16, workspace)]
    elif has_workspace:
        rule = 100
        columns = [("Preview", 38, 36, preview), ("Workspace", 18, 16, workspace)]
    elif has_title:
        rule = 110
        columns = [("Title", 32, 30, title), ("Preview", 40, 38, preview)]
    else:
        rule = 95
        columns = [("Preview", 50, 48, preview)]
    columns.append(("Last Active", 13, 13, active))
    if not has_title:
        columns.append(("Src", 6, 6, source))

    def line(values: list[tuple[str, int, int]], last: str) -> str:
        return (
            " ".join(fit(fit(v, shown).rstrip(), width) for v, width, shown in values) + " " + last
        )

    header = line([(h, w, w) for h, w, _, _ in columns], "ID")
    body = [line([(get(r), w, shown) for _, w, shown, get in columns], r.id) for r in rows]
    return [header, "─" * rule, *body]


def row_json(row: SessionRow) -> dict[str, object]:
    return {
        "id": row.id,
        "root_id": row.root_id,
        "title": row.title,
        "preview": row.preview,
        "source": row.source,
        "started_at": row.started_at,
        "last_active": row.last_active,
        "message_count": row.message_count,
        "segments": row.segments,
        "model": row.model,
        "workspace": row.workspace,
        "archived": row.archived,
        "pinned": row.pinned,
        "open": row.is_open,
        "end_reason": row.end_reason,
        "parent_session_id": row.parent_session_id,
    }
