"""Automatic maintenance at TUI start (``sessions:`` in config.yaml, SPEC §7).

:func:`run_maintenance` is the one function the TUI calls, in a thread worker. In order:

1. A nonsense value in ``sessions:`` (``MaintenanceConfig.valid`` is False: ≤ 0 days, a
   string where a number or boolean belongs, ``"false"`` quoted) → nothing at all is done;
   the result says why (config.yaml's warnings name the key). Never a mass delete.
2. Trash files older than 30 days are removed.
3. ``auto_prune`` off → stop. Ran less than ``min_interval_hours`` ago (``state_meta``
   key ``last_auto_prune``, the one Hermes uses; a timestamp in the future counts as
   recent, as in Hermes) → stop.
4. Prune conversations whose last activity is older than ``retention_days``: ended only,
   pinned **and archived** spared (unlike Hermes' own auto-prune, which deletes archived
   rows), through the same preview/execute as ``hermes sessions prune`` — so with a trash
   file — in batches (:data:`BATCH` conversations, about :data:`BATCH_MESSAGES` messages),
   each its own transaction, so the write lock is never held long.
5. ``last_auto_prune`` is recorded. If something was deleted, ``vacuum_after_prune`` is on,
   the last VACUUM (``hermes_tui_last_vacuum``) is at least ``min_vacuum_interval_days``
   old and a quarter of the file is free pages, VACUUM runs — only with exclusive access.

Store errors (locked, read-only, damaged) end maintenance quietly with the reason in the
result: it must never stop the TUI from starting.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..config import MaintenanceConfig
from . import db
from .db import Cancelled, Store
from .errors import StoreError
from .execute import ExecuteResult, Progress, execute
from .filters import DAY, SessionFilter
from .optimize import vacuum_if_alone
from .prune import Match, prune_selection
from .prune import preview as make_preview
from .trash import clean_trash

LAST_PRUNE_KEY = "last_auto_prune"
LAST_VACUUM_KEY = "hermes_tui_last_vacuum"
BATCH = 500  # conversations per transaction at most
BATCH_MESSAGES = 10_000  # and about this many messages (~2 s of FTS work, see README)
VACUUM_FREE_RATIO = 0.25


@dataclass(frozen=True)
class MaintenanceResult:
    skipped: str | None = None  # why the prune did not run, or stopped early (None: it ran)
    deleted: int = 0  # conversations
    sessions: int = 0
    messages: int = 0
    trash: tuple[Path, ...] = ()
    changed: int = 0  # matched, but changed while maintenance ran: left alone
    trash_removed: int = 0
    vacuumed: bool = False
    vacuum_skipped: str | None = None


def _read_stamp(store: Store, key: str) -> float | None:
    with store.read() as conn:
        raw = db.meta_get(conn, key)
    try:
        return float(raw) if raw is not None else None
    except ValueError:
        return None  # unparsable: treated as never run (as Hermes does)


def _write_stamp(store: Store, key: str, now: float) -> None:
    if "state_meta" in store.capabilities.tables:
        store.write(lambda conn: db.meta_set(conn, key, repr(now)))


def _free_ratio(store: Store) -> float:
    with store.read() as conn:
        pages = conn.execute("PRAGMA page_count").fetchone()[0] or 0
        free = conn.execute("PRAGMA freelist_count").fetchone()[0] or 0
    return free / pages if pages else 0.0


def _vacuum(store: Store, config: MaintenanceConfig, now: float) -> tuple[bool, str | None]:
    if not config.vacuum_after_prune:
        return False, "vacuum_after_prune is off"
    last = _read_stamp(store, LAST_VACUUM_KEY)
    if last is not None and now - last < config.min_vacuum_interval_days * DAY:
        return False, "vacuumed recently (min_vacuum_interval_days)"
    if _free_ratio(store) < VACUUM_FREE_RATIO:
        return False, "less than a quarter of the file is free space"
    skipped = vacuum_if_alone(store)
    if skipped is None:
        _write_stamp(store, LAST_VACUUM_KEY, now)
    return skipped is None, skipped


def run_maintenance(
    store: Store,
    config: MaintenanceConfig,
    *,
    now: float | None = None,
    progress: Callable[[Progress], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> MaintenanceResult:
    """Run automatic maintenance once; never raises for store problems (see module doc)."""
    now = time.time() if now is None else now
    if not config.valid:
        return MaintenanceResult(
            "a value under 'sessions:' in config.yaml is not valid; automatic maintenance "
            "is skipped until it is fixed"
        )
    removed = len(clean_trash(store.home, now))
    if not config.auto_prune:
        return MaintenanceResult("auto_prune is off", trash_removed=removed)
    if store.read_only:
        return MaintenanceResult(
            f"the store is read-only ({store.capabilities.read_only_reason})",
            trash_removed=removed,
        )
    try:
        last = _read_stamp(store, LAST_PRUNE_KEY)
        if last is not None and now - last < config.min_interval_hours * 3600:
            return MaintenanceResult("ran less than min_interval_hours ago", trash_removed=removed)
        selection = prune_selection(
            SessionFilter(older_than=now - config.retention_days * DAY), now=now
        )
        found = make_preview(store, selection, now=now, cancelled=cancelled)
    except (StoreError, Cancelled) as exc:
        return MaintenanceResult(_stopped(exc), trash_removed=removed)
    done: list[ExecuteResult] = []
    stopped = None
    for batch in _batches(found.matches):
        try:
            done.append(
                execute(store, found, only=batch, progress=progress, cancelled=cancelled, now=now)
            )
        except (StoreError, Cancelled) as exc:
            stopped = _stopped(exc)  # earlier batches are committed, each with its trash
            break
    vacuumed, vacuum_skipped = False, None
    try:
        if stopped is None:
            _write_stamp(store, LAST_PRUNE_KEY, now)
        if any(r.count for r in done):
            vacuumed, vacuum_skipped = _vacuum(store, config, now)
    except StoreError as exc:
        vacuum_skipped = exc.one_line()
    return MaintenanceResult(
        skipped=stopped,
        deleted=sum(r.count for r in done),
        sessions=sum(len(r.session_ids) for r in done),
        messages=sum(r.messages for r in done),
        trash=tuple(p for r in done for p in r.trash),
        changed=sum(len(r.changed) for r in done),
        trash_removed=removed,
        vacuumed=vacuumed,
        vacuum_skipped=vacuum_skipped,
    )


def _batches(matches: Sequence[Match]) -> Iterator[list[str]]:
    """Conversation ids in groups of at most BATCH and about BATCH_MESSAGES messages."""
    batch: list[str] = []
    size = 0
    for match in matches:
        if batch and (len(batch) >= BATCH or size + match.messages > BATCH_MESSAGES):
            yield batch
            batch, size = [], 0
        batch.append(match.id)
        size += match.messages
    if batch:
        yield batch


def _stopped(exc: Exception) -> str:
    reason = "cancelled" if isinstance(exc, Cancelled) else str(exc)
    return f"maintenance stopped: {reason}"
