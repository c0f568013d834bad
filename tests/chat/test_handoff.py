"""/handoff against a separate process playing the gateway's part on the store."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from hermes_tui.chat import Conversation, HandedOff, TextDelta, commands, home_channel
from hermes_tui.chat.handoff import fail_if_pending, read_state, request_handoff
from hermes_tui.store import Store, get_messages, get_session

from ..fakemodel import FakeModel, text

GATEWAY = r"""
import sqlite3, sys, time
db, sid, outcome = sys.argv[1:4]
conn = sqlite3.connect(db, timeout=5, isolation_level=None)
state_of = "SELECT handoff_state FROM sessions WHERE id = ?"
claim = "UPDATE sessions SET handoff_state = 'running' WHERE id = ? AND handoff_state = 'pending'"
finish = "UPDATE sessions SET handoff_state = ?, handoff_error = ? WHERE id = ?"
deadline = time.time() + 20
while time.time() < deadline:
    if conn.execute(state_of, (sid,)).fetchone()[0] == "pending":
        if conn.execute(claim, (sid,)).rowcount:
            time.sleep(0.7)  # the transfer takes a while: long enough to be seen running
            if outcome == "complete":
                conn.execute(finish, ("completed", None, sid))
            else:
                conn.execute(finish, ("failed", "Telegram API: chat not found", sid))
            break
    time.sleep(0.05)
