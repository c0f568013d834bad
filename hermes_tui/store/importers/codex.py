"""Codex CLI rollouts (``~/.codex/sessions/**/rollout-*.jsonl``) → a Transcript.

``response_item`` records are the conversation (``event_msg`` copies of prompts and
answers are ignored unless a file has no response-item messages at all). Assistant text,
reasoning and tool calls up to the next tool output or user prompt form one assistant
row; outputs follow as ``tool`` rows. Injected context parts, developer/system messages,
rolled-back turns and a sub-agent's replay of its parent's history are skipped and
counted (TRANSCRIPT_FORMATS.md §2.3–2.5).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..titles import derive_title
from .codex_records import CodexRecord, read_rollout, subagent_parent, uuid_from_name
from .transcript import (
    CODEX,
    Row,
    Transcript,
    cap_output,
    close_dangling_calls,
    fill_times,
    function_call,
    parse_time,
    string,
    unique_keys,
)

_INJECTED_PART = re.compile(
    r"^\s*(<(environment_context|user_instructions|INSTRUCTIONS|permissions[ _-]instructions|"
    r"recommended_plugins|skills_instructions|turn_aborted|user_shell_command|"
    r"subagent_notification|turn_context)\b|# AGENTS\.md instructions for )"
)
_CALLS = {
    "function_call": None,
    "custom_tool_call": None,
    "local_shell_call": "local_shell",
    "web_search_call": "web_search",
    "tool_search_call": "tool_search",
    "image_generation_call": "image_generation",
}
_OUTPUTS = frozenset({"function_call_output", "custom_tool_call_output", "tool_search_output"})
_ANY_TEXT = ("input_text", "output_text", "text")
# Server-side tools with no output item: their result row is written with the call.
_SELF_ANSWERED = frozenset({"web_search_call", "image_generation_call"})


def _texts(content: Any, kinds: tuple[str, ...]) -> list[str]:
    if isinstance(content, str):
        return [content]
    parts: list[str] = []
    for part in content if isinstance(content, list) else []:
        if not isinstance(part, dict):
            continue
        if part.get("type") in kinds and isinstance(part.get("text"), str):
            parts.append(part["text"])
        elif "image" in str(part.get("type")):
            parts.append("[image]")
    return parts


def output_text(output: Any) -> str:
    """A tool output as text: plain, ``{"output", "metadata": {exit_code}}``, ``{content,
    success}`` or a list of content items."""
    if isinstance(output, str):
        try:
            decoded = json.loads(output) if output.lstrip().startswith("{") else None
        except ValueError:
            decoded = None
        if isinstance(decoded, dict) and "output" in decoded:
            output = decoded
        else:
            return cap_output(output)
    if isinstance(output, dict):
        text = output.get("output", output.get("content", ""))
        text = text if isinstance(text, str) else "\n".join(_texts(text, _ANY_TEXT))
        meta = output.get("metadata") if isinstance(output.get("metadata"), dict) else {}
        if meta.get("exit_code") is not None:
            text += f"\n[exit code: {meta['exit_code']}]"
        return cap_output(text)
    return cap_output("\n".join(_texts(output, _ANY_TEXT)))


@dataclass(slots=True)
class _Turn:
    key: str
    timestamp: float | None
    text: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)
    answers: list[Row] = field(default_factory=list)


class _Builder:
    def __init__(self, t: Transcript, fallback: bool) -> None:
        self.t = t
        self.fallback = fallback  # no response-item messages: use event_msg copies
        self.turn: _Turn | None = None
        self.call_names: dict[str, str] = {}
        self.last_usage: tuple[Any, ...] | None = None

    def _open(self, record: CodexRecord) -> _Turn:
        if self.turn is None:
            self.turn = _Turn(key=f"a:{record.key}", timestamp=record.timestamp)
        return self.turn

    def flush(self) -> None:
        turn, self.turn = self.turn, None
        if turn is None:
            return
        if not (turn.text or turn.calls or turn.reasoning):
            return
        self.t.rows.append(
            Row(
                key=turn.key,
                role="assistant",
                timestamp=turn.timestamp,
                content="\n\n".join(turn.text) or None,
                tool_calls=tuple(turn.calls),
                reasoning="\n\n".join(turn.reasoning) or None,
            )
        )
        self.t.rows.extend(turn.answers)

    def user(self, record: CodexRecord, parts: list[str]) -> None:
        kept = [p for p in parts if p.strip() and not _INJECTED_PART.match(p)]
        if len(kept) < len(parts):
            self.t.skipped["injected context (environment, instructions)"] += 1
        if not kept:
            return
        self.flush()
        self.t.rows.append(
            Row(
                key=f"u:{record.key}",
                role="user",
                timestamp=record.timestamp,
                content="\n\n".join(kept).strip(),
            )
        )

    def assistant_text(self, record: CodexRecord, parts: list[str]) -> None:
        kept = [p.strip() for p in parts if p.strip()]
        if kept:
            self._open(record).text.extend(kept)

    def reasoning(self, record: CodexRecord, payload: dict[str, Any]) -> None:
        # Only readable summaries/content; encrypted_content is never decoded or shown.
        parts = _texts(payload.get("summary"), ("summary_text",))
        parts += _texts(payload.get("content"), ("reasoning_text", "text"))
        kept = [p.strip() for p in parts if p.strip()]
        if kept:
            self._open(record).reasoning.extend(kept)

    def call(self, record: CodexRecord, kind: str, payload: dict[str, Any]) -> None:
        call_id = str(payload.get("call_id") or payload.get("id") or f"call_{record.key}")
        name = _CALLS[kind] or str(payload.get("name") or "tool")
        if kind == "custom_tool_call":
            arguments: Any = json.dumps({"input": payload.get("input")}, ensure_ascii=False)
        elif kind in ("local_shell_call", "web_search_call"):
            arguments = payload.get("action") or {}
        else:
            arguments = payload.get("arguments", "{}")
        turn = self._open(record)
        turn.calls.append(function_call(call_id, name, arguments))
        self.call_names[call_id] = name
        if kind in _SELF_ANSWERED:
            status = payload.get("status") or "done"
            turn.answers.append(
                Row(
                    key=f"t:{call_id}",
                    role="tool",
                    timestamp=record.timestamp,
                    content=f"[{name.replace('_', ' ')}: {status}]",
                    tool_call_id=call_id,
                    tool_name=name,
                )
            )

    def output(self, record: CodexRecord, payload: dict[str, Any]) -> None:
        call_id = str(payload.get("call_id") or "")
        self.flush()
        self.t.rows.append(
            Row(
                key=f"t:{call_id}",
                role="tool",
                timestamp=record.timestamp,
                content=output_text(payload.get("output")),
                tool_call_id=call_id,
                tool_name=self.call_names.get(call_id),
            )
        )

    def rollback(self, turns: int) -> None:
        self.flush()
        users = [i for i, row in enumerate(self.t.rows) if row.role == "user"]
        if turns < 1 or not users:
            return
        cut = users[-min(turns, len(users))]
        self.t.skipped["rolled back by the user (thread_rolled_back)"] += len(self.t.rows) - cut
        del self.t.rows[cut:]

    def response_item(self, record: CodexRecord) -> None:
        payload = record.payload
        kind = str(payload.get("type"))
        role = payload.get("role")
        if kind == "message" and role == "user":
            self.user(record, _texts(payload.get("content"), _ANY_TEXT))
        elif kind == "message" and role == "assistant":
            self.assistant_text(record, _texts(payload.get("content"), _ANY_TEXT))
        elif kind == "message":
            self.t.skipped[f"{role or 'unknown'}-role message (not part of the chat)"] += 1
        elif kind == "reasoning":
            self.reasoning(record, payload)
        elif kind in _CALLS:
            self.call(record, kind, payload)
        elif kind in _OUTPUTS:
            self.output(record, payload)
        else:
            self.t.skipped[f"response_item/{kind}"] += 1

    def event(self, record: CodexRecord) -> None:
        payload = record.payload
        kind = str(payload.get("type"))
        message = payload.get("message")
        if kind == "token_count":
            self.usage(payload.get("info"))
        elif kind == "thread_rolled_back":
            self.rollback(_int(payload.get("num_turns")))
        elif kind == "thread_name_updated" and string(payload.get("thread_name")):
            self.t.title = payload["thread_name"]
        elif self.fallback and kind == "user_message" and isinstance(message, str):
            self.user(record, [message])
        elif self.fallback and kind == "agent_message" and isinstance(message, str):
            self.assistant_text(record, [message])
        elif self.fallback and kind == "agent_reasoning" and isinstance(payload.get("text"), str):
            self._open(record).reasoning.append(payload["text"])
        elif kind in ("user_message", "agent_message", "agent_reasoning"):
            self.t.skipped[f"event_msg/{kind} (copy of a response item)"] += 1
        else:
            self.t.skipped[f"event_msg/{kind}"] += 1

    def usage(self, info: Any) -> None:
        total = info.get("total_token_usage") if isinstance(info, dict) else None
        if not isinstance(total, dict):
            return
        usage = self.t.usage
        snapshot = (total.get("input_tokens"), total.get("output_tokens"))
        if snapshot == self.last_usage:
            return  # a repeated snapshot is not another request
        self.last_usage = snapshot
        cached = _int(total.get("cached_input_tokens"))
        usage.input_tokens = max(0, _int(total.get("input_tokens")) - cached)
        usage.cache_read_tokens = cached
        usage.output_tokens = _int(total.get("output_tokens"))
        usage.reasoning_tokens = _int(total.get("reasoning_output_tokens"))
        usage.api_calls += 1


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _replayed_prefix(records: list[CodexRecord], meta_at: float | None, spawn: str | None) -> int:
    """How many leading records (after session_meta) a sub-agent replays from its parent:
    up to its spawn call, else those older than the sub-agent's own start."""
    if spawn:
        for index, record in enumerate(records):
            if record.kind == "response_item" and record.payload.get("call_id") == spawn:
                return index + 1
    count = 0
    for record in records:
        if meta_at is None or record.timestamp is None or record.timestamp >= meta_at:
            break
        count += 1
    return count


