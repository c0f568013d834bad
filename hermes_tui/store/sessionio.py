"""Sessions as JSON lines: the format of the trash (undo of prune) and of JSONL export.

One line per session: a JSON object with **every column** of its ``sessions`` row (NULLs
included), plus

* ``messages`` — every column of each message row, in id order; the trash keeps all rows
  (inactive and compacted ones too), an export may keep only the live transcript;
* ``model_usage`` — its ``session_model_usage`` rows (every column);
* ``_hermes_tui`` — ``{"format": 1, "unit": <the conversation's root id>, "messages":
  "all"|"active", "tool_calls": "raw"|"decoded"}``: how to read the line back (the trash
  adds ``"trash": true``, which makes its end marker mandatory on restore).

With ``tool_calls: "raw"`` (the trash) every value is exactly what SQLite holds, so a
restore is row-for-row identical; ``"decoded"`` (exports) turns the tool-call JSON text into
JSON where re-encoding it (with ``"tool_calls_ascii"``: ASCII escapes, as Hermes writes it)
gives back the same text, and keeps the text otherwise, so a restore is exact too. A BLOB
value is written as
``{"__sqlite_blob_b64__": …}`` and text that is not valid UTF-8 as
``{"__sqlite_text_b64__": …}`` (a stored value is never a JSON object otherwise).

A trash file ends with one trailer line ``{"_hermes_tui_trailer": {...}}`` holding the counts
and the SHA-256 of every byte before it, so a truncated or edited file is detected.
"""

from __future__ import annotations

import base64
import json
import sqlite3
from collections.abc import Callable, Iterator
from typing import Any

from .db import Capabilities

FORMAT = 1
META = "_hermes_tui"
TRAILER = "_hermes_tui_trailer"
MESSAGES = "messages"
USAGE = "model_usage"
_BLOB = "__sqlite_blob_b64__"
_TEXT_BYTES = "__sqlite_text_b64__"


class BadText(bytes):
    """A TEXT value that is not valid UTF-8 (kept as its bytes)."""


def _text_factory(raw: bytes) -> str | BadText:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return BadText(raw)


def _fetch(conn: sqlite3.Connection, sql: str, params: tuple[Any, ...]) -> list[sqlite3.Row]:
    """Rows as stored; text that is not valid UTF-8 is kept as bytes instead of failing."""
    try:
        return conn.execute(sql, params).fetchall()
    except sqlite3.OperationalError as exc:
        if "decode" not in str(exc).lower():
            raise
    previous = conn.text_factory
    conn.text_factory = _text_factory
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.text_factory = previous


def _special(value: object) -> dict[str, str]:
    if isinstance(value, BadText):
        return {_TEXT_BYTES: base64.b64encode(value).decode("ascii")}
    if isinstance(value, bytes | bytearray | memoryview):
        return {_BLOB: base64.b64encode(bytes(value)).decode("ascii")}
    raise TypeError(f"cannot store {type(value).__name__} in a session record")


def decode_value(value: Any) -> Any:
    """A column value as SQLite should hold it (bytes for a BLOB, BadText for raw text)."""
    if isinstance(value, dict):
        if _BLOB in value:
            return base64.b64decode(value[_BLOB])
        if _TEXT_BYTES in value:
            return BadText(base64.b64decode(value[_TEXT_BYTES]))
    return value


def _decoded_calls(raw: Any, ensure_ascii: bool) -> Any:
    """Tool-call JSON text as JSON, unless writing it back would not give the same text."""
    if not isinstance(raw, str) or not raw:
        return raw
    try:
        value = json.loads(raw)
    except ValueError:
        return raw
    if json.dumps(value, ensure_ascii=ensure_ascii) != raw:
        return raw
    return value


def read_record(
    conn: sqlite3.Connection,
    caps: Capabilities,
    session_id: str,
    *,
    unit: str | None = None,
    all_messages: bool = True,
    decode_tool_calls: bool = False,
) -> dict[str, Any] | None:
    """The session *session_id* as one record (None if it does not exist)."""
    rows = _fetch(conn, "SELECT * FROM sessions WHERE id = ?", (session_id,))
    if not rows:
        return None
    record: dict[str, Any] = dict(zip(rows[0].keys(), tuple(rows[0]), strict=True))
    where = "session_id = ?"
    if not all_messages and "active" in caps.message_columns:
        where += " AND active = 1"
    messages = _fetch(conn, f"SELECT * FROM messages WHERE {where} ORDER BY id", (session_id,))
    names = messages[0].keys() if messages else []
    record[MESSAGES] = [dict(zip(names, tuple(m), strict=True)) for m in messages]
    ascii_calls = False
    if decode_tool_calls:
        # Hermes writes tool calls with ASCII escapes; other writers leave non-ASCII text.
        ascii_calls = all(
            m["tool_calls"].isascii()
            for m in record[MESSAGES]
            if isinstance(m.get("tool_calls"), str)
        )
        for message in record[MESSAGES]:
            if "tool_calls" in message:
                message["tool_calls"] = _decoded_calls(message["tool_calls"], ascii_calls)
    usage: list[dict[str, Any]] = []
    if "session_model_usage" in caps.tables:
        sql = "SELECT * FROM session_model_usage WHERE session_id = ?"
        found = _fetch(conn, sql, (session_id,))
        usage = [dict(zip(r.keys(), tuple(r), strict=True)) for r in found]
    record[USAGE] = usage
    record[META] = {
        "format": FORMAT,
        "unit": unit or session_id,
        "messages": "all" if all_messages else "active",
        "tool_calls": "decoded" if decode_tool_calls else "raw",
    }
    if decode_tool_calls:
        record[META]["tool_calls_ascii"] = ascii_calls
    return record


