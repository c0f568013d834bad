"""Claude Code transcripts → rows: the shared fixtures' expected counts (SOURCES.md) and
the reconstruction edge cases of TRANSCRIPT_FORMATS.md §1.4–1.5."""

from __future__ import annotations

import json
from pathlib import Path

from hermes_tui.store.importers.claude import parse_claude
from hermes_tui.store.importers.claude_dag import live_records
from hermes_tui.store.importers.transcript import read_jsonl
from tests.importing import (
    HEAVY,
    KV_CLAUDE,
    SHORT,
    SUBAGENT,
    cassistant,
    cuser,
    jsonl,
    tally,
    text,
    tool_result,
    tool_use,
)


def parse(path: Path, **kw):
    return parse_claude(path, path.read_bytes(), **kw)


def assert_results_follow_calls(rows) -> None:
    """Every tool row answers a call of the assistant row before its run of tool rows."""
    calls: set[str] = set()
    for row in rows:
        if row.role == "assistant":
            calls = {c["id"] for c in row.tool_calls}
        elif row.role == "tool":
            assert row.tool_call_id in calls, row
        else:
            calls = set()


def test_short_fixture_counts_and_parallel_calls() -> None:
    t = parse(SHORT)
    assert tally(t.rows) == {"user": 1, "assistant": 1, "tool_calls": 2, "tool": 2, "thinking": 1}
    user, assistant, *results = t.rows
    assert user.content == "mix phx.server doesnt seem to start"
    assert [c["function"]["name"] for c in assistant.tool_calls] == ["Bash", "Glob"]
    assert all(c["type"] == "function" for c in assistant.tool_calls)
    assert json.loads(assistant.tool_calls[0]["function"]["arguments"])  # a JSON object string
    assert assistant.content.startswith("Let me check the project structure")
    assert [r.tool_name for r in results] == ["Bash", "Glob"]
    assert all(r.content.startswith("Error: The user doesn't want to proceed") for r in results)
    assert_results_follow_calls(t.rows)
    # Nothing dropped: no abandoned branch, the marker and wrappers counted by reason.
    assert "abandoned branch (rewind)" not in t.skipped
    assert t.skipped["interrupt marker"] == 1
    assert t.skipped["progress/hook_progress"] == 3
    assert (t.model, t.cwd, t.git_branch) == (
        "claude-opus-4-6",
        "/home/marco/projects/spotter",
        "master",
    )
    assert t.title == "mix phx.server doesnt seem to start"
    assert t.usage.api_calls == 1 and t.usage.output_tokens > 0


def test_naive_leaf_walk_would_lose_a_parallel_call() -> None:
    records, _ = read_jsonl(SHORT.read_bytes(), SHORT)
    by_uuid = {r["uuid"]: r for _, r in records if r.get("uuid")}
    chain: set[str] = set()
    node = next(r for _, r in reversed(records) if r["type"] in ("user", "assistant"))
    while node is not None:
        chain.add(node["uuid"])
        node = by_uuid.get(node.get("parentUuid"))
    # The Bash result hangs off the Bash call, not off the chain that reaches the leaf.
    bash_result = next(
        r for _, r in records if r["type"] == "user" and "tool_result" in json.dumps(r["message"])
    )
    assert bash_result["uuid"] not in chain
    live = live_records(records)
    assert any(records[i][1]["uuid"] == bash_result["uuid"] for i in live.indices)


def test_tool_heavy_fixture_counts() -> None:
    t = parse(HEAVY)
    assert tally(t.rows) == {"user": 2, "assistant": 4, "tool_calls": 6, "tool": 6, "thinking": 1}
    prompts = [r.content for r in t.rows if r.role == "user"]
    assert prompts[0] == "start phoenix in background"
    assert prompts[1].startswith("scrolling back in xterm.js still does not work")
    records, _ = read_jsonl(HEAVY.read_bytes(), HEAVY)
    conversational = [i for i, (_, r) in enumerate(records) if r["type"] in ("user", "assistant")]
    assert len(conversational) == 22
    assert sorted(live_records(records).indices) == conversational  # all 22 lines live
    # The split message (Read → its result → WebFetch → its result) is one assistant row.
    split = next(
        r for r in t.rows if [c["function"]["name"] for c in r.tool_calls] == ["Read", "WebFetch"]
    )
    index = t.rows.index(split)
    assert [r.tool_name for r in t.rows[index + 1 : index + 3]] == ["Read", "WebFetch"]
    assert_results_follow_calls(t.rows)
    assert t.skipped["injected context (isMeta)"] == 1
    assert t.skipped["slash command or local command output"] == 2
    assert t.skipped["interrupt marker"] == 2
    assert t.skipped["queue-operation"] == 2
    assert t.usage.api_calls == 4


