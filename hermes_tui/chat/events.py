"""What a turn reports while it runs (small frozen records) and what it returns.

Events are delivered to the ``on_event`` callback from the thread that runs the turn (the
background title thread uses the same callback): a UI posts them to itself as messages.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from .errors import ModelError


@dataclass(frozen=True, slots=True)
class SessionCreated:
    """A new session's row now exists (created together with its first message)."""

    session_id: str


@dataclass(frozen=True, slots=True)
class MessageStored:
    """A message is in the store; ``finish_reason`` is the model's, or ``cancelled``/``error``."""

    session_id: str
    message_id: int
    role: str
    finish_reason: str | None = None


@dataclass(frozen=True, slots=True)
class TextDelta:
    text: str


@dataclass(frozen=True, slots=True)
class ReasoningDelta:
    text: str


@dataclass(frozen=True, slots=True)
class ToolCallStarted:
    call_id: str
    name: str
    arguments: str


@dataclass(frozen=True, slots=True)
class ToolCallFinished:
    call_id: str
    name: str
    result: str
    ok: bool
    message_id: int


@dataclass(frozen=True, slots=True)
class UsageReported:
    """One model call's usage, and how full the context window is now."""

    input_tokens: int
    output_tokens: int
    context_tokens: int
    context_budget: int

    @property
    def near_budget(self) -> bool:
        return self.context_tokens >= 0.8 * self.context_budget


@dataclass(frozen=True, slots=True)
class Retrying:
    attempt: int
    delay: float
    reason: str


@dataclass(frozen=True, slots=True)
class Notice:
    text: str
    level: Literal["info", "warning", "error"] = "info"


@dataclass(frozen=True, slots=True)
class TitleChanged:
    session_id: str
    title: str
    source: Literal["user", "model", "derived", "queued", "lineage"]


@dataclass(frozen=True, slots=True)
class TurnError:
    """The turn failed. ``kind`` is the error's (``timeout``, ``dropped``, ...)."""

    kind: str
    message: str
    hint: str
    retryable: bool
    user_message_stored: bool


@dataclass(frozen=True)
class TurnResult:
    session_id: str | None
    user_message_id: int | None = None
    message_ids: tuple[int, ...] = ()  # every row this turn appended after the user's
    text: str = ""  # the final answer (partial when stopped or broken)
    finish_reason: str | None = None
    cancelled: bool = False
    error: ModelError | Exception | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    context_tokens: int = 0
    near_budget: bool = False  # suggest /compress
    omitted: int = 0  # stored messages not sent (beyond the budget)
    tool_calls: int = 0

    @property
    def ok(self) -> bool:
        return self.error is None and not self.cancelled


@dataclass(frozen=True, slots=True)
class TurnDone:
    result: TurnResult = field(repr=False)


Event = (
    SessionCreated
    | MessageStored
    | TextDelta
    | ReasoningDelta
    | ToolCallStarted
    | ToolCallFinished
    | UsageReported
    | Retrying
    | Notice
    | TitleChanged
    | TurnError
    | TurnDone
)
EventSink = Callable[[Event], None]


def ignore(event: Event) -> None:
    """The default sink."""