def encode_line(obj: dict[str, Any]) -> bytes:
    """One JSON line (UTF-8, newline-terminated) for a record or a trailer."""
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), default=_special)
    return text.encode("utf-8") + b"\n"


def decode_line(line: bytes | str) -> dict[str, Any]:
    value = json.loads(line)
    if not isinstance(value, dict):
        raise ValueError("a session line must be a JSON object")
    return value


def iter_lines(lines: Iterator[bytes]) -> Iterator[tuple[bytes, dict[str, Any]]]:
    """(raw line, object) for each non-blank line."""
    for raw in lines:
        if raw.strip():
            yield raw, decode_line(raw)


# -- writing a record back -------------------------------------------------------------


def _placeholders(values: list[Any]) -> tuple[str, list[Any]]:
    marks: list[str] = []
    params: list[Any] = []
    for value in values:
        value = decode_value(value)
        marks.append("CAST(? AS TEXT)" if isinstance(value, BadText) else "?")
        params.append(bytes(value) if isinstance(value, BadText) else value)
    return ", ".join(marks), params


def _names(columns: tuple[str, ...]) -> str:
    return ", ".join(f'"{c}"' for c in columns)


def _insert_rows(
    conn: sqlite3.Connection,
    table: str,
    known: frozenset[str],
    rows: list[dict[str, Any]],
    tag: Callable[[tuple[str, ...]], int] | None = None,
) -> set[str]:
    """Insert *rows* (only the columns the table has); returns the unknown column names.
    With *tag*, each row also gets ``_sig = tag(its columns)`` (see :class:`MessageStage`)."""
    unknown: set[str] = set()
    batches: dict[tuple[tuple[str, ...], str], list[list[Any]]] = {}
    for row in rows:
        columns = tuple(c for c in row if c in known)
        unknown.update(c for c in row if c not in known)
        marks, params = _placeholders([row[c] for c in columns])
        batches.setdefault((columns, marks), []).append(params)
    for (columns, marks), params in batches.items():
        if tag is None:
            conn.executemany(f"INSERT INTO {table} ({_names(columns)}) VALUES ({marks})", params)
        else:
            sql = f"INSERT INTO {table} ({_names(columns)}, _sig) VALUES ({marks}, ?)"
            conn.executemany(sql, [[*p, tag(columns)] for p in params])
    return unknown


class MessageStage:
    """Messages waiting in a TEMP table, then inserted by one statement in id order.

    FTS5 flushes its pending index data at every statement, so inserting row by row
    through Hermes' triggers is several times slower (and leaves one small index segment
    per row); one ``INSERT … SELECT … ORDER BY id`` indexes them in a single pass."""

    TABLE = "temp.hermes_tui_restore"

    def __init__(self, conn: sqlite3.Connection, caps: Capabilities) -> None:
        self.conn = conn
        self.known = caps.message_columns
        self.signatures: dict[tuple[str, ...], int] = {}
        conn.execute(f"DROP TABLE IF EXISTS {self.TABLE}")
        names = _names(tuple(sorted(self.known)))
        conn.execute(f"CREATE TABLE {self.TABLE} AS SELECT {names} FROM messages WHERE 0")
        conn.execute(f"ALTER TABLE {self.TABLE} ADD COLUMN _sig INTEGER")

    def _tag(self, columns: tuple[str, ...]) -> int:
        return self.signatures.setdefault(columns, len(self.signatures))

    def add(self, rows: list[dict[str, Any]]) -> set[str]:
        return _insert_rows(self.conn, self.TABLE, self.known, rows, self._tag)

    def flush(self) -> None:
        for columns, sig in self.signatures.items():
            names = _names(columns)
            self.conn.execute(
                f"INSERT INTO messages ({names}) SELECT {names} FROM {self.TABLE} "
                "WHERE _sig = ? ORDER BY id",
                (sig,),
            )
        self.conn.execute(f"DROP TABLE {self.TABLE}")


def insert_record(
    conn: sqlite3.Connection,
    caps: Capabilities,
    record: dict[str, Any],
    *,
    title: bool = True,
    stage: MessageStage | None = None,
) -> set[str]:
    """Insert the session (``parent_session_id`` left NULL: the caller links parents once
    every session exists), its messages with their ids (the FTS triggers index them; with
    *stage* they wait there for one bulk insert) and its usage rows. Returns the column
    names the store does not have (their values are dropped)."""
    meta = record.get(META) or {}
    session = {
        k: v for k, v in record.items() if k not in (MESSAGES, USAGE, META, "parent_session_id")
    }
    if not title:
        session.pop("title", None)
    unknown = _insert_rows(conn, "sessions", caps.session_columns, [session])
    messages = []
    for message in record.get(MESSAGES) or []:
        row = dict(message, session_id=record["id"])
        calls = decode_value(row.get("tool_calls"))
        if meta.get("tool_calls") != "raw" and not isinstance(calls, str | bytes | type(None)):
            ascii_calls = bool(meta.get("tool_calls_ascii"))
            row["tool_calls"] = json.dumps(calls, ensure_ascii=ascii_calls)
        messages.append(row)
    if stage is not None:
        unknown |= stage.add(messages)
    else:
        unknown |= _insert_rows(conn, "messages", caps.message_columns, messages)
    usage = [dict(u, session_id=record["id"]) for u in record.get(USAGE) or []]
    if usage and "session_model_usage" in caps.tables:
        columns = frozenset(r[1] for r in conn.execute("PRAGMA table_info(session_model_usage)"))
        unknown |= _insert_rows(conn, "session_model_usage", columns, usage)
    return unknown
