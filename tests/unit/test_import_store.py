"""Importing into a real store: exact rows and counters, idempotence, growth, rewinds,
sub-agents as children, titles, listing and full-text search."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import time
from pathlib import Path

import pytest

from hermes_tui.store import (
    ListQuery,
    NewMessage,
    Store,
    append_message,
    get_messages,
    get_session,
    list_sessions,
)
from hermes_tui.store.importers import ImportOptions, import_history
from tests.importing import (
    CODEX_CHILD,
    CODEX_PARENT,
    HEAVY,
    KV_CLAUDE,
    KV_CODEX,
    LEGACY,
    MODERN,
    PARENT_UUID,
    SHORT,
    SHORT_ID,
    SUBAGENT,
    cassistant,
    claude_parent,
    cuser,
    jsonl,
    tally,
    text,
)

EXPECTED = {
    SHORT: {"user": 1, "assistant": 1, "tool_calls": 2, "tool": 2, "thinking": 1},
    HEAVY: {"user": 2, "assistant": 4, "tool_calls": 6, "tool": 6, "thinking": 1},
    KV_CLAUDE: {"user": 1, "assistant": 1, "tool_calls": 0, "tool": 0, "thinking": 0},
    KV_CODEX: {"user": 1, "assistant": 1, "tool_calls": 0, "tool": 0, "thinking": 0},
    MODERN: {"user": 1, "assistant": 4, "tool_calls": 3, "tool": 3, "thinking": 1},
    LEGACY: {"user": 1, "assistant": 1, "tool_calls": 0, "tool": 0, "thinking": 0},
}


def dump(store: Store) -> tuple[list[tuple], list[tuple]]:
    """Every session and message row, for before/after comparisons."""
    with store.read() as conn:
        sessions = [tuple(r) for r in conn.execute("SELECT * FROM sessions ORDER BY id")]
        messages = [tuple(r) for r in conn.execute("SELECT * FROM messages ORDER BY id")]
    return sessions, messages


def only(report) -> str:
    [outcome] = report.outcomes
    return outcome.session_id


def live_view(store: Store, sid: str) -> dict[str, tuple]:
    with store.read() as conn:
        rows = conn.execute(
            "SELECT platform_message_id, role, content, tool_calls, reasoning, tool_name "
            "FROM messages WHERE session_id = ? AND active = 1",
            (sid,),
        ).fetchall()
    return {r[0]: tuple(r[1:]) for r in rows}


def assert_counters_exact(store: Store, sid: str) -> None:
    session = get_session(store, sid)
    messages = get_messages(store, sid)
    assert session.message_count == len(messages)
    assert session.tool_call_count == sum(len(m.tool_calls) for m in messages)


@pytest.mark.parametrize("fixture", list(EXPECTED), ids=lambda p: p.name)
def test_each_fixture_lands_with_exact_counts(store: Store, fixture: Path) -> None:
    tool = "claude" if fixture.parent.name == "claude" else "codex"
    report = import_history(store, tool, [fixture])
    sid = only(report)
    assert report.outcomes[0].status == "created"
    assert re.fullmatch(r"\d{8}_\d{6}_[0-9a-f]{8}", sid)
    session = get_session(store, sid)
    assert sid.startswith(time.strftime("%Y%m%d_%H%M%S", time.localtime(session.started_at)))
    messages = get_messages(store, sid)
    assert tally(messages) == EXPECTED[fixture]
    assert_counters_exact(store, sid)
    assert session.source == ("claude-code" if tool == "claude" else "codex-cli")
    # Left open, as upstream does: maintenance prunes only ended sessions.
    assert session.ended_at is None and session.end_reason is None
    assert [m.timestamp for m in messages] and all(m.timestamp > 1.7e9 for m in messages)
    for m in messages:
        if m.role == "tool":
            assert m.tool_call_id and m.tool_name
    with store.read() as conn:
        origin = conn.execute("SELECT origin_json FROM sessions WHERE id = ?", (sid,)).fetchone()[0]
    assert '"foreign_session_id"' in origin and str(fixture) in origin


def test_tokens_model_and_ids_are_carried_and_deterministic(home: Path, store: Store) -> None:
    sid = only(import_history(store, "claude", [HEAVY]))
    session = get_session(store, sid)
    assert session.model == "claude-opus-4-6" and session.git_branch == "master"
    assert (session.input_tokens, session.output_tokens) == (54, 212)
    assert (session.cache_read_tokens, session.cache_write_tokens) == (88231, 17696)
    assert session.api_call_count == 4
    other = Store.create(home / "other.db")
    assert only(import_history(other, "claude", [HEAVY])) == sid


def test_reimport_changes_nothing(tmp_path: Path, store: Store) -> None:
    paths = [SHORT, HEAVY, KV_CLAUDE]
    import_history(store, "claude", paths)
    before = dump(store)
    report = import_history(store, "claude", paths)
    assert [o.status for o in report.outcomes] == ["unchanged"] * 3
    assert dump(store) == before
    # The same session found again under another name or folder is the same session.
    copy = tmp_path / "elsewhere" / f"{SHORT_ID}.jsonl"
    copy.parent.mkdir()
    shutil.copy(SHORT, copy)
    assert import_history(store, "claude", [copy]).outcomes[0].status == "unchanged"
    assert dump(store) == before


def prefixes(path: Path) -> list[bytes]:
    data = path.read_bytes()
    ends = [i + 1 for i, byte in enumerate(data) if byte == ord("\n")]
    return [data[:end] for end in ends[:-1]]


@pytest.mark.parametrize("fixture", [SHORT, HEAVY, SUBAGENT, MODERN], ids=lambda p: p.name)
def test_growth_adds_only_new_messages_at_every_cut(tmp_path: Path, fixture: Path) -> None:
    """Import the file as it was after each line, then the whole file: the result equals
    a fresh import of the whole file, counters exact, every result after its call."""
    tool = "codex" if "rollout" in fixture.name else "claude"
    name = fixture.name if tool == "codex" else "0f0f0f0f-0000-4000-8000-000000000000.jsonl"
    fresh_store = Store.create(tmp_path / "fresh.db")
    copy = tmp_path / "src" / name
    copy.parent.mkdir()
    shutil.copy(fixture, copy)
    fresh = only(import_history(fresh_store, tool, [copy]))
    expected = live_view(fresh_store, fresh)
    for index, prefix in enumerate(prefixes(fixture)):
        store = Store.create(tmp_path / f"grow-{index}.db")
        copy.write_bytes(prefix)
        first = import_history(store, tool, [copy])
        copy.write_bytes(fixture.read_bytes())
        again = import_history(store, tool, [copy])
        sid = again.outcomes[0].session_id
        if first.outcomes[0].status == "created":
            assert sid == first.outcomes[0].session_id
            before = first.outcomes[0].messages
            assert again.outcomes[0].added == len(expected) - before + again.outcomes[0].hidden
        assert live_view(store, sid) == expected, index
        assert_counters_exact(store, sid)
        assert tally(get_messages(store, sid)) == tally(get_messages(fresh_store, fresh))
        calls: set[str] = set()
        for m in get_messages(store, sid):
            calls |= {c["id"] for c in m.tool_calls}
            assert m.role != "tool" or m.tool_call_id in calls


def test_growth_appends_to_the_same_session(tmp_path: Path, store: Store) -> None:
    path = tmp_path / f"{'1' * 8}-0000-4000-8000-000000000000.jsonl"
    lines = HEAVY.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:18]))
    sid = only(import_history(store, "claude", [path]))
    assert len(get_messages(store, sid)) == 5
    first_ids = [m.id for m in get_messages(store, sid)]
    path.write_bytes(b"".join(lines))
    report = import_history(store, "claude", [path])
    outcome = report.outcomes[0]
    assert (outcome.status, outcome.session_id, outcome.added, outcome.updated) == (
        "updated",
        sid,
        7,
        0,
    )
    messages = get_messages(store, sid)
    assert [m.id for m in messages[:5]] == first_ids  # old rows untouched, new ones appended
    assert tally(messages) == EXPECTED[HEAVY]
    assert get_session(store, sid).api_call_count == 4
    assert len(list_sessions(store, ListQuery(source="claude-code")).items) == 1


def rewind_records() -> list[dict]:
    return [
        cuser("u1", None, "first question", 1),
        cassistant("a1", "u1", "m1", [text("first answer")], 2),
        cuser("u2", "a1", "abandoned follow-up", 3),
        cassistant("a2", "u2", "m2", [text("abandoned answer")], 4),
    ]


def test_a_rewind_after_import_hides_the_abandoned_rows(tmp_path: Path, store: Store) -> None:
    path = tmp_path / "rewound.jsonl"
    path.write_bytes(jsonl(rewind_records()))
    sid = only(import_history(store, "claude", [path]))
    more = [
        cuser("u3", "a1", "edited follow-up", 5),
        cassistant("a3", "u3", "m3", [text("final")], 6),
    ]
    path.write_bytes(jsonl(rewind_records() + more))
    outcome = import_history(store, "claude", [path]).outcomes[0]
    assert (outcome.added, outcome.hidden) == (2, 2)
    live = [m.content for m in get_messages(store, sid)]
    assert live == ["first question", "first answer", "edited follow-up", "final"]
    assert len(get_messages(store, sid, include_inactive=True)) == 6
    assert_counters_exact(store, sid)


def test_a_file_rewritten_in_place_is_not_merged(tmp_path: Path, store: Store) -> None:
    path = tmp_path / "same-name.jsonl"
    path.write_bytes(jsonl(rewind_records()))
    import_history(store, "claude", [path])
    before = dump(store)
    path.write_bytes(jsonl([cuser("z1", None, "entirely different", 1)]))
    outcome = import_history(store, "claude", [path]).outcomes[0]
    assert outcome.status == "skipped" and "changed in place" in outcome.reason
    assert dump(store) == before


def test_a_session_continued_in_hermes_is_not_refreshed(tmp_path: Path, store: Store) -> None:
    path = tmp_path / "continued.jsonl"
    path.write_bytes(jsonl(rewind_records()[:2]))
    sid = only(import_history(store, "claude", [path]))
    append_message(store, sid, NewMessage("user", "continued in hermes"))
    path.write_bytes(jsonl(rewind_records()))
    outcome = import_history(store, "claude", [path]).outcomes[0]
    assert outcome.status == "skipped" and "continued in Hermes" in outcome.reason
    assert [m.content for m in get_messages(store, sid)][-1] == "continued in hermes"


def test_an_upstream_import_of_the_same_session_is_not_duplicated(store: Store) -> None:
    def work(conn: sqlite3.Connection) -> None:
        conn.execute(
            "INSERT INTO sessions (id, source, started_at, origin_json) VALUES (?, ?, ?, ?)",
            (
                "20260101_000000_abcdef123456",
                "claude-code",
                1.0,
                json.dumps(
                    {"imported_from": {"tool": "claude-code", "foreign_session_id": SHORT_ID}}
                ),
            ),
        )
        conn.execute(
            "INSERT INTO messages (session_id, role, content, timestamp) "
            "VALUES (?, 'user', 'x', 1)",
            ("20260101_000000_abcdef123456",),
        )

    store.write(work)
    outcome = import_history(store, "claude", [SHORT]).outcomes[0]
    assert outcome.status == "skipped" and "another tool" in outcome.reason
    assert outcome.session_id == "20260101_000000_abcdef123456"


@pytest.fixture
def timezone(monkeypatch: pytest.MonkeyPatch):
    def use(name: str) -> None:
        monkeypatch.setenv("TZ", name)
        time.tzset()

    yield use
    monkeypatch.undo()
    time.tzset()


def test_the_foreign_id_finds_the_session_when_its_id_would_differ(
    tmp_path: Path, store: Store, timezone
) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(SHORT.read_bytes())
    timezone("UTC")
    first = only(import_history(store, "claude", [path]))
    timezone("Asia/Tokyo")  # the id's local-time stamp would now differ
    more = cuser("new-1", "c06a9fe4-ba05-44f2-b619-a057c18101e5", "one more question", 50)
    path.write_bytes(SHORT.read_bytes() + jsonl([{**more, "sessionId": SHORT_ID}]))
    outcome = import_history(store, "claude", [path]).outcomes[0]
    assert (outcome.status, outcome.session_id, outcome.added) == ("updated", first, 1)
    assert len(dump(store)[0]) == 1


def test_an_unchanged_file_is_not_even_parsed(store: Store, monkeypatch) -> None:
    import_history(store, "claude", [SHORT, HEAVY])

    def refuse(*args, **kwargs):
        raise AssertionError("parsed an unchanged file")

    monkeypatch.setattr("hermes_tui.store.importers.run.parse_claude", refuse)
    report = import_history(store, "claude", [SHORT, HEAVY])
    assert [o.status for o in report.outcomes] == ["unchanged", "unchanged"]
    assert {o.messages for o in report.outcomes} == {4, 12}


def test_titles_are_clean_unique_and_short(tmp_path: Path, store: Store, make_session) -> None:
    make_session(title="Please fix the login bug")
    paths = []
    for n in range(2):
        path = tmp_path / f"t{n}.jsonl"
        own = {"sessionId": f"session-{n}"}
        records = [
            cuser(f"u{n}", None, "Please fix the login bug", 1, **own),
            cassistant(f"a{n}", f"u{n}", "m", [text("ok")], 2, **own),
        ]
        path.write_bytes(jsonl(records))
        paths.append(path)
    long = tmp_path / "long.jsonl"
    title = "Fix\u202e " + "very " * 40 + "long\x07 title"
    long.write_bytes(jsonl([{"type": "custom-title", "customTitle": title}, *rewind_records()]))
    report = import_history(store, "claude", [*paths, long])
    titles = [get_session(store, o.session_id).title for o in report.outcomes]
    assert titles[:2] == ["Please fix the login bug #2", "Please fix the login bug #3"]
    assert len(titles[2]) <= 100 and titles[2].startswith("Fix very very")
    assert "\u202e" not in titles[2] and "\x07" not in titles[2]


def test_imported_sessions_are_listed_and_searchable(store: Store) -> None:
    import_history(store, "claude", [SHORT, HEAVY])
    import_history(store, "codex", [MODERN])
    rows = list_sessions(store, ListQuery(source="claude-code")).items
    assert {r.title for r in rows} == {
        "mix phx.server doesnt seem to start",
        "start phoenix in background",
    }
    assert {r.source for r in list_sessions(store).items} == {"claude-code", "codex-cli"}
    with store.read() as conn:
        for table in ("messages_fts", "messages_fts_trigram"):
            hits = conn.execute(
                f"SELECT m.role FROM {table} f JOIN messages m ON m.id = f.rowid "
                f"WHERE {table} MATCH ? ORDER BY m.id",
                ('"phoenix_html"',),
            ).fetchall()
            assert [h[0] for h in hits] == ["tool"], table  # tool output is indexed
        prompt = conn.execute(
            "SELECT COUNT(*) FROM messages_fts WHERE messages_fts MATCH 'xterm AND scrolling'"
        ).fetchone()[0]
        assert prompt >= 1


def test_claude_subagent_becomes_a_delegate_child(tmp_path: Path, store: Store) -> None:
    project = tmp_path / "projects" / "-p"
    (project / PARENT_UUID / "subagents").mkdir(parents=True)
    shutil.copy(SUBAGENT, project / PARENT_UUID / "subagents" / SUBAGENT.name)
    # Alone, the sub-agent is kept as its own conversation ...
    [orphan] = import_history(store, "claude", [tmp_path]).outcomes
    assert orphan.parent_session_id is None and get_session(store, orphan.session_id).title
    # ... and attached once its parent transcript is imported.
    claude_parent(project)
    report = import_history(store, "claude", [tmp_path])
    parent, child = report.outcomes
    assert parent.status == "created" and child.status == "updated"
    row = get_session(store, child.session_id)
    assert row.parent_session_id == parent.session_id
    assert row.config["_delegate_from"] == parent.session_id
    assert [r.id for r in list_sessions(store).items] == [parent.session_id]
    assert tally(get_messages(store, child.session_id))["tool_calls"] == 12


def test_no_subagents_flag(tmp_path: Path, store: Store) -> None:
    project = tmp_path / "projects" / "-p"
    (project / PARENT_UUID / "subagents").mkdir(parents=True)
    shutil.copy(SUBAGENT, project / PARENT_UUID / "subagents" / SUBAGENT.name)
    claude_parent(project)
    report = import_history(store, "claude", [tmp_path], ImportOptions(subagents=False))
    assert [o.status for o in report.outcomes] == ["created", "skipped"]
    assert report.outcomes[1].reason == "sub-agent (--no-subagents)"


def test_codex_subagent_child_without_the_replayed_prefix(store: Store) -> None:
    report = import_history(store, "codex", [CODEX_CHILD, CODEX_PARENT])
    parent, child = report.outcomes  # parents are imported first, whatever the order given
    assert get_session(store, child.session_id).parent_session_id == parent.session_id
    assert [m.content for m in get_messages(store, child.session_id)] == [
        "Inspect fixtures.",
        "The fixtures are fully synthetic.",
    ]
    assert [r.id for r in list_sessions(store).items] == [parent.session_id]


def test_dry_run_writes_nothing(home: Path, store: Store) -> None:
    before = dump(store)
    report = import_history(store, "claude", [SHORT, HEAVY], ImportOptions(dry_run=True))
    assert [o.status for o in report.outcomes] == ["created", "created"]
    assert report.messages_added == 4 + 12
    assert dump(store) == before
    nothing = import_history(None, "codex", [MODERN], ImportOptions(dry_run=True))
    assert nothing.outcomes[0].messages == 8


def test_since_progress_and_cancel(store: Store) -> None:
    late = ImportOptions(since=time.time() + 86400)
    report = import_history(store, "claude", [SHORT, HEAVY], late)
    assert {o.reason for o in report.outcomes} == {"not active since --since"}
    seen = []
    report = import_history(
        store,
        "claude",
        [SHORT, HEAVY, KV_CLAUDE],
        progress=seen.append,
        cancelled=lambda: len(seen) >= 2,
    )
    assert [p.files_done for p in seen] == [1, 2] and seen[-1].files_total == 3
    assert report.cancelled and len(report.outcomes) == 2
    assert seen[-1].messages_added == sum(o.added for o in report.outcomes) > 0
    assert [p.outcome for p in seen] == report.outcomes


def test_malformed_line_is_reported_and_the_rest_imported(tmp_path: Path, store: Store) -> None:
    lines = SHORT.read_bytes().split(b"\n")
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b"\n".join([*lines[:6], b"{oops", *lines[6:]]))
    report = import_history(store, "claude", [bad, HEAVY])
    assert [str(p) for p in report.problems] == [f"{bad}:7: not valid JSON — line skipped"]
    assert [o.status for o in report.outcomes] == ["created", "created"]
    [outcome] = [o for o in report.outcomes if o.path == str(bad)]
    assert tally(get_messages(store, outcome.session_id)) == EXPECTED[SHORT]


def test_codex_thread_names_and_other_layout(tmp_path: Path, store: Store) -> None:
    root = tmp_path / "codex"
    (root / "sessions").mkdir(parents=True)
    shutil.copy(KV_CODEX, root / "sessions" / "rollout-2026-06-05T04-58-20-x.jsonl")
    thread = "019e9625-802f-7e91-840a-cfe88d14117a"
    (root / "session_index.jsonl").write_text(
        json.dumps({"id": thread, "thread_name": "Renamed", "updated_at": "2"})
        + "\n"
        + json.dumps({"id": thread, "thread_name": "Old", "updated_at": "1"})
        + "\n"
    )
    sid = only(import_history(store, "codex", [root]))
    assert get_session(store, sid).title == "Renamed"


def test_git_repo_root_is_found_when_the_cwd_exists(tmp_path: Path, store: Store) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "src" / "app").mkdir(parents=True)
    own = {"cwd": str(repo / "src" / "app")}
    records = [
        cuser("u1", None, "hi", 1, **own),
        cassistant("a1", "u1", "m1", [text("yo")], 2, **own),
    ]
    path = tmp_path / "g.jsonl"
    path.write_bytes(jsonl(records))
    session = get_session(store, only(import_history(store, "claude", [path])))
    assert (session.cwd, session.git_repo_root, session.git_branch) == (
        str(repo / "src" / "app"),
        str(repo),
        "main",
    )
    assert list_sessions(store).items[0].workspace == str(repo)


def test_old_layout_subagents_and_compaction_agents(tmp_path: Path, store: Store) -> None:
    """Claude Code ≤ 2.0 kept ``agent-<id>.jsonl`` beside the session files; compaction
    agents (``agent-acompact-*``) are never conversations."""
    project = tmp_path / "projects" / "-p"
    project.mkdir(parents=True)
    claude_parent(project)
    shutil.copy(SUBAGENT, project / "agent-aac57f5.jsonl")
    shutil.copy(SUBAGENT, project / "agent-acompact-1234.jsonl")
    report = import_history(store, "claude", [tmp_path])
    by_name = {Path(o.path).name: o for o in report.outcomes}
    parent = by_name[f"{PARENT_UUID}.jsonl"]
    assert by_name["agent-aac57f5.jsonl"].parent_session_id == parent.session_id
    skipped = by_name["agent-acompact-1234.jsonl"]
    assert skipped.status == "skipped" and skipped.reason.startswith("compaction agent")
