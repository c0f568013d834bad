"""The filter engine: time values, every filter, windows, defaults, older schemas."""

from __future__ import annotations

import sqlite3
import time
from datetime import UTC, datetime

import pytest

from hermes_tui.store import Store, set_pinned
from hermes_tui.store.filters import (
    DAY,
    FilterError,
    SessionFilter,
    build_filter,
    describe,
    with_prune_default,
)
from hermes_tui.store.prune import archive_selection, preview, prune_selection
from hermes_tui.store.timevalues import parse_time_value
from tests.conftest import NOW


@pytest.fixture
def tz(monkeypatch: pytest.MonkeyPatch):
    """Run in a fixed non-UTC local time zone (UTC-4 in July, UTC-5 in January)."""
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("30m", 1800), ("5h", 5 * 3600), ("2d", 2 * DAY), ("1w", 7 * DAY), ("90", 90 * DAY),
        ("0.5", 0.5 * DAY), ("45s", 45), ("10 sec", 10), ("3 Minutes", 180), ("2HRS", 7200),
        ("1 day", DAY), ("2 wks", 14 * DAY), ("1.5h", 5400), ("0", 0), ("7 weeks", 49 * DAY),
    ],
)  # fmt: skip
def test_durations_and_bare_days(text: str, seconds: float) -> None:
    assert parse_time_value("--older-than", text, NOW) == pytest.approx(NOW - seconds)


def test_iso_timestamps_naive_are_local_time(tz) -> None:
    local = parse_time_value("--before", "2026-07-05 14:30", NOW)
    assert local == datetime(2026, 7, 5, 18, 30, tzinfo=UTC).timestamp()  # EDT = UTC-4
    day = parse_time_value("--before", "2026-01-05", NOW)
    assert day == datetime(2026, 1, 5, 5, 0, tzinfo=UTC).timestamp()  # EST midnight
    assert parse_time_value("--before", "2026-07-05T14:30:00", NOW) == local


def test_iso_timestamps_with_offsets() -> None:
    expected = datetime(2026, 7, 5, 12, 30, tzinfo=UTC).timestamp()
    assert parse_time_value("--after", "2026-07-05T14:30:00+02:00", NOW) == expected
    assert parse_time_value("--after", "2026-07-05 12:30Z", NOW) == expected


@pytest.mark.parametrize(
    "bad", ["3months", "1y", "-5", "abc", "", "5 parsecs", "2026-13-01", "1e5", "inf", "nan",
            "5h ago", "--", "2026/07/05"],
)  # fmt: skip
def test_invalid_time_values_name_the_flag_and_the_forms(bad: str) -> None:
    with pytest.raises(FilterError) as err:
        parse_time_value("--older-than", bad, NOW)
    message = str(err.value)
    assert message.startswith(f"Invalid value for --older-than: {bad!r}.")
    assert "'5h'" in message and "'2026-07-05 14:30'" in message and "\n" not in message


def test_build_filter_parses_and_validates_every_kind() -> None:
    f = build_filter(
        {"older_than": "2d", "after": "2026-01-01", "title": " deploy ", "min_messages": "3",
         "max_cost": "1.5", "source": "cli", "cwd": "", "model": None},
        NOW,
    )  # fmt: skip
    assert f.older_than == NOW - 2 * DAY and f.title == "deploy" and f.min_messages == 3
    assert f.max_cost == 1.5 and f.source == "cli" and f.cwd is None and f.model is None
    for name, bad in (("min_messages", "x"), ("max_tokens", "-1"), ("min_tool_calls", "1.5"),
                      ("min_cost", "cheap"), ("max_cost", "-0.1")):  # fmt: skip
        with pytest.raises(FilterError, match=f"Invalid value for --{name.replace('_', '-')}"):
            build_filter({name: bad}, NOW)
    with pytest.raises(FilterError, match="Unknown filter"):
        build_filter({"colour": "red"}, NOW)


@pytest.mark.parametrize(
    ("values", "words"),
    [
        ({"newer_than": "1d", "older_than": "2d"}, "--newer-than bound"),
        ({"newer_than": "2d", "older_than": "2d"}, "not earlier than the --older-than"),
        ({"after": "2026-07-05", "before": "2026-07-01"}, "--after bound"),
        ({"after": "2026-07-05", "before": "2026-07-05"}, "--before bound"),
        ({"after": "2026-11-20", "older_than": "30d"}, "start and last activity"),
        ({"newer_than": "2030-01-01"}, "in the future"),
        ({"after": "2099-01-01"}, "in the future"),
        ({"min_messages": "10", "max_messages": "5"}, "Empty range: --min-messages 10"),
        ({"min_cost": "2", "max_cost": "1"}, "Empty range: --min-cost"),
    ],
)
def test_empty_and_inverted_windows_are_errors(values: dict, words: str) -> None:
    with pytest.raises(FilterError, match=words):
        build_filter(values, NOW)


