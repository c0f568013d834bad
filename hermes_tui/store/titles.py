"""Session titles: cleaning, uniqueness, lineage numbering, lookup, derivation.

The rules are Hermes Agent's (HERMES_AGENT_BEHAVIOUR.md §2) with one fix users asked for:
only a literal ``" #<ASCII digits>"`` suffix makes a lineage member, so ``my project #bar``
and ``my project #２`` (full-width) never hijack ``my project``.
"""

from __future__ import annotations

import re
import sqlite3

from .errors import TitleInUse, TitleTooLong
from .lineage import compression_ancestors
from .text import real_user_text

MAX_TITLE_LENGTH = 100

_REMOVED = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f"
    "\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb\ufffc"
    "\ud800-\udfff]"
)
_WHITESPACE = re.compile(r"\s+")
_LINEAGE = re.compile(r"(?P<base>.+) #(?P<number>[0-9]+)", re.DOTALL)


def sanitize_title(raw: str | None) -> str | None:
    """Clean a title; ``None`` means "clear the title". Raises TitleTooLong past 100 chars."""
    if raw is None:
        return None
    cleaned = _WHITESPACE.sub(" ", _REMOVED.sub("", raw)).strip()
    if not cleaned:
        return None
    if len(cleaned) > MAX_TITLE_LENGTH:
        raise TitleTooLong(len(cleaned), MAX_TITLE_LENGTH)
    return cleaned


def split_lineage(title: str) -> tuple[str, int | None]:
    """``"my project #3"`` → ``("my project", 3)``; anything else → ``(title, None)``."""
    match = _LINEAGE.fullmatch(title)
    if match is None:
        return title, None
    return match.group("base"), int(match.group("number"))


def _member_rows(conn: sqlite3.Connection, base: str) -> list[sqlite3.Row]:
    """Rows titled ``base`` or ``base #<digits>``, found through the unique title index."""
    return conn.execute(
        "SELECT id, title, started_at FROM sessions WHERE title = ? OR (title >= ? AND title < ?)",
        (base, base + " #0", base + " #:"),
    ).fetchall()


def lineage_numbers(conn: sqlite3.Connection, base: str) -> dict[str, int]:
    """Session id → its number in the lineage of *base* (the unnumbered original is 1)."""
    numbers: dict[str, int] = {}
    for row in _member_rows(conn, base):
        title = row["title"]
        if title == base:
            numbers[row["id"]] = 1
            continue
        member_base, number = split_lineage(title)
        if member_base == base and number is not None:
            numbers[row["id"]] = number
    return numbers


def next_title_in_lineage(conn: sqlite3.Connection, title: str) -> str:
    """The next free name in *title*'s lineage: ``my project`` → ``my project #2`` …"""
    base, _ = split_lineage(title)
    numbers = lineage_numbers(conn, base)
    if not numbers:
        return base
    return f"{base} #{max(numbers.values()) + 1}"


def resolve_title(conn: sqlite3.Connection, title: str) -> str | None:
    """Session id for a title: the newest ``"<title> #N"`` member if any, else the exact one."""
    rows = _member_rows(conn, title)
    numbered = [row for row in rows if split_lineage(row["title"])[0] == title]
    numbered = [row for row in numbered if row["title"] != title]
    if numbered:
        return max(numbered, key=lambda r: (r["started_at"] or 0, r["id"]))["id"]
    exact = [row["id"] for row in rows if row["title"] == title]
    return exact[0] if exact else None


def title_holder(conn: sqlite3.Connection, title: str, exclude: str | None = None) -> str | None:
    row = conn.execute(
        "SELECT id FROM sessions WHERE title = ? AND id IS NOT ?", (title, exclude)
    ).fetchone()
    return None if row is None else row["id"]


def apply_title(conn: sqlite3.Connection, session_id: str, title: str | None) -> None:
    """Set an already-cleaned title inside the caller's write transaction.

    A title held by a compression ancestor moves to this session (as Hermes does); held by
    anyone else it is an error naming the holder.
    """
    if title is not None:
        holder = title_holder(conn, title, exclude=session_id)
        if holder is not None:
            if holder not in compression_ancestors(conn, session_id):
                raise TitleInUse(title, holder)
            conn.execute("UPDATE sessions SET title = NULL WHERE id = ?", (holder,))
    try:
        conn.execute("UPDATE sessions SET title = ? WHERE id = ?", (title, session_id))
    except sqlite3.IntegrityError:
        # Another process took the title between our check and the update.
        raise TitleInUse(title or "", title_holder(conn, title or "") or "?") from None


def derive_title(text: str | None, max_words: int = 7, max_chars: int = 60) -> str | None:
    """A short title from the first real user message (3–7 words, no model needed)."""
    real = real_user_text(text)
    if not real:
        return None
    real = re.sub(r"```.*?```", " ", real, flags=re.DOTALL)
    real = re.sub(r"`([^`]*)`", r"\1", real)
    first = re.split(r"(?<=[.!?])\s|(?<=[。！？])|\n", real.strip(), maxsplit=1)[0]
    words = first.split()
    if not words:
        return None
    title = " ".join(words[:max_words])
    # Scripts written without spaces (Chinese, Japanese) have no words to count.
    limit = max_chars if len(words) > 1 else min(max_chars, 24)
    if len(title) > limit:
        cut = title[:limit]
        title = cut.rsplit(" ", 1)[0] if " " in cut else cut
    title = title.rstrip(" .,:;!?-—。！？、")
    try:
        return sanitize_title(title)
    except TitleTooLong:
        return None
