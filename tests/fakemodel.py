"""A fake OpenAI-compatible model server on 127.0.0.1, for the tests and for trying the app.

Tests push scripted replies (:func:`text`, :func:`tool_call`, :func:`status`, :func:`drop`,
:func:`stall`) and read back the requests it received. With nothing scripted it behaves
like a small model: it echoes what you say word by word, calls ``session_search`` when you
refer to an earlier conversation ("last time", "before", "remember", ...), answers from
the tool's result, and writes titles and summaries when asked.

    python -m tests.fakemodel --port 8765        # then, in $HERMES_HOME/config.yaml:
    model: {default: fake/hermes-test, base_url: "http://127.0.0.1:8765/v1"}
"""

from __future__ import annotations

import argparse
import json
import re
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

RECALL = re.compile(
    r"\b(last time|before|earlier|remember|previous(ly)?|we did|as i said|the other day)\b",
    re.IGNORECASE,
)
STOP_WORDS = frozenset(
    "what when where which about that this with from have were your there their would could "
    "should remember earlier before last time previous previously again tell told said did "
    "does the and for you our was".split()
)


@dataclass
class Reply:
    kind: str = "text"  # text | tool | status | drop | stall
    chunks: list[str] = field(default_factory=list)
    delay: float = 0.0
    calls: list[tuple[str, str]] = field(default_factory=list)
    pieces: int = 3
    status: int = 200
    body: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    usage: dict[str, Any] | None = None
    seconds: float = 0.0


def text(*chunks: str, delay: float = 0.0, usage: dict[str, Any] | None = None) -> Reply:
    return Reply("text", list(chunks), delay=delay, usage=usage)


def tool_call(
    name: str,
    arguments: dict[str, Any],
    *more: tuple[str, dict],
    pieces: int = 3,
    usage: dict[str, Any] | None = None,
) -> Reply:
    calls = [(name, json.dumps(arguments))] + [(n, json.dumps(a)) for n, a in more]
    return Reply("tool", calls=calls, pieces=pieces, usage=usage)


def status(code: int, message: str = "error", **headers: str) -> Reply:
    body = json.dumps({"error": {"message": message, "code": code}})
    return Reply("status", status=code, body=body, headers=headers)


def drop(*chunks: str, delay: float = 0.0) -> Reply:
    """Stream *chunks*, then cut the connection without finishing."""
    return Reply("drop", list(chunks), delay=delay)


def stall(seconds: float) -> Reply:
    """Send the headers, then nothing for *seconds*."""
    return Reply("stall", seconds=seconds)


def _last_user_text(messages: list[dict[str, Any]]) -> str:
    for message in reversed(messages):
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, list):
                return " ".join(p.get("text", "") for p in content if isinstance(p, dict))
            return str(content or "")
    return ""


def _keywords(sentence: str) -> str:
    words = [w for w in re.findall(r"[\w-]{4,}", sentence.lower()) if w not in STOP_WORDS]
    return " OR ".join(words[:3])  # any of them: a small model's generous recall


def _answer_from_tool(result: str) -> str:
    try:
        data = json.loads(result)
    except ValueError:
        return "The search tool sent something I could not read."
    found = data.get("results") or []
    if not found:
        return "I searched our earlier conversations but found nothing about that."
    lines = [f"I found {len(found)} earlier conversation(s):"]
    for hit in found:
        title = hit.get("title") or hit.get("session_id")
        lines.append(f"- {title} ({hit.get('when') or hit.get('last_active') or '?'})")
    return "\n".join(lines)


