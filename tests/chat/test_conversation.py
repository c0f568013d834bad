"""A conversation against a real local model server: what is stored, counted and reported."""

from __future__ import annotations

import json
import re
import threading
import time
from pathlib import Path

import pytest

from hermes_tui.chat import (
    Conversation,
    ConversationBusy,
    MessageStored,
    Notice,
    Retrying,
    SessionCreated,
    SessionMoved,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    TurnDone,
    TurnError,
    UsageReported,
)
from hermes_tui.config import Config
from hermes_tui.store import Store, get_messages, get_session

from ..conftest import SessionMaker
from ..fakemodel import FakeModel, drop, status, text, tool_call
from .conftest import MakeConversation, Recorder, model_config


def session_count(store: Store) -> int:
    with store.read() as conn:
        return conn.execute("SELECT COUNT(*) FROM sessions").fetchone()[0]


def test_a_plain_streamed_reply_is_stored_with_hermes_counters(
    conversation: Conversation, fake: FakeModel, store: Store, recorder: Recorder
) -> None:
    usage = {
        "prompt_tokens": 120,
        "completion_tokens": 9,
        "prompt_tokens_details": {"cached_tokens": 20},
        "cost": 0.0015,
    }
    fake.push(text("Docker ", "compose ", "is ", "ready.", usage=usage))
    assert session_count(store) == 0
    result = conversation.send("How do I start the stack?", on_event=recorder)

    assert result.ok and result.text == "Docker compose is ready."
    assert [e.text for e in recorder.of(TextDelta)] == ["Docker ", "compose ", "is ", "ready."]
    sid = conversation.session_id
    assert sid is not None and re.fullmatch(r"\d{8}_\d{6}_[0-9a-f]{6}", sid)
    assert recorder.names()[:2] == ["SessionCreated", "MessageStored"]
    assert recorder.names()[-2:] == ["UsageReported", "TurnDone"]
    rows = get_messages(store, sid)
    assert [(m.role, m.content, m.finish_reason) for m in rows] == [
        ("user", "How do I start the stack?", None),
        ("assistant", "Docker compose is ready.", "stop"),
    ]
    assert [e.message_id for e in recorder.of(MessageStored)] == [m.id for m in rows]
    session = get_session(store, sid)
    assert session is not None
    assert (session.source, session.model, session.message_count) == ("tui", "fake/hermes-test", 2)
    assert (session.input_tokens, session.output_tokens, session.cache_read_tokens) == (100, 9, 20)
    assert session.api_call_count == 1 and session.tool_call_count == 0
    assert session.actual_cost_usd == pytest.approx(0.0015)
    assert (session.billing_provider, session.billing_base_url) == ("custom", fake.url)
    assert session.ended_at is None
    with store.read() as conn:
        snapshot = conn.execute("SELECT system_prompt FROM sessions WHERE id = ?", (sid,))
        assert "session_search" in snapshot.fetchone()[0]
    assert fake.requests[0]["messages"][0] == {"role": "system", "content": snapshot_of(store, sid)}


def snapshot_of(store: Store, sid: str) -> str:
    with store.read() as conn:
        return conn.execute("SELECT system_prompt FROM sessions WHERE id = ?", (sid,)).fetchone()[0]


