"""Typed errors of talking to a model: each says what happened and what to do, in one line.

``retryable`` tells the UI whether offering ``/retry`` makes sense. ``partial`` carries what
had already arrived when a stream broke, so nothing received is ever dropped.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .sse import Completion


class ModelError(Exception):
    """A model call that did not produce a complete reply."""

    kind = "error"
    retryable = True

    def __init__(self, message: str, hint: str = "", *, partial: Completion | None = None) -> None:
        self.message = message
        self.hint = hint
        self.partial = partial
        super().__init__(self.one_line())

    def one_line(self) -> str:
        return f"{self.message} — {self.hint}" if self.hint else self.message


class NotConfigured(ModelError):
    """No model, no endpoint or no key: nothing was sent."""

    kind = "not-configured"
    retryable = False


class KeyRefused(ModelError):
    """The endpoint answered 401/403."""

    kind = "key-refused"
    retryable = False


class ModelTimeout(ModelError):
    """No byte for longer than ``model.timeout`` (or no connection within the connect timeout)."""

    kind = "timeout"


class ConnectionDropped(ModelError):
    """The connection failed or closed before the reply was complete."""

    kind = "dropped"


class ServiceUnavailable(ModelError):
    """429 or 5xx after every retry."""

    kind = "unavailable"


class BadResponse(ModelError):
    """Anything else the endpoint said no to, or a reply we could not read."""

    kind = "bad-response"
    retryable = False
