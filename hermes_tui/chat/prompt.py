"""The system prompt: the configured (or default) instructions, the user's standing notes,
and Hermes' guidance on when to look up earlier conversations.

Notes are ``$HERMES_HOME/memories/MEMORY.md`` (the agent's notes) and ``USER.md`` (about
the user), read when a conversation starts (and again on ``/new``). The prompt used is
snapshotted into the session row's ``system_prompt`` column.
"""

from __future__ import annotations

import time
from pathlib import Path

from ..paths import memories_dir

MEMORY_FILES = (("MEMORY.md", "your notes"), ("USER.md", "about the user"))
MAX_NOTE_CHARS = 8_000

DEFAULT_PROMPT = (
    "You are Hermes, a helpful assistant talking with the user in their terminal. Answer "
    "clearly and concisely; use Markdown where it helps (code in fenced blocks). If you do "
    "not know something, say so."
)

SEARCH_GUIDANCE = (
    "You have the session_search tool over the user's earlier conversations with you "
    "(full-text search; nothing is summarised or cut). When the user refers to something "
    'from a past conversation ("we did this before", "last time", "remember when", "as I '
    'said", or any project, person or concept that is not in this conversation), or you '
    "suspect relevant earlier context exists, use session_search to recall it before "
    'asking the user to repeat themselves. Call it with query= (keywords, "exact '
    'phrase", OR, NOT, prefix*) to discover; with session_id + around_message_id to scroll '
    "around a hit; with no arguments to list recent conversations when the user asks what "
    "they worked on. Use sort='newest' for \"where did we leave X\" and sort='oldest' for "
    '"how did X start". The current conversation is never in the results: it is already '
    "in front of you."
)


def read_note(path: Path) -> str | None:
    """A memory file's text, cut to a sane size; None when absent, empty or unreadable."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    if not text:
        return None
    if len(text) > MAX_NOTE_CHARS:
        text = text[:MAX_NOTE_CHARS].rstrip() + f"\n[… {path.name} continues; cut here]"
    return text


def standing_notes(home: Path) -> list[tuple[str, str]]:
    """(file name, text) of the memory files that exist, in a fixed order."""
    folder = memories_dir(home)
    notes: list[tuple[str, str]] = []
    for name, _ in MEMORY_FILES:
        text = read_note(folder / name)
        if text is not None:
            notes.append((name, text))
    return notes


def build_system_prompt(
    configured: str | None,
    home: Path,
    *,
    now: float | None = None,
    cwd: Path | None = None,
) -> str:
    """The whole system prompt for one conversation."""
    parts = [(configured or "").strip() or DEFAULT_PROMPT]
    described = dict(MEMORY_FILES)
    for name, text in standing_notes(home):
        parts.append(f'<memory file="{name}" about="{described[name]}">\n{text}\n</memory>')
    parts.append(SEARCH_GUIDANCE)
    stamp = time.strftime("%A, %d %B %Y", time.localtime(time.time() if now is None else now))
    where = f" The user's working directory is {cwd}." if cwd is not None else ""
    parts.append(f"Today is {stamp}.{where}")
    return "\n\n".join(parts)