class FakeModel:
    """The server; use as a context manager. ``url`` is the ``model.base_url`` to configure."""

    def __init__(self, port: int = 0, word_delay: float = 0.0) -> None:
        self.script: deque[Reply] = deque()
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.word_delay = word_delay
        self.lock = threading.Lock()
        handler = type("Handler", (_Handler,), {"model": self})
        self.server = ThreadingHTTPServer(("127.0.0.1", port), handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> FakeModel:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def push(self, *replies: Reply) -> None:
        with self.lock:
            self.script.extend(replies)

    def next_reply(self, request: dict[str, Any]) -> Reply:
        with self.lock:
            self.requests.append(request)
            if self.script:
                return self.script.popleft()
        return self.improvise(request)

    def improvise(self, request: dict[str, Any]) -> Reply:
        messages = request.get("messages") or []
        last = messages[-1] if messages else {}
        said = _last_user_text(messages)
        if "title of 3 to 7 words" in said:
            first = said.split("First message:", 1)[-1].strip().splitlines()[0:1]
            words = (first[0] if first else "Untitled chat").split()[:5]
            title = " ".join(words).strip(" .?!,")
            return text(title[:1].upper() + title[1:] if title else "Untitled chat")
        if "Summarise the conversation" in said:
            return text("Summary: the user and the assistant talked; ", "nothing is pending.")
        if last.get("role") == "tool":
            return self._words(_answer_from_tool(str(last.get("content") or "")))
        if request.get("tools") and RECALL.search(said):
            return tool_call("session_search", {"query": _keywords(said) or said[:40]})
        reply = f"You said: {said.strip()[:400]}. (This is the hermes_tui test model.)"
        return self._words(reply)

    def _words(self, sentence: str) -> Reply:
        pieces = re.findall(r"\S+\s*", sentence) or [sentence]
        return text(*pieces, delay=self.word_delay)


class _Handler(BaseHTTPRequestHandler):
    model: FakeModel
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        try:
            request = json.loads(raw)
        except ValueError:
            self._plain(400, json.dumps({"error": {"message": "body is not JSON"}}))
            return
        self.model.headers.append(dict(self.headers.items()))
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._plain(404, json.dumps({"error": {"message": f"no route {self.path}"}}))
            return
        reply = self.model.next_reply(request)
        try:
            self._serve(reply, request)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client hung up (a cancel): stop writing
        self.close_connection = True

    def _plain(self, code: int, body: str, headers: dict[str, str] | None = None) -> None:
        data = body.encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key.replace("_", "-"), value)
        self.end_headers()
        self.wfile.write(data)

    def _event(self, payload: Any) -> None:
        data = f"data: {payload if isinstance(payload, str) else json.dumps(payload)}\n\n"
        encoded = data.encode()
        self.wfile.write(f"{len(encoded):x}\r\n".encode() + encoded + b"\r\n")
        self.wfile.flush()

    def _chunk(self, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "model": "fake/hermes-test",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    def _serve(self, reply: Reply, request: dict[str, Any]) -> None:
        if reply.kind == "status":
            self._plain(reply.status, reply.body, reply.headers)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.wfile.flush()
        if reply.kind == "stall":
            time.sleep(reply.seconds)
            return
        self._event(self._chunk({"role": "assistant"}))
        produced = ""
        for piece in reply.chunks:
            if reply.delay:
                time.sleep(reply.delay)
            self._event(self._chunk({"content": piece}))
            produced += piece
        if reply.kind == "drop":
            self.connection.shutdown(2)
            return
        for index, (name, arguments) in enumerate(reply.calls):
            call_id = f"call_{index}_{len(self.model.requests)}"
            head = {"index": index, "id": call_id, "type": "function"}
            self._event(self._chunk({"tool_calls": [{**head, "function": {"name": name}}]}))
            step = max(1, -(-len(arguments) // reply.pieces))
            for start in range(0, len(arguments), step):
                part = {"index": index, "function": {"arguments": arguments[start : start + step]}}
                self._event(self._chunk({"tool_calls": [part]}))
            produced += arguments
        self._event(self._chunk({}, "tool_calls" if reply.calls else "stop"))
        if (request.get("stream_options") or {}).get("include_usage"):
            usage = reply.usage or {
                "prompt_tokens": len(json.dumps(request.get("messages"))) // 4,
                "completion_tokens": len(produced) // 4 + 1,
            }
            self._event({"id": "chatcmpl-fake", "choices": [], "usage": usage})
        self._event("[DONE]")
        self.wfile.write(b"0\r\n\r\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--delay", type=float, default=0.05, help="seconds between words")
    args = parser.parse_args()
    with FakeModel(args.port, word_delay=args.delay) as model:
        print(f"fake model listening on {model.url}")
        print(f'config.yaml:  model: {{default: fake/hermes-test, base_url: "{model.url}"}}')
        try:
            model.thread.join()
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
