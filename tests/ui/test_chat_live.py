"""The chat pane talking to a real (local, fake) OpenAI-compatible server: streaming, tools,
errors, Esc, typing while a reply streams, slash commands — checked against the store."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.widgets import Input, Static

from hermes_tui.store.terminals import read_breadcrumb, terminal_identity
from hermes_tui.tui.app import Start, build_app
from hermes_tui.tui.screens.browser import BrowserScreen
from hermes_tui.tui.screens.chat import ChatScreen
from hermes_tui.tui.screens.search import SearchScreen
from hermes_tui.tui.widgets.message_view import MessageView
from hermes_tui.tui.widgets.stream_view import StreamView

from ..chat.conftest import model_config
from ..conftest import NOW
from ..fakemodel import FakeModel, stall, status, text, tool_call
from .conftest import settle


@pytest.fixture
def fake() -> Iterator[FakeModel]:
    with FakeModel() as model:
        yield model


def rows(path: Path, session_id: str) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        return conn.execute(
            "SELECT role, content, tool_calls IS NOT NULL, tool_name, finish_reason "
            "FROM messages WHERE session_id = ? ORDER BY id",
            (session_id,),
        ).fetchall()


async def say(pilot, words: str) -> None:  # type: ignore[no-untyped-def]
    field = pilot.app.screen.query_one("#chat-input", Input)
    field.focus()
    field.value = words
    await pilot.press("enter")


async def until(pilot, condition, timeout: float = 10.0) -> None:  # type: ignore[no-untyped-def]
    for _ in range(int(timeout / 0.05)):
        if condition():
            return
        await pilot.pause(0.05)
    raise AssertionError("timed out waiting")


async def test_new_conversation_streams_and_is_stored(ui_store, fake, monkeypatch) -> None:
    path, _ = ui_store
    monkeypatch.setenv("TMUX", "/tmp/tmux-test/default,1,0")
    monkeypatch.setenv("TMUX_PANE", "%7")
    fake.push(text("Hello", " there,", " friend."))
    app = build_app(path, model_config(fake.url), now=lambda: NOW)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("n")  # from the browser: a new conversation
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ChatScreen) and screen.session_id is None
        older = screen.query_one("#chat-older", Static)
        assert "saved with your first message" in str(older.render())
        await say(pilot, "say hello")
        await until(pilot, lambda: not screen.conversation.busy and screen.session_id is not None)
        await settle(pilot)
        assert str(older.render()) == "— start of the conversation —"
        await until(pilot, lambda: not screen.query(StreamView))
        shown = [(v.message.role, v.message.content) for v in screen.query(MessageView)]
        assert shown == [("user", "say hello"), ("assistant", "Hello there, friend.")]
        session_id = screen.session_id
        assert rows(path, session_id) == [
            ("user", "say hello", 0, None, None),
            ("assistant", "Hello there, friend.", 0, None, "stop"),
        ]
        with sqlite3.connect(path) as conn:
            source, count, ended = conn.execute(
                "SELECT source, message_count, ended_at FROM sessions WHERE id = ?", (session_id,)
            ).fetchone()
        assert (source, count, ended) == ("tui", 2, None)
        # This terminal's `hermes -c` now continues the new conversation.
        identity = terminal_identity(os.environ)
        await until(pilot, lambda: read_breadcrumb(path.parent, identity) is not None)
        assert read_breadcrumb(path.parent, identity).session_id == session_id
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, BrowserScreen)
    with sqlite3.connect(path) as conn:
        assert conn.execute(
            "SELECT end_reason FROM sessions WHERE id = ?", (session_id,)
        ).fetchone() == ("tui_close",)


async def test_tool_call_to_session_search_and_answer(ui_store, fake) -> None:
    path, ids = ui_store
    fake.push(
        tool_call("session_search", {"query": "flaky"}),
        text("We fixed ", "the flaky upload test."),
    )
    app = build_app(
        path, model_config(fake.url), start=Start(session_id=ids["trip"]), now=lambda: NOW
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        await say(pilot, "remember the flaky test from last time?")
        await until(pilot, lambda: not screen.conversation.busy)
        await settle(pilot)
        stored = rows(path, ids["trip"])[-4:]
        assert [r[0] for r in stored] == ["user", "assistant", "tool", "assistant"]
        assert stored[1][2] == 1 and stored[2][3] == "session_search"
        assert "Fix flaky CI tests" in stored[2][1]
        assert stored[3][1] == "We fixed the flaky upload test."
        roles = [v.message.role for v in screen.query(MessageView)][-4:]
        assert roles == ["user", "assistant", "tool", "assistant"]


async def test_error_keeps_the_message_and_retry_does_not_resend(ui_store, fake) -> None:
    path, ids = ui_store
    fake.push(status(500), status(500), status(500), text("Recovered."))
    app = build_app(
        path,
        model_config(fake.url, max_retries=2),
        start=Start(session_id=ids["trip"]),
        now=lambda: NOW,
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        before = len(rows(path, ids["trip"]))
        await say(pilot, "are you there?")
        await until(pilot, lambda: not screen.conversation.busy)
        await settle(pilot)
        failed = [s for s in screen.query(StreamView) if s.error is not None]
        assert failed and "/retry" in failed[0].error.plain
        after = rows(path, ids["trip"])
        assert len(after) == before + 1 and after[-1][:2] == ("user", "are you there?")
        await say(pilot, "/retry")
        await until(
            pilot,
            lambda: not screen.conversation.busy and len(rows(path, ids["trip"])) == before + 2,
        )
        assert [r[:2] for r in rows(path, ids["trip"])[-2:]] == [
            ("user", "are you there?"),
            ("assistant", "Recovered."),
        ]


async def test_no_model_configured_keeps_the_input(ui_store) -> None:
    from hermes_tui.config import Config

    path, ids = ui_store
    app = build_app(path, Config(), start=Start(session_id=ids["trip"]), now=lambda: NOW)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        before = rows(path, ids["trip"])
        await say(pilot, "hello?")
        await until(pilot, lambda: not screen.conversation.busy)
        await settle(pilot)
        assert screen.query_one("#chat-input", Input).value == "hello?"
        failed = [s for s in screen.query(StreamView) if s.error is not None]
        assert failed and "model" in failed[0].error.plain.lower()
        assert rows(path, ids["trip"]) == before, "nothing stored, nothing to send twice"


async def test_typing_while_streaming_and_esc_stops_the_reply(ui_store, fake) -> None:
    path, ids = ui_store
    fake.push(text(*[f"word{n} " for n in range(200)], delay=0.05))
    app = build_app(
        path, model_config(fake.url), start=Start(session_id=ids["trip"]), now=lambda: NOW
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        await say(pilot, "tell me a long story")
        await until(
            pilot,
            lambda: (
                bool(screen.query(StreamView)) and "word3" in screen.query(StreamView).last().text
            ),
        )
        # The reply is as tall as what has arrived: the question stays in view above it.
        stream = screen.query(StreamView).last()
        question = screen.query(MessageView).last()
        transcript = screen.query_one("#chat-transcript").region
        assert stream.region.height < 10
        assert transcript.contains_region(question.region)
        field = screen.query_one("#chat-input", Input)
        await pilot.press(*"next question")  # the UI keeps taking keys while it streams
        assert field.value == "next question"
        await pilot.press("escape")  # stops the reply (does not leave)
        await until(pilot, lambda: not screen.conversation.busy)
        await settle(pilot)
        assert isinstance(app.screen, ChatScreen)
        last = rows(path, ids["trip"])[-1]
        assert last[0] == "assistant" and last[4] == "cancelled"
        assert last[1].startswith("word0 word1 word2") and "word199" not in last[1]


async def test_slash_commands(ui_store, fake) -> None:
    path, ids = ui_store
    app = build_app(
        path, model_config(fake.url), start=Start(session_id=ids["trip"]), now=lambda: NOW
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        await say(pilot, "/help")
        await settle(pilot)
        notices = " ".join(str(n.content) for n in screen.query(".chat-notice"))
        assert "/compress" in notices and "/handoff" in notices
        await say(pilot, "/titel")
        await settle(pilot)
        notices = " ".join(str(n.content) for n in screen.query(".chat-notice"))
        assert "/title" in notices  # did you mean
        await say(pilot, "/title Weekend trip")
        await settle(pilot)
        with sqlite3.connect(path) as conn:
            assert conn.execute(
                "SELECT title FROM sessions WHERE id = ?", (ids["trip"],)
            ).fetchone() == ("Weekend trip",)
        await say(pilot, "/search flaky")
        await settle(pilot)
        assert isinstance(app.screen, SearchScreen)


async def test_a_slow_reply_never_blocks_leaving(ui_store, fake) -> None:
    path, ids = ui_store
    fake.push(stall(30))
    app = build_app(
        path,
        model_config(fake.url, timeout=20),
        start=Start(session_id=ids["trip"]),
        now=lambda: NOW,
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        await say(pilot, "anyone?")
        await until(pilot, lambda: screen.conversation.busy)
        await pilot.press("escape")  # stop
        await until(pilot, lambda: not screen.conversation.busy, timeout=5)
        await pilot.press("escape")  # and leave
        await settle(pilot)
        assert isinstance(app.screen, BrowserScreen)