def test_session_search_tool_call_and_answer(
    conversation: Conversation,
    fake: FakeModel,
    store: Store,
    make_session: SessionMaker,
    recorder: Recorder,
) -> None:
    earlier = make_session(
        "cli",
        title="Ingress setup",
        messages=[
            ("user", "Configure the kubernetes ingress for staging"),
            ("assistant", "Added an nginx ingress with TLS for staging."),
        ],
    )
    fake.push(
        text("Sure, staging kubernetes it is.", usage={"prompt_tokens": 50, "completion_tokens": 7})
    )
    conversation.send("Let's work on kubernetes ingress again")
    fake.push(
        tool_call(
            "session_search",
            {"query": "kubernetes ingress"},
            usage={"prompt_tokens": 80, "completion_tokens": 12},
        ),
        text(
            "Last time you added an nginx ingress.",
            usage={"prompt_tokens": 400, "completion_tokens": 8},
        ),
    )
    result = conversation.send("What did we do last time?", on_event=recorder)

    assert result.ok and result.text == "Last time you added an nginx ingress."
    assert result.tool_calls == 1
    sid = conversation.session_id
    rows = get_messages(store, sid)
    assert [m.role for m in rows] == ["user", "assistant", "user", "assistant", "tool", "assistant"]
    call_row, tool_row = rows[3], rows[4]
    assert call_row.finish_reason == "tool_calls" and call_row.content == ""
    [call] = call_row.tool_calls
    assert call["type"] == "function"
    assert call["function"] == {
        "name": "session_search",
        "arguments": '{"query": "kubernetes ingress"}',
    }
    assert tool_row.tool_call_id == call["id"] and tool_row.tool_name == "session_search"
    found = json.loads(tool_row.content)
    assert found["success"] and found["mode"] == "discover"
    # The current conversation also says "kubernetes ingress", but is never a result.
    assert [hit["session_id"] for hit in found["results"]] == [earlier]
    # The follow-up request carries the call and its result, exactly as stored.
    follow_up = fake.requests[-1]["messages"]
    assert follow_up[-2]["tool_calls"] == [call]
    assert follow_up[-1] == {
        "role": "tool",
        "tool_call_id": call["id"],
        "content": tool_row.content,
    }
    assert fake.requests[-1]["tools"][0]["function"]["name"] == "session_search"
    session = get_session(store, sid)
    assert (session.message_count, session.tool_call_count, session.api_call_count) == (6, 1, 3)
    assert (session.input_tokens, session.output_tokens) == (530, 27)
    started, finished = recorder.of(ToolCallStarted), recorder.of(ToolCallFinished)
    assert [(s.name, s.call_id) for s in started] == [("session_search", call["id"])]
    assert finished[0].ok and finished[0].message_id == tool_row.id


def test_an_error_status_keeps_the_message_once_and_retry_does_not_duplicate_it(
    conversation: Conversation, fake: FakeModel, store: Store, recorder: Recorder
) -> None:
    fake.push(*[status(500, "upstream exploded")] * 3)
    result = conversation.send("Summarise the release notes", on_event=recorder)
    assert not result.ok and result.error is not None
    [error] = recorder.of(TurnError)
    assert error.kind == "unavailable" and error.retryable and error.user_message_stored
    assert "500" in error.message
    assert [r.attempt for r in recorder.of(Retrying)] == [1, 2]
    sid = conversation.session_id
    assert [m.role for m in get_messages(store, sid)] == ["user"]
    assert len(fake.requests) == 3  # one try + max_retries, all before any token

    fake.push(text("Here is the summary."))
    again = conversation.retry()
    assert again.ok and again.text == "Here is the summary."
    rows = get_messages(store, sid)
    assert [(m.role, m.content) for m in rows] == [
        ("user", "Summarise the release notes"),
        ("assistant", "Here is the summary."),
    ]
    sent = fake.requests[-1]["messages"]
    assert [m["role"] for m in sent] == ["system", "user"]
    assert get_session(store, sid).message_count == 2


def test_a_refused_key_is_reported_and_not_retried(
    store: Store, fake: FakeModel, make_conversation: MakeConversation, recorder: Recorder
) -> None:
    conversation = make_conversation(model_config(fake.url, api_key="sk-wrong"))
    fake.push(status(401, "Incorrect API key provided"))
    result = conversation.send("hi", on_event=recorder)
    [error] = recorder.of(TurnError)
    assert error.kind == "key-refused" and not error.retryable
    assert "model.api_key" in error.hint
    assert result.error is not None and len(fake.requests) == 1
    assert [m.role for m in get_messages(store, conversation.session_id)] == ["user"]


def test_a_dropped_stream_keeps_what_arrived_and_is_never_resent(
    conversation: Conversation, fake: FakeModel, store: Store, recorder: Recorder
) -> None:
    fake.push(drop("The first ", "half of "))
    result = conversation.send("Explain WAL mode", on_event=recorder)
    assert result.error is not None and result.text == "The first half of "
    assert len(fake.requests) == 1
    rows = get_messages(store, conversation.session_id)
    assert [(m.role, m.content, m.finish_reason) for m in rows] == [
        ("user", "Explain WAL mode", None),
        ("assistant", "The first half of ", "error"),
    ]
    assert recorder.of(TurnError)[0].kind == "dropped"

    fake.push(text("WAL keeps a log beside the database."))
    assert conversation.retry().ok
    sent = fake.requests[-1]["messages"]
    assert [m["role"] for m in sent] == ["system", "user"]  # the broken half is not re-sent
    rows = get_messages(store, conversation.session_id)
    assert [m.finish_reason for m in rows] == [None, "error", "stop"]
    assert sum(m.role == "user" for m in rows) == 1


