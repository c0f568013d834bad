"""Codex CLI rollouts of every generation → rows: the shared fixtures' expected counts
(SOURCES.md) and the edge cases of TRANSCRIPT_FORMATS.md §2.3–2.5."""

from __future__ import annotations

import json
from pathlib import Path

from hermes_tui.store.importers.codex import output_text, parse_codex
from tests.importing import (
    CODEX_CHILD,
    CODEX_PARENT,
    KV_CODEX,
    LEGACY,
    MODERN,
    codex_message,
    envelope,
    jsonl,
    tally,
)


def parse(path: Path, **kw):
    return parse_codex(path, path.read_bytes(), **kw)


def test_real_exec_rollout_is_deduplicated() -> None:
    t = parse(KV_CODEX)
    assert tally(t.rows) == {"user": 1, "assistant": 1, "tool_calls": 0, "tool": 0, "thinking": 0}
    assert [r.content for r in t.rows] == ["[REDACTED_PROMPT]", "[REDACTED_ASSISTANT_TEXT]"]
    assert t.foreign_id == "019e9625-802f-7e91-840a-cfe88d14117a"
    assert t.model == "gpt-5.5" and t.cwd == "/tmp/agent-history-real-agent/codex/workspace"
    assert t.skipped["developer-role message (not part of the chat)"] == 1
    assert t.skipped["injected context (environment, instructions)"] == 1
    assert t.skipped["event_msg/user_message (copy of a response item)"] == 1
    # Cumulative totals; cached input is reported as cache reads, not as fresh input.
    usage = t.usage
    assert (usage.input_tokens, usage.cache_read_tokens, usage.output_tokens) == (1675, 20864, 10)
    assert usage.api_calls == 1


def test_modern_rollout_every_tool_family() -> None:
    t = parse(MODERN)
    counts = tally(t.rows)
    assert counts == {"user": 1, "assistant": 4, "tool_calls": 3, "tool": 3, "thinking": 1}
    assert sum(1 for r in t.rows if r.role == "assistant" and r.content) == 1  # final text
    assert t.rows[-1].content == "The synthetic files are alpha.txt and beta.txt."
    names = [c["function"]["name"] for r in t.rows for c in r.tool_calls]
    assert names == ["exec_command", "apply_patch", "mcp__synthetic__lookup"]
    patch = next(
        r for r in t.rows if r.tool_calls and r.tool_calls[0]["function"]["name"] == "apply_patch"
    )
    assert json.loads(patch.tool_calls[0]["function"]["arguments"])["input"].startswith(
        "*** Begin Patch"
    )
    assert [r.content for r in t.rows if r.role == "tool"] == [
        "./alpha.txt\n./beta.txt",
        "Done!",
        '{"status":"ok"}',
    ]
    assert t.rows[1].reasoning == "I will inspect the synthetic directory."
    assert "SYNTHETIC_ENCRYPTED_CONTENT_MUST_NOT_RENDER" not in repr(t.rows)
    assert t.skipped["unknown record type: future_synthetic_record"] == 1
    assert t.model == "synthetic-model"


def test_legacy_flat_rollout() -> None:
    t = parse(LEGACY)
    assert [(r.role, r.content) for r in t.rows] == [
        ("user", "Open the synthetic legacy session."),
        ("assistant", "The synthetic legacy session is open."),
    ]
    assert t.foreign_id == "44444444-4444-4444-8444-444444444444"
    assert t.started_at == 1767503167.0  # the bare header's timestamp
    assert all(r.timestamp == t.started_at for r in t.rows)  # items carry no time


def test_subagent_pair() -> None:
    parent = parse(CODEX_PARENT)
    assert tally(parent.rows) == {
        "user": 1,
        "assistant": 1,
        "tool_calls": 1,
        "tool": 1,
        "thinking": 0,
    }
    assert parent.rows[0].content == "Spawn a synthetic researcher."  # event_msg fallback
    assert not parent.is_subagent
    child = parse(CODEX_CHILD)
    assert child.parent_foreign_id == "22222222-2222-4222-8222-222222222222"
    assert [(r.role, r.content, r.tool_calls) for r in child.rows] == [
        ("user", "Inspect fixtures.", ()),
        ("assistant", "The fixtures are fully synthetic.", ()),
    ]
    assert child.skipped["replayed parent history (sub-agent)"] == 2


