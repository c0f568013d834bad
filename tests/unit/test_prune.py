"""Prune and archive execution: the ids previewed are the ids deleted, units, re-checks."""

from __future__ import annotations

import sqlite3
import stat
from pathlib import Path

import pytest

from hermes_tui.store import (
    Cancelled,
    ListQuery,
    NewMessage,
    Store,
    append_message,
    end_session,
    list_sessions,
    rename_session,
    reopen_session,
    set_archived,
    set_pinned,
)
from hermes_tui.store.execute import execute
from hermes_tui.store.filters import DAY, SessionFilter, build_filter
from hermes_tui.store.generate import generate_store
from hermes_tui.store.lineage import listable_sql
from hermes_tui.store.prune import archive_selection, preview, prune_selection
from hermes_tui.store.restore import restore_file
from hermes_tui.store.sessions import conversation_ids
from hermes_tui.store.trash import TrashUnwritable
from hermes_tui.store.units import SessionGraph
from tests.conftest import NOW


def _all_ids(store: Store) -> set[str]:
    with store.read() as conn:
        return {r[0] for r in conn.execute("SELECT id FROM sessions")}


def _fts_consistent(store: Store) -> None:
    with sqlite3.connect(store.path) as conn:
        messages = conn.execute("SELECT COUNT(*) FROM messages").fetchone()[0]
        for table in ("messages_fts", "messages_fts_trigram"):
            conn.execute(f"INSERT INTO {table}({table}) VALUES ('integrity-check')")
            assert conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] == messages
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        dangling = conn.execute(
            "SELECT COUNT(*) FROM sessions c WHERE c.parent_session_id IS NOT NULL AND NOT EXISTS "
            "(SELECT 1 FROM sessions p WHERE p.id = c.parent_session_id)"
        ).fetchone()[0]
        orphans = conn.execute(
            "SELECT COUNT(*) FROM messages m WHERE NOT EXISTS "
            "(SELECT 1 FROM sessions s WHERE s.id = m.session_id)"
        ).fetchone()[0]
        assert (dangling, orphans) == (0, 0)


@pytest.fixture
def generated(home: Path) -> Store:
    generate_store(home / "state.db", 400, 8_000, now=NOW, seed=11)
    return Store.open(home / "state.db")


def test_units_agree_with_conversation_ids(generated: Store) -> None:
    with generated.snapshot() as conn:
        roots = [r[0] for r in conn.execute(f"SELECT id FROM sessions s WHERE {listable_sql()}")]
        graph = SessionGraph.load(conn, generated.capabilities)
        for root in roots:
            unit = graph.unit(root)
            going, staying = conversation_ids(conn, root)
            assert sorted(unit.session_ids) == sorted(going), root
            assert sorted(unit.staying) == sorted(staying), root
    assert any(len(graph.unit(r).session_ids) > 1 for r in roots)  # lineages and delegates


def test_previewed_ids_are_exactly_the_deleted_ids(generated: Store) -> None:
    before = _all_ids(generated)
    selection = prune_selection(build_filter({"older_than": "60d"}, NOW), now=NOW)
    found = preview(generated, selection, now=NOW)
    assert found.count > 50 and found.spared  # open/pinned/archived ones exist in the generator
    planned = {sid for m in found.matches for sid in m.session_ids}
    result = execute(generated, found, now=NOW)
    after = _all_ids(generated)
    assert before - after == planned == set(result.session_ids)
    assert {m.id for m in result.done} == {m.id for m in found.matches} and not result.changed
    for s in found.spared:  # spared conversations are untouched
        assert set(s.match.session_ids) <= after
    with generated.read() as conn:
        assert conn.execute("SELECT COUNT(*) FROM messages").fetchone()[0] > 0
    assert result.messages > 0
    _fts_consistent(generated)
    # Nothing the preview matched is matched again: the store no longer has it.
    assert preview(generated, selection, now=NOW).count == 0


def test_lineage_deleted_as_a_unit_nothing_resurrects(store: Store, make_session) -> None:
    root = make_session(ago=100 * DAY, title="my project", end_reason="compression",
                        messages=[("user", "segment one")])  # fmt: skip
    mid = make_session(ago=99 * DAY, parent=root, title="my project #2",
                       end_reason="compression", messages=[("user", "segment two")])  # fmt: skip
    tip = make_session(ago=98 * DAY, parent=mid, title="my project #3", messages=[("user", "3")])
    delegate = make_session("subagent", ago=98 * DAY, parent=mid,
                            config={"_delegate_from": mid}, messages=[("user", "sub")])  # fmt: skip
    branch = make_session(ago=97 * DAY, parent=root, config={"_branched_from": root},
                          messages=[("user", "a branch the user kept")])  # fmt: skip
    set_pinned(store, branch, True)
    found = preview(store, prune_selection(build_filter({"title": "#3"}, NOW), now=NOW), now=NOW)
    assert [m.tip_id for m in found.matches] == [tip]
    result = execute(store, found, now=NOW)
    assert set(result.session_ids) == {root, mid, tip, delegate}
    assert result.detached == (branch,)
    remaining = _all_ids(store)
    assert remaining == {branch}
    rows = list_sessions(store, ListQuery(archived="include", exclude_sources=())).items
    assert [(r.id, r.parent_session_id) for r in rows] == [(branch, None)]
    _fts_consistent(store)


