"""The JSON the ``session_search`` tool returns, field for field as Hermes Agent 0.19
(HERMES_AGENT_BEHAVIOUR.md §5). Additions only where Hermes has nothing to say: a
``warning`` (Hermes' own key) when a search was bounded and may be partial."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..models import Message, SessionRow
from .models import Discovery, Hit, ScrollView, SessionMeta, SessionRead

JSON = dict[str, Any]
READ_HINT = (
    "Session has {n} messages; showing first {head} + last {tail}. "
    "Pass around_message_id (any id above) to scroll the middle."
)


def error(text: str) -> JSON:
    return {"success": False, "error": text}


def message(m: Message, anchor_id: int | None = None) -> JSON:
    """Hermes' ``_shape_message``: nulls dropped, ``content`` always present."""
    entry: JSON = {"id": m.id, "role": m.role, "content": m.content, "timestamp": m.timestamp}
    if m.tool_name:
        entry["tool_name"] = m.tool_name
    if m.tool_calls:
        entry["tool_calls"] = [dict(call) for call in m.tool_calls]
    if m.tool_call_id:
        entry["tool_call_id"] = m.tool_call_id
    if anchor_id is not None and m.id == anchor_id:
        entry["anchor"] = True
    return entry


def messages(items: Sequence[Message], anchor_id: int | None = None) -> list[JSON]:
    return [message(m, anchor_id) for m in items]


def session_meta(meta: SessionMeta) -> JSON:
    return {"when": meta.when, "source": meta.source, "model": meta.model, "title": meta.title}


def hit(h: Hit) -> JSON:
    entry: JSON = {
        "session_id": h.session_id,
        "when": h.root.when,
        "source": h.root.source,
        "model": h.root.model or "unknown",
        "title": h.root.title or None,
        "matched_role": h.matched_role,
        "match_message_id": h.match_message_id,
        "snippet": h.snippet_text,
        "bookend_start": messages(h.bookend_start),
        "messages": messages(h.window.messages, h.match_message_id),
        "bookend_end": messages(h.bookend_end),
        "messages_before": h.window.messages_before,
        "messages_after": h.window.messages_after,
    }
    if h.parent_session_id:
        entry["parent_session_id"] = h.parent_session_id
    return entry


def discovery(d: Discovery) -> JSON:
    out: JSON = {"success": True, "mode": "discover", "query": d.query}
    out["results"] = [hit(h) for h in d.hits]
    out["count"] = len(d.hits)
    if d.hits:
        out["sessions_searched"] = d.sessions_searched
    else:
        out["message"] = d.reason or "No matching sessions found."
    if d.warning:
        out["warning"] = d.warning
    return out


def scroll(view: ScrollView) -> JSON:
    out: JSON = {
        "success": True,
        "mode": "scroll",
        "session_id": view.window.session_id,
        "around_message_id": view.window.anchor_id,
        "session_meta": session_meta(view.meta),
        "window": view.window.width,
        "messages": messages(view.window.messages, view.window.anchor_id),
        "messages_before": view.window.messages_before,
        "messages_after": view.window.messages_after,
    }
    if view.warning:
        out["warning"] = view.warning
    return out


def read(r: SessionRead) -> JSON:
    out: JSON = {
        "success": True,
        "mode": "read",
        "session_id": r.meta.session_id,
        "session_meta": session_meta(r.meta),
        "message_count": r.message_count,
        "truncated": r.truncated,
        "messages": messages(r.messages),
    }
    if r.truncated:
        out["message"] = READ_HINT.format(n=r.message_count, head=len(r.head), tail=len(r.tail))
    return out


def browse(rows: Sequence[SessionRow]) -> JSON:
    results = [
        {
            "session_id": row.id,
            "title": row.title or None,
            "source": row.source,
            "started_at": row.started_at,
            "last_active": row.last_active,
            "message_count": row.message_count,
            "preview": row.preview,
        }
        for row in rows
    ]
    return {
        "success": True,
        "mode": "browse",
        "results": results,
        "count": len(results),
        "message": (
            f"Showing {len(results)} most recent sessions. Pass a query= to search, "
            "or session_id+around_message_id to scroll."
        ),
    }