def test_subagent_fixture_counts() -> None:
    t = parse(SUBAGENT, subagent=True)
    assert tally(t.rows) == {"user": 1, "assistant": 3, "tool_calls": 12, "tool": 12, "thinking": 0}
    assert t.parent_foreign_id == "ae4a77f8-aedd-4bc1-888f-c94edc91af04"
    assert t.foreign_id == "ae4a77f8-aedd-4bc1-888f-c94edc91af04/agent-aac57f5"
    assert t.model == "claude-sonnet-4-5-20250929"
    assert t.rows[0].content.startswith("Search hex.pm for the latest versions")
    assert_results_follow_calls(t.rows)


def test_newest_vocabulary_fixture() -> None:
    t = parse(KV_CLAUDE)
    assert tally(t.rows) == {"user": 1, "assistant": 1, "tool_calls": 0, "tool": 0, "thinking": 0}
    assert t.model == "claude-opus-4-7"
    assert t.git_branch is None  # "HEAD" (detached) is not a branch
    assert t.skipped["last-prompt"] == 1 and t.skipped["queue-operation"] == 2


def test_rewound_branch_is_dropped(tmp_path: Path) -> None:
    records = [
        cuser("u1", None, "first question", 1),
        cassistant("a1", "u1", "m1", [text("first answer")], 2),
        cuser("u2", "a1", "abandoned follow-up", 3),
        cassistant("a2", "u2", "m2", [text("abandoned answer")], 4),
        cuser("u3", "a1", "edited follow-up", 5),
        cassistant("a3", "u3", "m3", [text("final answer")], 6),
    ]
    path = tmp_path / "s.jsonl"
    t = parse_claude(path, jsonl(records))
    assert [r.content for r in t.rows] == [
        "first question",
        "first answer",
        "edited follow-up",
        "final answer",
    ]
    assert t.skipped["abandoned branch (rewind)"] == 2


def compaction(logical: str) -> list[dict]:
    return [
        cuser("u1", None, "before compaction", 1),
        cassistant("a1", "u1", "m1", [text("old answer")], 2),
        {
            "type": "system",
            "subtype": "compact_boundary",
            "uuid": "b1",
            "parentUuid": None,
            "logicalParentUuid": logical,
            "timestamp": "2026-03-01T10:00:03.000Z",
        },
        cuser(
            "c1",
            "b1",
            "This session is being continued from a previous conversation that ran out of context.",
            4,
            isCompactSummary=True,
        ),
        cuser("u2", "c1", "after compaction", 5),
        cassistant("a2", "u2", "m2", [text("new answer")], 6),
    ]


def test_compaction_is_crossed(tmp_path: Path) -> None:
    for logical in ("a1", "dangling-uuid"):
        t = parse_claude(tmp_path / "c.jsonl", jsonl(compaction(logical)))
        assert [r.content for r in t.rows] == [
            "before compaction",
            "old answer",
            "after compaction",
            "new answer",
        ], logical
        assert t.skipped["compaction summary (history before it is imported)"] == 1


def test_injected_synthetic_images_and_unknown_records(tmp_path: Path) -> None:
    image = {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "A" * 4096},
    }
    records = [
        {"type": "future-record-type", "uuid": "x0", "parentUuid": None},
        cuser(
            "m0", "x0", "<local-command-caveat>Caveat: ...</local-command-caveat>", 1, isMeta=True
        ),
        cuser("c0", "m0", "<command-name>/clear</command-name>", 2),
        cuser("u1", "c0", [text("look at this"), image], 3),
        cassistant("a1", "u1", "m1", [text("\n\n"), {"type": "redacted_thinking", "data": "x"}], 4),
        cassistant("a2", "a1", "m1", [text("I see a picture.")], 5),
        cuser("i1", "a2", [text("[Request interrupted by user]")], 6),
        cassistant("s1", "i1", "m9", [text("API Error: overloaded")], 7, model="<synthetic>"),
        {"type": "assistant", "uuid": "s2", "parentUuid": "s1", "message": "not an object"},
        cuser("u2", "s2", "thanks", 8),
    ]
    t = parse_claude(tmp_path / "x.jsonl", jsonl(records))
    assert [(r.role, r.content) for r in t.rows] == [
        ("user", "look at this\n[image: image/png, 3 KB]"),
        ("assistant", "I see a picture."),
        ("user", "thanks"),
    ]
    assert t.skipped["future-record-type"] == 1
    assert t.skipped["conversational record without a message"] == 1
    assert t.skipped["injected context (isMeta)"] == 1
    assert t.skipped["slash command or local command output"] == 1
    assert t.skipped["interrupt marker"] == 1
    assert t.skipped["redacted thinking block"] == 1
    assert t.skipped["synthetic assistant notice (API error, not model output)"] == 1
    assert "A" * 100 not in json.dumps([r.content for r in t.rows])  # no inline image bytes


