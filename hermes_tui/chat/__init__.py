"""Continuing a conversation with a model: the engine under the chat pane.

Standard library and the store layer only (no Textual, no Rich): everything here is
synchronous and meant to run in a UI's thread workers. Start at :class:`Conversation`;
slash commands are in :mod:`.commands`.
"""

from .attachments import Attachment, AttachmentError, from_paste, load_attachment
from .commands import (
    COMMANDS,
    CommandResult,
    ExportSession,
    HandedOff,
    OpenBrowser,
    OpenSearch,
    ParsedCommand,
    Quit,
    ResumeSession,
    RetryTurn,
    SessionSwitched,
    complete,
    help_text,
    parse,
    run,
)
from .compress import Compressed, NothingToCompress
from .conversation import Conversation, ConversationBusy
from .endpoint import Endpoint, resolve_endpoint
from .errors import (
    BadResponse,
    ConnectionDropped,
    KeyRefused,
    ModelError,
    ModelTimeout,
    NotConfigured,
    ServiceUnavailable,
)
from .events import (
    Event,
    EventSink,
    MessageStored,
    Notice,
    ReasoningDelta,
    Retrying,
    SessionCreated,
    TextDelta,
    TitleChanged,
    ToolCallFinished,
    ToolCallStarted,
    TurnDone,
    TurnError,
    TurnResult,
    UsageReported,
)
from .handoff import HandoffOutcome, HomeChannel, home_channel
from .persist import STREAMING, SessionMoved

__all__ = [
    "COMMANDS",
    "STREAMING",
    "Attachment",
    "AttachmentError",
    "BadResponse",
    "CommandResult",
    "Compressed",
    "ConnectionDropped",
    "Conversation",
    "ConversationBusy",
    "Endpoint",
    "Event",
    "EventSink",
    "ExportSession",
    "HandedOff",
    "HandoffOutcome",
    "HomeChannel",
    "KeyRefused",
    "MessageStored",
    "ModelError",
    "ModelTimeout",
    "NotConfigured",
    "NothingToCompress",
    "Notice",
    "OpenBrowser",
    "OpenSearch",
    "ParsedCommand",
    "Quit",
    "ReasoningDelta",
    "ResumeSession",
    "RetryTurn",
    "Retrying",
    "ServiceUnavailable",
    "SessionCreated",
    "SessionMoved",
    "SessionSwitched",
    "TextDelta",
    "TitleChanged",
    "ToolCallFinished",
    "ToolCallStarted",
    "TurnDone",
    "TurnError",
    "TurnResult",
    "UsageReported",
    "complete",
    "from_paste",
    "help_text",
    "home_channel",
    "load_attachment",
    "parse",
    "resolve_endpoint",
    "run",
]
