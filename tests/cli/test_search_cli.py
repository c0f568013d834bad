"""`hermes sessions search` on the demo store: discovery, scroll, read, browse, --json, errors."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from hermes_tui.__main__ import main
from hermes_tui.cli import search_cmd
from hermes_tui.store import NewMessage, NewSession, Store
from hermes_tui.store.messages import insert_message
from hermes_tui.store.search import discover, session_search
from hermes_tui.store.sessions import insert_session


@pytest.fixture
def demo(home: Path, capsys: pytest.CaptureFixture[str]) -> Store:
    assert main(["demo", "--home", str(home)]) == 0
    capsys.readouterr()
    return Store.open(home / "state.db")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["sessions", "search", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_discovery_shows_title_when_source_id_snippet_and_window(demo: Store, capsys) -> None:
    code, out, err = run(capsys, "flaky")
    assert code == 0 and err == ""
    hit = discover(demo, "flaky").hits[0]
    lines = out.splitlines()
    assert lines[0] == f"1. {hit.root.title}"
    assert lines[1].strip().split(" · ")[:3] == [hit.root.source, hit.root.when, hit.session_id]
    assert f"match #{hit.match_message_id}" in lines[1]
    assert ">>>flaky<<<" in lines[2].lower()
    anchor = [line for line in lines if line.startswith("  ▶ ")]
    assert len(anchor) == 1 and "flaky" in anchor[0].lower()
    assert "\x1b" not in out
    assert out.rstrip().splitlines()[-1].endswith("sorted by relevance")


def test_json_is_exactly_the_tools_result(demo: Store, capsys) -> None:
    for argv, kwargs in [
        (["flaky", "--limit", "2"], {"query": "flaky", "limit": 2}),
        (["deploy", "--sort", "newest"], {"query": "deploy", "sort": "newest"}),
        (["旅行"], {"query": "旅行"}),
        (
            ["flaky", "--roles", "user,assistant,tool"],
            {"query": "flaky", "role_filter": "user,assistant,tool"},
        ),
        ([], {}),
    ]:
        code, out, _ = run(capsys, *argv, "--json")
        assert code == 0
        assert out.count("\n") == 1  # one line of JSON
        assert json.loads(out) == session_search(demo, **kwargs)


def test_scroll_read_and_browse(demo: Store, capsys) -> None:
    hit = discover(demo, "flaky").hits[0]
    sid, anchor = hit.session_id, hit.match_message_id
    code, out, _ = run(capsys, "--session-id", sid, "--around", str(anchor), "--window", "2")
    assert code == 0
    marked = [line for line in out.splitlines() if line.startswith("  ▶ ")]
    assert len(marked) == 1 and str(anchor) in marked[0]
    code, out_json, _ = run(
        capsys, "--session-id", sid[:15], "--around", str(anchor), "--window", "2", "--json"
    )
    assert json.loads(out_json) == session_search(
        demo, session_id=sid, around_message_id=anchor, window=2
    )
    code, out, _ = run(capsys, "--session-id", sid)
    assert code == 0 and sid in out.splitlines()[1]
    code, out, _ = run(capsys, "--limit", "3")
    assert code == 0 and out.splitlines()[0].startswith("Title")


def test_errors_are_one_line_and_non_zero(demo: Store, capsys) -> None:
    for argv, message in [
        (["--session-id", "nope"], "Session 'nope' not found."),
        (["--session-id", "nope", "--around", "5"], "Session 'nope' not found."),
        (
            ["--session-id", "2026", "--around", "5", "--window", "0"],
            "--window must be a whole number from 1 to 20",
        ),
        (["--session-id", "x", "--around", "5", "--window", "21"], "--window must be"),
        (["--session-id", "x", "--around", "5", "--window", "abc"], "--window must be"),
        (["--around", "5"], "--around needs --session-id"),
        (["--limit", "0", "x"], "--limit must be a whole number from 1 to 10"),
        (["--sort", "sideways", "x"], "--sort must be one of"),
        (["NOT", "docker"], "NOT needs a search term"),
    ]:
        code, out, err = run(capsys, *argv)
        assert code != 0, argv
        assert out == "" and err.count("\n") == 1 and message in err, (argv, err)
        code, out, err = run(capsys, *argv, "--json")
        assert code == 1 and err == ""
        result = json.loads(out)
        assert result["success"] is False and message in result["error"]


def test_a_message_that_is_not_in_the_session(demo: Store, capsys) -> None:
    hit = discover(demo, "flaky").hits[0]
    code, _, err = run(capsys, "--session-id", hit.session_id, "--around", "999999")
    assert (
        code == 1
        and err.strip() == f"Error: around_message_id 999999 not in session_id {hit.session_id}"
    )


def test_highlight_on_a_terminal_and_stored_escapes_cleaned(
    store: Store, capsys, monkeypatch
) -> None:
    def work(conn: sqlite3.Connection) -> None:
        sid = insert_session(
            conn, store.capabilities, NewSession(source="cli", title="evil\x1b]0;x\x07")
        )
        insert_message(
            conn,
            store.capabilities,
            sid,
            NewMessage("user", "\x1b[2Jclear the gnu \x1b[31mred\x1b[0m"),
        )

    store.write(work)
    code, out, _ = run(capsys, "gnu")
    assert code == 0 and "\x1b" not in out and "clear the >>>gnu<<< red" in out
    monkeypatch.setattr(search_cmd, "stdout_is_tty", lambda: True)
    code, out, _ = run(capsys, "gnu")
    assert "\x1b[1;7mgnu\x1b[0m" in out
    assert "\x1b[2J" not in out and "\x1b]0" not in out and "\x1b[31m" not in out


def test_a_missing_store_is_an_error_in_both_modes(home: Path, capsys) -> None:
    code, out, err = run(capsys, "anything")
    assert code == 2 and "No session store yet" in err
    code, out, err = run(capsys, "anything", "--json")
    assert code == 1 and json.loads(out)["error"].startswith("Session database not available")
