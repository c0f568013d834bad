"""Comparing a reconstructed transcript with the rows an earlier import stored.

Rows are matched by their foreign key (``platform_message_id``). The result says which
rows to insert (new records), which to update in place (an API message whose later lines
arrived after the last import), and which to hide or show again (rows a rewind moved off
or back onto the live branch).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..db import Capabilities
from ..messages import encode_content
from .transcript import Row


@dataclass(frozen=True, slots=True)
class StoredRow:
    id: int
    key: str | None
    content: str | None
    tool_calls: str | None
    reasoning: str | None
    tool_call_id: str | None
    tool_name: str | None
    active: bool


@dataclass(slots=True)
class Diff:
    inserts: list[Row] = field(default_factory=list)
    updates: list[tuple[int, Row]] = field(default_factory=list)
    hide: list[int] = field(default_factory=list)
    show: list[int] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.inserts or self.updates or self.hide or self.show)


def stored_rows(conn: sqlite3.Connection, caps: Capabilities, session_id: str) -> list[StoredRow]:
    cols = caps.message_columns

    def col(name: str, fallback: str = "NULL") -> str:
        return name if name in cols else fallback

    rows = conn.execute(
        f"SELECT id, {col('platform_message_id')}, content, tool_calls, {col('reasoning')}, "
        f"tool_call_id, tool_name, {col('active', '1')} FROM messages "
        "WHERE session_id = ? ORDER BY id",
        (session_id,),
    ).fetchall()
    return [
        StoredRow(r[0], r[1], r[2], r[3], r[4], r[5], r[6], bool(1 if r[7] is None else r[7]))
        for r in rows
    ]


def _same(stored: StoredRow, row: Row) -> bool:
    calls = json.dumps(list(row.tool_calls), ensure_ascii=False) if row.tool_calls else None
    return (
        stored.content == encode_content(row.content)
        and stored.tool_calls == calls
        and stored.reasoning == row.reasoning
        and stored.tool_call_id == row.tool_call_id
        and stored.tool_name == row.tool_name
    )


def diff_rows(stored: Sequence[StoredRow], rows: Sequence[Row], *, hide: bool) -> Diff:
    """What to change so the stored rows match *rows*. With ``hide`` False (a source that
    is rewritten rather than appended), stored rows missing from *rows* are left alone."""
    by_key = {s.key: s for s in stored if s.key is not None}
    diff = Diff()
    wanted: set[str] = set()
    for row in rows:
        wanted.add(row.key)
        found = by_key.get(row.key)
        if found is None:
            diff.inserts.append(row)
            continue
        if not _same(found, row):
            diff.updates.append((found.id, row))
        if not found.active:
            diff.show.append(found.id)
    if hide:
        diff.hide = [s.id for s in stored if s.key not in wanted and s.key and s.active]
    return diff
