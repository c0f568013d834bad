"""An OpenAI-compatible chat-completions client over plain HTTP (standard library only).

One call streams one reply (SSE, ``stream_options.include_usage``). Transient failures —
connection refused or reset, 408/429/5xx, a stream that ends before saying anything — are
retried with jittered backoff, but only while nothing has arrived: once a token was
received the request is never sent again, and the error carries what arrived. Timeouts:
``connect_timeout`` to open the connection, ``idle_timeout`` for every wait for bytes.
Cancellation: a watchdog polls ``cancelled()`` and shuts the socket down, so a stop is
immediate even while blocked in a read; the reply so far comes back with ``cancelled=True``.
"""

from __future__ import annotations

import http.client
import json
import random
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any
from urllib.parse import urlsplit

from .endpoint import Endpoint
from .errors import (
    BadResponse,
    ConnectionDropped,
    KeyRefused,
    ModelError,
    ModelTimeout,
    ServiceUnavailable,
)
from .sse import DONE, Accumulator, Completion, StreamError, iter_events

MAX_LINE = 1 << 20
MAX_ERROR_BODY = 64 * 1024
MAX_RETRY_AFTER = 20.0
USER_AGENT = "hermes-tui/0.1"

TextCallback = Callable[[str], None]
RetryCallback = Callable[[int, float, str], None]


class _Transient(Exception):
    """A failure before any output: safe to send the same request again."""

    def __init__(self, error: ModelError, retry_after: float | None = None) -> None:
        self.error = error
        self.retry_after = retry_after
        super().__init__(error.one_line())


class _Watchdog:
    """Shuts the socket down as soon as ``cancelled()`` turns true (unblocks any read)."""

    def __init__(self, sock: socket.socket, cancelled: Callable[[], bool] | None) -> None:
        self.fired = False
        self._sock = sock
        self._cancelled = cancelled
        self._stop = threading.Event()

    def __enter__(self) -> _Watchdog:
        if self._cancelled is not None:
            threading.Thread(target=self._run, name="model-cancel-watch", daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()

    def _run(self) -> None:
        assert self._cancelled is not None
        while not self._stop.wait(0.05):
            if self._cancelled():
                self.fired = True
                try:
                    self._sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                return


def _error_message(body: bytes) -> str:
    text = body.decode("utf-8", "replace").strip()
    try:
        data = json.loads(text)
    except ValueError:
        return text[:300]
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict) and error.get("message"):
        return str(error["message"])[:300]
    if isinstance(error, str):
        return error[:300]
    return text[:300]


def _retry_after(value: str | None) -> float | None:
    try:
        return min(MAX_RETRY_AFTER, max(0.0, float(value))) if value else None
    except ValueError:
        return None  # an HTTP date: fall back to our own backoff


