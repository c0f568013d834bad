"""/compress: summary, lineage continuation (parent, end reason, #N), and resuming by name."""

from __future__ import annotations

from pathlib import Path

from hermes_tui.chat import Conversation, SessionSwitched, commands
from hermes_tui.chat.compress import COMPACTION_HEAD, extractive_summary
from hermes_tui.store import Store, get_messages, get_session, resolve_reference
from hermes_tui.store.models import Message
from hermes_tui.store.text import real_user_text

from ..conftest import SessionMaker
from ..fakemodel import FakeModel, status, text
from .conftest import MakeConversation, model_config


def chat(conversation: Conversation, fake: FakeModel, *turns: tuple[str, str]) -> None:
    for asked, answered in turns:
        fake.push(text(answered))
        assert conversation.send(asked).ok


def test_compress_continues_in_a_numbered_lineage_continuation(
    store: Store, fake: FakeModel, conversation: Conversation
) -> None:
    conversation.set_title("my project")
    chat(
        conversation,
        fake,
        ("Set up the CI pipeline for the API", "Added a GitHub Actions workflow."),
        ("Now cache the dependencies", "Cached pip downloads between runs."),
    )
    old = conversation.session_id
    fake.push(text("The user is setting up CI; a workflow exists and caches pip. Next: tests."))
    result = commands.run(conversation, commands.parse("/compress"))

    assert isinstance(result.action, SessionSwitched) and result.level == "info"
    new = result.action.session_id
    assert result.action == SessionSwitched(new, old, "compression")
    assert conversation.session_id == new and conversation.title == "my project #2"
    parent, child = get_session(store, old), get_session(store, new)
    assert parent.end_reason == "compression" and parent.ended_at is not None
    assert parent.title == "my project" and parent.message_count == 4
    assert child.parent_session_id == old and child.title == "my project #2"
    assert child.source == "tui" and child.ended_at is None
    rows = get_messages(store, new)
    assert [m.role for m in rows] == ["user", "assistant"]
    assert rows[0].content.startswith(COMPACTION_HEAD)
    assert "workflow exists and caches pip" in rows[0].content
    assert real_user_text(rows[0].content) is None  # injected, never a title or preview
    assert rows[1].content == "Cached pip downloads between runs."
    assert child.message_count == 2
    # The summary request saw the conversation and asked for a summary, without tools.
    summary_request = fake.requests[-1]
    assert "tools" not in summary_request
    assert summary_request["messages"][-1]["content"].startswith("Summarise the conversation")
    # `hermes -c "my project"` lands on the continuation.
    assert resolve_reference(store, "my project", follow_tip=True) == new
    assert resolve_reference(store, old, follow_tip=True) == new

    fake.push(text("Adding tests next."))
    conversation.send("Go on")
    sent = [m["content"] for m in fake.requests[-1]["messages"][1:]]
    assert sent[0].startswith(COMPACTION_HEAD) and sent[-1] == "Go on"
    assert not any("Set up the CI pipeline" in c for c in sent)  # only the tip's own rows


def test_a_second_compress_numbers_three(
    store: Store, fake: FakeModel, conversation: Conversation
) -> None:
    conversation.set_title("my project")
    chat(conversation, fake, ("one", "uno"))
    fake.push(text("summary one"))
    conversation.compress()
    chat(conversation, fake, ("two", "dos"))
    fake.push(text("summary two"))
    done = conversation.compress()
    assert done.title == "my project #3"
    assert resolve_reference(store, "my project", follow_tip=True) == done.new_id


def test_without_a_model_the_summary_is_extracted(
    store: Store, make_session: SessionMaker, home: Path, tmp_path: Path
) -> None:
    sid = make_session(
        "cli",
        ended=False,
        messages=[
            ("user", "Migrate the blog from Jekyll to Hugo"),
            ("assistant", "Converted the layouts."),
            ("user", "Keep the old URLs working"),
            ("assistant", "Added aliases for every post."),
        ],
    )
    config = model_config(None, default=None)
    conversation = Conversation.resume(store, config, sid, home=home, env={}, cwd=tmp_path)
    result = commands.run(conversation, commands.parse("/compress"))
    assert "extractive summary" in result.text
    new = conversation.session_id
    summary = get_messages(store, new)[0].content
    assert "Goal: Migrate the blog from Jekyll to Hugo" in summary
    assert "- Keep the old URLs working" in summary
    assert "Added aliases for every post." in summary
    assert get_session(store, new).title is None  # an untitled conversation stays untitled
    assert get_session(store, sid).end_reason == "compression"


def test_a_failing_model_falls_back_to_the_extractive_summary(
    store: Store, fake: FakeModel, make_conversation: MakeConversation
) -> None:
    conversation = make_conversation(model_config(fake.url, max_retries=0))
    chat(conversation, fake, ("Write the changelog", "Done: 3 entries."))
    fake.push(status(500, "down"))
    done = conversation.compress()
    assert done.source == "extractive"
    assert "Goal: Write the changelog" in done.summary


def test_nothing_to_compress_is_a_clear_message(
    fake: FakeModel, conversation: Conversation, store: Store
) -> None:
    result = commands.run(conversation, commands.parse("/compress"))
    assert result.level == "error" and "send a message first" in result.text
    fake.push(text("hi"))
    conversation.send("hello")
    result = commands.run(conversation, commands.parse("/compress"))
    assert result.level == "info"


def test_extractive_summary_mentions_tools_and_earlier_summary() -> None:
    def m(i: int, role: str, content: str, **kw: object) -> Message:
        return Message(i, "s", role, content, float(i), **kw)  # type: ignore[arg-type]

    rows = [
        m(1, "user", f"{COMPACTION_HEAD}\n\nGoal: build the thing"),
        m(2, "user", "What did we decide last time?"),
        m(
            3,
            "assistant",
            "",
            tool_calls=({"id": "c", "function": {"name": "session_search", "arguments": "{}"}},),
        ),
        m(4, "tool", "{}", tool_name="session_search", tool_call_id="c"),
        m(5, "assistant", "We chose SQLite."),
    ]
    summary = extractive_summary(rows)
    assert "Before that: Goal: build the thing" in summary
    assert "Goal: What did we decide last time?" in summary
    assert "Tools used: session_search ×1" in summary
    assert summary.endswith("We chose SQLite.")
