"""What the model sees each turn: the system prompt and the conversation window.

The window is this session's live rows (a compression continuation sends only its own
rows: its first message is the summary of what came before). Rows become API messages;
very long text is shortened *in the prompt only* — the store keeps every byte:

* tool outputs: 16,000 characters in the current turn, 2,000 in earlier ones;
* user messages (pasted logs, attached documents): 24,000 in the current turn, 6,000
  earlier, and earlier ``<attachment>`` blocks 1,500;

then the oldest exchanges are dropped until the estimate fits ``model.context_budget``
(minus room for the reply). The tool-call structure the API insists on is repaired: every
assistant ``tool_calls`` entry is followed by one result per call, and no result is orphaned.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..store.models import Message
from .attachments import ATTACHMENT_BLOCK

API = dict[str, Any]
TOOL_LIMIT_NOW, TOOL_LIMIT_BEFORE = 16_000, 2_000
USER_LIMIT_NOW, USER_LIMIT_BEFORE = 24_000, 6_000
ATTACHMENT_LIMIT_BEFORE = 1_500
IMAGE_TOKENS = 1_000
BROKEN = frozenset({"error", "incomplete"})  # fragments of a failed reply: kept, not re-sent
MISSING_RESULT = json.dumps({"success": False, "error": "No result was recorded for this call."})


@dataclass(frozen=True)
class PromptWindow:
    messages: list[API]
    omitted: int  # stored messages left out to fit the budget
    estimated_tokens: int


def shorten(text: str, limit: int) -> str:
    """Head and tail of *text* around a note saying how much was left out."""
    if len(text) <= limit:
        return text
    head = (limit * 2) // 3
    tail = limit - head
    left_out = len(text) - head - tail
    note = f"\n[… {left_out} characters omitted here; the full text is in the session store …]\n"
    return text[:head] + note + text[-tail:]


def _shorten_attachments(text: str) -> str:
    return ATTACHMENT_BLOCK.sub(
        lambda m: m.group(1) + shorten(m.group(2), ATTACHMENT_LIMIT_BEFORE) + m.group(3), text
    )


def estimate_tokens(messages: Sequence[API]) -> int:
    """About four characters a token, plus a little per message and per image."""
    total = 0
    for message in messages:
        content = message.get("content")
        if isinstance(content, list):
            for part in content:
                text = part.get("text") if isinstance(part, dict) else None
                total += len(text) // 4 if isinstance(text, str) else IMAGE_TOKENS
        elif isinstance(content, str):
            total += len(content) // 4
        if message.get("tool_calls"):
            total += len(json.dumps(message["tool_calls"])) // 4
        total += 4
    return total


def _calls(message: Message) -> list[API]:
    calls: list[API] = []
    for number, call in enumerate(message.tool_calls):
        function = call.get("function") if isinstance(call.get("function"), dict) else {}
        arguments = function.get("arguments", "{}")
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments, ensure_ascii=False)
        calls.append(
            {
                "id": str(call.get("id") or f"call_{message.id}_{number}"),
                "type": "function",
                "function": {
                    "name": str(function.get("name") or "unknown"),
                    "arguments": arguments,
                },
            }
        )
    return calls


def _convert(message: Message, current: bool) -> API | None:
    text = message.content or ""
    if message.role == "user":
        if not current:
            text = _shorten_attachments(text)
        return {
            "role": "user",
            "content": shorten(text, USER_LIMIT_NOW if current else USER_LIMIT_BEFORE),
        }
    if message.role == "assistant":
        calls = _calls(message)
        if message.finish_reason in BROKEN and not calls:
            return None
        if message.finish_reason == "cancelled":
            text = (text + "\n[stopped by the user]").lstrip()
        entry: API = {"role": "assistant", "content": text or None}
        if calls:
            entry["tool_calls"] = calls
        elif not text:
            return None
        return entry
    if message.role == "tool":
        limit = TOOL_LIMIT_NOW if current else TOOL_LIMIT_BEFORE
        return {
            "role": "tool",
            "tool_call_id": message.tool_call_id or "",
            "content": shorten(text, limit),
        }
    return None  # stored system rows: the system prompt is ours


def repair_tool_structure(messages: Sequence[API]) -> list[API]:
    """Each assistant tool call answered exactly once, right after it; orphans dropped."""
    out: list[API] = []
    index = 0
    while index < len(messages):
        message = messages[index]
        index += 1
        if message["role"] == "tool":
            continue  # a result whose call is not in the window
        out.append(message)
        if message["role"] != "assistant" or not message.get("tool_calls"):
            continue
        results: dict[str, API] = {}
        while index < len(messages) and messages[index]["role"] == "tool":
            results.setdefault(messages[index]["tool_call_id"], messages[index])
            index += 1
        for call in message["tool_calls"]:
            found = results.get(call["id"])
            out.append(
                found or {"role": "tool", "tool_call_id": call["id"], "content": MISSING_RESULT}
            )
    return out


def _groups(messages: list[API]) -> list[list[API]]:
    """Exchanges: each starts at a user message (tool results never split from their call)."""
    groups: list[list[API]] = []
    for message in messages:
        if message["role"] == "user" or not groups:
            groups.append([])
        groups[-1].append(message)
    return groups


def build_window(
    system_prompt: str,
    rows: Sequence[Message],
    *,
    budget_tokens: int,
    current_from: int | None = None,
    images: dict[int, list[API]] | None = None,
) -> PromptWindow:
    """The messages to send. Rows with id ≥ *current_from* are this turn's; *images* maps a
    user message id to the image parts sent with it (this turn only)."""
    converted: list[API] = []
    for row in rows:
        current = current_from is not None and row.id >= current_from
        entry = _convert(row, current)
        if entry is None:
            continue
        if images and row.id in images and entry["role"] == "user":
            entry["content"] = [{"type": "text", "text": entry["content"]}, *images[row.id]]
        converted.append(entry)
    converted = repair_tool_structure(converted)
    system = {"role": "system", "content": system_prompt}
    reserve = min(4_096, budget_tokens // 4)
    available = budget_tokens - reserve - estimate_tokens([system])
    groups = _groups(converted)
    sizes = [estimate_tokens(group) for group in groups]
    dropped = 0
    while len(groups) > 1 and sum(sizes) > available:
        dropped += len(groups[0])
        groups.pop(0)
        sizes.pop(0)
    messages = [system] + [m for group in groups for m in group]
    return PromptWindow(messages, dropped, estimate_tokens(messages))
