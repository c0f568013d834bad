"""Automatic titles: after the first exchange, 3–7 words in the user's language.

Asked of the model when one is configured (as Hermes' title generator does: think-blocks,
quotes and a ``Title:`` prefix stripped, 80 characters at most), otherwise — or when that
call fails — derived from the first real user message. Written only while the session has
no title, checked in the same transaction as the write, so a title the user set is never
replaced; a title another session holds becomes ``"<title> #2"`` (then #3 …).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

from ..store import Store, TitleTooLong
from ..store.messages import live_filter
from ..store.models import decode_content
from ..store.text import real_user_text
from ..store.titles import derive_title, next_title_in_lineage, sanitize_title, title_holder
from .client import ChatClient
from .endpoint import Endpoint
from .errors import ModelError
from .persist import record_usage, usage_of
from .sse import TokenUsage

MAX_GENERATED = 80
TITLE_INSTRUCTION = (
    "Write a title of 3 to 7 words for this conversation, in the same language as the "
    "user's first message. Reply with the title only: no quotes, no 'Title:' prefix, no "
    "final full stop."
)
_THINK = re.compile(r"<(think|thinking|reasoning)>.*?</\1>", re.DOTALL | re.IGNORECASE)
_PREFIX = re.compile(r"^(title|titre|título|titolo|titel|заголовок|标题|タイトル)\s*[:：]\s*", re.I)
_QUOTES = "\"'`*“”‘’«»「」『』"


@dataclass(frozen=True, slots=True)
class Opening:
    title: str | None
    first_user: str | None
    first_reply: str | None
    user_messages: int


def clean_generated(raw: str) -> str | None:
    """A model's answer as a title (None when nothing usable is left)."""
    text = _THINK.sub("", raw).strip()
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    text = _PREFIX.sub("", lines[0] if lines else "").strip().strip(_QUOTES).strip()
    text = text.rstrip(".。").strip()
    if len(text) > MAX_GENERATED:
        text = text[: MAX_GENERATED - 3].rstrip() + "..."
    try:
        return sanitize_title(text)
    except TitleTooLong:
        return None


def read_opening(store: Store, session_id: str) -> Opening:
    live = live_filter(store.capabilities)
    with store.snapshot() as conn:
        row = conn.execute("SELECT title FROM sessions WHERE id = ?", (session_id,)).fetchone()
        users = conn.execute(
            "SELECT COUNT(*) FROM messages m "
            f"WHERE m.session_id = ? AND m.role = 'user' AND {live}",
            (session_id,),
        ).fetchone()[0]
        rows = conn.execute(
            f"SELECT m.role, m.content FROM messages m WHERE m.session_id = ? AND {live} "
            "AND m.role IN ('user', 'assistant') ORDER BY m.id LIMIT 40",
            (session_id,),
        ).fetchall()
    first_user = first_reply = None
    for message in rows:
        text = decode_content(message["content"]) or ""
        if message["role"] == "user" and first_user is None:
            first_user = real_user_text(text)
        elif message["role"] == "assistant" and first_user is not None and text.strip():
            first_reply = text.strip()
            break
    return Opening(row["title"] if row else None, first_user, first_reply, int(users or 0))


def set_title_if_empty(store: Store, session_id: str, title: str) -> str | None:
    """Store *title* (or its next free ``#N``) while the session has none; what was stored."""

    def work(conn: sqlite3.Connection) -> str | None:
        row = conn.execute("SELECT title FROM sessions WHERE id = ?", (session_id,)).fetchone()
        if row is None or row["title"] is not None:
            return None
        candidate = title
        for _ in range(5):
            if title_holder(conn, candidate, exclude=session_id) is None:
                try:
                    conn.execute(
                        "UPDATE sessions SET title = ? WHERE id = ? AND title IS NULL",
                        (candidate, session_id),
                    )
                    return candidate
                except sqlite3.IntegrityError:
                    pass  # taken by another process between the check and the write
            candidate = next_title_in_lineage(conn, candidate)
        return None

    return store.write(work)


def generate_title(
    client: ChatClient, opening: Opening, cancelled: Callable[[], bool] | None = None
) -> tuple[str | None, TokenUsage | None]:
    """Ask the model; returns (cleaned title or None, the call's token usage)."""
    reply = (opening.first_reply or "")[:1000]
    prompt = (
        f"{TITLE_INSTRUCTION}\n\nFirst message: {(opening.first_user or '')[:2000]}\n\n"
        f"First reply: {reply}"
    )
    completion = client.stream(
        [{"role": "user", "content": prompt}], max_tokens=40, cancelled=cancelled
    )
    if completion.cancelled:
        return None, completion.usage
    return clean_generated(completion.text), completion.usage


def auto_title(
    store: Store,
    session_id: str,
    endpoint: Endpoint | None,
    client_factory: Callable[[Endpoint], ChatClient] = ChatClient,
    cancelled: Callable[[], bool] | None = None,
) -> tuple[str | None, str]:
    """Title a session after its first exchange; returns (title stored, "model"|"derived")."""
    opening = read_opening(store, session_id)
    if opening.title is not None or opening.user_messages > 2 or not opening.first_user:
        return None, ""
    title, source = None, "derived"
    if endpoint is not None:
        try:
            title, tokens = generate_title(client_factory(endpoint), opening, cancelled)
            record_usage(store, session_id, usage_of(endpoint, tokens, "title_generation"))
            source = "model"
        except ModelError:
            title = None
    if not title:
        title, source = derive_title(opening.first_user), "derived"
    if not title:
        return None, ""
    return set_title_if_empty(store, session_id, title), source