"""


@pytest.fixture
def talked(store: Store, fake: FakeModel, conversation: Conversation, home: Path) -> Conversation:
    (home / ".env").write_text("TELEGRAM_HOME_CHANNEL=-1001234\n", encoding="utf-8")
    conversation.set_title("release checklist")
    fake.push(text("Checklist drafted."))
    assert conversation.send("Draft the release checklist").ok
    return conversation


@pytest.fixture
def gateway(store: Store, talked: Conversation) -> Iterator[callable]:
    started: list[subprocess.Popen] = []

    def start(outcome: str) -> subprocess.Popen:
        process = subprocess.Popen(
            [sys.executable, "-c", GATEWAY, str(store.path), talked.session_id, outcome]
        )
        started.append(process)
        return process

    yield start
    for process in started:
        process.kill()
        process.wait()


def test_a_completed_handoff(store: Store, talked: Conversation, gateway: callable) -> None:
    process = gateway("complete")
    progress: list[str] = []
    result = commands.run(talked, commands.parse("/handoff telegram"), on_progress=progress.append)
    process.wait(10)
    assert result.text == (
        "↻ Handoff complete. The session is now active on telegram. "
        "Resume it later with: /resume release checklist"
    )
    assert result.action == HandedOff(talked.session_id, "telegram")
    assert any("home: Home" in line for line in progress)
    assert any("picked it up" in line for line in progress)
    session = get_session(store, talked.session_id)
    assert (session.handoff_state, session.handoff_platform) == ("completed", "telegram")
    assert talked.handed_off
    assert not talked.close()  # the gateway owns the row now: it is not ended
    assert get_session(store, talked.session_id).ended_at is None
    after = talked.send("one more thing")
    assert after.error is not None and "handed off" in str(after.error)
    assert get_session(store, talked.session_id).message_count == 2


def test_a_failed_handoff_says_why_and_keeps_the_session(
    store: Store, talked: Conversation, gateway: callable
) -> None:
    process = gateway("fail")
    outcome = talked.handoff("telegram")
    process.wait(10)
    assert outcome.state == "failed"
    assert "Telegram API: chat not found" in outcome.message
    assert "intact" in outcome.message
    session = get_session(store, talked.session_id)
    assert (session.handoff_state, session.handoff_error) == (
        "failed",
        "Telegram API: chat not found",
    )
    assert session.ended_at is None and session.message_count == 2
    assert not talked.handed_off
    assert request_handoff(store, talked.session_id, "telegram")  # it can be tried again


def test_a_timeout_marks_the_handoff_failed_and_it_can_be_retried(
    store: Store, talked: Conversation, gateway: callable
) -> None:
    result = commands.run(talked, commands.parse("/handoff telegram"), handoff_timeout=0.3)
    assert result.level == "error" and result.action is None
    assert "Timed out after 0.3 s" in result.text and "intact" in result.text
    assert read_state(store, talked.session_id) == ("failed", "timed out waiting for gateway")
    assert [m.role for m in get_messages(store, talked.session_id)] == ["user", "assistant"]

    process = gateway("complete")
    assert talked.handoff("telegram", timeout=10).completed
    process.wait(10)


def test_no_home_channel_is_refused_with_the_sethome_hint(
    store: Store, talked: Conversation
) -> None:
    result = commands.run(talked, commands.parse("/handoff discord"))
    assert result.level == "error"
    assert "No home channel is configured for discord" in result.text
    assert "/sethome" in result.text and "DISCORD_HOME_CHANNEL" in result.text
    assert read_state(store, talked.session_id) == (None, None)


def test_refused_while_a_reply_streams(store: Store, talked: Conversation, fake: FakeModel) -> None:
    fake.push(text(*["x "] * 100, delay=0.02))
    streaming = threading.Event()
    worker = threading.Thread(
        target=talked.send,
        args=("more",),
        kwargs={"on_event": lambda e: isinstance(e, TextDelta) and streaming.set()},
    )
    worker.start()
    assert streaming.wait(5)
    outcome = talked.handoff("telegram")
    talked.cancel()
    worker.join(5)
    assert outcome.state == "refused" and "streaming" in outcome.message
    assert read_state(store, talked.session_id) == (None, None)


def test_nothing_to_hand_off_before_the_first_message(conversation: Conversation) -> None:
    outcome = conversation.handoff("telegram")
    assert outcome.state == "refused" and "send a message first" in outcome.message


def test_an_unknown_platform_name_is_refused(talked: Conversation) -> None:
    outcome = talked.handoff("tele gram")
    assert outcome.state == "refused" and "Unknown platform" in outcome.message


def test_a_claimed_handoff_is_never_failed_by_us(store: Store, talked: Conversation) -> None:
    assert request_handoff(store, talked.session_id, "telegram")
    assert not request_handoff(store, talked.session_id, "telegram")  # already in flight
    store.write(
        lambda conn: conn.execute(
            "UPDATE sessions SET handoff_state = 'running' WHERE id = ?", (talked.session_id,)
        )
    )
    assert not fail_if_pending(store, talked.session_id, "timed out waiting for gateway")
    assert read_state(store, talked.session_id) == ("running", None)


def test_home_channels_are_found_where_the_gateway_looks(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / ".env").write_text(
        "TELEGRAM_HOME_CHANNEL=-100file\nTELEGRAM_HOME_CHANNEL_NAME=Ops\n", encoding="utf-8"
    )
    (home / "config.yaml").write_text(
        "platforms:\n  discord:\n    home_channel: {chat_id: '998877', name: General}\n"
        "slack:\n  home_channel: C0123\n",
        encoding="utf-8",
    )
    telegram = home_channel("telegram", home, {})
    assert (telegram.chat_id, telegram.name, telegram.source) == (
        "-100file",
        "Ops",
        "TELEGRAM_HOME_CHANNEL",
    )
    assert home_channel("telegram", home, {"TELEGRAM_HOME_CHANNEL": "-100env"}).chat_id == "-100env"
    discord = home_channel("discord", home, {})
    assert (discord.chat_id, discord.name, discord.source) == ("998877", "General", "config.yaml")
    assert home_channel("slack", home, {}).chat_id == "C0123"
    assert home_channel("email", home, {"EMAIL_HOME_ADDRESS": "me@example.com"}).chat_id == (
        "me@example.com"
    )
    assert home_channel("matrix", home, {}) is None
