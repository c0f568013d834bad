"""The recap reproduces Hermes' documented cases (HERMES_AGENT_BEHAVIOUR.md §4)."""

from __future__ import annotations

import json
import sqlite3

from hermes_tui.store import NewMessage, NewSession, Store, create_session
from hermes_tui.store.messages import insert_message
from hermes_tui.store.models import Message
from hermes_tui.store.recap import RecapLimits, build_recap, load_recap, tool_summary

LIMITS = RecapLimits()


def msg(role: str, content: str = "", calls: tuple[str, ...] = (), n: int = 0) -> Message:
    tool_calls = tuple(
        {"id": f"c{n}{i}", "type": "function", "function": {"name": name, "arguments": "{}"}}
        for i, name in enumerate(calls)
    )
    return Message(id=n, session_id="s", role=role, content=content, timestamp=float(n),
                   tool_calls=tool_calls)  # fmt: skip


FLAKY = [
    msg("user", "The CI job test_upload is flaky. Can you find out why?", n=1),
    msg("assistant", "", ("terminal", "read_file"), n=2),
    msg("tool", "17 passed, 3 failed", n=3),
    msg("tool", "def test_upload_large(): ...", n=4),
    msg(
        "assistant",
        "The test races the background worker. I'll wait on the event instead of sleeping.",
        ("patch",),
        n=5,
    ),
    msg("tool", "Applied 1 hunk", n=6),
    msg("user", "Nice. My token is sk-test1234567890abcdefXYZ, can you push?", n=7),
    msg(
        "assistant",
        "Please don't share tokens in chat; I pushed using the configured remote.\n"
        "CI is green now.\nDetails: 3 runs passed.",
        n=8,
    ),
    msg("system", "you are hermes", n=9),
]


def test_documented_sample() -> None:
    recap = build_recap(FLAKY, LIMITS)
    assert [(e.role, e.text, e.full) for e in recap.entries] == [
        ("user", "The CI job test_upload is flaky. Can you find out why?", False),
        (
            "assistant",
            "The test races the background worker. I'll wait on the event instead of sleeping. "
            "[1 tool call: patch]",
            False,
        ),
        ("user", "Nice. My token is sk-test1234567890abcdefXYZ, can you push?", False),
        (
            "assistant",
            "Please don't share tokens in chat; I pushed using the configured remote.\n"
            "CI is green now.\nDetails: 3 runs passed.",
            True,
        ),
    ]
    assert recap.earlier == 0 and recap.user_messages == 2 and recap.total_messages == 9


def test_truncation_user_chars_then_assistant_lines_before_chars() -> None:
    long_user = "u" * 301
    five_lines = "\n".join(f"line {i}" for i in range(5))
    long_line = "a" * 250
    recap = build_recap(
        [
            msg("user", long_user, n=1),
            msg("assistant", five_lines, n=2),
            msg("user", "x" * 300, n=3),
            msg("assistant", long_line, n=4),
            msg("user", "next", n=5),
            msg("assistant", "the end", n=6),
        ],
        LIMITS,
    )
    texts = [e.text for e in recap.entries]
    assert texts[0] == "u" * 300 + "..."
    assert texts[1] == "line 0\nline 1\nline 2 ..."  # three lines, then " ..."
    assert texts[2] == "x" * 300  # exactly at the limit: untouched
    assert texts[3] == "a" * 200 + "..."
    assert recap.entries[-1].full and texts[-1] == "the end"


def test_line_cut_happens_before_char_cut() -> None:
    text = "\n".join(["b" * 150] * 4)  # 3 lines kept = 452 chars, then cut to 200
    recap = build_recap([msg("assistant", text, n=1), msg("assistant", "last", n=2)], LIMITS)
    assert recap.entries[0].text == ("b" * 150 + "\n" + "b" * 150)[:200] + "..."


def test_tool_folding_four_names_and_counts() -> None:
    assert tool_summary(["a", "b", "c", "d", "a", "e"]) == "[6 tool calls: a, b, c, d, ...]"
    assert tool_summary(["terminal", "web_search", "terminal"]) == (
        "[3 tool calls: terminal, web_search]"
    )
    assert tool_summary(["patch"]) == "[1 tool call: patch]"
    assert tool_summary([]) == ""


def test_tool_only_turns_skipped_or_kept() -> None:
    turns = [msg("user", "go", n=1), msg("assistant", "", ("terminal",), n=2),
             msg("assistant", "done", n=3)]  # fmt: skip
    assert [e.text for e in build_recap(turns, LIMITS).entries] == ["go", "done"]
    keep = RecapLimits(skip_tool_only=False)
    assert [e.text for e in build_recap(turns, keep).entries] == [
        "go",
        "[1 tool call: terminal]",
        "done",
    ]


def test_earlier_messages_line_counts_dropped_entries() -> None:
    turns = []
    for i in range(13):
        turns += [msg("user", f"q{i}", n=2 * i), msg("assistant", f"a{i}", n=2 * i + 1)]
    recap = build_recap(turns, LIMITS)  # 26 entries, 20 kept
    assert recap.earlier == 6 and len(recap.entries) == 20
    assert recap.entries[0].text == "q3" and recap.entries[-1].text == "a12"
    small = build_recap(turns, RecapLimits(exchanges=2))
    assert small.earlier == 22 and [e.text for e in small.entries] == ["q11", "a11", "q12", "a12"]


def test_last_reply_full_with_reasoning_hidden_and_controls_stripped() -> None:
    reply = "<think>secret plan</think>Here is the answer\x1b[2J with [bold] text\n" + "more\n" * 5
    recap = build_recap(
        [msg("user", "hi\x1b]0;pwn\x07", n=1), msg("assistant", reply, n=2)], LIMITS
    )
    user, last = recap.entries
    assert user.text == "hi"
    assert last.full and "secret plan" not in last.text and "\x1b" not in last.text
    assert (
        last.text.startswith("Here is the answer with [bold] text") and last.text.count("more") == 5
    )


def test_load_recap_of_a_long_session_counts_earlier_in_sql(store: Store) -> None:
    sid = create_session(store, NewSession(source="cli"))

    def fill(conn: sqlite3.Connection) -> None:
        for i in range(600):
            calls = [
                {"id": f"c{i}", "type": "function", "function": {"name": "t", "arguments": ""}}
            ]
            for message in (
                NewMessage("user", f"question {i}"),
                NewMessage("assistant", "", tool_calls=calls),
                NewMessage("tool", json.dumps({"ok": i}), tool_name="t"),
                NewMessage("assistant", f"answer {i}"),
            ):
                insert_message(conn, store.capabilities, sid, message)

    store.write(fill)
    recap = load_recap(store, sid, LIMITS)
    assert recap.total_messages == 2400 and recap.user_messages == 600
    assert [e.text for e in recap.entries[:2]] == ["question 590", "answer 590"]
    assert recap.entries[-1].full and recap.entries[-1].text == "answer 599"
    assert recap.earlier == 2 * 600 - 20
