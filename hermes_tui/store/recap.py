"""The resume recap ("Previous Conversation"): which exchanges to show, and how cut.

Hermes' rules (HERMES_AGENT_BEHAVIOUR.md §4): system and tool rows are hidden; user text is
cut at 300 characters, assistant text at 3 lines then 200 characters; tool calls fold to
``[N tool calls: a, b, ...]`` (distinct names, first four); tool-only assistant turns are
skipped; the last 2 × ``resume_exchanges`` entries are kept with a count of the earlier ones;
the last assistant reply is shown in full. This module decides the text; renderers style it.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..sanitize import clean
from .db import Store
from .messages import live_filter
from .models import Message, message_from_row

_THINK = re.compile(
    r"<(think|thinking|reasoning|reflection)>.*?</\1>\s*", re.DOTALL | re.IGNORECASE
)
# Long sessions: read this many newest rows for the recap and count the rest in SQL.
TAIL_ROWS = 800


@dataclass(frozen=True, slots=True)
class RecapLimits:
    exchanges: int = 10
    max_user_chars: int = 300
    max_assistant_chars: int = 200
    max_assistant_lines: int = 3
    skip_tool_only: bool = True


@dataclass(frozen=True, slots=True)
class RecapEntry:
    role: str  # "user" | "assistant"
    text: str
    full: bool = False  # the last assistant reply, shown untruncated and not dimmed


@dataclass(frozen=True, slots=True)
class Recap:
    entries: tuple[RecapEntry, ...]
    earlier: int  # entries dropped above the shown ones
    user_messages: int
    total_messages: int


def tool_summary(names: Sequence[str]) -> str:
    """``[3 tool calls: terminal, web_search]`` — every call counted, distinct names, four shown."""
    if not names:
        return ""
    distinct = list(dict.fromkeys(names))
    shown = ", ".join(distinct[:4]) + (", ..." if len(distinct) > 4 else "")
    return f"[{len(names)} tool call{'s' if len(names) != 1 else ''}: {shown}]"


def _cut_user(text: str, limit: int) -> str:
    return text[:limit] + "..." if len(text) > limit else text


def _cut_assistant(text: str, max_lines: int, max_chars: int) -> str:
    lines = text.split("\n")
    if len(lines) > max_lines:
        text = "\n".join(lines[:max_lines]) + " ..."
    if len(text) > max_chars:
        text = text[:max_chars] + "..."
    return text


def _assistant_text(message: Message) -> str:
    return clean(_THINK.sub("", message.content or "")).strip()


def entries_of(messages: Iterable[Message], limits: RecapLimits) -> list[tuple[RecapEntry, str]]:
    """Every displayable entry, with (for assistants) the untruncated text beside it."""
    out: list[tuple[RecapEntry, str]] = []
    for message in messages:
        if message.role == "user":
            text = clean(message.content or "").strip()
            if text:
                out.append((RecapEntry("user", _cut_user(text, limits.max_user_chars)), text))
        elif message.role == "assistant":
            text = _assistant_text(message)
            summary = tool_summary(message.tool_names)
            if not text and not summary:
                continue
            if not text and limits.skip_tool_only:
                continue
            cut = _cut_assistant(text, limits.max_assistant_lines, limits.max_assistant_chars)
            short = " ".join(p for p in (cut, summary) if p)
            full = " ".join(p for p in (text, summary) if p)
            out.append((RecapEntry("assistant", short), full))
    return out


def build_recap(
    messages: Sequence[Message],
    limits: RecapLimits,
    *,
    earlier_entries: int = 0,
    user_messages: int | None = None,
    total_messages: int | None = None,
) -> Recap:
    """The recap of *messages* (a conversation's live rows, oldest first)."""
    pairs = entries_of(messages, limits)
    keep = 2 * limits.exchanges
    earlier = earlier_entries + max(0, len(pairs) - keep)
    pairs = pairs[-keep:] if keep > 0 else []
    entries = [entry for entry, _ in pairs]
    for index in range(len(entries) - 1, -1, -1):
        if entries[index].role == "assistant":
            entries[index] = RecapEntry("assistant", pairs[index][1], full=True)
            break
    users = sum(m.role == "user" for m in messages) if user_messages is None else user_messages
    return Recap(
        tuple(entries),
        earlier,
        users,
        len(messages) if total_messages is None else total_messages,
    )


def _entry_count_sql(limits: RecapLimits, live: str) -> str:
    """Entries among rows older than a given id (close to the Python rule, for long sessions)."""
    text = "TRIM(COALESCE(m.content, '')) != ''"
    assistant = f"({text})" if limits.skip_tool_only else f"({text} OR m.tool_calls IS NOT NULL)"
    return (
        "SELECT COUNT(*) FROM messages m WHERE m.session_id = ? AND m.id < ? AND "
        f"{live} AND ((m.role = 'user' AND {text}) OR (m.role = 'assistant' AND {assistant}))"
    )


def load_recap(store: Store, session_id: str, limits: RecapLimits) -> Recap:
    """Read what the recap needs: every live row of a short session, the tail of a long one."""
    caps = store.capabilities
    live = live_filter(caps)
    with store.snapshot() as conn:
        counts = conn.execute(
            f"SELECT COUNT(*), SUM(m.role = 'user') FROM messages m "
            f"WHERE m.session_id = ? AND {live}",
            (session_id,),
        ).fetchone()
        total, users = int(counts[0] or 0), int(counts[1] or 0)
        rows = _tail(conn, session_id, live)
        earlier = 0
        if len(rows) < total and rows:
            earlier = conn.execute(_entry_count_sql(limits, live), (session_id, rows[0].id))
            earlier = int(earlier.fetchone()[0])
    return build_recap(
        rows, limits, earlier_entries=earlier, user_messages=users, total_messages=total
    )


def _tail(conn: sqlite3.Connection, session_id: str, live: str) -> list[Message]:
    rows = conn.execute(
        f"SELECT m.* FROM messages m WHERE m.session_id = ? AND {live} ORDER BY m.id DESC LIMIT ?",
        (session_id, TAIL_ROWS),
    ).fetchall()
    return [message_from_row(row) for row in reversed(rows)]
