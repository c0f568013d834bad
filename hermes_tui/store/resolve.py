"""Turning what a user types into a session id (shared by the CLI and the TUI).

A reference is, in this order: ``latest``; an exact id; a title (a lineage name resolves to
its newest ``#N`` member); a unique id prefix. An ambiguous prefix is an error listing the
candidates; an unknown reference is :class:`SessionNotFound` — never a fresh session.
"""

from __future__ import annotations

import sqlite3

from . import lineage
from .db import Store
from .errors import AmbiguousReference, SessionNotFound
from .listing import ListQuery, list_sessions
from .titles import resolve_title

LATEST = "latest"
_PREFIX_CAP = 50


def id_prefix_matches(conn: sqlite3.Connection, prefix: str) -> list[str]:
    """Ids starting with *prefix* (range scan on the primary key, case-sensitive)."""
    rows = conn.execute(
        "SELECT id FROM sessions WHERE id >= ? AND id < ? ORDER BY id LIMIT ?",
        (prefix, prefix + "\U0010ffff", _PREFIX_CAP + 1),
    ).fetchall()
    return [row[0] for row in rows]


def latest_session(store: Store, workspace: str | None = None) -> str | None:
    """The tip of the most recently active conversation (optionally of one workspace)."""
    page = list_sessions(store, ListQuery(sort="last_active", workspace=workspace), limit=1)
    return page.items[0].id if page.items else None


def resolve_in(conn: sqlite3.Connection, reference: str) -> str:
    """Resolve an id / title / unique prefix (not ``latest``) on an open connection."""
    ref = reference.strip()
    if not ref:
        raise SessionNotFound(reference)
    if conn.execute("SELECT 1 FROM sessions WHERE id = ?", (ref,)).fetchone():
        return ref
    if "title" in {r[1] for r in conn.execute("PRAGMA table_info(sessions)")}:
        by_title = resolve_title(conn, ref)
        if by_title is not None:
            return by_title
    matches = id_prefix_matches(conn, ref)
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise AmbiguousReference(ref, matches)
    raise SessionNotFound(reference)


def resolve_reference(
    store: Store,
    reference: str,
    *,
    follow_tip: bool = False,
    workspace: str | None = None,
) -> str:
    """Resolve *reference*; with *follow_tip*, continue along compression to the tip."""
    if reference.strip().lower() == LATEST:
        found = latest_session(store, workspace)
        if found is None:
            raise SessionNotFound(reference)
        return found
    with store.snapshot() as conn:
        session_id = resolve_in(conn, reference)
        return lineage.compression_tip(conn, session_id) if follow_tip else session_id