def test_typescript_era_json_rollout(tmp_path: Path) -> None:
    doc = {
        "session": {
            "timestamp": "2025-04-20T08:00:00.000Z",
            "id": "aaaaaaaa-1111-4111-8111-aaaaaaaaaaaa",
            "instructions": "system prompt, never a message",
            "model": "o4-mini",
        },
        "items": [
            codex_message("user", "What is in this folder?"),
            {
                "type": "function_call",
                "name": "shell",
                "arguments": '{"command":["ls"]}',
                "call_id": "c1",
            },
            {
                "type": "function_call_output",
                "call_id": "c1",
                "output": json.dumps({"output": "a.txt\n", "metadata": {"exit_code": 0}}),
            },
            codex_message("assistant", "Just a.txt."),
        ],
    }
    path = tmp_path / "rollout-2025-04-20-aaaaaaaa-1111-4111-8111-aaaaaaaaaaaa.json"
    t = parse_codex(path, json.dumps(doc, indent=2).encode())
    assert tally(t.rows) == {"user": 1, "assistant": 2, "tool_calls": 1, "tool": 1, "thinking": 0}
    assert t.rows[2].content == "a.txt\n\n[exit code: 0]"
    assert t.model == "o4-mini" and t.foreign_id == "aaaaaaaa-1111-4111-8111-aaaaaaaaaaaa"
    assert "system prompt" not in repr(t.rows)


def test_early_rust_rollout_with_state_lines(tmp_path: Path) -> None:
    lines = [
        {
            "id": "bbbbbbbb-2222-4222-8222-bbbbbbbbbbbb",
            "timestamp": "2025-07-01T09:00:00Z",
            "instructions": "x",
            "git": {"branch": "feature/x", "commit_hash": "abc"},
        },
        {"record_type": "state"},
        codex_message("user", "hello"),
        {
            "type": "local_shell_call",
            "call_id": "s1",
            "status": "completed",
            "action": {"type": "exec", "command": ["echo", "hi"]},
        },
        {"type": "function_call_output", "call_id": "s1", "output": "hi"},
        codex_message("assistant", "done"),
    ]
    t = parse_codex(tmp_path / "rollout-x.jsonl", jsonl(lines))
    assert [r.role for r in t.rows] == ["user", "assistant", "tool", "assistant"]
    assert t.rows[1].tool_calls[0]["function"]["name"] == "local_shell"
    assert json.loads(t.rows[1].tool_calls[0]["function"]["arguments"])["command"] == ["echo", "hi"]
    assert t.git_branch == "feature/x" and t.skipped["state record"] == 1


def test_rollback_injected_parts_placeholders_and_orphans(tmp_path: Path) -> None:
    meta = {
        "id": "cccccccc-3333-4333-8333-cccccccccccc",
        "timestamp": "2026-03-01T10:00:00Z",
        "cwd": "/w",
        "source": "cli",
    }
    lines = [
        envelope("session_meta", meta, 0),
        envelope(
            "response_item",
            codex_message(
                "user",
                "# AGENTS.md instructions for /w\n...",
                "<environment_context>x</environment_context>",
                "first prompt",
            ),
            1,
        ),
        envelope("response_item", codex_message("assistant", "first answer"), 2),
        envelope("response_item", codex_message("user", "second prompt"), 3),
        envelope(
            "response_item",
            {"type": "function_call", "name": "f", "arguments": "{}", "call_id": "lost"},
            4,
        ),
        envelope("event_msg", {"type": "thread_rolled_back", "num_turns": 1}, 5),
        envelope("response_item", codex_message("user", "third prompt"), 6),
        envelope(
            "response_item",
            {"type": "function_call", "name": "g", "arguments": "{}", "call_id": "unanswered"},
            7,
        ),
        envelope(
            "response_item",
            {
                "type": "web_search_call",
                "status": "completed",
                "action": {"type": "search", "query": "q"},
            },
            8,
        ),
        envelope("response_item", codex_message("user", "fourth prompt"), 9),
        envelope(
            "response_item",
            {"type": "function_call_output", "call_id": "nobody", "output": "orphan"},
            10,
        ),
    ]
    t = parse_codex(tmp_path / "rollout-y.jsonl", jsonl(lines))
    assert [(r.role, r.content) for r in t.rows] == [
        ("user", "first prompt"),
        ("assistant", "first answer"),
        ("user", "third prompt"),
        ("assistant", None),
        ("tool", "[web search: completed]"),
        ("tool", "[no result recorded]"),
        ("user", "fourth prompt"),
    ]
    assert t.skipped["rolled back by the user (thread_rolled_back)"] == 2
    assert t.skipped["tool result without its call"] == 1
    assert t.rows[0].key != t.rows[2].key


def test_output_shapes() -> None:
    assert output_text("plain") == "plain"
    assert output_text({"content": "x", "success": True}) == "x"
    assert (
        output_text([{"type": "output_text", "text": "a"}, {"type": "input_image"}]) == "a\n[image]"
    )
    encoded = json.dumps({"output": "boom", "metadata": {"exit_code": 2}})
    assert output_text(encoded) == "boom\n[exit code: 2]"
    assert output_text('{"status":"ok"}') == '{"status":"ok"}'
    assert output_text("x" * 300_000).endswith("100,000 more characters not imported]")


def test_thread_name_wins_over_derived_title() -> None:
    assert parse(MODERN).title == "List the synthetic files"
    assert parse(MODERN, thread_name="Synthetic listing").title == "Synthetic listing"