def test_truncated_last_line_and_malformed_middle_line(tmp_path: Path) -> None:
    lines = SHORT.read_bytes().split(b"\n")
    truncated = b"\n".join(lines[:12]) + b"\n" + lines[12][:40]  # line 13 cut mid-write
    t = parse_claude(tmp_path / "t.jsonl", truncated)
    assert tally(t.rows)["tool"] == 2
    [problem] = t.problems
    assert problem.line == 13 and "incomplete last line" in problem.message
    broken = b"\n".join([*lines[:4], b'{"type": "user", "broken', *lines[4:]])
    path = tmp_path / "m.jsonl"
    t = parse_claude(path, broken)
    assert tally(t.rows) == {"user": 1, "assistant": 1, "tool_calls": 2, "tool": 2, "thinking": 1}
    [problem] = t.problems
    assert str(problem) == f"{path}:5: not valid JSON — line skipped"


def test_titles_from_the_transcript(tmp_path: Path) -> None:
    base = [
        cuser("u1", None, "Please fix the login bug", 1),
        cassistant("a1", "u1", "m1", [text("ok")], 2),
    ]
    t = parse_claude(tmp_path / "a.jsonl", jsonl(base))
    assert t.title == "Please fix the login bug"
    foreign_summary = {"type": "summary", "summary": "Another session", "leafUuid": "elsewhere"}
    t = parse_claude(tmp_path / "a.jsonl", jsonl([foreign_summary, *base]))
    assert t.title == "Please fix the login bug"  # the summary belongs to another file
    own = {"type": "summary", "summary": "Login bug", "leafUuid": "a1"}
    t = parse_claude(tmp_path / "a.jsonl", jsonl([own, *base]))
    assert t.title == "Login bug"
    named = [
        *base,
        {"type": "ai-title", "aiTitle": "AI name", "sessionId": "s-1"},
        {"type": "custom-title", "customTitle": "My name", "sessionId": "s-1"},
    ]
    assert parse_claude(tmp_path / "a.jsonl", jsonl(named)).title == "My name"


def test_broken_chain_falls_back_to_file_order(tmp_path: Path) -> None:
    records = [
        cuser("u1", None, "one", 1),
        cassistant("a1", None, "m1", [text("two")], 2),
        cuser("u2", None, "three", 3),
        cassistant("a2", None, "m2", [text("four")], 4),
    ]
    t = parse_claude(tmp_path / "old.jsonl", jsonl(records))
    assert [r.content for r in t.rows] == ["one", "two", "three", "four"]
    assert "file order" in t.problems[0].message


def test_unanswered_call_gets_a_placeholder_before_the_next_prompt(tmp_path: Path) -> None:
    records = [
        cuser("u1", None, "run it", 1),
        cassistant("a1", "u1", "m1", [tool_use("call_1", command="ls")], 2),
        cuser("u2", "a1", "never mind", 3),
        cassistant("a2", "u2", "m2", [tool_use("call_2", command="pwd")], 4),
        cuser("r2", "a2", tool_result("call_2", [text("/tmp")], is_error=False), 5),
        cuser("r9", "r2", tool_result("call_unknown"), 6),
    ]
    t = parse_claude(tmp_path / "p.jsonl", jsonl(records))
    assert [(r.role, r.content) for r in t.rows] == [
        ("user", "run it"),
        ("assistant", None),
        ("tool", "[no result recorded]"),
        ("user", "never mind"),
        ("assistant", None),
        ("tool", "/tmp"),
    ]
    assert t.skipped["tool result without its call"] == 1
