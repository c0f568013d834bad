"""``/compress``: summarise the conversation and continue it in a lineage continuation.

The summary is written by the model when one is configured (and answers), otherwise it is
extracted: the goal, the user's requests, the tools used and where things stood. Then, in
one transaction (SPEC §2, HERMES_AGENT_BEHAVIOUR.md §8): the old session ends with
``end_reason='compression'``; a new session (source ``tui``, ``parent_session_id`` = the
old one) starts with the summary (an injected ``[CONTEXT COMPACTION]`` user message) and the
last reply; a titled conversation's continuation is numbered ``my project #2``, ``#3`` ….
"""

from __future__ import annotations

import re
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from ..store import NewMessage, NewSession, Store
from ..store import transcript as tx
from ..store.messages import insert_message
from ..store.models import Message
from ..store.sessions import insert_session
from ..store.text import one_line, real_user_text
from ..store.titles import apply_title, next_title_in_lineage
from .client import ChatClient
from .endpoint import Endpoint
from .errors import ModelError
from .persist import record_usage, usage_of
from .sse import TokenUsage
from .window import BROKEN, build_window

COMPACTION_HEAD = (
    "[CONTEXT COMPACTION] The earlier part of this conversation was compressed into this "
    "summary; it continues from here."
)
SUMMARY_INSTRUCTION = (
    "Summarise the conversation so far so it can continue in a fresh context. Keep: the "
    "user's goal; decisions made; facts, names, file paths, commands and numbers that "
    "matter; what is done and what is still open; the next step. At most 300 words, in the "
    "language of the conversation, no preamble."
)
MIN_MESSAGES = 2
_THINK = re.compile(r"<(think|thinking|reasoning)>.*?</\1>\s*", re.DOTALL | re.IGNORECASE)


class NothingToCompress(ValueError):
    """Too little conversation to summarise."""


@dataclass(frozen=True)
class Compressed:
    old_id: str
    new_id: str
    title: str | None
    source: Literal["model", "extractive"]
    summary: str
    messages: int  # how many messages the summary stands for


def _cut(text: str, limit: int) -> str:
    flat = one_line(text)
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def extractive_summary(rows: Sequence[Message]) -> str:
    """A structured summary made of the conversation's own words (no model needed)."""
    asks = [t for m in rows if m.role == "user" and (t := real_user_text(m.content))]
    replies = [m.content for m in rows if m.role == "assistant" and (m.content or "").strip()]
    tools: dict[str, int] = {}
    for message in rows:
        for name in message.tool_names:
            tools[name] = tools.get(name, 0) + 1
    earlier = [m.content for m in rows if m.role == "user" and (m.content or "").startswith("[")]
    lines = []
    if earlier and earlier[0] and earlier[0].startswith(COMPACTION_HEAD):
        lines.append("Before that: " + _cut(earlier[0][len(COMPACTION_HEAD) :], 600))
    if asks:
        lines.append("Goal: " + _cut(asks[0], 300))
    if len(asks) > 1:
        shown = asks[1:][-8:]
        lines.append(f"Later requests ({len(asks) - 1}):")
        lines.extend("- " + _cut(ask, 160) for ask in shown)
    if tools:
        lines.append("Tools used: " + ", ".join(f"{n} ×{c}" for n, c in tools.items()))
    if replies:
        lines.append("Where it stood (last reply): " + _cut(_THINK.sub("", replies[-1]), 600))
    return "\n".join(lines) or "(nothing to summarise)"


def model_summary(
    client: ChatClient,
    system_prompt: str,
    rows: Sequence[Message],
    budget: int,
    cancelled: Callable[[], bool] | None = None,
) -> tuple[str | None, TokenUsage | None]:
    """Ask the model for the summary; (text or None, token usage)."""
    window = build_window(system_prompt, rows, budget_tokens=budget)
    messages = [*window.messages, {"role": "user", "content": SUMMARY_INSTRUCTION}]
    completion = client.stream(messages, max_tokens=800, cancelled=cancelled)
    text = _THINK.sub("", completion.text).strip()
    return (text or None) if not completion.cancelled else None, completion.usage


def continue_in_new_session(
    store: Store, old_id: str, spec: NewSession, summary: str, tail: Message | None
) -> tuple[str, str | None]:
    """The lineage write, in one transaction; returns (new session id, its title)."""

    def work(conn: sqlite3.Connection) -> tuple[str, str | None]:
        row = conn.execute("SELECT title FROM sessions WHERE id = ?", (old_id,)).fetchone()
        conn.execute(
            "UPDATE sessions SET ended_at = COALESCE(ended_at, ?), end_reason = 'compression' "
            "WHERE id = ?",
            (time.time(), old_id),
        )
        new_id = insert_session(
            conn, store.capabilities, replace(spec, parent_session_id=old_id, title=None)
        )
        title = None
        if row is not None and row["title"]:
            title = next_title_in_lineage(conn, row["title"])
            apply_title(conn, new_id, title)
        caps = store.capabilities
        insert_message(conn, caps, new_id, NewMessage("user", f"{COMPACTION_HEAD}\n\n{summary}"))
        if tail is not None:
            insert_message(
                conn, caps, new_id, NewMessage("assistant", tail.content, finish_reason="stop")
            )
        return new_id, title

    return store.write(work)


def compress_session(
    store: Store,
    session_id: str,
    spec: NewSession,
    *,
    endpoint: Endpoint | None,
    client_factory: Callable[[Endpoint], ChatClient],
    system_prompt: str,
    budget: int,
    cancelled: Callable[[], bool] | None = None,
) -> Compressed:
    """Summarise *session_id* and continue it; raises NothingToCompress."""
    rows = [m for m in tx.latest(store, session_id, 2_000).messages if m.role != "system"]
    if len([m for m in rows if m.role in ("user", "assistant")]) < MIN_MESSAGES:
        raise NothingToCompress("There is not enough conversation to compress yet.")
    summary: str | None = None
    source: Literal["model", "extractive"] = "extractive"
    if endpoint is not None:
        try:
            summary, tokens = model_summary(
                client_factory(endpoint), system_prompt, rows, budget, cancelled
            )
            record_usage(store, session_id, usage_of(endpoint, tokens, "compression"))
            if summary:
                source = "model"
        except ModelError:
            summary = None
    if not summary:
        summary = extractive_summary(rows)
    tail = next(
        (
            m
            for m in reversed(rows)
            if m.role == "assistant" and (m.content or "").strip() and m.finish_reason not in BROKEN
        ),
        None,
    )
    new_id, title = continue_in_new_session(store, session_id, spec, summary, tail)
    return Compressed(session_id, new_id, title, source, summary, len(rows))
