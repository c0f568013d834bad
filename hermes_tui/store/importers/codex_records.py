"""Codex CLI rollout files of every generation, normalised to one record stream.

* TypeScript era: one JSON object ``{session: {...}, items: [ResponseItem, ...]}``.
* Early Rust: JSONL whose first line is a bare header ``{id, timestamp, ...}``, then bare
  ResponseItems, plus ``{"record_type": "state"}`` lines.
* Current: JSONL envelopes ``{timestamp, type, payload}``.

Each becomes ``CodexRecord(kind, payload, timestamp, key)`` where *kind* is the envelope
type (``session_meta``, ``response_item``, ``event_msg``, ...). TRANSCRIPT_FORMATS.md §2.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .transcript import Problem, parse_time, read_jsonl

_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


@dataclass(frozen=True, slots=True)
class CodexRecord:
    kind: str
    payload: dict[str, Any]
    timestamp: float | None
    key: str  # where it came from: "L<line>" (JSONL) or "i<index>" (TS-era items)


def uuid_from_name(path: Path) -> str | None:
    """The thread uuid at the end of ``rollout-<timestamp>-<uuid>.jsonl``."""
    found = _UUID.findall(path.stem)
    return found[-1] if found else None


def _whole_json(data: bytes) -> dict[str, Any] | None:
    text = data.decode("utf-8-sig", errors="replace").strip()
    if not text.startswith("{"):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    if isinstance(value, dict) and isinstance(value.get("items"), list):
        return value
    return None


def _typescript_era(doc: dict[str, Any]) -> list[CodexRecord]:
    session = doc.get("session") if isinstance(doc.get("session"), dict) else {}
    when = parse_time(session.get("timestamp"))
    records = [CodexRecord("session_meta", dict(session), when, "i0")]
    for index, item in enumerate(doc["items"], start=1):
        if isinstance(item, dict):
            records.append(CodexRecord("response_item", item, None, f"i{index}"))
    return records


def _from_line(number: int, value: dict[str, Any], first: bool) -> CodexRecord | None:
    key = f"L{number}"
    payload = value.get("payload")
    if isinstance(payload, dict) and isinstance(value.get("type"), str):
        return CodexRecord(value["type"], payload, parse_time(value.get("timestamp")), key)
    if "record_type" in value:
        return CodexRecord("state", value, None, key)
    if first and "type" not in value and ("id" in value or "session_id" in value):
        return CodexRecord("session_meta", value, parse_time(value.get("timestamp")), key)
    if isinstance(value.get("type"), str):
        return CodexRecord("response_item", value, parse_time(value.get("timestamp")), key)
    return CodexRecord("unknown", value, None, key)


def read_rollout(path: Path, data: bytes) -> tuple[list[CodexRecord], list[Problem]]:
    """The file's records in order, whatever its generation; bad lines are reported."""
    doc = _whole_json(data)
    if doc is not None:
        return _typescript_era(doc), []
    lines, problems = read_jsonl(data, path)
    records = [
        record
        for index, (number, value) in enumerate(lines)
        if (record := _from_line(number, value, index == 0)) is not None
    ]
    return records, problems


def subagent_parent(meta: dict[str, Any]) -> tuple[bool, str | None, str | None]:
    """(is a sub-agent, parent thread id, spawn call id) from ``session_meta.source``."""
    source = meta.get("source")
    if not isinstance(source, dict) or "subagent" not in source:
        return False, None, None
    sub = source.get("subagent")
    spawn = sub.get("thread_spawn") if isinstance(sub, dict) else None
    if not isinstance(spawn, dict):
        return True, None, None
    parent = spawn.get("parent_thread_id")
    call = spawn.get("spawn_call_id")
    return True, str(parent) if parent else None, str(call) if call else None


def peek_meta(path: Path, first_line: bytes) -> dict[str, Any]:
    """The session_meta payload from a file's first line (for discovery), or {}."""
    try:
        value = json.loads(first_line.decode("utf-8-sig", errors="replace"))
    except ValueError:
        return {}
    if not isinstance(value, dict):
        return {}
    if value.get("type") == "session_meta" and isinstance(value.get("payload"), dict):
        return value["payload"]
    if isinstance(value.get("session"), dict):
        return value["session"]
    return value if "type" not in value else {}
