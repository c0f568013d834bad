"""Reading sessions for the human-readable formats (Markdown, HTML, trace, prompts).

A :class:`Doc` is one item of an export: the session row it is named after and, per
segment, its live messages (the transcript a resume reads: ``active`` rows, in id order)
with content decoded to text and tool calls to lists. Redaction, when asked for, is done
here once, on message text, reasoning, tool arguments and tool output; session metadata
is not redacted (as Hermes).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from ..db import Capabilities
from ..models import decode_content, decode_tool_calls
from ..sessionio import read_record
from .redact import redact_text, redact_value


def text(value: Any) -> str:
    """Any stored value as text (bytes of a BLOB or of invalid UTF-8 decoded leniently)."""
    if value is None:
        return ""
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).decode("utf-8", "replace")
    return str(value)


def opt_text(value: Any) -> str | None:
    return None if value is None else text(value)


def number(value: Any) -> float | None:
    try:
        return None if value is None else float(value)
    except (TypeError, ValueError):
        return None


def iso(ts: Any, *, timespec: str = "auto") -> str:
    """Epoch seconds as ISO-8601 UTC with ``Z`` (``""`` when unknown)."""
    value = number(ts)
    if value is None:
        return ""
    try:
        moment = datetime.fromtimestamp(value, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return ""
    return moment.isoformat(timespec=timespec).replace("+00:00", "Z")


@dataclass(frozen=True, slots=True)
class Msg:
    id: Any
    session_id: str
    role: str
    content: str
    timestamp: float | None
    tool_calls: tuple[dict[str, Any], ...] = ()
    tool_call_id: str | None = None
    tool_name: str | None = None
    reasoning: str | None = None
    platform_message_id: str | None = None


@dataclass(frozen=True)
class Segment:
    session: dict[str, Any]  # the sessions row, every column
    messages: tuple[Msg, ...]

    @property
    def id(self) -> str:
        return text(self.session.get("id"))


@dataclass(frozen=True)
class Doc:
    """One item: its segments in order (one, unless a logical lineage)."""

    segments: tuple[Segment, ...]

    @property
    def base(self) -> dict[str, Any]:
        """The row metadata comes from: the newest segment (as Hermes' logical export)."""
        return self.segments[-1].session

    @property
    def id(self) -> str:
        return self.segments[-1].id

    @property
    def messages(self) -> tuple[Msg, ...]:
        return tuple(m for s in self.segments for m in s.messages)

    @property
    def lineage_ids(self) -> list[str]:
        return [s.id for s in self.segments]


def _calls(raw: Any, redact: bool) -> tuple[dict[str, Any], ...]:
    calls = decode_tool_calls(raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw)
    return tuple(redact_value(c) for c in calls) if redact else calls


def _message(row: dict[str, Any], redact: bool) -> Msg:
    content = decode_content(row.get("content")) or ""
    reasoning = opt_text(row.get("reasoning") or row.get("reasoning_content"))
    if redact:
        content = redact_text(content)
        reasoning = redact_text(reasoning) if reasoning else reasoning
    return Msg(
        id=row.get("id"),
        session_id=text(row.get("session_id")),
        role=text(row.get("role")) or "message",
        content=content,
        timestamp=number(row.get("timestamp")),
        tool_calls=_calls(row.get("tool_calls"), redact),
        tool_call_id=opt_text(row.get("tool_call_id")),
        tool_name=opt_text(row.get("tool_name")),
        reasoning=reasoning,
        platform_message_id=opt_text(row.get("platform_message_id")),
    )


def read_doc(
    conn: sqlite3.Connection, caps: Capabilities, session_ids: tuple[str, ...], *, redact: bool
) -> Doc | None:
    """The item's sessions as they are now (None if any of them is gone)."""
    segments: list[Segment] = []
    for sid in session_ids:
        record = read_record(conn, caps, sid, all_messages=False)
        if record is None:
            return None
        rows = record.pop("messages")
        record.pop("model_usage", None)
        record.pop("_hermes_tui", None)
        segments.append(Segment(record, tuple(_message(r, redact) for r in rows)))
    return Doc(tuple(segments))


def pretty_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2)


def call_name(call: dict[str, Any]) -> str:
    fn = call.get("function")
    name = fn.get("name") if isinstance(fn, dict) else call.get("name")
    return text(name) or "tool"


def call_arguments(call: dict[str, Any]) -> Any:
    """A tool call's arguments, parsed from their JSON text when they are JSON."""
    fn = call.get("function")
    raw = fn.get("arguments") if isinstance(fn, dict) else call.get("arguments")
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return raw


def last_activity(doc: Doc) -> float | None:
    stamps = [m.timestamp for m in doc.messages if m.timestamp is not None]
    return max(stamps) if stamps else number(doc.base.get("started_at"))
