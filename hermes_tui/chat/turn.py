"""One turn: call the model, run the tools it asks for, send the results back, until it
answers (or the round limit, a stop, or an error ends the turn).

Every message is stored as it completes — the reply while it streams (:class:`ReplyWriter`),
each tool result as soon as it exists — so nothing received is lost on any path: a stop
keeps the partial reply (``finish_reason='cancelled'``) and records calls it prevented as
not run; an error keeps what arrived (``finish_reason='error'``) and is reported for /retry.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from ..store import Cancelled, NewMessage, SessionNotFound, Store, StoreError
from ..store import transcript as tx
from .client import ChatClient
from .endpoint import Endpoint
from .errors import ModelError
from .events import (
    EventSink,
    MessageStored,
    Notice,
    ReasoningDelta,
    Retrying,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    TurnDone,
    TurnError,
    TurnResult,
    UsageReported,
)
from .persist import ReplyWriter, append_message, usage_of
from .sse import Completion, ToolCall
from .tools import TOOLS, ToolOutcome, run_tool, stopped_result
from .window import PromptWindow, build_window

MAX_WINDOW_ROWS = 600
STORE_ERRORS = (StoreError, SessionNotFound)  # the file failed, or the session was deleted
ROUNDS_EXHAUSTED = "Not run: this turn reached its tool-call limit (model.max_tool_rounds)."
STOPPED = "[stopped]"


def report_failure(
    session_id: str | None, error: Exception, on_event: EventSink, *, stored: bool
) -> TurnResult:
    """Report an error that ended a turn; ``stored`` says whether the user's message is kept."""
    kind = getattr(error, "kind", "store" if isinstance(error, STORE_ERRORS) else "error")
    on_event(
        TurnError(
            kind=kind,
            message=getattr(error, "message", str(error)),
            hint=getattr(error, "hint", ""),
            retryable=bool(getattr(error, "retryable", False)) and stored,
            user_message_stored=stored,
        )
    )
    result = TurnResult(session_id, error=error)
    on_event(TurnDone(result))
    return result


