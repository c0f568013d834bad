"""Discovery: a query → the best few conversations, each with its match in context.

Work is bounded by what is returned, not by how often the words occur (Hermes ranks and
snippets 300 hits per query; a very common word costs it a second):

1. **Candidates.** One statement walks the index in rowid order (``ORDER BY rowid DESC``,
   which FTS5 serves from its doclists without sorting) and stops after :data:`BATCH`
   matching messages — Hermes' scan depth — with the role / rewound / archived /
   hidden-source filters applied in the same statement (joined by primary key) and the text
   to score read only for those rows. Rowid order is insertion order, so these are the
   newest matches (the oldest for ``sort=oldest``); a rarer query has fewer matches than
   that, and all of them are ranked.
2. **Ranking** (:mod:`.rank`): BM25 blended with recency, cron demoted.
3. **De-duplication** by lineage root (the topmost ``parent_session_id`` ancestor, as
   Hermes groups hits), first hit per root wins, until ``limit`` conversations. If the
   batch held fewer conversations and more matches exist (one marathon session can fill a
   batch), the next batch is fetched (at most :data:`MAX_BATCHES`).
4. **Context** — window, bookends, snippet — for the ≤ 10 results only.

A session titled exactly like the query is put first (Hermes' title shortcut).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..db import Cancelled, Capabilities, Store
from ..models import Message
from ..titles import resolve_title
from .models import Discovery, Hit, SearchError, Segment, SortOrder
from .plan import INDEXED_TEXT, LIKE_SCAN_ROWS, Plan, make_plan
from .rank import Candidate, bm25, order
from .sanitize import clean_query, parse_query
from .snippet import build_snippet, has_match
from .window import anchored_view, get_message, lineage_root, session_meta, visible_side

DEFAULT_ROLES = ("user", "assistant")
KNOWN_ROLES = ("user", "assistant", "tool", "system")
HIDDEN_SOURCES = ("tool", "subagent")
BATCH = 300
MAX_BATCHES = 4
MAX_LIMIT = 10
WINDOW = 5
BOOKEND = 3


@dataclass(frozen=True, slots=True)
class _Choice:
    """The hit chosen for one conversation: a ranked candidate, or the title match."""

    candidate: Candidate | None = None
    score: float = 0.0
    title_session: str | None = None
    first: Message | None = None


def _filters(
    caps: Capabilities, roles: Sequence[str], include_archived: bool
) -> tuple[str, list[Any]]:
    where = [f"m.role IN ({', '.join('?' for _ in roles)})"]
    params: list[Any] = list(roles)
    if "active" in caps.message_columns:
        if "compacted" in caps.message_columns:
            where.append("(COALESCE(m.active, 1) = 1 OR COALESCE(m.compacted, 0) = 1)")
        else:
            where.append("COALESCE(m.active, 1) = 1")
    where.append(f"s.source NOT IN ({', '.join('?' for _ in HIDDEN_SOURCES)})")
    params.extend(HIDDEN_SOURCES)
    if not include_archived and "archived" in caps.session_columns:
        where.append("COALESCE(s.archived, 0) = 0")
    return " AND ".join(where), params


Row = tuple[int, str, str, float, str, str | None]


def _fetch(
    conn: sqlite3.Connection,
    plan: Plan,
    where: str,
    params: list[Any],
    descending: bool,
    cursor: int | None,
    floor: int,
) -> list[Row]:
    """One batch of matching messages: (id, session, role, timestamp, source, indexed text)."""
    direction, step = ("DESC", "<") if descending else ("ASC", ">")
    if plan.table is not None:
        t = plan.table
        sql = (
            f"SELECT {t}.rowid, m.session_id, m.role, m.timestamp, s.source, {INDEXED_TEXT} "
            f"FROM {t} CROSS JOIN messages m ON m.id = {t}.rowid "
            f"CROSS JOIN sessions s ON s.id = m.session_id "
            f"WHERE {t} MATCH ? AND {where}"
        )
        args: list[Any] = [plan.match, *params]
        key = f"{t}.rowid"
    else:
        sql = (
            f"SELECT m.id, m.session_id, m.role, m.timestamp, s.source, {INDEXED_TEXT} "
            "FROM messages m CROSS JOIN sessions s ON s.id = m.session_id "
            f"WHERE m.id > ? AND {plan.like_sql} AND {where}"
        )
        args = [floor, *plan.like_params, *params]
        key = "m.id"
    if cursor is not None:
        sql += f" AND {key} {step} ?"
        args.append(cursor)
    sql += f" ORDER BY {key} {direction} LIMIT ?"
    args.append(BATCH)
    return [
        (int(r[0]), r[1], r[2], float(r[3] or 0.0), r[4] or "", r[5])
        for r in conn.execute(sql, args)
    ]


def _candidates(rows: list[Row], plan: Plan) -> list[Candidate]:
    relevance = bm25([r[5] or "" for r in rows], plan.terms, plan.substring)
    return [
        Candidate(r[0], r[1], r[2], r[3], r[4], rel) for r, rel in zip(rows, relevance, strict=True)
    ]


def _tool_text(message: Message) -> str:
    parts = [message.tool_name or ""]
    for call in message.tool_calls:
        fn = call.get("function") if isinstance(call, dict) else None
        if isinstance(fn, dict):
            parts.append(f"{fn.get('name', '')}({fn.get('arguments', '')})")
    return " ".join(p for p in parts if p)


def _snippet(message: Message, plan: Plan) -> tuple[Segment, ...]:
    snippet = build_snippet(message.content, plan.terms, plan.substring)
    if not has_match(snippet):
        other = build_snippet(_tool_text(message), plan.terms, plan.substring)
        if has_match(other):
            return other
    return snippet


class _Search:
    """One discovery on one connection (the state shared by its steps)."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        caps: Capabilities,
        *,
        roles: Sequence[str],
        include_archived: bool,
        exclude: str | None,
    ) -> None:
        self.conn = conn
        self.caps = caps
        self.roles = tuple(roles)
        self.include_archived = include_archived
        self.roots: dict[str, str] = {}
        self.exclude_id = exclude
        self.exclude_root = lineage_root(conn, exclude, self.roots) if exclude else None

    def excluded(self, session_id: str, root: str) -> bool:
        return session_id == self.exclude_id or (
            self.exclude_root is not None and root == self.exclude_root
        )

    def title_match(self, text: str) -> tuple[str, _Choice] | None:
        """(root, choice) for the session titled *text*, if it may be shown."""
        title = text.strip().strip("`'\"").strip()
        if not title or "title" not in self.caps.session_columns:
            return None
        session_id = resolve_title(self.conn, title)
        meta = session_meta(self.conn, self.caps, session_id) if session_id else None
        if meta is None or meta.source in HIDDEN_SOURCES:
            return None
        if meta.archived and not self.include_archived:
            return None
        root = lineage_root(self.conn, meta.session_id, self.roots)
        if self.excluded(meta.session_id, root):
            return None
        first = visible_side(self.conn, self.caps, meta.session_id, -1, 1, False)
        if not first:
            return None
        return root, _Choice(title_session=meta.session_id, first=first[0])

    def select(
        self, ranked: list[tuple[Candidate, float]], seen: dict[str, _Choice], limit: int
    ) -> dict[str, _Choice]:
        chosen = dict(seen)
        for candidate, score in ranked:
            if len(chosen) >= limit:
                break
            root = lineage_root(self.conn, candidate.session_id, self.roots)
            if root in chosen or self.excluded(candidate.session_id, root):
                continue
            chosen[root] = _Choice(candidate, score)
        return chosen

    def hit(self, root: str, candidate: Candidate, score: float, plan: Plan) -> Hit | None:
        conn, caps = self.conn, self.caps
        meta = session_meta(conn, caps, candidate.session_id)
        anchor = get_message(conn, caps, candidate.message_id)
        if meta is None or anchor is None:
            return None  # deleted between the steps
        root_meta = meta if root == meta.session_id else session_meta(conn, caps, root) or meta
        keep = ("user", "assistant", *(("tool",) if "tool" in self.roles else ()))
        start, window, end, gap_before, gap_after = anchored_view(
            conn,
            caps,
            meta.session_id,
            anchor,
            width=WINDOW,
            bookend=BOOKEND,
            keep_roles=keep,
            size=meta.message_count,
        )
        return Hit(
            session_id=meta.session_id,
            root=root_meta,
            matched_role=anchor.role,
            match_message_id=anchor.id,
            snippet=_snippet(anchor, plan),
            bookend_start=start,
            window=window,
            bookend_end=end,
            gap_before=gap_before,
            gap_after=gap_after,
            score=score,
            timestamp=anchor.timestamp,
        )

    def title_hit(self, root: str, session_id: str, first: Message) -> Hit | None:
        meta = session_meta(self.conn, self.caps, session_id)
        if meta is None:
            return None
        root_meta = meta if root == session_id else session_meta(self.conn, self.caps, root) or meta
        start, window, end, gap_before, gap_after = anchored_view(
            self.conn,
            self.caps,
            session_id,
            first,
            width=WINDOW,
            bookend=BOOKEND,
            size=meta.message_count,
        )
        return Hit(
            session_id=session_id,
            root=root_meta,
            matched_role="session_title",
            match_message_id=first.id,
            snippet=(Segment(f"Session title matched: {meta.title or root_meta.title}"),),
            bookend_start=start,
            window=window,
            bookend_end=end,
            gap_before=gap_before,
            gap_after=gap_after,
            timestamp=first.timestamp,
            title_match=True,
        )


