"""Delete, archive and pin act on whole conversations; counters follow Hermes' rules."""

from __future__ import annotations

import sqlite3

import pytest

from hermes_tui.store import (
    ListQuery,
    NewMessage,
    NewSession,
    SessionIsOpen,
    SessionNotFound,
    Store,
    Usage,
    append_message,
    create_session,
    delete_conversation,
    end_session,
    get_session,
    list_sessions,
    reopen_session,
    set_archived,
    set_pinned,
)
from hermes_tui.store.restore import restore_file
from hermes_tui.store.trash import TrashUnwritable, files_dir, verify
from tests.exporting import table_rows


def _graph(make_session) -> dict[str, str]:
    g = {}
    g["root"] = make_session(title="chain", end_reason="compression", messages=[("user", "one")])
    g["mid"] = make_session(parent=g["root"], end_reason="compression", messages=[("user", "two")])
    g["tip"] = make_session(parent=g["mid"], messages=[("user", "three")])
    g["delegate"] = make_session(
        "subagent", parent=g["mid"], config={"_delegate_from": g["mid"]}, messages=[("user", "sub")]
    )
    g["delegate_child"] = make_session(
        "subagent", parent=g["delegate"], config={"_delegate_from": g["delegate"]},
        messages=[("user", "subsub")],
    )  # fmt: skip
    g["branch"] = make_session(
        parent=g["root"], config={"_branched_from": g["root"]}, messages=[("user", "branch")]
    )
    g["branch_child"] = make_session(
        parent=g["branch"], config={"_delegate_from": g["branch"]}, messages=[("user", "bc")]
    )
    g["other"] = make_session(title="unrelated", messages=[("user", "keep me")])
    return g


def _ids(store: Store) -> set[str]:
    with store.read() as conn:
        return {r[0] for r in conn.execute("SELECT id FROM sessions")}


def _fts_matches(store: Store, word: str) -> int:
    with store.read() as conn:
        return conn.execute(
            "SELECT COUNT(*) FROM messages_fts WHERE messages_fts MATCH ?", (word,)
        ).fetchone()[0]


@pytest.mark.parametrize("target", ["root", "mid", "tip"])
def test_delete_removes_the_whole_conversation(store: Store, make_session, target: str) -> None:
    g = _graph(make_session)
    result = delete_conversation(store, g[target])
    gone = {g[k] for k in ("root", "mid", "tip", "delegate", "delegate_child")}
    assert set(result.deleted) == gone
    assert result.detached == (g["branch"],)
    assert _ids(store) == {g["branch"], g["branch_child"], g["other"]}
    assert get_session(store, g["branch"]).parent_session_id is None
    with store.read() as conn:
        dangling = conn.execute(
            "SELECT COUNT(*) FROM sessions s WHERE parent_session_id IS NOT NULL AND NOT EXISTS "
            "(SELECT 1 FROM sessions p WHERE p.id = s.parent_session_id)"
        ).fetchone()[0]
        orphans = conn.execute(
            "SELECT COUNT(*) FROM messages WHERE session_id NOT IN (SELECT id FROM sessions)"
        ).fetchone()[0]
    assert (dangling, orphans) == (0, 0)
    assert result.messages == 5
    assert _fts_matches(store, "three") == 0 and _fts_matches(store, "branch") == 1
    # Nothing left to "resurrect": the conversation is gone from lists entirely.
    listed = {r.root_id for r in list_sessions(store).items}
    assert listed == {g["branch"], g["other"]}


def test_delete_refuses_an_open_conversation(store: Store, make_session) -> None:
    root = make_session(end_reason="compression")
    tip = make_session(parent=root, ended=False)
    with pytest.raises(SessionIsOpen):
        delete_conversation(store, root)
    assert _ids(store) == {root, tip}
    delete_conversation(store, root, allow_open=True)
    assert _ids(store) == set()


def test_delete_unknown(store: Store) -> None:
    with pytest.raises(SessionNotFound):
        delete_conversation(store, "nope")


def test_delete_moves_transcript_files_next_to_the_trash(store: Store, make_session) -> None:
    sid = make_session()
    folder = store.home / "sessions"
    folder.mkdir()
    names = {f"{sid}.json", f"{sid}.jsonl", f"request_dump_{sid}_1.json"}
    for name in (*names, "other.json"):
        (folder / name).write_text("{}")
    result = delete_conversation(store, sid)
    assert [p.name for p in folder.iterdir()] == ["other.json"]
    assert {p.name for p in files_dir(result.trash).iterdir()} == names
    restore_file(store, result.trash)
    assert {p.name for p in folder.iterdir()} == {*names, "other.json"}


def test_delete_is_undone_by_restore_exactly(store: Store, make_session) -> None:
    g = _graph(make_session)
    everything = _ids(store)
    before = table_rows(store.path, everything)
    result = delete_conversation(store, g["mid"])
    assert _fts_matches(store, "subsub") == 0
    assert verify(result.trash).sessions == len(result.deleted) == 5
    assert (result.trash.stat().st_mode & 0o777) == 0o600
    restored = restore_file(store, result.trash)
    assert set(restored.restored) == set(result.deleted)
    # Every column of every row, the branch's link to its parent and the FTS index.
    assert table_rows(store.path, everything) == before
    assert _fts_matches(store, "subsub") == 1


def test_delete_without_a_trash_deletes_nothing(store: Store, make_session) -> None:
    sid = make_session()
    (store.home / "session-trash").write_text("not a folder")
    with pytest.raises(TrashUnwritable):
        delete_conversation(store, sid)
    assert _ids(store) == {sid}