def test_stop_keeps_the_partial_reply_marked_cancelled(
    conversation: Conversation, fake: FakeModel, store: Store, recorder: Recorder
) -> None:
    fake.push(text(*[f"token{i} " for i in range(200)], delay=0.02))

    def events(event: object) -> None:
        recorder(event)
        if len(recorder.of(TextDelta)) == 6:
            conversation.cancel()

    started = time.monotonic()
    result = conversation.send("Write a long poem", on_event=events)
    assert time.monotonic() - started < 2.0  # the full stream takes 4 s
    assert result.cancelled and not result.ok and result.error is None
    received = "".join(e.text for e in recorder.of(TextDelta))
    assert received.startswith("token0 token1 token2 token3 token4 token5")
    rows = get_messages(store, conversation.session_id)
    assert (rows[-1].role, rows[-1].content, rows[-1].finish_reason) == (
        "assistant",
        received,
        "cancelled",
    )
    assert any(n.text == "[stopped]" for n in recorder.of(Notice))
    assert recorder.of(TurnDone)[0].result.cancelled

    fake.push(text("Fine, a short one."))
    assert conversation.send("Shorter, please").ok
    earlier_reply = fake.requests[-1]["messages"][2]
    assert earlier_reply["role"] == "assistant"
    assert earlier_reply["content"].endswith("[stopped by the user]")


def test_the_reply_is_in_the_store_while_it_streams(
    conversation: Conversation, fake: FakeModel, store: Store
) -> None:
    fake.push(text(*[f"w{i} " for i in range(60)], delay=0.02))
    seen: list[str] = []

    def watch(event: object) -> None:
        if isinstance(event, TextDelta) and len(seen) < 1 and event.text == "w30 ":
            rows = get_messages(store, conversation.session_id)
            seen.append(rows[-1].content or "")
            assert rows[-1].finish_reason == "incomplete"

    conversation.send("stream", on_event=watch)
    assert seen and seen[0].startswith("w0 w1 w2") and len(seen[0]) >= len("w0 w1 w2 w3 w4 ")


def test_no_model_configured_stores_nothing(
    store: Store, make_conversation: MakeConversation, recorder: Recorder, home: Path
) -> None:
    conversation = make_conversation(model_config(None, default=None))
    result = conversation.send("hello?", on_event=recorder)
    [error] = recorder.of(TurnError)
    assert error.kind == "not-configured" and not error.user_message_stored
    assert "model.default" in error.hint and str(home / "config.yaml") in error.hint
    assert result.error is not None and session_count(store) == 0
    assert conversation.session_id is None


def test_a_second_send_while_streaming_is_refused(
    conversation: Conversation, fake: FakeModel, store: Store
) -> None:
    fake.push(text(*["x "] * 50, delay=0.02))
    started = threading.Event()

    def first(event: object) -> None:
        if isinstance(event, TextDelta):
            started.set()

    worker = threading.Thread(target=lambda: conversation.send("one", on_event=first))
    worker.start()
    assert started.wait(5)
    assert conversation.busy
    with pytest.raises(ConversationBusy):
        conversation.send("two")
    conversation.cancel()
    worker.join(5)
    assert [m.role for m in get_messages(store, conversation.session_id)] == ["user", "assistant"]


def test_resuming_an_ended_session_reopens_it_and_appends(
    store: Store, config: Config, fake: FakeModel, make_session: SessionMaker, home: Path
) -> None:
    sid = make_session("cli", title="Old chat", messages=[("user", "hi"), ("assistant", "hello")])
    conversation = Conversation.resume(store, config, sid, home=home, env={}, auto_title=False)
    assert conversation.title == "Old chat"
    fake.push(text("Welcome back."))
    assert conversation.send("I'm back").ok
    session = get_session(store, sid)
    assert session.ended_at is None and session.message_count == 4
    sent = fake.requests[-1]["messages"]
    assert [m["content"] for m in sent[1:]] == ["hi", "hello", "I'm back"]