def check_roles(roles: Sequence[str] | None) -> tuple[str, ...]:
    if not roles:
        return DEFAULT_ROLES
    cleaned = tuple(dict.fromkeys(r.strip().lower() for r in roles if r and r.strip()))
    unknown = [r for r in cleaned if r not in KNOWN_ROLES]
    if unknown:
        raise SearchError(
            f"role_filter: unknown role {unknown[0]!r} (use {', '.join(KNOWN_ROLES)})"
        )
    return cleaned or DEFAULT_ROLES


def discover(
    store: Store,
    query: str,
    *,
    limit: int = 3,
    sort: SortOrder = "relevance",
    roles: Sequence[str] | None = None,
    include_archived: bool = False,
    exclude_lineage_of: str | None = None,
    now: float | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> Discovery:
    """Run a discovery query (see the module docstring). Raises :class:`SearchError` for a
    bad argument or query, :class:`~hermes_tui.store.Cancelled` when *cancelled*."""
    if not 1 <= limit <= MAX_LIMIT:
        raise SearchError(f"limit must be between 1 and {MAX_LIMIT}")
    if sort not in ("relevance", "newest", "oldest"):
        raise SearchError("sort must be newest, oldest or relevance")
    role_list = check_roles(roles)
    query = clean_query(query)
    try:
        parsed = parse_query(query)
    except ValueError as exc:
        raise SearchError(str(exc)) from None
    now = time.time() if now is None else now
    caps = store.capabilities
    if cancelled is not None and cancelled():
        raise Cancelled()
    with store.read(cancelled) as conn:
        plan = make_plan(conn, caps, parsed)
        search = _Search(
            conn,
            caps,
            roles=role_list,
            include_archived=include_archived,
            exclude=exclude_lineage_of,
        )
        title = search.title_match(query)
        seen: dict[str, _Choice] = dict([title]) if title else {}
        if not plan.searchable:
            chosen, exhausted, floor = dict(seen), True, 0
        else:
            chosen, exhausted, floor = _rank(search, plan, seen, limit, sort, now, cancelled)
        hits: list[Hit] = []
        for root, choice in chosen.items():
            if cancelled is not None and cancelled():
                raise Cancelled()
            if choice.candidate is not None:
                hit = search.hit(root, choice.candidate, choice.score, plan)
            elif choice.title_session is not None and choice.first is not None:
                hit = search.title_hit(root, choice.title_session, choice.first)
            else:
                hit = None
            if hit is not None:
                hits.append(hit)
    warnings = [plan.warning] if plan.warning else []
    if plan.index == "like" and floor > 0:
        warnings.append(
            "This store has no usable trigram index (SQLite older than 3.34), so this search "
            f"only looked at the newest {LIKE_SCAN_ROWS:,} messages."
        )
    if not exhausted and len(hits) < limit:
        warnings.append(
            f"Only the {MAX_BATCHES * BATCH:,} most recent matching messages were "
            "examined; add a term to narrow the search."
        )
    return Discovery(
        query=query,
        hits=tuple(hits),
        sessions_searched=len(chosen),
        index=plan.index,
        sort=sort,
        partial=bool(warnings),
        warning=" ".join(warnings) or None,
        reason=parsed.reason,
    )


def _rank(
    search: _Search,
    plan: Plan,
    seen: dict[str, _Choice],
    limit: int,
    sort: SortOrder,
    now: float,
    cancelled: Callable[[], bool] | None,
) -> tuple[dict[str, _Choice], bool, int]:
    """Fetch candidate batches until ``limit`` conversations are found or none are left.
    Returns (chosen per root, whether every match was seen, the LIKE scan floor)."""
    conn = search.conn
    where, params = _filters(search.caps, search.roles, search.include_archived)
    floor = 0
    if plan.index == "like":
        top = conn.execute("SELECT COALESCE(MAX(id), 0) FROM messages").fetchone()[0]
        floor = max(0, int(top) - LIKE_SCAN_ROWS)
    rows: list[Row] = []
    cursor: int | None = None
    chosen: dict[str, _Choice] = dict(seen)
    for _ in range(MAX_BATCHES):
        batch = _fetch(conn, plan, where, params, sort != "oldest", cursor, floor)
        rows.extend(batch)
        exhausted = len(batch) < BATCH
        ranked = order(_candidates(rows, plan), now, sort)
        chosen = search.select(ranked, seen, limit)
        if exhausted or len(chosen) >= limit:
            return chosen, exhausted, floor
        if cancelled is not None and cancelled():
            raise Cancelled()
        cursor = batch[-1][0]
    return chosen, False, floor
