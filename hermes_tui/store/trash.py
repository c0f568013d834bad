"""The trash: what a prune or a delete removed, in ``$HERMES_HOME/session-trash/<timestamp>.jsonl``.

A prune writes the trash inside its delete transaction, before it commits: the file is
written as ``<name>.partial`` (mode 0600), flushed to disk, read back and checked (every
line decodes; counts and SHA-256 equal what was written), then renamed to ``<name>``.
So whenever sessions are gone, a verified trash file holding them exists; a run that dies
before committing can leave a trash file whose sessions were never deleted (restoring it
skips them, saying so). Maintenance removes trash older than 30 days.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..paths import transcripts_dir, trash_dir
from . import sessionio
from .db import Capabilities
from .errors import StoreError

MAX_AGE_DAYS = 30
_NAME = re.compile(r"(\d{8}_\d{6})(?:-\d+)?\.jsonl(?:\.partial|\.files)?")


class TrashDamaged(ValueError):
    """A trash file that is incomplete, edited or unreadable; nothing is restored from it."""


class TrashUnwritable(StoreError):
    """The trash could not be written, so nothing was deleted."""

    kind = "trash"


@dataclass(frozen=True, slots=True)
class TrashInfo:
    path: Path
    sessions: int
    messages: int
    usage: int
    sha256: str
    trailer: dict[str, Any]


def new_trash_path(home: Path, now: float) -> Path:
    """A fresh ``session-trash/<YYYYmmdd_HHMMSS>[-N].jsonl`` (folder created 0700)."""
    folder = trash_dir(home)
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d_%H%M%S", time.localtime(now))
    n = 1
    while True:
        path = folder / (f"{stamp}.jsonl" if n == 1 else f"{stamp}-{n}.jsonl")
        if not any(p.exists() for p in (path, _partial(path), files_dir(path))):
            return path
        n += 1


def _partial(path: Path) -> Path:
    return path.with_name(path.name + ".partial")


def files_dir(path: Path) -> Path:
    """Where Hermes' per-session transcript files of this trash are kept."""
    return path.with_name(path.name + ".files")


