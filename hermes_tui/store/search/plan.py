"""Which index answers a query, and the expression it is given.

* Word queries run on ``messages_fts`` (unicode61) — FTS5 semantics, every term quoted.
* A query with a substring term (CJK and other unspaced scripts, or a query made only of
  punctuation) runs on ``messages_fts_trigram``: every term is a case-insensitive
  substring. Terms of three or more characters are trigram phrases; a one- or two-character
  term (``旅行``, ``广西 OR 桂林``) becomes the OR of the indexed trigrams that start with it,
  read from an ``fts5vocab`` table created in the connection's TEMP schema (the store is
  not written). That is complete: every occurrence of such a term starts a trigram, since
  Hermes indexes ``content || ' ' || tool_name || ' ' || tool_calls``. At most
  :data:`MAX_EXPANSION` trigrams are used per term; beyond that the result says it is
  partial.
* No trigram table (SQLite < 3.34 wrote the store): substring queries fall back to
  ``LIKE`` over the newest :data:`LIKE_SCAN_ROWS` messages, and say so.
* No FTS5 at all: a clear error.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field

from ..db import Capabilities
from .emit import to_fts5, to_like, to_trigram
from .models import Index, SearchError
from .sanitize import Leaf, Query, leaves

MAX_EXPANSION = 1000
LIKE_SCAN_ROWS = 20_000
FTS_TABLE = "messages_fts"
TRIGRAM_TABLE = "messages_fts_trigram"
VOCAB = "temp.hermes_tui_trigram_vocab"
INDEXED_TEXT = (
    "(COALESCE(m.content, '') || ' ' || COALESCE(m.tool_name, '') || ' ' || "
    "COALESCE(m.tool_calls, ''))"
)
NO_FTS = (
    "Full-text search is not available: this session store has no usable FTS5 index "
    "(messages_fts), or this Python's SQLite lacks FTS5. Opening the store once with "
    "Hermes Agent on an SQLite with FTS5 rebuilds the index."
)


@dataclass(frozen=True)
class Plan:
    query: Query
    index: Index
    match: str | None = None
    like_sql: str | None = None
    like_params: tuple[str, ...] = ()
    partial: bool = False
    warning: str | None = None
    terms: tuple[Leaf, ...] = field(default=())

    @property
    def table(self) -> str | None:
        return {"fts": FTS_TABLE, "trigram": TRIGRAM_TABLE}.get(self.index)

    @property
    def substring(self) -> bool:
        return self.index in ("trigram", "like")

    @property
    def searchable(self) -> bool:
        return self.match is not None or self.like_sql is not None


class _Expander:
    """Trigrams of the index that start with a short term (see module docstring)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.ready = False
        self.truncated: list[str] = []

    def __call__(self, text: str) -> list[str]:
        if not self.ready:
            self.conn.execute(
                f"CREATE VIRTUAL TABLE IF NOT EXISTS {VOCAB} "
                f"USING fts5vocab(main, '{TRIGRAM_TABLE}', 'row')"
            )
            self.ready = True
        prefix = text.lower()
        rows = self.conn.execute(
            f"SELECT term FROM {VOCAB} WHERE term >= ? AND term < ? LIMIT ?",
            (prefix, prefix + "\U0010ffff", MAX_EXPANSION + 1),
        ).fetchall()
        if len(rows) > MAX_EXPANSION:
            self.truncated.append(text)
        return [row[0] for row in rows[:MAX_EXPANSION]]


def make_plan(conn: sqlite3.Connection, caps: Capabilities, query: Query) -> Plan:
    """Choose the index for *query*; raises :class:`SearchError` when nothing can search."""
    if query.tree is None:
        return Plan(query, "none")
    terms = tuple(leaves(query.tree, positive_only=True))
    if not caps.has_fts and not caps.has_trigram:
        raise SearchError(NO_FTS)
    if not query.substring and caps.has_fts:
        return Plan(query, "fts", match=to_fts5(query.tree), terms=terms)
    if caps.has_trigram:
        expand = _Expander(conn)
        match = to_trigram(query.tree, expand)
        warning = None
        if expand.truncated:
            shown = ", ".join(repr(t) for t in expand.truncated)
            warning = (
                f"{shown} occurs in too many different contexts; only the first "
                f"{MAX_EXPANSION} were searched. Add a character or another term."
            )
        return Plan(
            query, "trigram", match=match, partial=bool(warning), warning=warning, terms=terms
        )
    sql, params = to_like(query.tree, INDEXED_TEXT)
    return Plan(query, "like", like_sql=sql, like_params=tuple(params), terms=terms)
