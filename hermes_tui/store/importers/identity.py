"""How an imported session is named: its id and its title.

The id is Hermes' ``YYYYMMDD_HHMMSS_<hex>`` with the start in local time and 8 hex digits
from a hash of the foreign session id, so a re-import finds the same row by primary key.
Titles follow the store's rules: cleaned, at most 100 characters, unique.
"""

from __future__ import annotations

import hashlib
import sqlite3
import time

from ..errors import TitleTooLong
from ..titles import MAX_TITLE_LENGTH, next_title_in_lineage, sanitize_title, title_holder
from .transcript import Transcript


def session_id_for(t: Transcript, attempt: int = 0) -> str:
    """Deterministic Hermes-style id: the start in local time + 8 hex of a hash."""
    start = t.started_at if t.started_at is not None else 0.0
    stamp = time.strftime("%Y%m%d_%H%M%S", time.localtime(start))
    seed = f"{t.tool}\0{t.foreign_id}" + (f"\0{attempt}" if attempt else "")
    return f"{stamp}_{hashlib.sha256(seed.encode('utf-8')).hexdigest()[:8]}"


def _fit_title(raw: str | None) -> str | None:
    """The cleaned title, cut at a word boundary (with …) to the 100-character limit."""
    try:
        return sanitize_title(raw)
    except TitleTooLong:
        pass
    kept: list[str] = []
    for word in (raw or "").split():
        try:
            sanitize_title(" ".join([*kept, word]) + "…")
        except TitleTooLong:
            break
        kept.append(word)
    return sanitize_title(" ".join(kept) + "…") if kept else None


def apply_import_title(conn: sqlite3.Connection, sid: str, candidate: str | None) -> str | None:
    """Set a clean, unique title (≤100 chars); a clash is numbered ``#2`` … as Hermes
    numbers derived titles; if even that is taken or too long, the session stays untitled."""
    cleaned = _fit_title(candidate)
    if cleaned is None:
        return None
    title = cleaned if title_holder(conn, cleaned) is None else next_title_in_lineage(conn, cleaned)
    if len(title) > MAX_TITLE_LENGTH or title_holder(conn, title) is not None:
        return None
    try:
        conn.execute("UPDATE sessions SET title = ? WHERE id = ?", (title, sid))
    except sqlite3.IntegrityError:
        return None  # another process took it meanwhile
    return title