class TrashWriter:
    """Writes records to ``<path>.partial``, then :meth:`finish` verifies and renames."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.partial = _partial(path)
        fd = os.open(self.partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        self._file = os.fdopen(fd, "wb")
        self._hash = hashlib.sha256()
        self.sessions = self.messages = self.usage = 0

    def add(self, record: dict[str, Any]) -> None:
        record[sessionio.META] = {**record.get(sessionio.META, {}), "trash": True}
        line = sessionio.encode_line(record)
        self._file.write(line)
        self._hash.update(line)
        self.sessions += 1
        self.messages += len(record.get(sessionio.MESSAGES) or ())
        self.usage += len(record.get(sessionio.USAGE) or ())

    def finish(self, extra: dict[str, Any]) -> TrashInfo:
        """Write the trailer, flush to disk, read back, compare, rename into place."""
        trailer = {
            "format": sessionio.FORMAT,
            "sessions": self.sessions,
            "messages": self.messages,
            "model_usage": self.usage,
            "sha256": self._hash.hexdigest(),
            **extra,
        }
        self._file.write(sessionio.encode_line({sessionio.TRAILER: trailer}))
        self._file.flush()
        os.fsync(self._file.fileno())
        self._file.close()
        info = verify(self.partial)
        expected = (self.sessions, self.messages, self.usage, trailer["sha256"])
        if (info.sessions, info.messages, info.usage, info.sha256) != expected:
            raise TrashDamaged(f"the trash file did not read back as written: {self.partial}")
        self.partial.replace(self.path)
        _fsync_dir(self.path.parent)
        return TrashInfo(self.path, *expected, trailer)

    def discard(self) -> None:
        """Forget everything written (the deletion did not happen)."""
        if not self._file.closed:
            self._file.close()
        for path in (self.partial, self.path):
            path.unlink(missing_ok=True)


def detached_parents(conn: sqlite3.Connection, doomed: Sequence[str]) -> list[list[str]]:
    """``[child, parent]`` for each session outside *doomed* whose parent is in it: the rows
    a delete detaches (as :func:`.sessions.delete_ids` does), for a restore to re-link."""
    marks = json.dumps(list(doomed))
    rows = conn.execute(
        "SELECT id, parent_session_id FROM sessions "
        "WHERE parent_session_id IN (SELECT value FROM json_each(?1)) "
        "AND id NOT IN (SELECT value FROM json_each(?1)) ORDER BY id",
        (marks,),
    )
    return [[child, parent] for child, parent in rows]


def save_sessions(
    conn: sqlite3.Connection,
    caps: Capabilities,
    home: Path,
    now: float,
    unit_of: Mapping[str, str],
    extra: dict[str, Any],
    writers: list[TrashWriter],
    tick: Callable[[int, int], None] | None = None,
) -> TrashInfo:
    """Save these sessions (id → its conversation's id) to a new, verified trash file.

    Called inside the delete's write transaction, before anything is deleted: no trash file,
    no delete. The writer is kept in *writers* so the caller can discard the file when the
    transaction does not commit; a retried transaction first discards the earlier attempt's.
    """
    for old in writers:
        old.discard()
    writers.clear()
    path = trash_dir(home)
    try:
        path = new_trash_path(home, now)
        writer = TrashWriter(path)
        writers.append(writer)
        for index, sid in enumerate(unit_of):
            if tick is not None and index % 50 == 0:
                tick(index, len(unit_of))
            record = sessionio.read_record(conn, caps, sid, unit=unit_of[sid])
            if record is not None:
                writer.add(record)
        return writer.finish(extra)
    except (OSError, TrashDamaged) as exc:
        raise TrashUnwritable(
            f"Could not save the trash file, so nothing was deleted ({exc})",
            path,
            "check the free disk space and the permissions of the session-trash folder",
        ) from exc


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _lines(path: Path) -> Iterator[bytes]:
    with path.open("rb") as handle:
        yield from handle


def verify(path: Path) -> TrashInfo:
    """Read a trash file through: every line decodes, the trailer's counts and hash agree.

    Raises TrashDamaged (one line) for a file without its trailer, with bytes after it,
    or whose counts or SHA-256 differ."""
    digest = hashlib.sha256()
    sessions = messages = usage = 0
    trailer: dict[str, Any] | None = None
    try:
        for raw, obj in sessionio.iter_lines(_lines(path)):
            if trailer is not None:
                raise TrashDamaged(f"{path} has data after its end marker")
            if sessionio.TRAILER in obj:
                trailer = obj[sessionio.TRAILER]
                continue
            digest.update(raw)
            sessions += 1
            messages += len(obj.get(sessionio.MESSAGES) or ())
            usage += len(obj.get(sessionio.USAGE) or ())
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        if isinstance(exc, TrashDamaged):
            raise
        raise TrashDamaged(f"{path} cannot be read as session JSON lines ({exc})") from None
    if trailer is None:
        raise TrashDamaged(f"{path} is incomplete (no end marker): it was not fully written")
    found = (sessions, messages, usage, digest.hexdigest())
    wanted = (
        trailer.get("sessions"),
        trailer.get("messages"),
        trailer.get("model_usage"),
        trailer.get("sha256"),
    )
    if found != wanted:
        raise TrashDamaged(f"{path} does not match its end marker (edited or damaged)")
    return TrashInfo(path, sessions, messages, usage, digest.hexdigest(), trailer)


def records(path: Path) -> Iterator[dict[str, Any]]:
    """The session records of a trash or JSONL export file, in file order."""
    try:
        for _, obj in sessionio.iter_lines(_lines(path)):
            if sessionio.TRAILER not in obj:
                yield obj
    except (ValueError, UnicodeDecodeError) as exc:
        raise TrashDamaged(f"{path} cannot be read as session JSON lines ({exc})") from None


def is_trash(path: Path) -> bool:
    """Did a prune write this file (its records say so)? Then it must carry its trailer."""
    for record in records(path):
        return bool((record.get(sessionio.META) or {}).get("trash"))
    return False


def has_trailer(path: Path) -> bool:
    last = b""
    for raw in _lines(path):
        if raw.strip():
            last = raw
    return last.startswith(b'{"' + sessionio.TRAILER.encode())


def _age_stamp(path: Path) -> float | None:
    match = _NAME.fullmatch(path.name)
    if match is None:
        return None
    try:
        return time.mktime(time.strptime(match.group(1), "%Y%m%d_%H%M%S"))
    except (ValueError, OverflowError):
        return path.stat().st_mtime


def clean_trash(home: Path, now: float, max_age_days: float = MAX_AGE_DAYS) -> list[Path]:
    """Remove our trash files (and their transcript folders) older than *max_age_days*.

    Only names this module writes are considered; anything else in the folder is left."""
    folder = trash_dir(home)
    if not folder.is_dir():
        return []
    removed: list[Path] = []
    for path in sorted(folder.iterdir()):
        stamp = _age_stamp(path)
        if stamp is None or now - stamp < max_age_days * 86_400:
            continue
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)
        removed.append(path)
    return removed


def _transcripts(home: Path, session_id: str) -> list[Path]:
    folder = transcripts_dir(home)
    found = [folder / f"{session_id}.json", folder / f"{session_id}.jsonl"]
    found += list(folder.glob(f"request_dump_{session_id}_*.json"))
    return [p for p in found if p.is_file()]


def move_transcripts(home: Path, session_ids: Iterable[str], trash: Path) -> int:
    """Move Hermes' per-session files of deleted sessions next to the trash (best effort)."""
    if not transcripts_dir(home).is_dir():
        return 0
    moved = 0
    target = files_dir(trash)
    for sid in session_ids:
        for path in _transcripts(home, sid):
            target.mkdir(mode=0o700, exist_ok=True)
            with contextlib.suppress(OSError):
                shutil.move(str(path), target / path.name)
                moved += 1
    return moved


def restore_transcripts(home: Path, trash: Path, session_ids: Iterable[str]) -> int:
    """Put back the transcript files of restored sessions (never over an existing file)."""
    source = files_dir(trash)
    if not source.is_dir():
        return 0
    wanted = set(session_ids)
    folder = transcripts_dir(home)
    moved = 0
    for path in sorted(source.iterdir()):
        sid = path.name.removeprefix("request_dump_").rsplit(".", 1)[0]
        owner = next((s for s in wanted if sid == s or sid.startswith(s + "_")), None)
        if owner is None or (folder / path.name).exists():
            continue
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        with contextlib.suppress(OSError):
            shutil.move(str(path), folder / path.name)
            moved += 1
    return moved