def _meta_facts(t: Transcript, meta: dict[str, Any], path: Path) -> None:
    own = string(meta.get("id")) or string(meta.get("session_id"))
    t.foreign_id = own or uuid_from_name(path) or path.stem
    t.cwd = string(meta.get("cwd"))
    git = meta.get("git") if isinstance(meta.get("git"), dict) else {}
    t.git_branch = string(git.get("branch"))
    t.cli_version = string(meta.get("cli_version")) or string(meta.get("version"))
    t.model = string(meta.get("model"))
    for key in ("originator", "model_provider", "forked_from_id", "agent_nickname", "agent_role"):
        if isinstance(meta.get(key), str) and meta[key]:
            t.origin[key] = meta[key]


def parse_codex(path: Path, data: bytes, *, thread_name: str | None = None) -> Transcript:
    """Reconstruct one Codex rollout; *thread_name* comes from ``session_index.jsonl``."""
    records, problems = read_rollout(path, data)
    t = Transcript(tool=CODEX, path=path, foreign_id=path.stem)
    t.problems.extend(problems)
    metas = [r for r in records if r.kind == "session_meta"]
    meta = metas[0].payload if metas else {}
    _meta_facts(t, meta, path)
    is_sub, parent, spawn = subagent_parent(meta)
    t.parent_foreign_id = parent
    if is_sub and parent is None:
        t.origin["subagent_without_parent"] = True
    body = [r for r in records if r.kind != "session_meta"]
    t.skipped["session_meta"] += len(metas)
    if is_sub:
        replayed = _replayed_prefix(body, metas[0].timestamp if metas else None, spawn)
        t.skipped["replayed parent history (sub-agent)"] += replayed
        body = body[replayed:]
    fallback = not any(
        r.kind == "response_item"
        and r.payload.get("type") == "message"
        and r.payload.get("role") in ("user", "assistant")
        for r in body
    )
    builder = _Builder(t, fallback)
    for record in body:
        if record.kind == "response_item":
            builder.response_item(record)
        elif record.kind == "event_msg":
            builder.event(record)
        elif record.kind == "turn_context":
            t.model = string(record.payload.get("model")) or t.model
            t.cwd = t.cwd or string(record.payload.get("cwd"))
            t.skipped["turn_context"] += 1
        elif record.kind == "compacted":
            t.skipped["compaction summary (history before it is imported)"] += 1
        elif record.kind == "state":
            t.skipped["state record"] += 1
        else:
            t.skipped[f"unknown record type: {record.kind}"] += 1
    builder.flush()
    times = [r.timestamp for r in records if r.timestamp is not None]
    t.started_at = parse_time(meta.get("timestamp")) or min(times, default=None)
    t.ended_at = max(times, default=t.started_at)
    rows = close_dangling_calls(t.rows, t.skipped)
    t.rows = fill_times(unique_keys(rows), t.started_at)
    t.last_record = records[-1].key if records else None
    t.title = thread_name or t.title
    if t.title is None:
        t.title = derive_title(next((r.content for r in t.rows if r.role == "user"), None))
    t.origin["branch_policy"] = "file-order"
    return t