@dataclass
class Turn:
    store: Store
    session_id: str
    endpoint: Endpoint
    client: ChatClient
    system_prompt: str
    budget: int
    on_event: EventSink
    stop: Callable[[], bool]
    stored: list[int] = field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0
    tool_calls: int = 0
    context_tokens: int = 0
    writer: ReplyWriter | None = None  # the reply being streamed right now

    def flush(self) -> None:
        """Write the streaming reply's text now (from any thread; for exit paths)."""
        writer = self.writer
        if writer is not None:
            writer.flush()

    def run(self, user_id: int, images: dict[int, list[dict[str, Any]]] | None) -> TurnResult:
        rounds = 0
        while True:
            rounds += 1
            exhausted = rounds > self.endpoint.max_tool_rounds
            try:
                window = self._window(user_id, images)
            except STORE_ERRORS as exc:
                return report_failure(self.session_id, exc, self.on_event, stored=True)
            writer = self.writer = ReplyWriter(self.store, self.session_id)
            try:
                completion = self._call(window, writer, tools=not exhausted)
            except ModelError as exc:
                return self._broken(exc, writer, user_id)
            try:
                finish = self._store_reply(completion, writer)
            except STORE_ERRORS as exc:
                return report_failure(self.session_id, exc, self.on_event, stored=True)
            result = self._result(user_id, writer.text, finish, window, completion.cancelled)
            calls = list(completion.tool_calls)
            if not completion.cancelled and not calls:
                self.on_event(TurnDone(result))
                return result
            try:
                interrupted = completion.cancelled or self._run_tools(calls, exhausted)
            except STORE_ERRORS as exc:
                return report_failure(self.session_id, exc, self.on_event, stored=True)
            if interrupted or exhausted:
                self.on_event(
                    Notice(STOPPED) if interrupted else Notice(ROUNDS_EXHAUSTED, "warning")
                )
                result = replace(result, cancelled=interrupted, tool_calls=self.tool_calls)
                self.on_event(TurnDone(result))
                return result

    def _window(
        self, current_from: int, images: dict[int, list[dict[str, Any]]] | None
    ) -> PromptWindow:
        rows = tx.latest(self.store, self.session_id, MAX_WINDOW_ROWS).messages
        return build_window(
            self.system_prompt,
            rows,
            budget_tokens=self.budget,
            current_from=current_from,
            images=images,
        )

    def _call(self, window: PromptWindow, writer: ReplyWriter, *, tools: bool) -> Completion:
        def on_text(text: str) -> None:
            writer.add(text)
            self.on_event(TextDelta(text))

        completion = self.client.stream(
            window.messages,
            tools=TOOLS if tools else None,
            on_text=on_text,
            on_reasoning=lambda text: self.on_event(ReasoningDelta(text)),
            on_retry=lambda n, delay, why: self.on_event(Retrying(n, delay, why)),
            cancelled=self.stop,
        )
        tokens = completion.usage
        if tokens is not None:
            self.input_tokens += tokens.prompt_tokens
            self.output_tokens += tokens.completion_tokens
            self.context_tokens = tokens.prompt_tokens + tokens.completion_tokens
        else:
            self.context_tokens = window.estimated_tokens + len(writer.text) // 4
        return completion

    def _store_reply(self, completion: Completion, writer: ReplyWriter) -> str:
        """The final write of one reply (with the call's usage); returns its finish reason."""
        tokens = completion.usage
        finish = "cancelled" if completion.cancelled else (completion.finish_reason or "stop")
        message_id = writer.finish(
            finish_reason=finish,
            tool_calls=[call.as_json() for call in completion.tool_calls],
            reasoning=completion.reasoning,
            usage=usage_of(self.endpoint, tokens),
            token_count=tokens.completion_tokens if tokens else None,
        )
        if message_id is not None:
            self.stored.append(message_id)
            self.on_event(MessageStored(self.session_id, message_id, "assistant", finish))
        self.tool_calls += len(completion.tool_calls)
        return finish

    def _result(
        self, user_id: int, text: str, finish: str, window: PromptWindow, cancelled: bool
    ) -> TurnResult:
        usage = UsageReported(
            self.input_tokens, self.output_tokens, self.context_tokens, self.budget
        )
        self.on_event(usage)
        return TurnResult(
            self.session_id,
            user_id,
            tuple(self.stored),
            text,
            finish,
            cancelled=cancelled,
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            context_tokens=self.context_tokens,
            near_budget=usage.near_budget or window.omitted > 0,
            omitted=window.omitted,
            tool_calls=self.tool_calls,
        )

    def _run_tools(self, calls: list[ToolCall], exhausted: bool) -> bool:
        """Run (or record as not run) each call, storing each result; True if stopped."""
        interrupted = False
        for call in calls:
            if exhausted:
                outcome = ToolOutcome(ROUNDS_EXHAUSTED, ok=False)
            elif interrupted or self.stop():
                interrupted = True
                outcome = ToolOutcome(stopped_result(), ok=False)
            else:
                self.on_event(ToolCallStarted(call.id, call.name, call.arguments))
                try:
                    outcome = run_tool(self.store, call, self.session_id, self.stop)
                except Cancelled:
                    interrupted = True
                    outcome = ToolOutcome(stopped_result(), ok=False)
            message = NewMessage("tool", outcome.content, tool_call_id=call.id, tool_name=call.name)
            message_id = append_message(self.store, self.session_id, message)
            self.stored.append(message_id)
            self.on_event(MessageStored(self.session_id, message_id, "tool"))
            self.on_event(
                ToolCallFinished(call.id, call.name, outcome.content, outcome.ok, message_id)
            )
        return interrupted

    def _broken(self, error: ModelError, writer: ReplyWriter, user_id: int) -> TurnResult:
        """Keep whatever arrived (marked ``error``), then report for /retry."""
        if error.partial is not None and error.partial.text and not writer.text:
            writer.add(error.partial.text)
        try:
            message_id = writer.finish(finish_reason="error")
        except STORE_ERRORS:
            message_id = writer.message_id
        if message_id is not None:
            self.stored.append(message_id)
            self.on_event(MessageStored(self.session_id, message_id, "assistant", "error"))
        self.on_event(
            TurnError(
                error.kind, error.message, error.hint, error.retryable, user_message_stored=True
            )
        )
        result = TurnResult(
            self.session_id,
            user_id,
            tuple(self.stored),
            writer.text,
            "error",
            error=error,
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            tool_calls=self.tool_calls,
        )
        self.on_event(TurnDone(result))
        return result
