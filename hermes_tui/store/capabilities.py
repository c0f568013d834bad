"""What an existing store has (columns, FTS5, trigram, version), detected once at open and
never repaired: older stores lack columns, newer ones have more; queries adapt."""

from __future__ import annotations

import functools
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from .errors import NotAHermesStore


@dataclass(frozen=True)
class Capabilities:
    """What an existing store has, detected once at open (never repaired)."""

    schema_version: int | None
    tables: frozenset[str]
    session_columns: frozenset[str]
    message_columns: frozenset[str]
    has_fts: bool
    has_trigram: bool
    journal_mode: str
    read_only_reason: str | None = None

    @property
    def read_only(self) -> bool:
        return self.read_only_reason is not None

    def session_col(self, name: str, fallback: str = "NULL", alias: str = "s") -> str:
        """``alias.name`` if the column exists, else a literal stand-in (older schemas)."""
        return f"{alias}.{name}" if name in self.session_columns else fallback

    def message_col(self, name: str, fallback: str = "NULL", alias: str = "m") -> str:
        return f"{alias}.{name}" if name in self.message_columns else fallback


@functools.cache
def sqlite_features() -> tuple[bool, bool]:
    """(FTS5 available, trigram tokenizer available) in this Python's SQLite."""
    conn = sqlite3.connect(":memory:")
    try:
        try:
            conn.execute("CREATE VIRTUAL TABLE f USING fts5(x)")
        except sqlite3.OperationalError:
            return False, False
        try:
            conn.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='trigram')")
        except sqlite3.OperationalError:
            return True, False
        return True, True
    finally:
        conn.close()


def detect_capabilities(conn: sqlite3.Connection, path: Path) -> Capabilities:
    objects = {
        row[0]
        for row in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")
    }
    if "sessions" not in objects or "messages" not in objects:
        raise NotAHermesStore(
            "This SQLite file is not a Hermes session store (no sessions/messages tables)",
            path,
            "check HERMES_HOME points at your Hermes folder",
        )
    session_columns = frozenset(r[1] for r in conn.execute("PRAGMA table_info(sessions)"))
    message_columns = frozenset(r[1] for r in conn.execute("PRAGMA table_info(messages)"))
    version = None
    if "schema_version" in objects:
        row = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()
        version = row[0] if row else None

    def usable(table: str) -> bool:
        if table not in objects:
            return False
        try:
            conn.execute(f"SELECT rowid FROM {table} LIMIT 0").fetchall()
        except sqlite3.OperationalError:
            return False  # e.g. "no such module: fts5" in this Python's SQLite
        return True

    journal = conn.execute("PRAGMA journal_mode").fetchone()[0]
    return Capabilities(
        schema_version=version,
        tables=frozenset(objects),
        session_columns=session_columns,
        message_columns=message_columns,
        has_fts=usable("messages_fts"),
        has_trigram=usable("messages_fts_trigram"),
        journal_mode=str(journal).lower(),
    )
