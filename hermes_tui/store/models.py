"""Frozen records the store layer hands out. No behaviour beyond small derived facts."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

T = TypeVar("T")

CONTENT_JSON_PREFIX = "\x00json:"

# Sessions imported from other tools keep ended_at NULL, as upstream Hermes' importer does,
# so Hermes' own auto-prune (ended sessions only) never deletes history it cannot re-import.
# They are not live: no running process owns them.
IMPORTED_SOURCES = frozenset({"claude-code", "codex-cli"})


def _loads_object(text: str | None) -> dict[str, Any]:
    if not text:
        return {}
    try:
        value = json.loads(text)
    except (ValueError, TypeError):
        return {}
    return value if isinstance(value, dict) else {}


@dataclass(frozen=True, slots=True)
class Session:
    """One row of ``sessions`` (the columns hermes_tui uses; absent ones default)."""

    id: str
    source: str
    started_at: float
    title: str | None = None
    ended_at: float | None = None
    end_reason: str | None = None
    parent_session_id: str | None = None
    model: str | None = None
    model_config: str | None = None
    message_count: int = 0
    tool_call_count: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0
    api_call_count: int = 0
    cwd: str | None = None
    git_branch: str | None = None
    git_repo_root: str | None = None
    user_id: str | None = None
    session_key: str | None = None
    chat_id: str | None = None
    chat_type: str | None = None
    thread_id: str | None = None
    display_name: str | None = None
    billing_provider: str | None = None
    billing_base_url: str | None = None
    billing_mode: str | None = None
    estimated_cost_usd: float | None = None
    actual_cost_usd: float | None = None
    handoff_state: str | None = None
    handoff_platform: str | None = None
    handoff_error: str | None = None
    profile_name: str | None = None
    archived: bool = False
    pinned: bool = False

    @property
    def is_open(self) -> bool:
        """Live: not ended, and not an import (which is never ended, see IMPORTED_SOURCES)."""
        return self.ended_at is None and self.source not in IMPORTED_SOURCES

    @property
    def workspace_key(self) -> str | None:
        return self.git_repo_root or self.cwd or None

    @property
    def config(self) -> dict[str, Any]:
        return _loads_object(self.model_config)

    @property
    def is_delegate(self) -> bool:
        return "_delegate_from" in self.config

    @property
    def cost_usd(self) -> float | None:
        return self.actual_cost_usd if self.actual_cost_usd is not None else self.estimated_cost_usd


SESSION_FIELDS = tuple(f.name for f in dataclasses.fields(Session))


def session_from_row(row: sqlite3.Row) -> Session:
    keys = row.keys()
    values = {name: row[name] for name in SESSION_FIELDS if name in keys}
    for flag in ("archived", "pinned"):
        values[flag] = bool(values.get(flag) or 0)
    for counter in (
        "message_count",
        "tool_call_count",
        "input_tokens",
        "output_tokens",
        "cache_read_tokens",
        "cache_write_tokens",
        "reasoning_tokens",
        "api_call_count",
    ):
        values[counter] = int(values.get(counter) or 0)
    return Session(**values)


@dataclass(frozen=True, slots=True)
class Message:
    """One row of ``messages``; ``content`` is decoded to display text."""

    id: int
    session_id: str
    role: str
    content: str | None
    timestamp: float
    tool_calls: tuple[dict[str, Any], ...] = ()
    tool_call_id: str | None = None
    tool_name: str | None = None
    reasoning: str | None = None
    finish_reason: str | None = None
    token_count: int | None = None
    active: bool = True
    compacted: bool = False

    @property
    def tool_names(self) -> list[str]:
        names: list[str] = []
        for call in self.tool_calls:
            fn = call.get("function") if isinstance(call, dict) else None
            name = fn.get("name") if isinstance(fn, dict) else None
            names.append(str(name) if name else "tool")
        return names


def decode_content(raw: Any) -> str | None:
    """Stored content as text: Hermes stores structured (multimodal) content as
    ``"\\x00json:" + JSON``; text parts are joined and images shown as ``[image]``."""
    if raw is None:
        return None
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", "replace")
    if not isinstance(raw, str):
        return str(raw)
    if not raw.startswith(CONTENT_JSON_PREFIX):
        return raw
    try:
        value = json.loads(raw[len(CONTENT_JSON_PREFIX) :])
    except ValueError:
        return raw[len(CONTENT_JSON_PREFIX) :]
    return flatten_content(value)


def flatten_content(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list):
        return json.dumps(value, ensure_ascii=False)
    parts: list[str] = []
    for part in value:
        if isinstance(part, str):
            parts.append(part)
        elif isinstance(part, dict):
            kind = part.get("type", "")
            if kind in ("text", "input_text", "output_text") or "text" in part:
                parts.append(str(part.get("text", "")))
            elif "image" in str(kind):
                parts.append("[image]")
            else:
                parts.append(f"[{kind or 'attachment'}]")
    return " ".join(p for p in parts if p)


def decode_tool_calls(raw: Any) -> tuple[dict[str, Any], ...]:
    if not raw:
        return ()
    try:
        value = json.loads(raw) if isinstance(raw, str | bytes) else raw
    except ValueError:
        return ()
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list):
        return ()
    return tuple(v for v in value if isinstance(v, dict))


def message_from_row(row: sqlite3.Row) -> Message:
    keys = row.keys()

    def get(name: str, default: Any = None) -> Any:
        return row[name] if name in keys else default

    reasoning = get("reasoning") or get("reasoning_content")
    active = get("active", 1)
    return Message(
        id=row["id"],
        session_id=row["session_id"],
        role=row["role"],
        content=decode_content(get("content")),
        timestamp=float(get("timestamp") or 0.0),
        tool_calls=decode_tool_calls(get("tool_calls")),
        tool_call_id=get("tool_call_id"),
        tool_name=get("tool_name"),
        reasoning=reasoning,
        finish_reason=get("finish_reason"),
        token_count=get("token_count"),
        active=bool(1 if active is None else active),
        compacted=bool(get("compacted", 0) or 0),
    )


@dataclass(frozen=True, slots=True)
class SessionRow:
    """One logical conversation as lists show it: a compression lineage projected to its tip.

    ``id``/``title``/``is_open`` are the tip's (what resuming continues); ``root_id`` and
    ``started_at`` are the conversation's start; counts cover the whole lineage.
    """

    id: str
    root_id: str
    source: str
    title: str | None
    preview: str
    started_at: float
    last_active: float
    message_count: int
    segments: int
    model: str | None
    workspace: str | None
    archived: bool
    pinned: bool
    is_open: bool
    end_reason: str | None
    parent_session_id: str | None = None


@dataclass(frozen=True, slots=True)
class Page(Generic[T]):
    """A keyset page: the items, and the cursor for the next page (None at the end)."""

    items: Sequence[T]
    next_cursor: tuple[Any, ...] | None = None

    @property
    def has_more(self) -> bool:
        return self.next_cursor is not None


@dataclass(frozen=True, slots=True)
class Stats:
    total_sessions: int
    total_messages: int
    archived_sessions: int
    open_sessions: int
    pinned_sessions: int
    by_source: tuple[tuple[str, int], ...]
    database_bytes: int
    wal_bytes: int
    oldest_started: float | None
    newest_started: float | None
    input_tokens: int
    output_tokens: int
    by_model: tuple[tuple[str, int, int, int, float], ...] = field(default=())