def test_archive_and_unarchive_act_on_the_lineage(store: Store, make_session) -> None:
    g = _graph(make_session)
    changed = set_archived(store, g["tip"], True)
    assert set(changed) == {g["root"], g["mid"], g["tip"]}
    assert {r.root_id for r in list_sessions(store).items} == {g["branch"], g["other"]}
    archived = list_sessions(store, ListQuery(archived="only")).items
    assert [(r.root_id, r.id) for r in archived] == [(g["root"], g["tip"])]
    assert set_archived(store, g["tip"], True) == []
    assert set(set_archived(store, g["root"], False)) == {g["root"], g["mid"], g["tip"]}
    assert not get_session(store, g["mid"]).archived


def test_pin_adds_the_column_once_and_pins_the_lineage(store: Store, make_session) -> None:
    g = _graph(make_session)
    assert "pinned" not in store.capabilities.session_columns
    assert set_pinned(store, g["other"], False) == []  # unpinning needs no column
    assert "pinned" not in store.capabilities.session_columns
    assert set(set_pinned(store, g["mid"], True)) == {g["root"], g["mid"], g["tip"]}
    assert "pinned" in store.capabilities.session_columns
    with sqlite3.connect(store.path) as conn:
        index = conn.execute(
            "SELECT sql FROM sqlite_master WHERE name = 'idx_sessions_pinned'"
        ).fetchone()[0]
    assert "WHERE pinned = 1" in index
    assert [r.id for r in list_sessions(store, ListQuery(pinned_only=True)).items] == [g["tip"]]
    set_pinned(store, g["tip"], False)
    assert list_sessions(store, ListQuery(pinned_only=True)).items == ()


def test_counters_follow_hermes(store: Store) -> None:
    sid = create_session(store, NewSession(source="cli", model=None))
    calls = [
        {"id": f"c{n}", "type": "function", "function": {"name": "terminal", "arguments": "{}"}}
        for n in range(2)
    ]
    append_message(store, sid, NewMessage("user", "run it"))
    append_message(
        store,
        sid,
        NewMessage("assistant", "", tool_calls=calls),
        Usage(input_tokens=100, output_tokens=20, cache_read_tokens=5, model="m1",
              billing_provider="openrouter", estimated_cost_usd=0.01),
    )  # fmt: skip
    append_message(store, sid, NewMessage("tool", "ok", tool_call_id="c0", tool_name="terminal"))
    append_message(store, sid, NewMessage("tool", "ok", tool_call_id="c1", tool_name="terminal"))
    append_message(
        store,
        sid,
        NewMessage("assistant", "done", tool_calls=calls[:1]),
        Usage(input_tokens=50, output_tokens=10, model="m2", estimated_cost_usd=0.02),
    )
    s = get_session(store, sid)
    # 5 rows; 2 + 1 calls on assistant rows; tool result rows do not count as calls.
    assert (s.message_count, s.tool_call_count) == (5, 3)
    assert (s.input_tokens, s.output_tokens, s.cache_read_tokens, s.api_call_count) == (
        150,
        30,
        5,
        2,
    )
    assert s.model == "m1" and s.billing_provider == "openrouter"  # filled only while empty
    assert s.estimated_cost_usd == pytest.approx(0.03)
    with store.read() as conn:
        usage = conn.execute(
            "SELECT model, api_call_count, input_tokens FROM session_model_usage ORDER BY model"
        ).fetchall()
    assert [tuple(u) for u in usage] == [("m1", 1, 100), ("m2", 1, 50)]


def test_append_rejects_unknown_role_and_session(store: Store) -> None:
    sid = create_session(store, NewSession(source="cli"))
    with pytest.raises(ValueError, match="unknown role"):
        append_message(store, sid, NewMessage("robot", "x"))
    with pytest.raises(SessionNotFound):
        append_message(store, "missing", NewMessage("user", "x"))
    assert get_session(store, sid).message_count == 0


def test_structured_content_and_surrogates(store: Store) -> None:
    from hermes_tui.store import get_messages

    sid = create_session(store, NewSession(source="cli"))
    parts = [{"type": "text", "text": "look"}, {"type": "image_url", "image_url": {"url": "x"}}]
    append_message(store, sid, NewMessage("user", parts))
    append_message(store, sid, NewMessage("user", "bad \ud83d half"))
    texts = [m.content for m in get_messages(store, sid)]
    assert texts == ["look [image]", "bad \ufffd half"]
    with store.read() as conn:
        raw = conn.execute("SELECT content FROM messages ORDER BY id LIMIT 1").fetchone()[0]
    assert raw.startswith("\x00json:")


def test_end_first_reason_wins_and_reopen(store: Store) -> None:
    sid = create_session(store, NewSession(source="cli"))
    assert end_session(store, sid, "cli_close")
    assert not end_session(store, sid, "other")
    assert get_session(store, sid).end_reason == "cli_close"
    assert reopen_session(store, sid)
    s = get_session(store, sid)
    assert (s.ended_at, s.end_reason, s.is_open) == (None, None, True)


def test_imported_sessions_are_not_live_and_can_be_deleted(store: Store, make_session) -> None:
    sid = make_session("claude-code", ended=False, messages=[("user", "imported")])
    [row] = list_sessions(store).items
    assert not row.is_open and not get_session(store, sid).is_open
    assert delete_conversation(store, sid).deleted == (sid,)
