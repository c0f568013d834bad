"""What the chat pane's loading workers post back to it."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message as TMessage

from ...chat import Conversation
from ...store import Session
from ...store import transcript as tx
from ...store.recap import Recap


@dataclass
class Loaded(TMessage):
    session: Session
    segments: list[str]
    recap: Recap | None
    window: tx.Window
    anchor: int | None
    reopened: bool
    compacted: int
    conversation: Conversation


@dataclass
class NewChat(TMessage):
    conversation: Conversation


@dataclass
class MoreLoaded(TMessage):
    window: tx.Window
    older: bool
    segment: int


@dataclass
class LoadFailed(TMessage):
    text: str
