"""Slash commands: parsing, help, completion, and the results/actions the UI performs."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_tui.chat import (
    Conversation,
    ExportSession,
    OpenBrowser,
    OpenSearch,
    Quit,
    ResumeSession,
    RetryTurn,
    SessionSwitched,
    commands,
)
from hermes_tui.store import Store, get_session

from ..conftest import SessionMaker
from ..fakemodel import FakeModel, text


def run(conversation: Conversation, line: str) -> commands.CommandResult:
    parsed = commands.parse(line)
    assert parsed is not None, line
    return commands.run(conversation, parsed)


@pytest.mark.parametrize(
    ("line", "parsed"),
    [
        ("/title  My project ", ("title", "My project")),
        ("/HELP", ("help", "")),
        ("/search kubernetes OR helm", ("search", "kubernetes OR helm")),
        ("/handoff telegram", ("handoff", "telegram")),
    ],
)
def test_parse(line: str, parsed: tuple[str, str]) -> None:
    command = commands.parse(line)
    assert command is not None and (command.name, command.argument) == parsed


@pytest.mark.parametrize("line", ["hello", "/home/me/notes.md", "//not a command", "/ spaced", ""])
def test_not_commands(line: str) -> None:
    assert commands.parse(line) is None


def test_unknown_commands_suggest_the_closest(conversation: Conversation) -> None:
    result = run(conversation, "/titel x")
    assert result.level == "error"
    assert result.text == "Unknown command /titel. Did you mean /title? /help lists the commands."
    assert "Did you mean" not in run(conversation, "/zzzzzz").text


def test_help_lists_every_command(conversation: Conversation) -> None:
    shown = run(conversation, "/help").text
    for spec in commands.COMMANDS:
        assert f"/{spec.name}" in shown


def test_title_show_queue_and_set(
    conversation: Conversation, fake: FakeModel, store: Store
) -> None:
    assert "no title yet" in run(conversation, "/title").text
    assert run(conversation, "/title Weekly report").text == (
        "Session title queued: Weekly report (will be saved on first message)"
    )
    assert run(conversation, "/title").text == "Title (queued): Weekly report"
    conversation.send("Let's write it")
    assert get_session(store, conversation.session_id).title == "Weekly report"
    assert run(conversation, "/title").text == "Title: Weekly report"
    assert run(conversation, '/title "Weekly report v2"').text == "Title set: Weekly report v2"
    too_long = run(conversation, "/title " + "x" * 120)
    assert too_long.level == "error" and "max 100" in too_long.text
    assert run(conversation, "/title ''").text == "Title cleared."
    assert get_session(store, conversation.session_id).title is None


def test_new_ends_this_session_and_starts_fresh(
    conversation: Conversation, fake: FakeModel, store: Store
) -> None:
    conversation.send("first conversation")
    first = conversation.session_id
    result = run(conversation, "/new Second topic")
    assert result.action == SessionSwitched(None, first, "new")
    assert "Second topic" in result.text
    assert get_session(store, first).end_reason == "new_session"
    assert conversation.session_id is None and conversation.queued_title == "Second topic"
    conversation.send("second conversation")
    assert conversation.session_id != first
    assert get_session(store, conversation.session_id).title == "Second topic"


def test_resume_resolves_to_the_tip(
    conversation: Conversation, store: Store, make_session: SessionMaker
) -> None:
    root = make_session("cli", title="api work", end_reason="compression", messages=[("user", "a")])
    tip = make_session("cli", title="api work #2", parent=root, ago=60, messages=[("user", "b")])
    assert run(conversation, "/resume api work").action == ResumeSession(tip)
    assert run(conversation, f"/resume {root[:12]}").action == ResumeSession(tip)
    assert run(conversation, "/resume").action == OpenBrowser()
    missing = run(conversation, "/resume nothing-like-this")
    assert missing.level == "error" and "not found" in missing.text


def test_browser_search_export_retry_quit(conversation: Conversation, fake: FakeModel) -> None:
    assert run(conversation, "/sessions").action == OpenBrowser()
    assert run(conversation, "/search wal checkpoint").action == OpenSearch("wal checkpoint")
    assert run(conversation, "/search").level == "error"
    assert "send a message first" in run(conversation, "/export").text
    conversation.send("something to export")
    sid = conversation.session_id
    assert run(conversation, "/export").action == ExportSession(sid, "jsonl")
    assert run(conversation, "/export HTML").action == ExportSession(sid, "html")
    bad = run(conversation, "/export pdf")
    assert bad.level == "error" and "jsonl, md, qmd, html, trace" in bad.text
    assert run(conversation, "/retry").action == RetryTurn()
    assert run(conversation, "/quit").action == Quit()
    assert run(conversation, "/exit").action == Quit()


def test_attach_queues_a_file_for_the_next_message(
    conversation: Conversation, fake: FakeModel, tmp_path: Path
) -> None:
    (tmp_path / "notes.md").write_text("# Notes\nship on friday\n", encoding="utf-8")
    result = run(conversation, "/attach notes.md")
    assert result.text.startswith("Attached notes.md (text,")
    assert "notes.md" in run(conversation, "/attach").text
    missing = run(conversation, "/attach nope.txt")
    assert missing.level == "error" and "No such file" in missing.text
    conversation.send("What do my notes say?")
    assert "ship on friday" in fake.requests[0]["messages"][-1]["content"]
    assert conversation.pending_attachments == []


def test_commands_are_refused_while_busy(conversation: Conversation) -> None:
    release = conversation.hold()
    try:
        result = run(conversation, "/new")
    finally:
        release()
    assert result.level == "error" and "streaming" in result.text


def test_completion(tmp_path: Path, home: Path) -> None:
    assert commands.complete("/ti") == ["/title "]
    assert commands.complete("/") == [
        "/" + s.name + (" " if s.usage else "") for s in commands.COMMANDS
    ]
    assert commands.complete("/export h") == ["/export html"]
    home.mkdir(parents=True, exist_ok=True)
    (home / ".env").write_text("SLACK_HOME_CHANNEL=C1\n", encoding="utf-8")
    assert commands.complete("/handoff ", home=home, env={})[0] == "/handoff slack"
    assert commands.complete("/handoff tel") == ["/handoff telegram"]
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "guide.md").write_text("x", encoding="utf-8")
    (tmp_path / "data.csv").write_text("x", encoding="utf-8")
    assert commands.complete("/attach d", cwd=tmp_path) == ["/attach data.csv", "/attach docs/"]
    assert commands.complete("/attach docs/g", cwd=tmp_path) == ["/attach docs/guide.md"]
    assert commands.complete("hello") == []


def test_new_with_a_taken_title_changes_nothing(
    conversation: Conversation, fake: FakeModel, store: Store, make_session: SessionMaker
) -> None:
    fake.push(text("hi"))
    conversation.send("hello")
    current = conversation.session_id
    make_session("cli", title="Taken", messages=[("user", "x")])
    result = run(conversation, "/new Taken")
    assert result.level == "error" and "already in use" in result.text
    assert conversation.session_id == current
    assert get_session(store, current).ended_at is None
