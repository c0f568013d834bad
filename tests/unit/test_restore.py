"""Trash and restore: what a prune deleted comes back exactly, or a clear refusal."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from hermes_tui.store import NewMessage, Store, Usage, append_message, rename_session
from hermes_tui.store.execute import execute
from hermes_tui.store.filters import DAY, SessionFilter, build_filter
from hermes_tui.store.generate import generate_store
from hermes_tui.store.prune import preview, prune_selection
from hermes_tui.store.restore import restore_file
from hermes_tui.store.sessionio import encode_line, read_record
from hermes_tui.store.trash import TrashDamaged, clean_trash, verify
from tests.conftest import NOW
from tests.exporting import table_rows


def _rows(store: Store, ids: set[str]) -> dict[str, list[tuple]]:
    return table_rows(store.path, ids)


def _fts_hits(store: Store, word: str) -> int:
    with store.read() as conn:
        return conn.execute(
            "SELECT COUNT(*) FROM messages_fts WHERE messages_fts MATCH ?", (word,)
        ).fetchone()[0]


def _prune_all(store: Store, values: dict | None = None):
    f = build_filter(values, NOW) if values else SessionFilter()
    found = preview(store, prune_selection(f, now=NOW), now=NOW)
    return found, execute(store, found, now=NOW)


def test_restore_brings_back_exactly_what_was_deleted(home: Path) -> None:
    generate_store(home / "state.db", 300, 6_000, now=NOW, seed=3)
    store = Store.open(home / "state.db")
    victim = None
    with store.read() as conn:
        victim = conn.execute(
            "SELECT id FROM sessions WHERE ended_at < ? AND parent_session_id IS NULL "
            "AND archived = 0 AND end_reason != 'compression' ORDER BY started_at LIMIT 1",
            (NOW - 200 * DAY,),
        ).fetchone()[0]
    # Usage rows, inactive (rewound and compacted) rows, a BLOB and non-UTF-8 text.
    old = NOW - 201 * DAY
    append_message(store, victim, NewMessage("user", "zanzibarquokka kept", timestamp=old),
                   Usage(input_tokens=5, model="m1", estimated_cost_usd=0.25))  # fmt: skip
    store.write(
        lambda c: c.execute(
            "INSERT INTO messages (session_id, role, content, timestamp, active, compacted, "
            "reasoning_details, api_content) VALUES (?, 'assistant', 'zanzibarquokka old', ?, "
            "0, 1, CAST(X'80FF41' AS TEXT), X'00010203')",
            (victim, old),
        )
    )
    selection = prune_selection(build_filter({"older_than": "150d"}, NOW), now=NOW)
    found = preview(store, selection, now=NOW)
    doomed = {sid for m in found.matches for sid in m.session_ids}
    assert victim in doomed and len(doomed) > 20
    before = _rows(store, doomed)
    result = execute(store, found, now=NOW)
    assert set(result.session_ids) == doomed
    (path,) = result.trash
    info = verify(path)
    assert info.sessions == len(doomed) and info.messages == result.messages
    assert _fts_hits(store, "zanzibarquokka") == 0
    assert _rows(store, doomed) == {"sessions": [], "messages": [], "usage": []}
    restored = restore_file(store, path)
    assert set(restored.restored) == doomed and not restored.skipped and restored.verified
    assert _fts_hits(store, "zanzibarquokka") == 2
    assert _rows(store, doomed) == before  # every column, message ids, usage rows
    # Pruned again, the trash holds the same bytes: nothing drifted in the round trip.
    _, again = _prune_all(store, {"older_than": "150d"})
    assert set(again.session_ids) == doomed
    assert _strip_meta(path) == _strip_meta(again.trash[0])
    restore_file(store, again.trash[0])
    assert _rows(store, doomed) == before
    with sqlite3.connect(store.path) as conn:
        bad = conn.execute(
            "SELECT typeof(reasoning_details), hex(reasoning_details), typeof(api_content) "
            "FROM messages WHERE content = 'zanzibarquokka old'"
        ).fetchone()
        assert bad == ("text", "80FF41", "blob")
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        conn.execute("INSERT INTO messages_fts(messages_fts) VALUES ('integrity-check')")


def _strip_meta(path: Path) -> list[bytes]:
    """The record lines of a trash file (the trailer differs: time, file-level fields)."""
    return [line for line in path.read_bytes().splitlines() if b"_hermes_tui_trailer" not in line]


def test_restore_row_for_row_against_a_snapshot(store: Store, make_session) -> None:
    sid = make_session(
        ago=100 * DAY, title="snap", messages=[("user", "hello"), ("assistant", "x")]
    )
    call = {"id": "c1", "type": "function", "function": {"name": "terminal", "arguments": "{}"}}
    append_message(
        store,
        sid,
        NewMessage("assistant", "tool time", timestamp=NOW - 99 * DAY, tool_calls=[call]),
        Usage(input_tokens=3, output_tokens=4, model="m", billing_provider="p"),
    )
    store.write(lambda c: c.execute("UPDATE sessions SET ended_at = ? WHERE id = ?", (NOW, sid)))
    before = _rows(store, {sid})
    _, result = _prune_all(store)
    assert _rows(store, {sid}) == {"sessions": [], "messages": [], "usage": []}
    restore_file(store, result.trash[0])
    assert _rows(store, {sid}) == before
    assert len(before["usage"]) == 1 and len(before["messages"]) == 3


def test_restore_skips_ids_that_exist_and_reports_conflicts(store: Store, make_session) -> None:
    a = make_session(ago=100 * DAY, title="alpha", messages=[("user", "a")])
    b = make_session(ago=101 * DAY, title="beta", messages=[("user", "b")])
    root = make_session(ago=102 * DAY, title="tree", messages=[("user", "root")])
    branch = make_session(ago=3 * DAY, parent=root, config={"_branched_from": root},
                          messages=[("user", "kept branch")])  # fmt: skip
    _, result = _prune_all(store)
    assert result.detached == (branch,)
    path = result.trash[0]
    # Someone re-created session a meanwhile, and another session took the title "beta".
    make_session(session_id=a, ago=1 * DAY, messages=[("user", "new a")])
    other = make_session(ago=1 * DAY, messages=[("user", "o")])
    rename_session(store, other, "beta")
    dry = restore_file(store, path, dry_run=True)
    assert dry.dry_run and {s.unit for s in dry.skipped} == {a}
    restored = restore_file(store, path)
    assert set(restored.restored) == {b, root}
    assert [(s.unit, s.reason.split(":")[0]) for s in restored.skipped] == [
        (a, "session id(s) exist again")
    ]
    assert any("title 'beta' is now used by" in n for n in restored.notes)
    with store.read() as conn:
        assert conn.execute("SELECT title FROM sessions WHERE id = ?", (b,)).fetchone()[0] is None
        parent = conn.execute("SELECT parent_session_id FROM sessions WHERE id = ?", (branch,))
        assert parent.fetchone()[0] == root  # the branch the prune detached is re-attached


def test_damaged_trash_restores_nothing(store: Store, make_session) -> None:
    for i in range(3):
        make_session(ago=(100 + i) * DAY, messages=[("user", f"m{i}")])
    _, result = _prune_all(store)
    path = result.trash[0]
    data = path.read_bytes()
    cases = {
        "truncated": data[: len(data) // 2],
        "edited": data.replace(b'"m1"', b'"mX"'),
        "no trailer": b"\n".join(data.splitlines()[:-1]) + b"\n",
        "garbage": b"not json\n" + data,
    }
    for name, content in cases.items():
        broken = path.with_name(f"broken-{name.replace(' ', '-')}.jsonl")
        broken.write_bytes(content)
        with pytest.raises(TrashDamaged):
            restore_file(store, broken)
    with store.read() as conn:
        assert conn.execute("SELECT COUNT(*) FROM sessions").fetchone()[0] == 0


def test_export_style_records_round_trip(store: Store, make_session, home: Path) -> None:
    sid = make_session(ago=5 * DAY, title="exp", messages=[("user", "q")])
    call = {"id": "c", "type": "function", "function": {"name": "t", "arguments": "{}"}}
    append_message(store, sid, NewMessage("assistant", "", tool_calls=[call]))
    with store.read() as conn:
        record = read_record(conn, store.capabilities, sid, decode_tool_calls=True)
    assert isinstance(record["messages"][-1]["tool_calls"], list)
    path = home / "export.jsonl"
    path.write_bytes(encode_line(record))
    store.write(lambda c: c.execute("DELETE FROM messages WHERE session_id = ?", (sid,)))
    store.write(lambda c: c.execute("DELETE FROM sessions WHERE id = ?", (sid,)))
    result = restore_file(store, path)
    assert result.restored == (sid,) and not result.verified
    with store.read() as conn:
        calls = conn.execute(
            "SELECT tool_calls FROM messages WHERE session_id = ? AND tool_calls IS NOT NULL",
            (sid,),
        ).fetchone()[0]
    assert json.loads(calls)[0]["function"]["name"] == "t"


def test_clean_trash_removes_only_old_trash(home: Path) -> None:
    folder = home / "session-trash"
    folder.mkdir(parents=True)
    old = folder / "20261001_120000.jsonl"
    old_files = folder / "20261001_120000.jsonl.files"
    recent = folder / "20261120_120000-2.jsonl"
    mine = folder / "notes.txt"
    for p in (old, recent, mine):
        p.write_text("x")
    old_files.mkdir()
    (old_files / "a.json").write_text("{}")
    removed = clean_trash(home, NOW)
    assert set(removed) == {old, old_files}
    assert sorted(p.name for p in folder.iterdir()) == ["20261120_120000-2.jsonl", "notes.txt"]
