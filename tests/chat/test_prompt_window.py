"""What the model sees: the system prompt (notes, search guidance) and the window."""

from __future__ import annotations

import json
from pathlib import Path

from hermes_tui.chat import Conversation
from hermes_tui.chat.prompt import DEFAULT_PROMPT, SEARCH_GUIDANCE, build_system_prompt
from hermes_tui.chat.window import build_window, repair_tool_structure, shorten
from hermes_tui.config import Config
from hermes_tui.paths import memories_dir
from hermes_tui.store import Store
from hermes_tui.store.models import Message

from ..fakemodel import FakeModel
from .conftest import MakeConversation, model_config


def write_notes(home: Path, memory: str, user: str | None = None) -> None:
    folder = memories_dir(home)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "MEMORY.md").write_text(memory, encoding="utf-8")
    if user is not None:
        (folder / "USER.md").write_text(user, encoding="utf-8")


def test_the_default_prompt_carries_notes_and_search_guidance(home: Path) -> None:
    write_notes(home, "Project uses uv, not pip.", "Prefers short answers.")
    prompt = build_system_prompt(None, home, cwd=Path("/src/app"))
    assert prompt.startswith(DEFAULT_PROMPT)
    assert (
        '<memory file="MEMORY.md" about="your notes">\nProject uses uv, not pip.\n</memory>'
        in prompt
    )
    assert '<memory file="USER.md" about="about the user">\nPrefers short answers.' in prompt
    assert SEARCH_GUIDANCE in prompt
    for trigger in ("we did this before", "last time", "as I said", "before asking the user"):
        assert trigger in prompt
    assert "/src/app" in prompt


def test_a_configured_prompt_replaces_the_default_only(home: Path) -> None:
    prompt = build_system_prompt("You are a pirate.", home)
    assert prompt.startswith("You are a pirate.") and DEFAULT_PROMPT not in prompt
    assert SEARCH_GUIDANCE in prompt and "<memory" not in prompt


def test_notes_are_read_again_on_new(
    store: Store, fake: FakeModel, config: Config, home: Path, make_conversation: MakeConversation
) -> None:
    write_notes(home, "Deploys happen on Fridays.")
    conversation = make_conversation(config)
    conversation.send("hi")
    write_notes(home, "Deploys moved to Tuesdays.")
    conversation.send("again")  # same session: same prompt
    assert "Fridays" in fake.requests[-1]["messages"][0]["content"]
    conversation.start_new()
    conversation.send("fresh start")
    system = fake.requests[-1]["messages"][0]["content"]
    assert "Tuesdays" in system and "Fridays" not in system
    with store.read() as conn:
        snapshot = conn.execute(
            "SELECT system_prompt FROM sessions WHERE id = ?", (conversation.session_id,)
        ).fetchone()[0]
    assert snapshot == system


def test_a_resumed_session_keeps_its_snapshot(
    store: Store, fake: FakeModel, config: Config, home: Path, make_conversation: MakeConversation
) -> None:
    first = make_conversation(config)
    first.send("hello")
    write_notes(home, "Changed later.")
    again = Conversation.resume(store, config, first.session_id, home=home, env={})
    again.send("more")
    assert "Changed later." not in fake.requests[-1]["messages"][0]["content"]


def test_a_configured_system_prompt_is_sent(
    fake: FakeModel, make_conversation: MakeConversation
) -> None:
    conversation = make_conversation(model_config(fake.url, system_prompt="Answer in haiku."))
    conversation.send("hi")
    assert fake.requests[0]["messages"][0]["content"].startswith("Answer in haiku.")


def message(i: int, role: str, content: str | None = "", **extra: object) -> Message:
    return Message(i, "s", role, content, float(i), **extra)  # type: ignore[arg-type]


def call(call_id: str) -> dict:
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": "session_search", "arguments": "{}"},
    }


def test_tool_structure_is_repaired() -> None:
    messages = [
        {"role": "tool", "tool_call_id": "orphan", "content": "x"},
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": None, "tool_calls": [call("a"), call("b")]},
        {"role": "tool", "tool_call_id": "b", "content": "B"},
        {"role": "assistant", "content": "done"},
    ]
    repaired = repair_tool_structure(messages)
    assert [m["role"] for m in repaired] == ["user", "assistant", "tool", "tool", "assistant"]
    assert [m["tool_call_id"] for m in repaired[2:4]] == ["a", "b"]
    assert json.loads(repaired[2]["content"])["success"] is False
    assert repaired[3]["content"] == "B"


def test_broken_replies_are_kept_out_and_stopped_ones_marked() -> None:
    rows = [
        message(1, "user", "q1"),
        message(2, "assistant", "half", finish_reason="error"),
        message(3, "assistant", "still typing", finish_reason="incomplete"),
        message(4, "user", "q2"),
        message(5, "assistant", "partial", finish_reason="cancelled"),
        message(6, "system", "ignored"),
    ]
    window = build_window("SYS", rows, budget_tokens=10_000)
    assert [(m["role"], m["content"]) for m in window.messages] == [
        ("system", "SYS"),
        ("user", "q1"),
        ("user", "q2"),
        ("assistant", "partial\n[stopped by the user]"),
    ]


def test_tool_output_is_shortened_more_in_earlier_turns() -> None:
    big = "R" * 30_000
    rows = [
        message(1, "user", "q"),
        message(2, "assistant", "", tool_calls=(call("c"),)),
        message(3, "tool", big, tool_call_id="c", tool_name="session_search"),
        message(4, "assistant", "answer"),
        message(5, "user", "next"),
    ]
    earlier = build_window("S", rows, budget_tokens=100_000, current_from=5).messages[3]["content"]
    now = build_window("S", rows, budget_tokens=100_000, current_from=1).messages[3]["content"]
    assert len(earlier) < 2_200 < 16_000 < len(now) < 16_200
    assert "omitted here" in earlier and "omitted here" in now


def test_shorten_keeps_head_and_tail() -> None:
    cut = shorten("A" * 100 + "B" * 100, 60)
    assert cut.startswith("A" * 40) and cut.endswith("B" * 20)
    assert "140 characters omitted" in cut
    assert shorten("short", 60) == "short"
