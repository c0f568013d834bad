"""Which records of a Claude Code transcript belong to the live conversation.

``uuid``/``parentUuid`` form a DAG: rewinds ("edit and resend", ``/rewind``) leave
abandoned branches in the file, and parallel tool calls fork it without anything being
abandoned. The algorithm is TRANSCRIPT_FORMATS.md §1.4: walk back from the last
conversational record (crossing compaction boundaries), then repair the fork artefacts
(every line of a live API message, every tool result answering a live call).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

CONVERSATIONAL = frozenset({"user", "assistant"})
# Below this share of live conversational records, with no sign of a rewind, the DAG is
# more likely broken (old CLIs without parentUuid) than rewound: fall back to file order.
MIN_LIVE_SHARE = 0.5

Record = tuple[int, dict[str, Any]]


@dataclass(frozen=True, slots=True)
class LiveSet:
    indices: frozenset[int]
    fell_back: bool


def message_id(record: dict[str, Any]) -> str | None:
    message = record.get("message")
    value = message.get("id") if isinstance(message, dict) else None
    return value if isinstance(value, str) and value else None


def blocks(record: dict[str, Any]) -> list[dict[str, Any]]:
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):
        return [b for b in content if isinstance(b, dict)]
    return []


def tool_result_ids(record: dict[str, Any]) -> list[str] | None:
    """The tool_use ids a user line answers, if it holds only tool results; else None."""
    found = blocks(record)
    if not found or any(b.get("type") != "tool_result" for b in found):
        return None
    return [str(b.get("tool_use_id") or "") for b in found]


def tool_use_ids(record: dict[str, Any]) -> list[str]:
    return [
        str(b.get("id") or "")
        for b in blocks(record)
        if b.get("type") in ("tool_use", "server_tool_use")
    ]


def _is_typed_prompt(record: dict[str, Any]) -> bool:
    if record.get("type") != "user" or record.get("isMeta"):
        return False
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return True
    return any(b.get("type") == "text" for b in blocks(record))


def _rewound(records: list[Record], indices: list[int]) -> bool:
    """Evidence of a rewind: one parent with two typed user prompts as children."""
    children: Counter[str] = Counter()
    for i in indices:
        record = records[i][1]
        parent = record.get("parentUuid")
        if isinstance(parent, str) and _is_typed_prompt(record):
            children[parent] += 1
    return any(n > 1 for n in children.values())


def _walk(records: list[Record], by_uuid: dict[str, int], conv: list[int], leaf: int) -> set[int]:
    live: set[int] = set()
    current: int | None = leaf
    while current is not None and current not in live:
        live.add(current)
        record = records[current][1]
        parent = record.get("parentUuid")
        if parent is None and record.get("subtype") == "compact_boundary":
            logical = record.get("logicalParentUuid")
            if isinstance(logical, str) and logical in by_uuid:
                current = by_uuid[logical]
            else:
                # A dangling logical parent: continue at the last conversational record
                # before the boundary in file order.
                before = [i for i in conv if i < current]
                current = before[-1] if before else None
            continue
        current = by_uuid.get(parent) if isinstance(parent, str) else None
    return live


def _repair(records: list[Record], conv: list[int], live: set[int]) -> None:
    """Add split/parallel lines of live API messages and results of live calls."""
    changed = True
    while changed:
        changed = False
        live_messages = {message_id(records[i][1]) for i in live} - {None}
        live_calls = {c for i in live for c in tool_use_ids(records[i][1])}
        for i in conv:
            if i in live:
                continue
            record = records[i][1]
            answers = tool_result_ids(record) if record.get("type") == "user" else None
            if (record.get("type") == "assistant" and message_id(record) in live_messages) or (
                answers and all(a in live_calls for a in answers)
            ):
                live.add(i)
                changed = True


def live_records(records: list[Record]) -> LiveSet:
    """Indices (into *records*) of the live conversational records.

    A sub-agent file has only sidechain records; it is then reconstructed on its own.
    """
    by_uuid: dict[str, int] = {}
    for i, (_, record) in enumerate(records):
        uuid = record.get("uuid")
        if isinstance(uuid, str) and uuid not in by_uuid:
            by_uuid[uuid] = i  # the first occurrence wins (resumes replay history)
    conv_all = [i for i, (_, r) in enumerate(records) if r.get("type") in CONVERSATIONAL]
    conv = [i for i in conv_all if records[i][1].get("isSidechain") is not True] or conv_all
    if not conv:
        return LiveSet(frozenset(), False)
    live = _walk(records, by_uuid, conv, conv[-1])
    _repair(records, conv, live)
    live_conv = [i for i in conv if i in live]
    if len(live_conv) < MIN_LIVE_SHARE * len(conv) and not _rewound(records, conv):
        return LiveSet(frozenset(conv), True)
    return LiveSet(frozenset(live_conv), False)