def test_a_compressed_session_refuses_new_messages(
    store: Store, config: Config, make_session: SessionMaker, home: Path
) -> None:
    old = make_session(
        "cli", messages=[("user", "a"), ("assistant", "b")], end_reason="compression"
    )
    tip = make_session("cli", messages=[("user", "summary")], parent=old, ended=False, ago=100)
    conversation = Conversation.resume(store, config, old, home=home, env={})
    recorder = Recorder()
    result = conversation.send("more", on_event=recorder)
    assert isinstance(result.error, SessionMoved) and result.error.tip == tip
    assert get_session(store, old).message_count == 2


def test_context_discipline_long_outputs_are_shortened_only_in_the_prompt(
    conversation: Conversation, fake: FakeModel, store: Store
) -> None:
    log = "\n".join(f"line {i}: ERROR something failed at step {i}" for i in range(3000))
    fake.push(text("That log shows one repeated error."))
    conversation.send(f"Here is the log:\n{log}")
    fake.push(text("Yes."))
    result = conversation.send("Anything else?")
    stored = get_messages(store, conversation.session_id)[0].content
    assert stored == f"Here is the log:\n{log}"  # the store keeps every byte
    first_request = fake.requests[0]["messages"][1]["content"]
    later_request = fake.requests[1]["messages"][1]["content"]
    assert len(first_request) < 25_000 < len(stored)
    assert len(later_request) < 7_000
    assert "characters omitted here" in later_request
    assert later_request.startswith("Here is the log:\nline 0:")
    assert result.ok


def test_near_the_budget_the_turn_suggests_compress(
    store: Store, fake: FakeModel, make_conversation: MakeConversation, recorder: Recorder
) -> None:
    conversation = make_conversation(model_config(fake.url, context_budget=1000))
    fake.push(text("ok", usage={"prompt_tokens": 850, "completion_tokens": 10}))
    result = conversation.send("hello", on_event=recorder)
    assert result.near_budget and result.context_tokens == 860
    [usage] = recorder.of(UsageReported)
    assert usage.near_budget and usage.context_budget == 1000


def test_the_oldest_exchanges_are_left_out_when_the_budget_is_small(
    store: Store, fake: FakeModel, make_conversation: MakeConversation
) -> None:
    conversation = make_conversation(model_config(fake.url, context_budget=2000))
    for i in range(6):
        fake.push(text(f"answer {i} " + "words " * 150))
        conversation.send(f"question {i} " + "detail " * 150)
    sent = fake.requests[-1]["messages"]
    contents = [m["content"] for m in sent[1:]]
    assert contents[-1].startswith("question 5")
    assert not any(c.startswith("question 0") for c in contents)
    assert len(get_messages(store, conversation.session_id)) == 12


def test_session_created_event_comes_once(
    conversation: Conversation, fake: FakeModel, recorder: Recorder
) -> None:
    conversation.send("one", on_event=recorder)
    conversation.send("two", on_event=recorder)
    assert len(recorder.of(SessionCreated)) == 1


def test_a_session_deleted_meanwhile_is_an_error_not_a_crash(
    conversation: Conversation, fake: FakeModel, store: Store, recorder: Recorder
) -> None:
    from hermes_tui.store import delete_conversation

    conversation.send("first")
    delete_conversation(store, conversation.session_id, allow_open=True)
    result = conversation.send("second", on_event=recorder)
    [error] = recorder.of(TurnError)
    assert error.kind == "store" and not error.user_message_stored
    assert "not found" in error.message and result.error is not None


def test_a_session_deleted_while_streaming_ends_the_turn_cleanly(
    conversation: Conversation, fake: FakeModel, store: Store, recorder: Recorder
) -> None:
    from hermes_tui.store import delete_conversation

    fake.push(text(*[f"w{i} " for i in range(40)], delay=0.01))

    def events(event: object) -> None:
        recorder(event)
        if isinstance(event, TextDelta) and event.text == "w5 ":
            delete_conversation(store, conversation.session_id, allow_open=True)

    result = conversation.send("stream", on_event=events)
    assert result.error is not None and recorder.of(TurnError)[0].kind == "store"
    assert len(recorder.of(TextDelta)) == 40  # the stream itself was not broken
