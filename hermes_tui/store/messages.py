"""Appending and reading messages, with the session counters Hermes keeps.

Counting follows Hermes (HERMES_AGENT_BEHAVIOUR.md §1.8): every appended row adds one to
``message_count``; ``tool_call_count`` grows by the number of calls on rows that carry
``tool_calls`` (tool *result* rows do not count); token usage is added incrementally with
``api_call_count``, and ``model``/``billing_*`` are filled only while still empty.
All of it happens in the transaction that inserts the row.
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .db import Capabilities, Store
from .errors import SessionNotFound
from .models import CONTENT_JSON_PREFIX, Message, message_from_row

ROLES = frozenset({"user", "assistant", "tool", "system"})
_SURROGATES = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True, slots=True)
class Usage:
    """Token usage of one model call, added to the session's counters."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0
    model: str | None = None
    billing_provider: str | None = None
    billing_base_url: str | None = None
    estimated_cost_usd: float | None = None
    actual_cost_usd: float | None = None  # what the provider billed, when it says
    task: str = ""


@dataclass(frozen=True, slots=True)
class NewMessage:
    role: str
    content: Any = None
    tool_calls: Sequence[dict[str, Any]] | None = None
    tool_call_id: str | None = None
    tool_name: str | None = None
    reasoning: str | None = None
    finish_reason: str | None = None
    token_count: int | None = None
    timestamp: float | None = None
    platform_message_id: str | None = None


def encode_content(content: Any) -> str | None:
    """Text as is (lone surrogates scrubbed); structured parts as Hermes' JSON sentinel."""
    if content is None:
        return None
    if isinstance(content, str):
        return _SURROGATES.sub("\ufffd", content)
    return CONTENT_JSON_PREFIX + json.dumps(content, ensure_ascii=False)


def _call_count(tool_calls: Any) -> int:
    if not tool_calls:
        return 0
    return len(tool_calls) if isinstance(tool_calls, list | tuple) else 1


def insert_message(
    conn: sqlite3.Connection, caps: Capabilities, session_id: str, message: NewMessage
) -> int:
    """Insert one message and bump the counters; the caller owns the transaction."""
    if message.role not in ROLES:
        raise ValueError(f"unknown role {message.role!r} (expected one of {sorted(ROLES)})")
    if conn.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone() is None:
        raise SessionNotFound(session_id)
    tool_calls = list(message.tool_calls) if message.tool_calls else None
    values: dict[str, Any] = {
        "session_id": session_id,
        "role": message.role,
        "content": encode_content(message.content),
        "tool_call_id": message.tool_call_id,
        "tool_calls": json.dumps(tool_calls, ensure_ascii=False) if tool_calls else None,
        "tool_name": message.tool_name,
        "timestamp": time.time() if message.timestamp is None else float(message.timestamp),
        "token_count": message.token_count,
        "finish_reason": message.finish_reason,
        "reasoning": message.reasoning,
        "platform_message_id": message.platform_message_id,
    }
    values = {k: v for k, v in values.items() if k in caps.message_columns}
    columns = ", ".join(values)
    marks = ", ".join("?" for _ in values)
    cursor = conn.execute(
        f"INSERT INTO messages ({columns}) VALUES ({marks})", tuple(values.values())
    )
    conn.execute(
        "UPDATE sessions SET message_count = COALESCE(message_count, 0) + 1, "
        "tool_call_count = COALESCE(tool_call_count, 0) + ? WHERE id = ?",
        (_call_count(tool_calls), session_id),
    )
    return int(cursor.lastrowid or 0)


