"""Reading an OpenAI-style streamed reply: SSE events in, one :class:`Completion` out.

Content, reasoning and tool calls arrive in pieces (a tool call's id and name first, its
JSON arguments in fragments, keyed by ``index``); usage comes in a final chunk with no
choices when ``stream_options.include_usage`` is set. :class:`Accumulator` reassembles all
of it and reports what is new so the caller can show text as it arrives.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

DONE = "[DONE]"


@dataclass(frozen=True, slots=True)
class ToolCall:
    id: str
    name: str
    arguments: str

    def as_json(self) -> dict[str, Any]:
        """The OpenAI shape Hermes stores in ``messages.tool_calls``."""
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }


@dataclass(frozen=True, slots=True)
class TokenUsage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0
    cost_usd: float | None = None

    @property
    def input_tokens(self) -> int:
        """Uncached prompt tokens: cache reads and writes are counted in their own columns."""
        return max(0, self.prompt_tokens - self.cache_read_tokens - self.cache_write_tokens)


@dataclass(frozen=True, slots=True)
class Completion:
    text: str = ""
    reasoning: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: str | None = None
    usage: TokenUsage | None = None
    model: str | None = None
    cancelled: bool = False


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def parse_usage(raw: Any) -> TokenUsage | None:
    if not isinstance(raw, dict):
        return None
    prompt_details = raw.get("prompt_tokens_details") or {}
    completion_details = raw.get("completion_tokens_details") or {}
    if not isinstance(prompt_details, dict):
        prompt_details = {}
    if not isinstance(completion_details, dict):
        completion_details = {}
    cost = raw.get("cost")
    return TokenUsage(
        prompt_tokens=_int(raw.get("prompt_tokens")),
        completion_tokens=_int(raw.get("completion_tokens")),
        cache_read_tokens=_int(prompt_details.get("cached_tokens")),
        cache_write_tokens=_int(prompt_details.get("cache_write_tokens")),
        reasoning_tokens=_int(completion_details.get("reasoning_tokens")),
        cost_usd=float(cost)
        if isinstance(cost, int | float) and not isinstance(cost, bool)
        else None,
    )


@dataclass
class _PendingCall:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


class StreamError(Exception):
    """The stream itself carried an error object (``{"error": {...}}``)."""

    def __init__(self, message: str, code: Any = None) -> None:
        self.code = code
        super().__init__(message)


class Accumulator:
    """Folds chunks into a reply; ``feed`` returns the (text, reasoning) that just arrived."""

    def __init__(self) -> None:
        self._text: list[str] = []
        self._reasoning: list[str] = []
        self._calls: dict[int, _PendingCall] = {}
        self.finish_reason: str | None = None
        self.usage: TokenUsage | None = None
        self.model: str | None = None
        self.received_output = False

    def feed(self, chunk: dict[str, Any]) -> tuple[str, str]:
        error = chunk.get("error")
        if error:
            message = error.get("message") if isinstance(error, dict) else str(error)
            code = error.get("code") if isinstance(error, dict) else None
            raise StreamError(str(message or "the model reported an error"), code)
        if isinstance(chunk.get("model"), str):
            self.model = chunk["model"]
        usage = parse_usage(chunk.get("usage"))
        if usage is not None:
            self.usage = usage
        text_parts: list[str] = []
        reasoning_parts: list[str] = []
        for choice in chunk.get("choices") or ():
            if not isinstance(choice, dict):
                continue
            delta = choice.get("delta") or choice.get("message") or {}
            if isinstance(delta, dict):
                content = delta.get("content")
                if isinstance(content, str) and content:
                    text_parts.append(content)
                thought = delta.get("reasoning") or delta.get("reasoning_content")
                if isinstance(thought, str) and thought:
                    reasoning_parts.append(thought)
                self._feed_calls(delta.get("tool_calls"))
            if choice.get("finish_reason"):
                self.finish_reason = str(choice["finish_reason"])
        text, reasoning = "".join(text_parts), "".join(reasoning_parts)
        self._text.append(text)
        self._reasoning.append(reasoning)
        if text or reasoning:
            self.received_output = True
        return text, reasoning

    def _feed_calls(self, deltas: Any) -> None:
        if not isinstance(deltas, list):
            return
        for delta in deltas:
            if not isinstance(delta, dict):
                continue
            self.received_output = True
            index = delta.get("index")
            if not isinstance(index, int):
                # Some servers omit the index: a new id opens a call, else it continues the last.
                known = [k for k, c in self._calls.items() if c.id and c.id == delta.get("id")]
                if known:
                    index = known[0]
                elif delta.get("id") or not self._calls:
                    index = max(self._calls, default=-1) + 1
                else:
                    index = max(self._calls)
            call = self._calls.setdefault(index, _PendingCall())
            if isinstance(delta.get("id"), str) and delta["id"]:
                call.id = delta["id"]
            function = delta.get("function") or {}
            if isinstance(function, dict):
                if isinstance(function.get("name"), str) and function["name"]:
                    call.name = function["name"]
                arguments = function.get("arguments")
                if isinstance(arguments, str):
                    call.arguments.append(arguments)
                elif isinstance(arguments, dict):
                    call.arguments.append(json.dumps(arguments))

    def completion(self, *, cancelled: bool = False) -> Completion:
        calls: list[ToolCall] = []
        if not cancelled:  # half a tool call is no call at all
            for number, (_, call) in enumerate(sorted(self._calls.items())):
                if call.name:
                    calls.append(
                        ToolCall(
                            call.id or f"call_{number}", call.name, "".join(call.arguments) or "{}"
                        )
                    )
        return Completion(
            text="".join(self._text),
            reasoning="".join(self._reasoning),
            tool_calls=tuple(calls),
            finish_reason=self.finish_reason,
            usage=self.usage,
            model=self.model,
            cancelled=cancelled,
        )


def iter_events(lines: Iterator[str]) -> Iterator[str]:
    """The ``data`` payloads of an SSE stream (multi-line data joined, comments skipped)."""
    data: list[str] = []
    for raw in lines:
        line = raw.rstrip("\r\n")
        if not line:
            if data:
                yield "\n".join(data)
                data = []
            continue
        if line.startswith(":"):
            continue  # a keep-alive comment, e.g. OpenRouter's ": OPENROUTER PROCESSING"
        name, _, value = line.partition(":")
        if name == "data":
            data.append(value[1:] if value.startswith(" ") else value)
    if data:
        yield "\n".join(data)
