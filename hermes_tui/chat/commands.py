"""Slash commands: parsing, completion, and what each one does — as results and actions.

:func:`run` does the work that belongs to the conversation (titles, /new, /compress,
/attach, /handoff) and returns a :class:`CommandResult`: a line to show and, when the UI
has something to do, an action (open the browser, resume a session, export, quit, retry,
switch to the session the conversation moved to). Call it from a thread worker: /compress
may call the model and /handoff waits for the gateway.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..store import AmbiguousReference, SessionNotFound, StoreError, TitleError, resolve_reference
from .attachments import AttachmentError
from .compress import NothingToCompress
from .conversation import Conversation, ConversationBusy
from .handoff import PENDING_TIMEOUT, PLATFORMS, home_channel

EXPORT_FORMATS = ("jsonl", "md", "qmd", "html", "trace")
_COMMAND = re.compile(r"/(?P<name>[A-Za-z][\w-]*)(?:\s+(?P<arg>.*))?", re.DOTALL)


@dataclass(frozen=True, slots=True)
class CommandSpec:
    name: str
    usage: str
    help: str
    aliases: tuple[str, ...] = ()
    blocking: bool = False  # may take seconds: run it in a worker and allow Esc


COMMANDS = (
    CommandSpec("title", "[name]", "show or set this session's title"),
    CommandSpec("new", "[name]", "start a fresh session, optionally named"),
    CommandSpec("compress", "", "summarise and continue in a new segment", blocking=True),
    CommandSpec("resume", "[id|title]", "continue another session (no argument: browse)"),
    CommandSpec("sessions", "", "open the session browser"),
    CommandSpec("search", "<query>", "search every session"),
    CommandSpec("export", "[format]", "export this session: " + ", ".join(EXPORT_FORMATS)),
    CommandSpec("attach", "<path>", "attach a file to your next message"),
    CommandSpec("handoff", "<platform>", "hand this conversation to a gateway", blocking=True),
    CommandSpec("retry", "", "ask the model again after an error"),
    CommandSpec("help", "", "list the commands"),
    CommandSpec("quit", "", "leave hermes", aliases=("exit",)),
)
_BY_NAME = {name: spec for spec in COMMANDS for name in (spec.name, *spec.aliases)}


# -- actions for the UI ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class OpenBrowser:
    pass


@dataclass(frozen=True, slots=True)
class OpenSearch:
    query: str


@dataclass(frozen=True, slots=True)
class ResumeSession:
    session_id: str


@dataclass(frozen=True, slots=True)
class ExportSession:
    session_id: str
    format: str


@dataclass(frozen=True, slots=True)
class RetryTurn:
    """Run ``conversation.retry`` in a worker, like a send."""


@dataclass(frozen=True, slots=True)
class SessionSwitched:
    """The conversation moved: reload the pane on ``session_id`` (None: a fresh, empty one)."""

    session_id: str | None
    previous: str | None
    reason: Literal["new", "compression"]


@dataclass(frozen=True, slots=True)
class HandedOff:
    """The gateway owns the session now: leave it without ending it."""

    session_id: str
    platform: str


@dataclass(frozen=True, slots=True)
class Quit:
    pass


Action = (
    OpenBrowser
    | OpenSearch
    | ResumeSession
    | ExportSession
    | RetryTurn
    | SessionSwitched
    | HandedOff
    | Quit
)


@dataclass(frozen=True, slots=True)
class CommandResult:
    text: str = ""
    level: Literal["info", "warning", "error"] = "info"
    action: Action | None = None


@dataclass(frozen=True, slots=True)
class ParsedCommand:
    name: str  # lower-cased, as typed (may be unknown)
    argument: str

    @property
    def spec(self) -> CommandSpec | None:
        return _BY_NAME.get(self.name)


def parse(text: str) -> ParsedCommand | None:
    """``/name argument`` → a command; anything else (a message, a pasted ``/path/to/file``,
    ``//text``) → None: send it as a message."""
    match = _COMMAND.fullmatch(text.strip())
    if match is None:
        return None
    return ParsedCommand(match.group("name").lower(), (match.group("arg") or "").strip())


def help_text() -> str:
    width = max(len(f"/{s.name} {s.usage}".strip()) for s in COMMANDS)
    lines = [f"{f'/{s.name} {s.usage}'.strip():<{width}}  {s.help}" for s in COMMANDS]
    return "\n".join(["Commands:", *lines, "Esc stops a streaming reply."])


def _unquote(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def _error(text: str) -> CommandResult:
    return CommandResult(text, "error")


# -- running ---------------------------------------------------------------------------


def run(
    conversation: Conversation,
    command: ParsedCommand,
    *,
    cancelled: Callable[[], bool] | None = None,
    on_progress: Callable[[str], None] | None = None,
    handoff_timeout: float = PENDING_TIMEOUT,
) -> CommandResult:
    """Do *command*; never raises for a user mistake (the result says what went wrong)."""
    spec = command.spec
    if spec is None:
        names = [n for s in COMMANDS for n in (s.name, *s.aliases)]
        close = difflib.get_close_matches(command.name, names, n=1, cutoff=0.5)
        guess = f" Did you mean /{close[0]}?" if close else ""
        return _error(f"Unknown command /{command.name}.{guess} /help lists the commands.")
    arg = command.argument
    try:
        if spec.name == "title":
            return _title(conversation, arg)
        if spec.name == "new":
            previous = conversation.start_new(_unquote(arg) or None)
            queued = f" Its title will be '{conversation.queued_title}'." if arg else ""
            return CommandResult(
                f"Started a new session.{queued}", action=SessionSwitched(None, previous, "new")
            )
        if spec.name == "compress":
            done = conversation.compress(cancelled)
            named = f" as '{done.title}'" if done.title else ""
            return CommandResult(
                f"Compressed {done.messages} messages ({done.source} summary); the "
                f"conversation continues in {done.new_id}{named}.",
                action=SessionSwitched(done.new_id, done.old_id, "compression"),
            )
        if spec.name == "resume":
            return _resume(conversation, arg)
        if spec.name == "sessions":
            return CommandResult(action=OpenBrowser())
        if spec.name == "search":
            if not arg:
                return _error("Usage: /search <query>")
            return CommandResult(action=OpenSearch(arg))
        if spec.name == "export":
            return _export(conversation, arg)
        if spec.name == "attach":
            return _attach(conversation, arg)
        if spec.name == "handoff":
            return _handoff(conversation, arg, cancelled, on_progress, handoff_timeout)
        if spec.name == "retry":
            return CommandResult(action=RetryTurn())
        if spec.name == "help":
            return CommandResult(help_text())
        return CommandResult(action=Quit())
    except ConversationBusy as exc:
        return _error(str(exc))
    except (TitleError, NothingToCompress, AttachmentError, SessionNotFound) as exc:
        return _error(str(exc))
    except StoreError as exc:
        return _error(exc.one_line())


def _title(conversation: Conversation, arg: str) -> CommandResult:
    if not arg:
        if conversation.title:
            return CommandResult(f"Title: {conversation.title}")
        if conversation.queued_title:
            return CommandResult(f"Title (queued): {conversation.queued_title}")
        return CommandResult("This session has no title yet. Set one with /title <name>.")
    title, queued = conversation.set_title(_unquote(arg))
    if title is None:
        return CommandResult("Title cleared.")
    if queued:
        return CommandResult(f"Session title queued: {title} (will be saved on first message)")
    return CommandResult(f"Title set: {title}")


def _resume(conversation: Conversation, arg: str) -> CommandResult:
    if not arg:
        return CommandResult(action=OpenBrowser())
    try:
        target = resolve_reference(conversation.store, _unquote(arg), follow_tip=True)
    except (SessionNotFound, AmbiguousReference) as exc:
        return _error(str(exc))
    if target == conversation.session_id:
        return CommandResult("Already on that session.")
    return CommandResult(action=ResumeSession(target))


def _export(conversation: Conversation, arg: str) -> CommandResult:
    fmt = (arg or "jsonl").lower()
    if fmt not in EXPORT_FORMATS:
        return _error(f"Unknown export format '{arg}'. Formats: {', '.join(EXPORT_FORMATS)}.")
    if conversation.session_id is None:
        return _error("Nothing to export yet: send a message first.")
    return CommandResult(action=ExportSession(conversation.session_id, fmt))


def _attach(conversation: Conversation, arg: str) -> CommandResult:
    if not arg:
        pending = ", ".join(a.describe() for a in conversation.pending_attachments)
        if pending:
            return CommandResult(f"Attached to your next message: {pending}")
        return _error("Usage: /attach <path>")
    attachment = conversation.attach(_unquote(arg))
    note = " (only its first 256 KB)" if attachment.truncated else ""
    return CommandResult(f"Attached {attachment.describe()}{note}; it goes with your next message.")


def _handoff(
    conversation: Conversation,
    arg: str,
    cancelled: Callable[[], bool] | None,
    on_progress: Callable[[str], None] | None,
    timeout: float,
) -> CommandResult:
    if not arg:
        return _error("Usage: /handoff <platform> — e.g. " + ", ".join(PLATFORMS[:4]))
    outcome = conversation.handoff(
        arg, timeout=timeout, cancelled=cancelled, on_progress=on_progress
    )
    if outcome.completed and conversation.session_id is not None:
        return CommandResult(
            outcome.message, action=HandedOff(conversation.session_id, outcome.platform)
        )
    level = "warning" if outcome.state in ("stopped", "still-running") else "error"
    return CommandResult(outcome.message, level)


# -- completion ------------------------------------------------------------------------


def _paths(partial: str, cwd: Path) -> list[str]:
    folder, slash, prefix = partial.rpartition("/")
    base = Path(folder + slash or ".").expanduser()
    base = base if base.is_absolute() else cwd / base
    try:
        entries = sorted(base.iterdir(), key=lambda p: p.name)
    except OSError:
        return []
    shown = partial[: len(partial) - len(prefix)]
    out = []
    for entry in entries:
        if entry.name.startswith(prefix) and (
            prefix.startswith(".") or not entry.name.startswith(".")
        ):
            out.append(shown + entry.name + ("/" if entry.is_dir() else ""))
    return out[:50]


def complete(
    text: str,
    *,
    home: Path | None = None,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
) -> list[str]:
    """Candidates that replace the whole input (commands, then their arguments)."""
    if not text.startswith("/"):
        return []
    name, space, arg = text[1:].partition(" ")
    if not space:
        lowered = name.lower()
        return [
            f"/{s.name}" + (" " if s.usage else "") for s in COMMANDS if s.name.startswith(lowered)
        ]
    name = name.lower()
    candidates: list[str] = []
    if name == "handoff":
        configured = [p for p in PLATFORMS if home is not None and home_channel(p, home, env)]
        ordered = configured + [p for p in PLATFORMS if p not in configured]
        candidates = [p for p in ordered if p.startswith(arg.lower())]
    elif name == "export":
        candidates = [f for f in EXPORT_FORMATS if f.startswith(arg.lower())]
    elif name == "attach":
        candidates = _paths(arg, cwd or Path.cwd())
    return [f"/{name} {candidate}" for candidate in candidates]
