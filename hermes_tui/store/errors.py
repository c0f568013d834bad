"""Typed errors of the store layer.

Every error about the database file names the path and says what to do next, in one
line, so the CLI can print ``str(err)`` and the TUI can show it on its error screen.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path


class StoreError(Exception):
    """A problem with the session store file itself."""

    kind = "error"

    def __init__(self, message: str, path: Path | None = None, hint: str = "") -> None:
        self.message = message
        self.path = path
        self.hint = hint
        super().__init__(self.one_line())

    def one_line(self) -> str:
        text = self.message
        if self.path is not None:
            text += f": {self.path}"
        if self.hint:
            text += f" — {self.hint}"
        return text


class StoreMissing(StoreError):
    kind = "missing"


class StoreEmpty(StoreError):
    kind = "empty"


class StoreCorrupt(StoreError):
    kind = "corrupt"


class StoreUnreadable(StoreError):
    kind = "unreadable"


class StoreLocked(StoreError):
    kind = "locked"


class StoreReadOnly(StoreError):
    """A write was attempted on a store opened read-only (newer schema, or no permission)."""

    kind = "read-only"


class NotAHermesStore(StoreError):
    kind = "foreign"


class NoSearchIndex(StoreError):
    kind = "no-fts"


class SessionNotFound(LookupError):
    def __init__(self, reference: str) -> None:
        self.reference = reference
        super().__init__(f"Session '{reference}' not found.")


class AmbiguousReference(LookupError):
    def __init__(self, reference: str, candidates: Sequence[str]) -> None:
        self.reference = reference
        self.candidates = tuple(candidates)
        shown = ", ".join(self.candidates[:8])
        more = f" and {len(self.candidates) - 8} more" if len(self.candidates) > 8 else ""
        super().__init__(
            f"'{reference}' matches {len(self.candidates)} sessions: {shown}{more}. "
            "Give more of the id."
        )


class TitleError(ValueError):
    """A title the rules refuse (too long, or held by another session)."""


class TitleTooLong(TitleError):
    def __init__(self, length: int, limit: int) -> None:
        self.length = length
        super().__init__(f"Title too long ({length} chars, max {limit})")


class TitleInUse(TitleError):
    def __init__(self, title: str, holder: str) -> None:
        self.title = title
        self.holder = holder
        super().__init__(f"Title '{title}' is already in use by session {holder}")


class SessionIsOpen(ValueError):
    """Refusal to delete a session that is still open (a running Hermes would recreate it)."""

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        super().__init__(
            f"Session '{session_id}' is still open (a running Hermes may be using it); "
            "end it before deleting"
        )