class ChatClient:
    def __init__(
        self,
        endpoint: Endpoint,
        *,
        rng: Callable[[], float] = random.random,
        backoff_base: float = 0.5,
    ) -> None:
        self.endpoint = endpoint
        self._rng = rng
        self._backoff_base = backoff_base
        parts = urlsplit(endpoint.base_url)
        self._host = parts.hostname or ""
        self._https = parts.scheme == "https"
        self._port = parts.port or (443 if self._https else 80)
        self._path = (parts.path.rstrip("/") or "") + "/chat/completions"

    # -- the call --------------------------------------------------------------------

    def stream(
        self,
        messages: Sequence[dict[str, Any]],
        *,
        tools: Sequence[dict[str, Any]] | None = None,
        max_tokens: int | None = None,
        on_text: TextCallback | None = None,
        on_reasoning: TextCallback | None = None,
        on_retry: RetryCallback | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> Completion:
        """Send *messages* and stream the reply. Raises a :class:`ModelError` subclass."""
        payload: dict[str, Any] = {
            "model": self.endpoint.model,
            "messages": list(messages),
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if tools:
            payload["tools"] = list(tools)
        if max_tokens:
            payload["max_tokens"] = max_tokens
        if self.endpoint.provider == "openrouter":
            payload["usage"] = {"include": True}  # OpenRouter then reports the cost
        body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        attempt = 0
        while True:
            if cancelled is not None and cancelled():
                return Completion(cancelled=True)
            try:
                return self._attempt(body, on_text, on_reasoning, cancelled)
            except _Transient as transient:
                if attempt >= self.endpoint.max_retries:
                    raise transient.error from None
                delay = transient.retry_after
                if delay is None:
                    delay = min(8.0, self._backoff_base * 2**attempt) * (0.5 + self._rng())
                attempt += 1
                if on_retry is not None:
                    on_retry(attempt, delay, transient.error.message)
                if self._wait(delay, cancelled):
                    return Completion(cancelled=True)

    @staticmethod
    def _wait(delay: float, cancelled: Callable[[], bool] | None) -> bool:
        """Sleep *delay* seconds; True if cancelled meanwhile."""
        deadline = time.monotonic() + delay
        while (left := deadline - time.monotonic()) > 0:
            if cancelled is not None and cancelled():
                return True
            time.sleep(min(0.05, left))
        return cancelled is not None and cancelled()

    # -- one attempt -------------------------------------------------------------------

    def _connect(self) -> socket.socket:
        where = f"{self._host}:{self._port}"
        try:
            sock = socket.create_connection(
                (self._host, self._port), timeout=self.endpoint.connect_timeout
            )
            if self._https:
                context = ssl.create_default_context()
                sock = context.wrap_socket(sock, server_hostname=self._host)
        except TimeoutError:
            raise _Transient(
                ModelTimeout(
                    f"No connection to {where} within {self.endpoint.connect_timeout:g} s",
                    "is the model server reachable? check model.base_url",
                )
            ) from None
        except ssl.SSLError as exc:
            raise ConnectionDropped(
                f"TLS with {where} failed ({exc.reason or exc})", "check model.base_url"
            ) from None
        except OSError as exc:
            reason = exc.strerror or str(exc)
            raise _Transient(
                ConnectionDropped(
                    f"Cannot connect to {where} ({reason})",
                    "is the model server running? check model.base_url",
                )
            ) from None
        sock.settimeout(self.endpoint.idle_timeout)
        return sock

    def _headers(self) -> dict[str, str]:
        headers = {
            "Content-Type": "application/json",
            "Accept": "text/event-stream",
            "User-Agent": USER_AGENT,
        }
        if self.endpoint.api_key:
            headers["Authorization"] = f"Bearer {self.endpoint.api_key}"
        if self.endpoint.provider == "openrouter":
            headers["X-Title"] = "hermes-tui"
        return headers

    def _attempt(
        self,
        body: bytes,
        on_text: TextCallback | None,
        on_reasoning: TextCallback | None,
        cancelled: Callable[[], bool] | None,
    ) -> Completion:
        acc = Accumulator()
        sock = self._connect()
        conn = http.client.HTTPConnection(self._host, self._port)
        conn.sock = sock
        try:
            with _Watchdog(sock, cancelled) as watch:
                try:
                    conn.request("POST", self._path, body, self._headers())
                    response = conn.getresponse()
                    if response.status >= 400:
                        raise self._status_error(response)
                    kind = (response.getheader("Content-Type") or "").lower()
                    if "json" in kind and "event-stream" not in kind:
                        return self._whole(response, acc, on_text)
                    done = self._read_stream(response, acc, on_text, on_reasoning, cancelled)
                except TimeoutError:
                    if watch.fired:
                        return acc.completion(cancelled=True)
                    raise ModelTimeout(
                        f"No reply from {self._host} for {self.endpoint.idle_timeout:g} s",
                        "the model may be overloaded; /retry, or raise model.timeout",
                        partial=acc.completion() if acc.received_output else None,
                    ) from None
                except (OSError, http.client.HTTPException) as exc:
                    if watch.fired:
                        return acc.completion(cancelled=True)
                    raise self._dropped(acc, str(exc) or type(exc).__name__) from None
                if watch.fired or (cancelled is not None and cancelled()):
                    return acc.completion(cancelled=True)
                if not done and acc.finish_reason is None:
                    raise self._dropped(acc, "the stream ended before the reply was complete")
                return acc.completion()
        finally:
            conn.close()

    def _dropped(self, acc: Accumulator, why: str) -> Exception:
        error = ConnectionDropped(
            f"The connection to {self._host} dropped ({why})",
            "what arrived is kept; /retry to ask again",
            partial=acc.completion() if acc.received_output else None,
        )
        return error if acc.received_output else _Transient(error)

    def _read_stream(
        self,
        response: http.client.HTTPResponse,
        acc: Accumulator,
        on_text: TextCallback | None,
        on_reasoning: TextCallback | None,
        cancelled: Callable[[], bool] | None,
    ) -> bool:
        """Feed every event to *acc*; True when the server said ``[DONE]``."""
        for data in iter_events(self._lines(response)):
            if data.strip() == DONE:
                return True
            try:
                chunk = json.loads(data)
            except ValueError:
                raise BadResponse(
                    f"{self._host} sent a stream event that is not JSON: {data[:120]!r}",
                    partial=acc.completion() if acc.received_output else None,
                ) from None
            if not isinstance(chunk, dict):
                continue
            try:
                text, thought = acc.feed(chunk)
            except StreamError as exc:
                error = ServiceUnavailable(
                    f"The model reported an error mid-stream: {exc}",
                    "/retry to ask again",
                    partial=acc.completion() if acc.received_output else None,
                )
                if acc.received_output:
                    raise error from None
                raise _Transient(error) from None
            if text and on_text is not None:
                on_text(text)
            if thought and on_reasoning is not None:
                on_reasoning(thought)
            if cancelled is not None and cancelled():
                return False
        return False

    @staticmethod
    def _lines(response: http.client.HTTPResponse) -> Iterator[str]:
        while True:
            line = response.readline(MAX_LINE)
            if not line:
                return
            if len(line) >= MAX_LINE and not line.endswith(b"\n"):
                raise BadResponse("The model sent a stream line longer than 1 MB")
            yield line.decode("utf-8", "replace")

    def _whole(
        self, response: http.client.HTTPResponse, acc: Accumulator, on_text: TextCallback | None
    ) -> Completion:
        """A server that ignored ``stream: true`` and sent one JSON document."""
        try:
            data = json.loads(response.read().decode("utf-8", "replace"))
        except ValueError:
            raise BadResponse(f"{self._host} sent a reply that is not JSON") from None
        if not isinstance(data, dict):
            raise BadResponse(f"{self._host} sent an unexpected reply")
        try:
            text, _ = acc.feed(data)
        except StreamError as exc:
            raise BadResponse(f"The model reported an error: {exc}") from None
        if text and on_text is not None:
            on_text(text)
        return acc.completion()

    def _status_error(self, response: http.client.HTTPResponse) -> Exception:
        status = response.status
        try:
            message = _error_message(response.read(MAX_ERROR_BODY))
        except (OSError, http.client.HTTPException):
            message = response.reason or ""
        said = f"{self._host} answered {status}" + (f": {message}" if message else "")
        if status in (401, 403):
            where = self.endpoint.key_source
            hint = (
                f"check the key in {where}"
                if where
                else "this endpoint needs an API key: set model.api_key or OPENAI_API_KEY"
            )
            return KeyRefused(f"The API key was refused ({said})", hint)
        if status in (408, 425, 429) or status >= 500:
            error = ServiceUnavailable(said, "the service is busy or failing; /retry later")
            return _Transient(error, _retry_after(response.getheader("Retry-After")))
        if status == 404:
            return BadResponse(said, "check model.base_url and model.default")
        if status in (400, 413) and any(w in message.lower() for w in ("context", "too long")):
            return BadResponse(said, "the conversation is too long for the model: /compress")
        return BadResponse(said)