def test_a_proper_window_is_accepted() -> None:
    f = build_filter({"newer_than": "30d", "older_than": "1d", "min_messages": "2",
                      "max_messages": "2"}, NOW)  # fmt: skip
    assert f.newer_than < f.older_than


def test_implicit_default_only_for_a_bare_prune() -> None:
    bare = with_prune_default(SessionFilter(), NOW)
    assert bare.older_than == NOW - 90 * DAY and bare.implicit_default
    assert "[the default: 90 days]" in describe(bare)
    for values in ({"source": "cron"}, {"min_messages": "0"}, {"title": "x"}, {"after": "9d"}):
        given = build_filter(values, NOW)
        assert with_prune_default(given, NOW) == given  # any filter removes the default
    assert describe(SessionFilter()) == "no filters (all ended sessions)"


def test_archive_refuses_without_a_filter() -> None:
    with pytest.raises(FilterError, match="Refusing to archive every ended session"):
        archive_selection(SessionFilter())
    assert archive_selection(build_filter({"newer_than": "5h"}, NOW)).action == "archive"


def _ids(store: Store, values: dict, **kw) -> set[str]:
    selection = prune_selection(build_filter(values, NOW), now=NOW, **kw)
    return {m.id for m in preview(store, selection, now=NOW).matches}


def _set(store: Store, sid: str, **cols: object) -> None:
    assignments = ", ".join(f"{c} = ?" for c in cols)
    store.write(
        lambda c: c.execute(
            f"UPDATE sessions SET {assignments} WHERE id = ?", (*cols.values(), sid)
        )
    )


def test_every_filter_selects_what_it_says(store: Store, make_session) -> None:
    old = make_session("cli", ago=200 * DAY, messages=[("user", "a"), ("assistant", "b")],
                       title="Deploy Ünïcode notes", cwd="/home/u/proj/sub")  # fmt: skip
    mid = make_session("telegram", ago=40 * DAY, messages=[("user", "x")] * 5, title="chat")
    new = make_session("cron", ago=2 * DAY, messages=[], title="digest")
    _set(store, old, model="anthropic/Claude-Sonnet", billing_provider="OpenRouter",
         git_branch="feature/Login", user_id="u1", chat_id="c1", chat_type="dm",
         input_tokens=100, output_tokens=50, actual_cost_usd=0.5, estimated_cost_usd=9.0,
         tool_call_count=4, end_reason="cli_close")  # fmt: skip
    _set(store, mid, model="gpt-4.1", estimated_cost_usd=2.0, input_tokens=10, chat_type="group",
         end_reason="idle", tool_call_count=0)  # fmt: skip
    everyone = {old, mid, new}
    assert _ids(store, {"older_than": "0"}) == everyone
    assert _ids(store, {"older_than": "30d"}) == {old, mid}
    assert _ids(store, {"newer_than": "30d"}) == {new}  # empty session: its start counts
    assert _ids(store, {"before": "100"}) == {old}
    assert _ids(store, {"after": "100"}) == {mid, new}
    assert _ids(store, {"source": "telegram"}) == {mid}
    assert _ids(store, {"source": "Telegram"}) == set()  # exact
    assert _ids(store, {"title": "ünïCODE"}) == {old}  # Unicode case-insensitive substring
    assert _ids(store, {"model": "claude"}) == {old}
    assert _ids(store, {"provider": "openrouter"}) == {old}
    assert _ids(store, {"provider": "open"}) == set()  # exact, not substring
    assert _ids(store, {"cwd": "/home/u/proj"}) == {old}
    assert _ids(store, {"cwd": "/home/u/proj/sub/"}) == {old}
    assert _ids(store, {"cwd": "/home/u/pro"}) == set()  # a path prefix, not a string prefix
    assert _ids(store, {"cwd": "/"}) == {old}
    assert _ids(store, {"branch": "LOGIN"}) == {old}
    assert _ids(store, {"end_reason": "idle"}) == {mid}
    assert _ids(store, {"user": "u1"}) == {old}
    assert _ids(store, {"chat_id": "c1"}) == {old}
    assert _ids(store, {"chat_type": "group"}) == {mid}
    assert _ids(store, {"min_messages": "5"}) == {mid}
    assert _ids(store, {"max_messages": "0"}) == {new}
    assert _ids(store, {"min_tokens": "150"}) == {old}
    assert _ids(store, {"max_tokens": "149"}) == {mid, new}
    assert _ids(store, {"min_cost": "1"}) == {mid}  # actual 0.5 wins over estimated 9.0
    assert _ids(store, {"max_cost": "0.5"}) == {old, new}
    assert _ids(store, {"min_tool_calls": "1"}) == {old}
    assert _ids(store, {"max_tool_calls": "0"}) == {mid, new}
    assert _ids(store, {"older_than": "30d", "source": "cli", "min_messages": "2"}) == {old}


