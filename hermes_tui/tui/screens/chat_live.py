"""The live side of the chat pane: sending, the streamed reply, Esc to stop, slash commands.

The engine (:mod:`hermes_tui.chat`) runs each turn in a thread worker and reports events
through a callback; they are posted to the screen and handled on the UI thread, so typing
never waits for the model. What was stored is read back and drawn when the turn ends.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on, work
from textual.containers import VerticalScroll
from textual.message import Message as TMessage
from textual.screen import Screen
from textual.suggester import Suggester
from textual.widgets import Input, Static

from ...chat import (
    CommandResult,
    Conversation,
    ConversationBusy,
    Event,
    ExportSession,
    HandedOff,
    Notice,
    OpenBrowser,
    OpenSearch,
    Quit,
    ReasoningDelta,
    ResumeSession,
    Retrying,
    RetryTurn,
    SessionCreated,
    SessionSwitched,
    TextDelta,
    TitleChanged,
    ToolCallFinished,
    ToolCallStarted,
    TurnDone,
    TurnError,
    UsageReported,
)
from ...chat import commands as slash
from ...sanitize import clean
from ...store import Message, StoreError
from ...store import transcript as tx
from ..messages import OpenSession
from ..widgets.message_view import MessageView
from ..widgets.stream_view import StreamView

if TYPE_CHECKING:
    from ..app import HermesApp


@dataclass
class ChatEvent(TMessage):
    event: Any


@dataclass
class CommandDone(TMessage):
    result: CommandResult


@dataclass
class Caught(TMessage):
    messages: tuple[Message, ...]


class SlashSuggester(Suggester):
    """Completes /commands, /handoff platforms, /export formats and /attach paths."""

    def __init__(self, home: Path) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self.home = home

    async def get_suggestion(self, value: str) -> str | None:
        if not value.startswith("/"):
            return None
        options = await asyncio.to_thread(slash.complete, value, home=self.home, cwd=Path.cwd())
        return next((o for o in options if o.startswith(value) and o != value), None)


class ChatLive(Screen[None]):
    """Mixed into ChatScreen, which provides the transcript, its edges and the session."""

    session_id: str | None
    conversation: Conversation | None
    last: MessageView | None

    @property
    def hermes(self) -> HermesApp:
        return self.app  # type: ignore[return-value]

    def _header(self) -> None:
        raise NotImplementedError

    def _hints(self) -> None:
        raise NotImplementedError

    def _remember_in_terminal(self) -> None:
        raise NotImplementedError

    def _emit(self, event: Event) -> None:
        """Called by the engine on its thread: hand the event to the UI thread."""
        self.post_message(ChatEvent(event))

    # -- input ---------------------------------------------------------------------

    @on(Input.Submitted, "#chat-input")
    def _submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        conversation = self.conversation
        if not text:
            return
        if conversation is None:
            self.notify("The conversation is still loading.", markup=False)
            return
        if conversation.busy:
            self.notify("A reply is still streaming: wait, or Esc to stop it.", markup=False)
            return
        field = self.query_one("#chat-input", Input)
        parsed = slash.parse(text)
        field.value = ""
        if parsed is not None:
            self._notice(Text(text, style="dim"))
            self._command(conversation, parsed)
            return
        self._pending(text)
        self._send(conversation, text)

    def _transcript(self) -> VerticalScroll:
        return self.query_one("#chat-transcript", VerticalScroll)

    def _pending(self, text: str) -> None:
        """Show the user's message and an empty reply at once; the store catches up."""
        stub = Message(id=0, session_id=self.session_id or "", role="user", content=text,
                       timestamp=self.hermes.now())  # fmt: skip
        view = MessageView(stub)
        view.add_class("-pending")
        transcript = self._transcript()
        transcript.mount_all([view, StreamView()], before="#chat-newer")
        transcript.scroll_end(animate=False)

    def _stream(self) -> StreamView | None:
        views = list(self.query(StreamView))
        return views[-1] if views else None

    def _notice(self, text: Text) -> None:
        self._transcript().mount(
            Static(text, classes="chat-item chat-notice"), before="#chat-newer"
        )
        self._transcript().scroll_end(animate=False)

    @work(thread=True, exclusive=True, group="chat-turn", exit_on_error=False)
    def _send(self, conversation: Conversation, text: str) -> None:
        try:
            conversation.send(text, on_event=self._emit)
        except (ConversationBusy, ValueError) as error:
            self.post_message(ChatEvent(Notice(str(error), "error")))

    @work(thread=True, exclusive=True, group="chat-turn", exit_on_error=False)
    def _retry(self, conversation: Conversation) -> None:
        try:
            conversation.retry(on_event=self._emit)
        except (ConversationBusy, ValueError) as error:
            self.post_message(ChatEvent(Notice(str(error), "error")))

    @work(thread=True, exclusive=True, group="chat-command", exit_on_error=False)
    def _command(self, conversation: Conversation, parsed: slash.ParsedCommand) -> None:
        def progress(text: str) -> None:
            self.post_message(ChatEvent(Notice(text)))

        result = slash.run(conversation, parsed, on_progress=progress)
        self.post_message(CommandDone(result))

    def stop_reply(self) -> bool:
        """Esc while a reply streams stops it (what arrived is kept); True if one was."""
        if self.conversation is not None and self.conversation.busy:
            self.conversation.cancel()
            return True
        return False

    # -- engine events -------------------------------------------------------------

    def on_chat_event(self, message: ChatEvent) -> None:
        event, stream = message.event, self._stream()
        if isinstance(event, SessionCreated):
            self.session_id = event.session_id
            self.hermes.reopened.add(event.session_id)  # ended when we leave it
            self._hints()  # no longer "saved with your first message": it is saved
            # This terminal's `hermes -c` continues the new conversation next time.
            self.run_worker(self._remember_in_terminal, thread=True, exit_on_error=False)
        elif isinstance(event, TextDelta) and stream is not None:
            stream.add_text(event.text)
            self._transcript().scroll_end(animate=False)
        elif isinstance(event, ReasoningDelta) and stream is not None:
            stream.add_reasoning(event.text)
        elif isinstance(event, ToolCallStarted) and stream is not None:
            stream.tool_started(event.name, event.arguments)
        elif isinstance(event, ToolCallFinished) and stream is not None:
            stream.tool_finished(event.name, event.ok)
        elif isinstance(event, Retrying) and stream is not None:
            stream.set_status(f"retrying in {event.delay:.0f}s ({event.reason})")
        elif isinstance(event, UsageReported) and event.near_budget:
            self.notify("The conversation is near its context budget: /compress summarises "
                        "it and continues in a new segment.", markup=False)  # fmt: skip
        elif isinstance(event, TitleChanged):
            self._header()
        elif isinstance(event, Notice):
            style = {"error": "bold red", "warning": "yellow"}.get(event.level, "dim")
            self._notice(Text(clean(event.text), style=style))
        elif isinstance(event, TurnError):
            self._failed(event, stream)
        elif isinstance(event, TurnDone):
            self._catch_up()

    def _failed(self, event: TurnError, stream: StreamView | None) -> None:
        hint = event.hint + ("  (/retry asks again)" if event.retryable else "")
        if stream is not None:
            stream.fail(event.message, hint)
        if not event.user_message_stored:  # nothing saved: give the text back to edit
            stub = next((v for v in self.query(".-pending") if isinstance(v, MessageView)), None)
            field = self.query_one("#chat-input", Input)
            if stub is not None and not field.value:
                field.value = stub.message.content or ""

    @work(thread=True, exclusive=True, group="chat-catch-up", exit_on_error=False)
    def _catch_up(self) -> None:
        """Read back what the turn stored, after the last message already shown."""
        if self.session_id is None:
            return
        store = self.hermes.store()
        try:
            last = self.last.message if self.last is not None else None
            window = (tx.newer(store, self.session_id, last, 200) if last
                      else tx.latest(store, self.session_id, 200))  # fmt: skip
        except StoreError as error:
            self.post_message(ChatEvent(Notice(error.one_line(), "error")))
            return
        self.post_message(Caught(window.messages))

    async def on_caught(self, message: Caught) -> None:
        transcript = self._transcript()
        failed = [s for s in self.query(StreamView) if s.error is not None]
        for widget in list(self.query(".-pending")):
            if widget not in failed:
                await widget.remove()
        views = [MessageView(m) for m in message.messages]
        if views:
            await transcript.mount_all(views, before=failed[0] if failed else "#chat-newer")
            self.last = views[-1]
        transcript.scroll_end(animate=False)

    # -- slash command results -----------------------------------------------------

    def on_command_done(self, message: CommandDone) -> None:
        result = message.result
        if result.text:
            style = {"error": "bold red", "warning": "yellow"}.get(result.level, "")
            self._notice(Text(clean(result.text), style=style))
        action = result.action
        if isinstance(action, OpenBrowser):
            self.dismiss()
        elif isinstance(action, OpenSearch):
            self.hermes.action_search(action.query or "")
        elif isinstance(action, ResumeSession):
            self.dismiss()
            self.hermes.post_message(OpenSession(action.session_id))
        elif isinstance(action, ExportSession):
            from .export_dialog import ExportDialog

            self.app.push_screen(ExportDialog([action.session_id], action.session_id))
        elif isinstance(action, RetryTurn) and self.conversation is not None:
            self._pending_retry()
        elif isinstance(action, SessionSwitched):
            self._switched(action)
        elif isinstance(action, HandedOff):
            if self.session_id:
                self.hermes.reopened.discard(self.session_id)  # the gateway owns it now
        elif isinstance(action, Quit):
            self.app.exit()

    def _pending_retry(self) -> None:
        transcript = self._transcript()
        transcript.mount(StreamView(), before="#chat-newer")
        self._retry(self.conversation)  # type: ignore[arg-type]

    def _switched(self, action: SessionSwitched) -> None:
        """/new or /compress moved the conversation to another session: show that one."""
        if action.previous:
            self.hermes.reopened.discard(action.previous)  # the engine ended it already
        self.session_id = action.session_id
        if action.session_id:
            self.hermes.reopened.add(action.session_id)
        for widget in list(self.query(".chat-item")):
            if not widget.has_class("chat-notice"):
                widget.remove()
        self.last = None
        self._header()
        if action.session_id:
            self._catch_up()
