"""``session_search``: the one search engine behind the TUI, ``hermes sessions search`` and
the model's tool.

Four shapes, chosen by the arguments as in Hermes Agent 0.19 (no mode parameter):

* **scroll** — ``session_id`` + ``around_message_id`` (+ ``window``, default 5, 1–20);
* **read** — ``session_id`` alone: all messages up to 30, else the first 20 + last 10;
* **browse** — no query: the most recently active conversations;
* **discovery** — ``query`` (+ ``limit`` 1–10, ``sort``, ``role_filter``): see
  :mod:`.discovery`, :mod:`.rank`, :mod:`.sanitize`, :mod:`.plan`.

:func:`session_search` takes loose, model-supplied arguments and returns the tool's JSON
dict (``{"success": false, "error": ...}`` on any refusal). The typed functions
(:func:`discover`, :func:`scroll`, :func:`read_session`, :func:`browse`) return frozen
records for the TUI and raise :class:`SearchError`. Every call opens its own read-only
connection; pass ``cancelled`` (polled by an SQLite progress handler) to abandon a search a
newer keystroke replaced: it raises :class:`~hermes_tui.store.Cancelled`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import StoreError
from . import shapes
from .browse import browse, read_session, scroll
from .discovery import DEFAULT_ROLES, KNOWN_ROLES, MAX_LIMIT, discover
from .models import (
    Discovery,
    Hit,
    ScrollView,
    SearchError,
    Segment,
    SessionMeta,
    SessionRead,
    SortOrder,
    Window,
)
from .sanitize import QueryError, parse_query

__all__ = [
    "DEFAULT_ROLES",
    "KNOWN_ROLES",
    "Discovery",
    "Hit",
    "QueryError",
    "ScrollView",
    "SearchError",
    "Segment",
    "SessionMeta",
    "SessionRead",
    "Window",
    "browse",
    "discover",
    "parse_query",
    "read_session",
    "scroll",
    "session_search",
    "shapes",
]


def _int(value: Any, default: int, lo: int, hi: int) -> int:
    """Hermes' coercion: not an integer → the default; then clamped to [lo, hi]."""
    if isinstance(value, bool):
        value = default
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = default
    return max(lo, min(number, hi))


def _sort(value: Any) -> SortOrder:
    if isinstance(value, str) and value.strip().lower() in ("newest", "oldest"):
        return value.strip().lower()  # type: ignore[return-value]
    return "relevance"


def _roles(value: Any) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return tuple(r for r in value.split(",") if r.strip()) or None
    if isinstance(value, Sequence):
        return tuple(str(r) for r in value) or None
    raise SearchError("role_filter must be a comma-separated string of roles")


def session_search(
    store: Any,
    *,
    query: Any = None,
    limit: Any = 3,
    sort: Any = None,
    role_filter: Any = None,
    session_id: Any = None,
    around_message_id: Any = None,
    window: Any = 5,
    include_archived: bool = False,
    exclude_lineage_of: str | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> dict[str, Any]:
    """The tool: arguments as a model sends them, the JSON dict Hermes returns.

    ``exclude_lineage_of`` is the caller's own session (its conversation is left out of
    results, as Hermes hides the current lineage). Raises only
    :class:`~hermes_tui.store.Cancelled`."""
    try:
        if store is None:
            return shapes.error("Session database not available")
        sid = session_id.strip() if isinstance(session_id, str) else ""
        if sid and around_message_id is not None:
            try:
                anchor = int(around_message_id)
            except (TypeError, ValueError):
                return shapes.error("scroll requires integer around_message_id")
            view = scroll(
                store,
                sid,
                anchor,
                window=_int(window, 5, 1, 20),
                exclude_lineage_of=exclude_lineage_of,
                cancelled=cancelled,
            )
            return shapes.scroll(view)
        if sid:
            return shapes.read(read_session(store, sid, cancelled=cancelled))
        count = _int(limit, 3, 1, MAX_LIMIT)
        if not isinstance(query, str) or not query.strip():
            rows = browse(
                store, limit=count, exclude_lineage_of=exclude_lineage_of, cancelled=cancelled
            )
            return shapes.browse(rows)
        result = discover(
            store,
            query.strip(),
            limit=count,
            sort=_sort(sort),
            roles=_roles(role_filter),
            include_archived=include_archived,
            exclude_lineage_of=exclude_lineage_of,
            cancelled=cancelled,
        )
        return shapes.discovery(result)
    except (SearchError, QueryError) as exc:
        return shapes.error(str(exc))
    except StoreError as exc:
        return shapes.error(f"Session database not available: {exc.one_line()}")
    except sqlite3.Error as exc:
        return shapes.error(f"Search failed: {exc}")
