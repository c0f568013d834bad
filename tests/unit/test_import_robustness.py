"""Transcript files are undocumented and drift between releases: whatever a record
holds, the parsers skip what they do not understand and never raise."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from hermes_tui.store.importers.claude import parse_claude
from hermes_tui.store.importers.codex import parse_codex

scalars = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8)
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=12,
)
KEYS = (
    "type uuid parentUuid message content role id tool_use_id name input text thinking "
    "timestamp isMeta isSidechain payload call_id output arguments summary subtype "
    "logicalParentUuid source usage model stop_reason cwd sessionId gitBranch"
).split()
TYPES = (
    "user assistant system progress summary text tool_use tool_result thinking image "
    "session_meta response_item event_msg turn_context message function_call "
    "function_call_output custom_tool_call reasoning token_count thread_rolled_back "
    "user_message agent_message compacted custom-title"
).split()
records = st.recursive(
    st.fixed_dictionaries({}, optional={k: values for k in KEYS}),
    lambda inner: st.fixed_dictionaries(
        {"type": st.sampled_from(TYPES)},
        optional={
            "uuid": st.sampled_from(["a", "b", "c"]),
            "parentUuid": st.sampled_from(["a", "b", "c", None]),
            "message": inner | st.fixed_dictionaries({"content": st.lists(inner, max_size=3)}),
            "payload": inner,
            "content": st.lists(inner, max_size=3) | values,
            "id": st.sampled_from(["m1", "m2"]),
            "role": st.sampled_from(["user", "assistant", "developer"]),
        },
    ),
    max_leaves=8,
)


@settings(max_examples=150, deadline=None)
@given(st.lists(records, max_size=8))
def test_parsers_never_raise_and_yield_storable_values(lines: list[dict]) -> None:
    data = "".join(json.dumps(r) + "\n" for r in lines).encode()
    parsed = [parse_claude(Path("x.jsonl"), data, subagent=sub) for sub in (False, True)]
    parsed.append(parse_codex(Path("rollout-x.jsonl"), data))
    for t in parsed:
        for name in ("foreign_id", "model", "cwd", "git_branch", "title", "cli_version"):
            assert getattr(t, name) is None or isinstance(getattr(t, name), str), name
        assert len({row.key for row in t.rows}) == len(t.rows)
        for row in t.rows:
            assert row.role in ("user", "assistant", "tool")
            for name in ("content", "tool_call_id", "tool_name", "reasoning", "finish_reason"):
                assert getattr(row, name) is None or isinstance(getattr(row, name), str), name
            assert row.timestamp is None or isinstance(row.timestamp, float)
            json.dumps(list(row.tool_calls))
