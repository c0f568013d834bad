"""Putting sessions back from a trash file (or a JSONL export): ``hermes sessions restore``.

A trash file is verified first (:func:`.trash.verify`: counts and SHA-256 against its end
marker); a damaged one restores nothing. Sessions come back as they were — every column,
every message with its id (the FTS triggers index them again), the usage rows — in one
transaction, conversation by conversation (the ``unit`` each record names):

* a conversation any of whose session ids, or message ids, exists again is skipped as a
  whole, and reported (never merged into what is there now);
* a title now held by another session is left off (reported): titles are unique;
* ``parent_session_id`` is restored when the parent exists (in the store or restored in the
  same run); otherwise it stays empty and that is reported;
* children a prune had detached from a deleted parent get their parent back if they still
  exist without one.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import sessionio
from .db import Capabilities, Store
from .trash import TrashDamaged, has_trailer, is_trash, records, restore_transcripts, verify


@dataclass(frozen=True, slots=True)
class Skipped:
    unit: str
    session_ids: tuple[str, ...]
    reason: str


@dataclass(frozen=True)
class RestoreResult:
    path: Path
    restored: tuple[str, ...] = ()  # session ids put back (or that would be, dry run)
    messages: int = 0
    skipped: tuple[Skipped, ...] = ()
    notes: tuple[str, ...] = ()
    verified: bool = False  # the file carried an end marker and matched it
    dry_run: bool = False


def _units(path: Path) -> Iterator[list[dict[str, Any]]]:
    """Consecutive records of the same conversation, as one group."""
    group: list[dict[str, Any]] = []
    key: object = None
    for record in records(path):
        unit = (record.get(sessionio.META) or {}).get("unit") or record.get("id")
        if group and unit != key:
            yield group
            group = []
        key = unit
        group.append(record)
    if group:
        yield group


def _existing(conn: sqlite3.Connection, table: str, ids: list[Any]) -> list[Any]:
    found: list[Any] = []
    for start in range(0, len(ids), 500):
        chunk = json.dumps(ids[start : start + 500])
        found += [
            r[0]
            for r in conn.execute(
                f"SELECT id FROM {table} WHERE id IN (SELECT value FROM json_each(?))", (chunk,)
            )
        ]
    return found


def _why_not(conn: sqlite3.Connection, group: list[dict[str, Any]], seen: set[Any]) -> str | None:
    if any(not isinstance(r.get("id"), str) or r.get("started_at") is None for r in group):
        return "not a session record (no id or start time)"
    there = _existing(conn, "sessions", [r["id"] for r in group])
    if there:
        return f"session id(s) exist again: {', '.join(there[:3])}"
    message_ids = [m.get("id") for r in group for m in r.get(sessionio.MESSAGES) or ()]
    numbered = [i for i in message_ids if isinstance(i, int)]
    taken = _existing(conn, "messages", numbered)
    if taken:
        return f"{len(taken)} message id(s) are used by other sessions now"
    if len(set(numbered)) < len(numbered) or seen.intersection(numbered):
        return "message ids repeat within this file"
    seen.update(numbered)
    return None


def restore_file(
    store: Store,
    path: Path,
    *,
    dry_run: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> RestoreResult:
    """Restore *path* into *store* (or, with *dry_run*, only report what would happen).

    Raises TrashDamaged for a trash file that fails verification, FileNotFoundError for a
    missing file."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"No such trash file: {path}")
    verified = False
    trailer: dict[str, Any] = {}
    if has_trailer(path):
        trailer = verify(path).trailer
        verified = True
    elif is_trash(path):
        raise TrashDamaged(f"{path} is incomplete (no end marker): it was not fully written")
    total = int(trailer.get("sessions") or 0)
    caps = store.capabilities

    def work(conn: sqlite3.Connection) -> RestoreResult:
        restored: list[str] = []
        skipped: list[Skipped] = []
        notes: list[str] = []
        parents: list[tuple[str, str]] = []
        unknown: set[str] = set()
        messages = 0
        seen: set[Any] = set()  # message ids restored so far (a file must not repeat one)
        stage = None if dry_run else sessionio.MessageStage(conn, caps)
        for group in _units(path):
            unit = str((group[0].get(sessionio.META) or {}).get("unit") or group[0].get("id"))
            why = _why_not(conn, group, seen)
            if why is not None:
                ids = tuple(str(r.get("id")) for r in group)
                skipped.append(Skipped(unit, ids, why))
                continue
            for record in group:
                if stage is not None:
                    unknown |= _insert(conn, caps, record, notes, stage)
                if record.get("parent_session_id"):
                    parents.append((record["id"], record["parent_session_id"]))
                restored.append(record["id"])
                messages += len(record.get(sessionio.MESSAGES) or ())
            if progress is not None:
                progress(len(restored), total)
        if stage is not None:
            stage.flush()
            notes += _link_parents(conn, parents, set(restored))
            notes += _relink_detached(conn, trailer.get("detached") or [])
        if unknown:
            notes.append(f"columns this store does not have were left out: {sorted(unknown)}")
        return RestoreResult(
            path, tuple(restored), messages, tuple(skipped), tuple(notes), verified, dry_run
        )

    if dry_run:
        with store.snapshot() as conn:
            return work(conn)
    result = store.write(work)
    restore_transcripts(store.home, path, result.restored)
    return result


def _insert(
    conn: sqlite3.Connection,
    caps: Capabilities,
    record: dict[str, Any],
    notes: list[str],
    stage: sessionio.MessageStage,
) -> set[str]:
    title = record.get("title")
    keep_title = True
    if isinstance(title, str) and "title" in caps.session_columns:
        holder = conn.execute("SELECT id FROM sessions WHERE title = ?", (title,)).fetchone()
        if holder is not None:
            keep_title = False
            notes.append(
                f"{record['id']}: title {title!r} is now used by {holder[0]}; restored untitled"
            )
    return sessionio.insert_record(conn, caps, record, title=keep_title, stage=stage)


def _link_parents(
    conn: sqlite3.Connection, parents: list[tuple[str, str]], restored: set[str]
) -> list[str]:
    notes: list[str] = []
    for child, parent in parents:
        exists = (
            parent in restored
            or conn.execute("SELECT 1 FROM sessions WHERE id = ?", (parent,)).fetchone()
        )
        if exists:
            conn.execute("UPDATE sessions SET parent_session_id = ? WHERE id = ?", (parent, child))
        else:
            notes.append(f"{child}: its parent {parent} no longer exists; restored without it")
    return notes


def _relink_detached(conn: sqlite3.Connection, detached: list[Any]) -> list[str]:
    """Give children a prune detached their parent back (if both exist, child still free)."""
    notes: list[str] = []
    for pair in detached:
        if not isinstance(pair, list) or len(pair) != 2:
            continue
        child, parent = pair
        if not (isinstance(child, str) and isinstance(parent, str)):
            continue
        if conn.execute("SELECT 1 FROM sessions WHERE id = ?", (parent,)).fetchone() is None:
            continue
        changed = conn.execute(
            "UPDATE sessions SET parent_session_id = ? WHERE id = ? AND parent_session_id IS NULL",
            (parent, child),
        ).rowcount
        if changed:
            notes.append(f"{child}: re-attached to {parent}")
    return notes


__all__ = ["RestoreResult", "Skipped", "TrashDamaged", "restore_file"]