def test_a_row_changed_after_the_preview_is_reported_not_included(
    store: Store, make_session
) -> None:
    ids = [make_session(ago=(100 + i) * DAY, messages=[("user", f"m{i}")]) for i in range(7)]
    found = preview(store, prune_selection(SessionFilter(), now=NOW), now=NOW)
    assert {m.id for m in found.matches} == set(ids)
    append_message(
        store, ids[0], NewMessage("assistant", "a late reply", timestamp=NOW - 100 * DAY)
    )
    reopen_session(store, ids[1])
    set_pinned(store, ids[2], True)
    rename_session(store, ids[3], "renamed meanwhile")
    store.write(lambda c: c.execute("DELETE FROM messages WHERE session_id = ?", (ids[4],)))
    store.write(lambda c: c.execute("DELETE FROM sessions WHERE id = ?", (ids[4],)))
    make_session("subagent", ago=50 * DAY, parent=ids[5], config={"_delegate_from": ids[5]})
    result = execute(store, found, now=NOW)
    reasons = {c.id: c.reason for c in result.changed}
    assert reasons == {
        ids[0]: "changed since the preview",
        ids[1]: "now open",
        ids[2]: "now pinned",
        ids[3]: "changed since the preview",
        ids[4]: "gone (deleted by someone else)",
        ids[5]: "changed since the preview",
    }
    assert [m.id for m in result.done] == [ids[6]]
    assert set(result.session_ids) == {ids[6]}
    assert _all_ids(store) >= {ids[0], ids[1], ids[2], ids[3], ids[5]}
    end_session(store, ids[1], "cli_close")


def test_only_the_ticked_rows_and_unknown_ids(store: Store, make_session) -> None:
    ids = [make_session(ago=(100 + i) * DAY, messages=[("user", "x")]) for i in range(4)]
    found = preview(store, prune_selection(SessionFilter(), now=NOW), now=NOW)
    result = execute(store, found, only=[ids[1], ids[3]], now=NOW)
    assert set(result.session_ids) == {ids[1], ids[3]}
    assert _all_ids(store) == {ids[0], ids[2]}
    with pytest.raises(ValueError, match="not in the preview"):
        execute(store, found, only=["nope"], now=NOW)


def test_cancel_rolls_back_and_leaves_no_trash(store: Store, make_session, home: Path) -> None:
    for i in range(5):
        make_session(ago=(100 + i) * DAY, messages=[("user", "x")])
    found = preview(store, prune_selection(SessionFilter(), now=NOW), now=NOW)
    seen: list[str] = []

    def cancelled() -> bool:
        return "deleting" in seen

    with pytest.raises(Cancelled):
        execute(store, found, progress=lambda p: seen.append(p.phase), cancelled=cancelled)
    assert len(_all_ids(store)) == 5
    assert list((home / "session-trash").iterdir()) == []


def test_trash_file_and_folder_modes(store: Store, make_session, home: Path) -> None:
    make_session(ago=100 * DAY, messages=[("user", "x")])
    found = preview(store, prune_selection(SessionFilter(), now=NOW), now=NOW)
    steps: list[tuple[str, int, int]] = []
    result = execute(store, found, progress=lambda p: steps.append((p.phase, p.done, p.total)))
    (path,) = result.trash
    assert path.parent == home / "session-trash" and path.suffix == ".jsonl"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert [s[0] for s in steps] == ["checking", "saving", "deleting", "deleting", "done"]
    assert steps[-1] == ("done", 1, 1)


def test_archive_whole_lineage_then_unarchive(store: Store, make_session) -> None:
    root = make_session(ago=10 * DAY, title="arch me", end_reason="compression",
                        messages=[("user", "a")])  # fmt: skip
    tip = make_session(ago=9 * DAY, parent=root, title="arch me #2", messages=[("user", "b")])
    other = make_session(ago=9 * DAY, title="keep", messages=[("user", "c")])
    found = preview(store, archive_selection(build_filter({"title": "arch"}, NOW)), now=NOW)
    result = execute(store, found, now=NOW)
    assert set(result.session_ids) == {root, tip} and result.trash == ()
    with store.read() as conn:
        flags = dict(conn.execute("SELECT id, archived FROM sessions").fetchall())
    assert flags == {root: 1, tip: 1, other: 0}
    again = preview(store, archive_selection(build_filter({"title": "arch"}, NOW)), now=NOW)
    assert again.count == 0  # idempotent
    set_archived(store, tip, False)
    with store.read() as conn:
        assert {r[0] for r in conn.execute("SELECT archived FROM sessions")} == {0}


def test_unwritable_trash_deletes_nothing(store: Store, make_session, home: Path) -> None:
    make_session(ago=100 * DAY, messages=[("user", "x")])
    (home / "session-trash").write_text("a file where the trash folder should be")
    found = preview(store, prune_selection(SessionFilter(), now=NOW), now=NOW)
    with pytest.raises(TrashUnwritable, match="nothing was deleted"):
        execute(store, found, now=NOW)
    assert len(_all_ids(store)) == 1


def test_hermes_transcript_files_go_to_the_trash_and_come_back(
    store: Store, make_session, home: Path
) -> None:
    sid = make_session(ago=100 * DAY, messages=[("user", "x")])
    keep = make_session(ago=1 * DAY, messages=[("user", "y")])
    folder = home / "sessions"
    folder.mkdir()
    files = [folder / f"{sid}.json", folder / f"{sid}.jsonl", folder / f"request_dump_{sid}_1.json"]
    for f in [*files, folder / f"{keep}.json"]:
        f.write_text("{}")
    result = execute(store, preview(store, prune_selection(SessionFilter(), now=NOW), now=NOW))
    assert not any(f.exists() for f in files) and (folder / f"{keep}.json").exists()
    kept = result.trash[0].with_name(result.trash[0].name + ".files")
    assert sorted(p.name for p in kept.iterdir()) == sorted(f.name for f in files)
    restore_file(store, result.trash[0])
    assert all(f.exists() for f in files)
