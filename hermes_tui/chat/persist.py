"""Writing a conversation as it happens, with Hermes' counters, one short transaction each.

* A new session's row is inserted in the same transaction as its first message (so there
  are never empty rows), with a queued ``/title`` if the user gave one.
* An assistant reply is written while it streams: the row appears with the first text
  (``finish_reason='incomplete'``) and its content is brought up to date every quarter
  second while text arrives — and at once by ``flush()``, which a UI calls from its exit or
  signal handlers — so even a killed process loses at most that quarter second; the last
  write sets the final content, tool calls and finish reason and adds the call's usage to
  the session (``apply_usage``) in the same transaction.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..paths import git_branch, git_root
from ..store import NewMessage, NewSession, SessionNotFound, Store, StoreError, TitleError
from ..store.lineage import compression_tip
from ..store.messages import Usage, apply_usage, encode_content, insert_message
from ..store.sessions import insert_session
from ..store.titles import apply_title, sanitize_title
from .endpoint import Endpoint
from .sse import TokenUsage

STREAMING = "incomplete"  # finish_reason of a reply still arriving (or cut off by a crash)
FLUSH_INTERVAL = 0.25


class SessionMoved(Exception):
    """The session was compressed: the conversation continues in another session."""

    def __init__(self, session_id: str, tip: str) -> None:
        self.session_id = session_id
        self.tip = tip
        super().__init__(
            f"Session {session_id} was compressed; the conversation continues in {tip}."
        )


def usage_of(endpoint: Endpoint, tokens: TokenUsage | None, task: str = "") -> Usage | None:
    """The session-row usage of one call (Hermes' columns), or None if nothing was reported."""
    if tokens is None:
        return None
    return Usage(
        input_tokens=tokens.input_tokens,
        output_tokens=tokens.completion_tokens,
        cache_read_tokens=tokens.cache_read_tokens,
        cache_write_tokens=tokens.cache_write_tokens,
        reasoning_tokens=tokens.reasoning_tokens,
        model=endpoint.model,
        billing_provider=endpoint.provider,
        billing_base_url=endpoint.base_url,
        actual_cost_usd=tokens.cost_usd,
        task=task,
    )


def session_spec(endpoint: Endpoint | None, system_prompt: str, cwd: Path) -> NewSession:
    """A new ``tui`` session's columns: model, billing, the prompt snapshot, the workspace."""
    root = git_root(cwd)
    return NewSession(
        source="tui",
        model=endpoint.model if endpoint else None,
        system_prompt=system_prompt,
        cwd=str(cwd),
        git_repo_root=str(root) if root else None,
        git_branch=git_branch(root),
        billing_provider=endpoint.provider if endpoint else None,
        billing_base_url=endpoint.base_url if endpoint else None,
    )


def create_with_message(
    store: Store, spec: NewSession, message: NewMessage, title: str | None
) -> tuple[str, int, str | None, str | None]:
    """Insert the session row and its first message together.

    Returns (session id, message id, title applied, why the queued title was not applied).
    A title that became unavailable never costs the user their message.
    """

    def work(conn: sqlite3.Connection) -> tuple[str, int, str | None, str | None]:
        session_id = insert_session(conn, store.capabilities, replace(spec, title=None))
        applied, problem = None, None
        if title is not None:
            try:
                applied = sanitize_title(title)
                apply_title(conn, session_id, applied)
            except TitleError as exc:
                applied, problem = None, str(exc)
        message_id = insert_message(conn, store.capabilities, session_id, message)
        return session_id, message_id, applied, problem

    return store.write(work)


def append_user_message(store: Store, session_id: str, message: NewMessage) -> tuple[int, bool]:
    """Append to an existing session, re-opening it if it had ended (not if compressed).

    Returns (message id, whether the row was re-opened)."""

    def work(conn: sqlite3.Connection) -> tuple[int, bool]:
        row = conn.execute(
            "SELECT ended_at, end_reason FROM sessions WHERE id = ?", (session_id,)
        ).fetchone()
        reopened = False
        if row is not None and row["ended_at"] is not None:
            if row["end_reason"] == "compression":
                tip = compression_tip(conn, session_id)
                if tip != session_id:
                    raise SessionMoved(session_id, tip)
            conn.execute(
                "UPDATE sessions SET ended_at = NULL, end_reason = NULL WHERE id = ?",
                (session_id,),
            )
            reopened = True
        message_id = insert_message(conn, store.capabilities, session_id, message)
        return message_id, reopened

    return store.write(work)


def last_user_message(store: Store, session_id: str | None) -> int | None:
    """The id of the session's newest user message (what /retry answers)."""
    if session_id is None:
        return None
    with store.read() as conn:
        row = conn.execute(
            "SELECT MAX(id) FROM messages WHERE session_id = ? AND role = 'user'", (session_id,)
        ).fetchone()
    return None if row is None or row[0] is None else int(row[0])


def append_message(store: Store, session_id: str, message: NewMessage) -> int:
    return store.write(lambda conn: insert_message(conn, store.capabilities, session_id, message))


def record_usage(store: Store, session_id: str, usage: Usage | None) -> None:
    """Usage of a call that produced no message of this session (titles, summaries)."""
    if usage is not None:
        store.write(lambda conn: apply_usage(conn, store.capabilities, session_id, usage))


class ReplyWriter:
    """Persists one assistant message while it streams in (thread-safe: a UI may flush it
    from another thread while the worker streams)."""

    def __init__(
        self,
        store: Store,
        session_id: str,
        *,
        interval: float = FLUSH_INTERVAL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self.session_id = session_id
        self.message_id: int | None = None
        self._text: list[str] = []
        self._written = 0  # characters of _text already in the row
        self._interval = interval
        self._clock = clock
        self._last = clock()
        self._lock = threading.RLock()
        self.flush_error: StoreError | SessionNotFound | None = None

    @property
    def text(self) -> str:
        return "".join(self._text)

    def add(self, text: str) -> None:
        with self._lock:
            self._text.append(text)
            first = self.message_id is None and self.flush_error is None
            if first or self._clock() - self._last >= self._interval:
                self._flush()  # after a failed write, retried at the interval, not per token

    def flush(self) -> None:
        """Write what arrived so far; a failure is kept for later and retried next time."""
        with self._lock:
            self._flush()

    def _flush(self) -> None:
        content = self.text
        if len(content) == self._written and self.message_id is not None:
            return
        try:
            if self.message_id is None:
                partial = NewMessage("assistant", content, finish_reason=STREAMING)
                self.message_id = append_message(self.store, self.session_id, partial)
            else:
                message_id = self.message_id
                self.store.write(
                    lambda conn: conn.execute(
                        "UPDATE messages SET content = ? WHERE id = ?",
                        (encode_content(content), message_id),
                    )
                )
            self._written = len(content)
            self.flush_error = None
        except (StoreError, SessionNotFound) as exc:  # never breaks the stream: finish() reports
            self.flush_error = exc
        self._last = self._clock()

    def finish(
        self,
        *,
        finish_reason: str | None,
        tool_calls: Sequence[dict[str, Any]] = (),
        reasoning: str | None = None,
        usage: Usage | None = None,
        token_count: int | None = None,
    ) -> int | None:
        """The final write (content, calls, reason, usage in one transaction); the row id.

        None when nothing arrived and there is nothing to store (usage is still counted)."""
        with self._lock:
            return self._finish(finish_reason, list(tool_calls), reasoning, usage, token_count)

    def _finish(
        self,
        finish_reason: str | None,
        calls: list[dict[str, Any]],
        reasoning: str | None,
        usage: Usage | None,
        token_count: int | None,
    ) -> int | None:
        content = self.text
        caps = self.store.capabilities
        if self.message_id is None and not content and not calls:
            record_usage(self.store, self.session_id, usage)
            return None

        def work(conn: sqlite3.Connection) -> int:
            exists = conn.execute("SELECT 1 FROM sessions WHERE id = ?", (self.session_id,))
            if exists.fetchone() is None:
                raise SessionNotFound(self.session_id)  # deleted while the reply streamed
            if self.message_id is None:
                message = NewMessage(
                    "assistant",
                    content,
                    tool_calls=calls or None,
                    finish_reason=finish_reason,
                    reasoning=reasoning or None,
                    token_count=token_count,
                )
                message_id = insert_message(conn, caps, self.session_id, message)
            else:
                message_id = self.message_id
                values: dict[str, Any] = {
                    "content": encode_content(content),
                    "tool_calls": json.dumps(calls, ensure_ascii=False) if calls else None,
                    "finish_reason": finish_reason,
                    "reasoning": reasoning or None,
                    "token_count": token_count,
                }
                values = {k: v for k, v in values.items() if k in caps.message_columns}
                sets = ", ".join(f"{k} = ?" for k in values)
                conn.execute(
                    f"UPDATE messages SET {sets} WHERE id = ?", (*values.values(), message_id)
                )
                if calls:
                    conn.execute(
                        "UPDATE sessions SET tool_call_count = COALESCE(tool_call_count, 0) + ? "
                        "WHERE id = ?",
                        (len(calls), self.session_id),
                    )
            if usage is not None:
                apply_usage(conn, caps, self.session_id, usage)
            return message_id

        self.message_id = self.store.write(work)
        self._written = len(content)
        return self.message_id
