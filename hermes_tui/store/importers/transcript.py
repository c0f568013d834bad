"""What a parsed foreign transcript becomes before it is written: rows, metadata, skips.

Both parsers (Claude Code, Codex CLI) produce a :class:`Transcript`; the writer turns it
into one session row and its message rows. Nothing here touches the database.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

CLAUDE = "claude-code"
CODEX = "codex-cli"
TOOLS = (CLAUDE, CODEX)

# Very large tool output is cut (with a note) so one transcript cannot bloat the store.
MAX_TOOL_OUTPUT = 200_000
NO_RESULT = "[no result recorded]"


@dataclass(frozen=True, slots=True)
class Problem:
    """A line that could not be used (file and 1-based line number), or a warning."""

    path: str
    line: int | None
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.message}"


@dataclass(frozen=True, slots=True)
class Row:
    """One message row to be. ``key`` is the stable id of the foreign record(s) it comes
    from; it goes into ``messages.platform_message_id`` so a re-import recognises it."""

    key: str
    role: str
    timestamp: float | None
    content: str | None = None
    tool_calls: tuple[dict[str, Any], ...] = ()
    tool_call_id: str | None = None
    tool_name: str | None = None
    reasoning: str | None = None
    finish_reason: str | None = None


@dataclass(slots=True)
class Usage:
    """Token totals of the foreign session (the writer stores them absolutely)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0
    api_calls: int = 0

    def as_dict(self) -> dict[str, int]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_read_tokens": self.cache_read_tokens,
            "cache_write_tokens": self.cache_write_tokens,
            "reasoning_tokens": self.reasoning_tokens,
            "api_calls": self.api_calls,
        }


@dataclass(slots=True)
class Transcript:
    """One foreign session, reconstructed."""

    tool: str
    path: Path
    foreign_id: str
    rows: list[Row] = field(default_factory=list)
    started_at: float | None = None
    ended_at: float | None = None
    model: str | None = None
    cwd: str | None = None
    git_branch: str | None = None
    git_repo_root: str | None = None
    title: str | None = None
    cli_version: str | None = None
    usage: Usage = field(default_factory=Usage)
    parent_foreign_id: str | None = None
    last_record: str | None = None
    origin: dict[str, Any] = field(default_factory=dict)
    skipped: Counter[str] = field(default_factory=Counter)
    problems: list[Problem] = field(default_factory=list)
    content_sha256: str = ""
    byte_size: int = 0

    @property
    def is_subagent(self) -> bool:
        return self.parent_foreign_id is not None


def string(value: Any) -> str | None:
    """*value* if it is a non-blank string: foreign fields of other types are ignored."""
    return value if isinstance(value, str) and value.strip() else None


def parse_time(value: Any) -> float | None:
    """ISO-8601 (``Z`` or an offset) or epoch seconds/ms → epoch seconds; naive → UTC."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return float(value) / 1000.0 if value > 1e11 else float(value)
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip().replace("Z", "+00:00").replace("z", "+00:00")
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def read_jsonl(data: bytes, path: Path) -> tuple[list[tuple[int, dict[str, Any]]], list[Problem]]:
    """Objects of a JSONL file with their 1-based line numbers.

    Blank lines are ignored; a line that is not a JSON object is reported and skipped; an
    unterminated last line that does not parse is a file still being written (noted, so
    a later import picks it up once complete).
    """
    text = data.decode("utf-8-sig", errors="replace")
    lines = text.split("\n")
    complete = text.endswith("\n")
    records: list[tuple[int, dict[str, Any]]] = []
    problems: list[Problem] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError:
            last = number == len(lines) and not complete
            message = (
                "incomplete last line (the file is still being written?) — skipped"
                if last
                else "not valid JSON — line skipped"
            )
            problems.append(Problem(str(path), number, message))
            continue
        if not isinstance(value, dict) or not isinstance(value.get("type", ""), str):
            problems.append(Problem(str(path), number, "not a transcript record — line skipped"))
            continue
        records.append((number, value))
    return records, problems


def function_call(call_id: str, name: str, arguments: Any) -> dict[str, Any]:
    """A tool call in the OpenAI shape Hermes stores; *arguments* becomes a JSON string."""
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments, ensure_ascii=False)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def cap_output(text: str) -> str:
    if len(text) <= MAX_TOOL_OUTPUT:
        return text
    cut = len(text) - MAX_TOOL_OUTPUT
    return f"{text[:MAX_TOOL_OUTPUT]}\n[… {cut:,} more characters not imported]"


def close_dangling_calls(rows: list[Row], skipped: Counter[str]) -> list[Row]:
    """Make the rows valid tool-calling history: a call never answered before the next
    user/assistant row gets a ``[no result recorded]`` result (calls still open at the end
    are left alone: the file may still be growing); a result with no earlier call is
    dropped (counted)."""
    out: list[Row] = []
    pending: dict[str, str] = {}
    known: set[str] = set()

    def close() -> None:
        for call_id, name in pending.items():
            out.append(
                Row(
                    key=f"t:{call_id}",
                    role="tool",
                    timestamp=out[-1].timestamp if out else None,
                    content=NO_RESULT,
                    tool_call_id=call_id,
                    tool_name=name,
                )
            )
            skipped["tool call without a result (placeholder result added)"] += 1
        pending.clear()

    for row in rows:
        if row.role == "tool":
            if row.tool_call_id not in known:
                skipped["tool result without its call"] += 1
                continue
            pending.pop(row.tool_call_id or "", None)
            out.append(row)
            continue
        close()
        out.append(row)
        for call in row.tool_calls:
            call_id = str(call.get("id") or "")
            if call_id and call_id not in known:
                known.add(call_id)
                pending[call_id] = str(call.get("function", {}).get("name") or "tool")
    return out


def unique_keys(rows: list[Row]) -> list[Row]:
    """Keys must be unique within a session; a repeated one gets ``#2``, ``#3`` …"""
    seen: Counter[str] = Counter()
    out: list[Row] = []
    for row in rows:
        seen[row.key] += 1
        if seen[row.key] > 1:
            row = replace(row, key=f"{row.key}#{seen[row.key]}")
        out.append(row)
    return out


def fill_times(rows: list[Row], start: float | None) -> list[Row]:
    """Rows without a time take the previous row's (the first: the session start)."""
    out: list[Row] = []
    last = start
    for row in rows:
        if row.timestamp is None:
            row = replace(row, timestamp=last)
        last = row.timestamp
        out.append(row)
    return out