def test_lineage_is_judged_as_one_conversation(store: Store, make_session) -> None:
    root = make_session(ago=100 * DAY, title="my project", end_reason="compression",
                        messages=[("user", "one")])  # fmt: skip
    mid = make_session(ago=99 * DAY, parent=root, title="my project #2", end_reason="compression",
                       messages=[("user", "two")])  # fmt: skip
    tip = make_session(ago=1 * DAY, parent=mid, title="my project #3", messages=[("user", "3")])
    # The tip was active yesterday, so the conversation is not 30 days old.
    assert _ids(store, {"older_than": "30d"}) == set()
    found = preview(store, prune_selection(build_filter({"title": "#3"}, NOW), now=NOW), now=NOW)
    (match,) = found.matches
    assert match.id == root and match.tip_id == tip and match.title == "my project #3"
    assert match.session_ids == tuple(sorted((root, mid, tip))) and match.messages == 3
    assert _ids(store, {"min_messages": "3"}) == {root}  # totals over the lineage


def test_pinned_open_archived_are_spared_and_reported(store: Store, make_session) -> None:
    pinned = make_session(ago=100 * DAY, messages=[("user", "p")])
    set_pinned(store, pinned, True)
    opened = make_session(ago=100 * DAY, ended=False, messages=[("user", "o")])
    archived = make_session(ago=100 * DAY, archived=True, messages=[("user", "a")])
    plain = make_session(ago=100 * DAY, messages=[("user", "x")])
    parent = make_session(ago=100 * DAY, messages=[("user", "has a live subagent")])
    make_session("subagent", ago=99 * DAY, parent=parent, ended=False,
                 config={"_delegate_from": parent})  # fmt: skip
    bare = prune_selection(SessionFilter(), now=NOW)
    found = preview(store, bare, now=NOW)
    assert {m.id for m in found.matches} == {plain}
    assert {(s.match.id, s.reason) for s in found.spared} == {
        (pinned, "pinned"), (opened, "open"), (archived, "archived"), (parent, "open"),
    }  # fmt: skip
    assert found.spared_counts() == {"open": 2, "pinned": 1, "archived": 1}
    both = prune_selection(SessionFilter(), now=NOW, include_pinned=True, include_archived=True)
    assert {m.id for m in preview(store, both, now=NOW).matches} == {plain, pinned, archived}
    # Archive: already-archived conversations are not matches at all; pinned spared.
    arch = archive_selection(build_filter({"older_than": "1d"}, NOW))
    found = preview(store, arch, now=NOW)
    assert {m.id for m in found.matches} == {plain}
    assert {s.reason for s in found.spared} == {"pinned", "open"}


def test_older_schema_missing_columns(tmp_path, home) -> None:
    path = home / "state.db"
    home.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    conn.executescript(
        # lineage.py's SQL needs model_config and session_key (every v1x Hermes has them).
        "CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT NOT NULL, model TEXT, "
        "model_config TEXT, session_key TEXT, parent_session_id TEXT, "
        "started_at REAL NOT NULL, ended_at REAL, end_reason TEXT, "
        "message_count INTEGER DEFAULT 0);"
        "CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, "
        "role TEXT NOT NULL, content TEXT, timestamp REAL NOT NULL);"
    )
    conn.execute(
        "INSERT INTO sessions VALUES ('a', 'cli', 'gpt', NULL, NULL, NULL, ?, ?, 'cli_close', 1)",
        (NOW - 100 * DAY, NOW - 100 * DAY + 5),
    )
    conn.execute("INSERT INTO messages VALUES (1, 'a', 'user', 'hi', ?)", (NOW - 100 * DAY + 1,))
    conn.commit()
    conn.close()
    store = Store.open(path)
    assert _ids(store, {}) == {"a"}  # the default: time, no archived/pinned columns needed
    assert _ids(store, {"model": "GP", "max_messages": "1"}) == {"a"}
    for name in ("title", "provider", "branch", "user", "min_tokens", "max_cost"):
        with pytest.raises(FilterError, match="older Hermes schema"):
            _ids(store, {name: "1"})
