"""The HTTP client against a real local server: streaming, tool calls, errors, retries, cancel."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from hermes_tui.chat.client import ChatClient
from hermes_tui.chat.endpoint import Endpoint
from hermes_tui.chat.errors import (
    BadResponse,
    ConnectionDropped,
    KeyRefused,
    ModelTimeout,
    ServiceUnavailable,
)
from hermes_tui.chat.sse import Accumulator, iter_events

from ..fakemodel import FakeModel, drop, stall, status, text, tool_call

USER = [{"role": "user", "content": "hello"}]


def client_for(fake: FakeModel, **options: object) -> ChatClient:
    settings: dict = {"model": "fake/m", "base_url": fake.url, "max_retries": 2, "idle_timeout": 5}
    settings.update(options)
    return ChatClient(Endpoint(**settings), backoff_base=0.01)


def test_streams_text_and_usage_and_sends_the_openai_request(fake: FakeModel) -> None:
    fake.push(text("Hel", "lo ", "there", usage={"prompt_tokens": 12, "completion_tokens": 3}))
    pieces: list[str] = []
    client = client_for(fake, api_key="sk-local")
    reply = client.stream(USER, on_text=pieces.append)
    assert pieces == ["Hel", "lo ", "there"]
    assert reply.text == "Hello there"
    assert reply.finish_reason == "stop"
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (12, 3)
    request = fake.requests[0]
    assert request["stream"] is True
    assert request["stream_options"] == {"include_usage": True}
    assert request["model"] == "fake/m"
    assert request["messages"] == USER
    assert fake.headers[0]["Authorization"] == "Bearer sk-local"


def test_no_key_means_no_authorization_header(fake: FakeModel) -> None:
    client_for(fake).stream(USER)
    assert "Authorization" not in fake.headers[0]


def test_tool_calls_arrive_in_pieces_and_are_reassembled(fake: FakeModel) -> None:
    fake.push(
        tool_call(
            "session_search",
            {"query": "docker deploy", "limit": 5},
            ("session_search", {"session_id": "x", "around_message_id": 7}),
            pieces=7,
        )
    )
    reply = client_for(fake).stream(USER, tools=[{"type": "function"}])
    assert reply.finish_reason == "tool_calls"
    assert [c.name for c in reply.tool_calls] == ["session_search", "session_search"]
    assert reply.tool_calls[0].arguments == '{"query": "docker deploy", "limit": 5}'
    assert reply.tool_calls[1].arguments == '{"session_id": "x", "around_message_id": 7}'
    assert reply.tool_calls[0].id != reply.tool_calls[1].id
    assert fake.requests[0]["tools"] == [{"type": "function"}]


def test_transient_status_is_retried_before_any_token(fake: FakeModel) -> None:
    fake.push(status(503, "overloaded"), status(429, "slow down"), text("fine"))
    retries: list[tuple] = []
    reply = client_for(fake).stream(USER, on_retry=lambda *a: retries.append(a))
    assert reply.text == "fine"
    assert len(fake.requests) == 3
    assert [r[0] for r in retries] == [1, 2]
    assert "503" in retries[0][2]


def test_retry_after_is_honoured(fake: FakeModel) -> None:
    fake.push(status(429, "slow down", Retry_After="0.2"), text("ok"))
    delays: list[float] = []
    started = time.monotonic()
    client_for(fake).stream(USER, on_retry=lambda n, delay, why: delays.append(delay))
    assert delays == [0.2]
    assert time.monotonic() - started >= 0.2


def test_retries_give_up_with_a_clear_error(fake: FakeModel) -> None:
    fake.push(*[status(502, "bad gateway")] * 3)
    with pytest.raises(ServiceUnavailable, match="502: bad gateway"):
        client_for(fake).stream(USER)
    assert len(fake.requests) == 3  # the first try and max_retries=2


def test_refused_key_is_not_retried(fake: FakeModel) -> None:
    fake.push(status(401, "invalid api key"))
    client = client_for(fake, api_key="sk-bad", key_source="OPENROUTER_API_KEY")
    with pytest.raises(KeyRefused) as caught:
        client.stream(USER)
    assert "invalid api key" in caught.value.message
    assert "OPENROUTER_API_KEY" in caught.value.hint
    assert not caught.value.retryable
    assert len(fake.requests) == 1


def test_context_too_long_suggests_compress(fake: FakeModel) -> None:
    fake.push(status(400, "This model's maximum context length is 8192 tokens"))
    with pytest.raises(BadResponse) as caught:
        client_for(fake).stream(USER)
    assert "/compress" in caught.value.hint
    assert len(fake.requests) == 1


def test_a_drop_after_tokens_is_never_resent_and_keeps_what_arrived(fake: FakeModel) -> None:
    fake.push(drop("Half ", "an ", "answer"), text("must not be requested"))
    pieces: list[str] = []
    with pytest.raises(ConnectionDropped) as caught:
        client_for(fake).stream(USER, on_text=pieces.append)
    assert caught.value.partial is not None
    assert caught.value.partial.text == "Half an answer" == "".join(pieces)
    assert len(fake.requests) == 1


def test_a_drop_before_any_token_is_retried(fake: FakeModel) -> None:
    fake.push(drop(), text("second try"))
    reply = client_for(fake).stream(USER)
    assert reply.text == "second try"
    assert len(fake.requests) == 2


def test_silence_is_a_timeout_and_not_retried(fake: FakeModel) -> None:
    fake.push(stall(3), text("too late"))
    started = time.monotonic()
    with pytest.raises(ModelTimeout):
        client_for(fake, idle_timeout=0.3).stream(USER)
    assert time.monotonic() - started < 2
    assert len(fake.requests) == 1


def test_cancel_closes_the_stream_promptly_and_keeps_the_partial_reply(fake: FakeModel) -> None:
    fake.push(text(*[f"w{i} " for i in range(100)], delay=0.05))
    stop = threading.Event()
    pieces: list[str] = []

    def on_text(piece: str) -> None:
        pieces.append(piece)
        if len(pieces) == 5:
            stop.set()

    started = time.monotonic()
    reply = client_for(fake).stream(USER, on_text=on_text, cancelled=stop.is_set)
    assert time.monotonic() - started < 1.5  # the whole stream would take 5 s
    assert reply.cancelled
    assert reply.text == "".join(pieces)
    assert reply.text.startswith("w0 w1 w2 w3 w4")


def test_cancel_while_waiting_for_the_first_byte(fake: FakeModel) -> None:
    fake.push(stall(5))
    stop = threading.Event()
    threading.Timer(0.2, stop.set).start()
    started = time.monotonic()
    reply = client_for(fake).stream(USER, cancelled=stop.is_set)
    assert reply.cancelled and reply.text == ""
    assert time.monotonic() - started < 1.5


def test_connection_refused_is_retried_then_reported() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = ChatClient(
        Endpoint(model="m", base_url=f"http://127.0.0.1:{port}/v1", max_retries=1),
        backoff_base=0.01,
    )
    attempts: list[int] = []
    with pytest.raises(ConnectionDropped, match="Cannot connect"):
        client.stream(USER, on_retry=lambda n, d, w: attempts.append(n))
    assert attempts == [1]


def test_accumulator_handles_calls_without_index() -> None:
    acc = Accumulator()
    first = {"id": "a", "function": {"name": "f", "arguments": '{"q":'}}
    acc.feed({"choices": [{"delta": {"tool_calls": [first]}}]})
    acc.feed({"choices": [{"delta": {"tool_calls": [{"function": {"arguments": '"x"}'}}]}}]})
    acc.feed({"choices": [{"delta": {"tool_calls": [{"id": "b", "function": {"name": "g"}}]}}]})
    acc.feed({"choices": [{"delta": {}, "finish_reason": "tool_calls"}]})
    reply = acc.completion()
    assert [(c.id, c.name, c.arguments) for c in reply.tool_calls] == [
        ("a", "f", '{"q":"x"}'),
        ("b", "g", "{}"),
    ]


def test_a_cancelled_reply_drops_half_a_tool_call() -> None:
    acc = Accumulator()
    acc.feed({"choices": [{"delta": {"content": "Let me look", "tool_calls": [{"index": 0}]}}]})
    reply = acc.completion(cancelled=True)
    assert reply.text == "Let me look" and reply.tool_calls == ()


def test_sse_comments_and_blank_lines_are_skipped() -> None:
    lines = [": OPENROUTER PROCESSING\n", "\n", "data: {}\n", "\n", "data: [DONE]\n", "\n"]
    assert list(iter_events(iter(lines))) == ["{}", "[DONE]"]


def test_multi_line_data_is_joined() -> None:
    assert list(iter_events(iter(["data: a\n", "data: b\n", "\n"]))) == ["a\nb"]


def test_a_server_that_ignores_streaming_still_works() -> None:
    import json
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Plain(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            body = json.dumps(
                {
                    "choices": [{"message": {"content": "whole"}, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 2, "completion_tokens": 1},
                }
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Plain)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        pieces: list[str] = []
        reply = ChatClient(Endpoint(model="m", base_url=url)).stream(USER, on_text=pieces.append)
    finally:
        server.shutdown()
        server.server_close()
    assert reply.text == "whole" and pieces == ["whole"]
    assert reply.usage is not None and reply.usage.prompt_tokens == 2
