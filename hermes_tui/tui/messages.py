"""App-wide messages (workers and widgets post these; screens and the app handle them)."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from ..store import StoreError


@dataclass
class OpenSession(Message):
    """Open a conversation in the chat pane (optionally at one message)."""

    session_id: str
    message_id: int | None = None
    resumed: bool = True


@dataclass
class StoreProblem(Message):
    """The store cannot be used: show the problem screen."""

    error: StoreError
