"""The tools the model is offered: ``session_search`` (Hermes' schema) and how a call runs.

A call runs the store's search engine with the caller's own conversation excluded, as
Hermes hides the current lineage. Results are JSON strings, exactly what is stored in the
``role='tool'`` row and sent back to the model. Anything wrong with a call — an unknown
tool, arguments that are not a JSON object — becomes a JSON error result the model can
read and correct, never an exception.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..store import Store
from ..store.search import session_search
from .sse import ToolCall

SESSION_SEARCH = "session_search"
_ARGUMENTS = ("query", "limit", "sort", "role_filter", "session_id", "around_message_id", "window")

SESSION_SEARCH_SCHEMA: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": SESSION_SEARCH,
        "description": (
            "Search and read the user's earlier conversations (full text, exact messages). "
            "The shape follows the arguments: query → discovery (the best-matching "
            "conversations, each with its opening messages, ±5 messages around the hit and "
            "its closing messages); session_id + around_message_id → scroll a window of "
            "that conversation (pass messages[-1].id to go forward, messages[0].id to go "
            "back); session_id alone → read that conversation; no arguments → the most "
            "recent conversations. The current conversation is never included."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "description": (
                        'FTS5 query: keywords (AND), "exact phrase", OR, NOT, prefix*.'
                    ),
                },
                "limit": {
                    "type": "integer",
                    "description": "How many conversations to return (default 3, max 10).",
                },
                "sort": {
                    "type": "string",
                    "enum": ["newest", "oldest"],
                    "description": "Order relevant hits by time; omit for relevance.",
                },
                "session_id": {
                    "type": "string",
                    "description": "A conversation to read or scroll (from a result).",
                },
                "around_message_id": {
                    "type": "integer",
                    "description": "With session_id: the message to centre a window on.",
                },
                "window": {
                    "type": "integer",
                    "description": "Scroll: messages on each side (default 5, max 20).",
                },
                "role_filter": {
                    "type": "string",
                    "description": (
                        "Comma-separated roles to search (default 'user,assistant'; add "
                        "'tool' to search tool output)."
                    ),
                },
            },
            "required": [],
        },
    },
}

TOOLS: tuple[dict[str, Any], ...] = (SESSION_SEARCH_SCHEMA,)


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    content: str
    ok: bool


def _error(text: str) -> ToolOutcome:
    return ToolOutcome(json.dumps({"success": False, "error": text}), ok=False)


def run_tool(
    store: Store,
    call: ToolCall,
    session_id: str | None,
    cancelled: Callable[[], bool] | None = None,
) -> ToolOutcome:
    """Execute one call. Raises only :class:`~hermes_tui.store.Cancelled`."""
    if call.name != SESSION_SEARCH:
        return _error(f"Unknown tool '{call.name}'. The only tool is {SESSION_SEARCH}.")
    try:
        arguments = json.loads(call.arguments) if call.arguments.strip() else {}
    except ValueError:
        return _error(f"The arguments are not valid JSON: {call.arguments[:200]}")
    if not isinstance(arguments, dict):
        return _error("The arguments must be a JSON object.")
    known = {key: arguments[key] for key in _ARGUMENTS if key in arguments}
    result = session_search(store, **known, exclude_lineage_of=session_id, cancelled=cancelled)
    return ToolOutcome(json.dumps(result, ensure_ascii=False), ok=bool(result.get("success")))


def stopped_result() -> str:
    """The result stored for a call the user stopped before it ran."""
    return json.dumps({"success": False, "error": "Not run: the user stopped the reply."})
