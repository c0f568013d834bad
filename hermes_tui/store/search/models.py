"""Frozen records the search engine hands to the TUI, the CLI and the JSON shapes."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from ..models import Message

Index = Literal["fts", "trigram", "like", "none"]
SortOrder = Literal["relevance", "newest", "oldest"]


class SearchError(ValueError):
    """A request the engine refuses (unknown session, bad argument, bad query): the text is
    what the user or the model is shown, ``{"success": false, "error": <text>}``."""


def format_when(ts: float | None) -> str:
    """Hermes' ``when``: ``November 27, 2026 at 02:52 AM`` (local time)."""
    if ts is None:
        return "unknown"
    try:
        return datetime.fromtimestamp(ts).strftime("%B %d, %Y at %I:%M %p")
    except (OverflowError, OSError, ValueError):
        return str(ts)


@dataclass(frozen=True, slots=True)
class SessionMeta:
    """What a result says about a session: its title, start, source and model."""

    session_id: str
    source: str
    started_at: float | None
    title: str | None = None
    model: str | None = None
    message_count: int = 0
    parent_session_id: str | None = None
    archived: bool = False

    @property
    def when(self) -> str:
        return format_when(self.started_at)


@dataclass(frozen=True, slots=True)
class Segment:
    """A piece of a snippet; ``match`` pieces are what the query found."""

    text: str
    match: bool = False


@dataclass(frozen=True, slots=True)
class Window:
    """Messages of one session around an anchor, in order (ids ascending).

    ``messages_before``/``messages_after`` count the messages of the window on each side of
    the anchor; fewer than the width asked for means the start/end of the session.
    """

    session_id: str
    anchor_id: int
    messages: tuple[Message, ...]
    messages_before: int
    messages_after: int
    width: int

    @property
    def at_start(self) -> bool:
        return self.messages_before < self.width

    @property
    def at_end(self) -> bool:
        return self.messages_after < self.width


@dataclass(frozen=True, slots=True)
class Hit:
    """One discovery result: a conversation, where the query matched, and its context.

    ``root`` is the lineage root (its title/start/source/model describe the conversation);
    ``session_id`` is the session that holds the matching message. ``gap_before`` and
    ``gap_after`` count the messages hidden between the bookends and the window.
    """

    session_id: str
    root: SessionMeta
    matched_role: str
    match_message_id: int
    snippet: tuple[Segment, ...]
    bookend_start: tuple[Message, ...]
    window: Window
    bookend_end: tuple[Message, ...]
    gap_before: int = 0
    gap_after: int = 0
    score: float = 0.0
    timestamp: float = 0.0
    title_match: bool = False

    @property
    def parent_session_id(self) -> str | None:
        return self.root.session_id if self.root.session_id != self.session_id else None

    @property
    def snippet_text(self) -> str:
        """The snippet with Hermes' markers: ``...the >>>match<<< here...``."""
        return "".join(f">>>{s.text}<<<" if s.match else s.text for s in self.snippet)


@dataclass(frozen=True, slots=True)
class Discovery:
    """The result of a query. ``partial`` (with ``warning``) when the search was bounded
    and older history may hold matches it did not look at."""

    query: str
    hits: tuple[Hit, ...]
    sessions_searched: int
    index: Index
    sort: SortOrder = "relevance"
    partial: bool = False
    warning: str | None = None
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class ScrollView:
    meta: SessionMeta
    window: Window
    warning: str | None = None


@dataclass(frozen=True, slots=True)
class SessionRead:
    """A whole session when short, else its first ``head`` and last ``tail`` messages."""

    meta: SessionMeta
    message_count: int
    head: tuple[Message, ...]
    tail: tuple[Message, ...] = ()

    @property
    def truncated(self) -> bool:
        return bool(self.tail)

    @property
    def messages(self) -> tuple[Message, ...]:
        return self.head + self.tail
