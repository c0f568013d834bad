"""Helpers for the importer tests: the shared transcript fixtures, folder layouts like
~/.claude/projects and ~/.codex/sessions built from them, and synthetic records."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures" / "transcripts"
CLAUDE_FX = FIXTURES / "claude"
CODEX_FX = FIXTURES / "codex"

SHORT = CLAUDE_FX / "spotter-short.jsonl"
HEAVY = CLAUDE_FX / "spotter-tool-heavy.jsonl"
KV_CLAUDE = CLAUDE_FX / "kvsankar-real-claude-2.1.152.jsonl"
PARENT_UUID = "ae4a77f8-aedd-4bc1-888f-c94edc91af04"
SUBAGENT = CLAUDE_FX / "spotter-subagent" / PARENT_UUID / "subagents" / "agent-aac57f5.jsonl"

KV_CODEX = CODEX_FX / "kvsankar-real-codex-exec-0.135.0.jsonl"
MODERN = next((CODEX_FX / "claude-code-log-modern").rglob("rollout-*.jsonl"))
LEGACY = next((CODEX_FX / "claude-code-log-legacy-flat").rglob("rollout-*.jsonl"))
CODEX_PARENT = next((CODEX_FX / "claude-code-log-subagent").rglob("*22222222*.jsonl"))
CODEX_CHILD = next((CODEX_FX / "claude-code-log-subagent").rglob("*33333333*.jsonl"))

SHORT_ID = "55604662-cf2a-4331-851a-ec234028f8ca"
HEAVY_ID = "d6e0bada-1959-4eec-a9d2-0bfade768d8f"
SLUG = "-home-marco-projects-spotter"


def tally(rows: Iterable[Any]) -> dict[str, int]:
    """User prompts, assistant messages, tool calls, tool results, thinking blocks."""
    rows = list(rows)
    return {
        "user": sum(r.role == "user" for r in rows),
        "assistant": sum(r.role == "assistant" for r in rows),
        "tool_calls": sum(len(r.tool_calls) for r in rows),
        "tool": sum(r.role == "tool" for r in rows),
        "thinking": sum(bool(r.reasoning) for r in rows),
    }


def claude_layout(root: Path, *, subagent: bool = True) -> Path:
    """``<root>/projects/<slug>/<session>.jsonl`` (+ ``<session>/subagents/agent-*.jsonl``)."""
    project = root / "projects" / SLUG
    project.mkdir(parents=True, exist_ok=True)
    shutil.copy(SHORT, project / f"{SHORT_ID}.jsonl")
    shutil.copy(HEAVY, project / f"{HEAVY_ID}.jsonl")
    shutil.copy(KV_CLAUDE, root / "projects" / "kv.jsonl")
    if subagent:
        claude_parent(project)
        target = project / PARENT_UUID / "subagents"
        target.mkdir(parents=True, exist_ok=True)
        shutil.copy(SUBAGENT, target / SUBAGENT.name)
        (target / "journal.jsonl").write_text('{"type":"started"}\n')
    (root / "history.jsonl").write_text('{"display":"not a transcript"}\n')
    return root


def codex_layout(root: Path) -> Path:
    """``<root>/sessions/YYYY/MM/DD/rollout-*.jsonl`` plus a legacy flat rollout."""
    sessions = root / "sessions"
    for source in (CODEX_FX / "claude-code-log-modern", CODEX_FX / "claude-code-log-subagent"):
        shutil.copytree(source / "sessions", sessions, dirs_exist_ok=True)
    shutil.copy(LEGACY, sessions / LEGACY.name)
    day = sessions / "2026" / "06" / "05"
    day.mkdir(parents=True)
    shutil.copy(
        KV_CODEX, day / "rollout-2026-06-05T04-58-20-019e9625-802f-7e91-840a-cfe88d14117a.jsonl"
    )
    return root


def jsonl(records: Iterable[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in records).encode()


def stamp(second: int) -> str:
    return f"2026-03-01T10:{second // 60:02d}:{second % 60:02d}.000Z"


def cuser(uuid: str, parent: str | None, content: Any, second: int, **extra: Any) -> dict:
    return {
        "type": "user",
        "uuid": uuid,
        "parentUuid": parent,
        "sessionId": "s-1",
        "cwd": "/work/project",
        "gitBranch": "main",
        "timestamp": stamp(second),
        "message": {"role": "user", "content": content},
        **extra,
    }


def cassistant(
    uuid: str, parent: str | None, mid: str, blocks: list, second: int, **extra: Any
) -> dict:
    return {
        "type": "assistant",
        "uuid": uuid,
        "parentUuid": parent,
        "sessionId": "s-1",
        "cwd": "/work/project",
        "timestamp": stamp(second),
        "message": {
            "id": mid,
            "role": "assistant",
            "model": extra.pop("model", "claude-test"),
            "content": blocks,
            "usage": {"input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 100},
        },
        **extra,
    }


def text(value: str) -> dict:
    return {"type": "text", "text": value}


def tool_use(call_id: str, name: str = "Bash", **arguments: Any) -> dict:
    return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}


def tool_result(call_id: str, content: Any = "ok", **extra: Any) -> list[dict]:
    return [{"type": "tool_result", "tool_use_id": call_id, "content": content, **extra}]


def envelope(kind: str, payload: dict[str, Any], second: int) -> dict:
    return {"timestamp": stamp(second), "type": kind, "payload": payload}


def codex_message(role: str, *texts: str) -> dict:
    kind = "output_text" if role == "assistant" else "input_text"
    return {"type": "message", "role": role, "content": [{"type": kind, "text": t} for t in texts]}


def claude_parent(project: Path) -> Path:
    """A small main transcript for the sub-agent fixture's parent session."""
    own = {"sessionId": PARENT_UUID}
    records = [
        cuser("p1", None, "check the otel versions", 1, **own),
        cassistant("p2", "p1", "pm1", [tool_use("task_1", "Task", prompt="look it up")], 2, **own),
        cuser("p3", "p2", tool_result("task_1", "done"), 3, **own),
        cassistant("p4", "p3", "pm2", [text("All versions found.")], 4, **own),
    ]
    path = project / f"{PARENT_UUID}.jsonl"
    path.write_bytes(jsonl(records))
    return path
