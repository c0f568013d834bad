"""Text rules shared by titles, previews and recaps: what a "real" user message is.

Hermes injects context into user turns (workspace blocks, system notes, compaction
summaries) and users type slash commands; neither makes a good title or preview.
"""

from __future__ import annotations

import re

_INJECTED_BLOCK = re.compile(
    r"<(workspace_context|system-reminder|system_reminder|context|environment_details|"
    r"user_context|memory_context)\b[^>]*>.*?</\1>",
    re.DOTALL | re.IGNORECASE,
)
_INJECTED_PREFIXES = (
    "[system:",
    "[context compaction",
    "[context summary",
    "<workspace_context",
    "<system-reminder",
    "review the conversation above and",
    "[handoff",
)
_WS = re.compile(r"\s+")


def strip_injected(text: str) -> str:
    """Remove injected context blocks; what remains is what the user typed."""
    return _INJECTED_BLOCK.sub(" ", text).strip()


def is_injected(text: str) -> bool:
    head = text.lstrip()[:40].lower()
    return any(head.startswith(prefix) for prefix in _INJECTED_PREFIXES)


def is_slash_command(text: str) -> bool:
    stripped = text.strip()
    return bool(re.match(r"^/[A-Za-z][\w-]*(\s|$)", stripped))


def real_user_text(content: str | None) -> str | None:
    """The user-typed part of a user message, or None if it is injected or a command."""
    if not content:
        return None
    text = strip_injected(content)
    if not text or is_injected(text) or is_slash_command(text):
        return None
    return text


def one_line(text: str) -> str:
    return _WS.sub(" ", text).strip()


def preview(text: str, limit: int = 60) -> str:
    """Hermes' preview: one line, ``limit`` characters then ``...``."""
    flat = one_line(text)
    return flat if len(flat) <= limit else flat[:limit] + "..."