def apply_usage(
    conn: sqlite3.Connection, caps: Capabilities, session_id: str, usage: Usage
) -> None:
    """Add one API call's usage to the session row (and its per-model usage row)."""
    sets = [
        f"{col} = COALESCE({col}, 0) + ?"
        for col in (
            "input_tokens",
            "output_tokens",
            "cache_read_tokens",
            "cache_write_tokens",
            "reasoning_tokens",
            "api_call_count",
        )
        if col in caps.session_columns
    ]
    params: list[Any] = [
        value
        for col, value in (
            ("input_tokens", usage.input_tokens),
            ("output_tokens", usage.output_tokens),
            ("cache_read_tokens", usage.cache_read_tokens),
            ("cache_write_tokens", usage.cache_write_tokens),
            ("reasoning_tokens", usage.reasoning_tokens),
            ("api_call_count", 1),
        )
        if col in caps.session_columns
    ]
    for col, value in (
        ("model", usage.model),
        ("billing_provider", usage.billing_provider),
        ("billing_base_url", usage.billing_base_url),
    ):
        if value is not None and col in caps.session_columns:
            sets.append(f"{col} = COALESCE({col}, ?)")
            params.append(value)
    for col, cost in (
        ("estimated_cost_usd", usage.estimated_cost_usd),
        ("actual_cost_usd", usage.actual_cost_usd),
    ):
        if cost is not None and col in caps.session_columns:
            sets.append(f"{col} = COALESCE({col}, 0) + ?")
            params.append(cost)
    if sets:
        conn.execute(f"UPDATE sessions SET {', '.join(sets)} WHERE id = ?", (*params, session_id))
    if "session_model_usage" in caps.tables and usage.model:
        now = time.time()
        conn.execute(
            "INSERT INTO session_model_usage (session_id, model, billing_provider, "
            "billing_base_url, billing_mode, task, api_call_count, input_tokens, output_tokens, "
            "cache_read_tokens, cache_write_tokens, reasoning_tokens, estimated_cost_usd, "
            "first_seen, last_seen) VALUES (?, ?, ?, ?, '', ?, 1, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (session_id, model, billing_provider, billing_base_url, billing_mode, "
            "task) DO UPDATE SET api_call_count = api_call_count + 1, "
            "input_tokens = input_tokens + excluded.input_tokens, "
            "output_tokens = output_tokens + excluded.output_tokens, "
            "cache_read_tokens = cache_read_tokens + excluded.cache_read_tokens, "
            "cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens, "
            "reasoning_tokens = reasoning_tokens + excluded.reasoning_tokens, "
            "estimated_cost_usd = estimated_cost_usd + excluded.estimated_cost_usd, "
            "last_seen = excluded.last_seen",
            (
                session_id,
                usage.model,
                usage.billing_provider or "",
                usage.billing_base_url or "",
                usage.task,
                usage.input_tokens,
                usage.output_tokens,
                usage.cache_read_tokens,
                usage.cache_write_tokens,
                usage.reasoning_tokens,
                usage.estimated_cost_usd or 0.0,
                now,
                now,
            ),
        )


def append_message(
    store: Store, session_id: str, message: NewMessage, usage: Usage | None = None
) -> int:
    """Append one message (and the usage of the call that produced it) atomically."""

    def work(conn: sqlite3.Connection) -> int:
        message_id = insert_message(conn, store.capabilities, session_id, message)
        if usage is not None:
            apply_usage(conn, store.capabilities, session_id, usage)
        return message_id

    return store.write(work)


def live_filter(caps: Capabilities, alias: str = "m", include_compacted: bool = False) -> str:
    """SQL condition for rows of the live transcript (older stores: every row)."""
    if "active" not in caps.message_columns:
        return "1"
    if include_compacted and "compacted" in caps.message_columns:
        return f"({alias}.active = 1 OR {alias}.compacted = 1)"
    return f"{alias}.active = 1"


def get_messages(
    store: Store,
    session_id: str,
    *,
    include_inactive: bool = False,
    limit: int | None = None,
) -> list[Message]:
    """The session's messages in insertion order (live rows unless asked otherwise)."""
    caps = store.capabilities
    where = "m.session_id = ?"
    if not include_inactive:
        where += f" AND {live_filter(caps)}"
    sql = f"SELECT m.* FROM messages m WHERE {where} ORDER BY m.id"
    params: tuple[Any, ...] = (session_id,)
    if limit is not None:
        sql += " LIMIT ?"
        params += (limit,)
    with store.read() as conn:
        return [message_from_row(row) for row in conn.execute(sql, params)]
