"""Listing: one row per conversation, filters before the limit, keyset paging, query plans."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

from hermes_tui.store import ListQuery, Store, count_sessions, list_sessions, set_pinned
from hermes_tui.store.generate import generate_store
from hermes_tui.store.listing import _filters

from ..conftest import NOW


def _all_pages(store: Store, query: ListQuery, limit: int) -> list[str]:
    ids: list[str] = []
    cursor = None
    while True:
        page = list_sessions(store, query, cursor=cursor, limit=limit)
        ids.extend(r.root_id for r in page.items)
        if not page.has_more:
            return ids
        cursor = page.next_cursor


def test_lineage_is_one_row_projected_to_its_tip(store: Store, make_session) -> None:
    root = make_session(
        title="my project", end_reason="compression", ago=9_000,
        messages=[("user", "start the sync tool"), ("assistant", "ok")],
    )  # fmt: skip
    mid = make_session(
        title="my project #2", parent=root, end_reason="compression", ago=8_000,
        messages=[("user", "[CONTEXT COMPACTION] summary"), ("assistant", "go on")],
    )  # fmt: skip
    tip = make_session(title="my project #3", parent=mid, ended=False, ago=7_000,
                       messages=[("user", "write the README")])  # fmt: skip
    branch = make_session(title="side idea", parent=root, config={"_branched_from": root})
    make_session(parent=root, config={"_delegate_from": root}, source="subagent")
    rows = list_sessions(store).items
    assert [r.root_id for r in rows] == [branch, root]
    lineage = rows[1]
    assert (lineage.id, lineage.title, lineage.segments, lineage.is_open) == (
        tip,
        "my project #3",
        3,
        True,
    )
    assert lineage.preview == "start the sync tool"
    assert lineage.message_count == 5
    assert lineage.started_at == pytest.approx(NOW - 9_000)
    assert lineage.last_active > NOW - 7_000
    assert count_sessions(store, ListQuery()) == 2


def test_filters_apply_before_the_limit(store: Store, make_session) -> None:
    # Thirty untitled cron rows newer than the one telegram row must not hide it.
    for n in range(30):
        make_session("cron", ago=100 + n, messages=[("user", "digest")])
    wanted = make_session("telegram", ago=50_000, title="trip", messages=[("user", "旅行计划")])
    page = list_sessions(store, ListQuery(source="telegram"), limit=5)
    assert [r.id for r in page.items] == [wanted] and not page.has_more
    assert [r.id for r in list_sessions(store, ListQuery(text="旅行"), limit=5).items] == [wanted]
    assert [r.id for r in list_sessions(store, ListQuery(text="TRIP"), limit=5).items] == [wanted]
    assert list_sessions(store, ListQuery(text="100%_"), limit=5).items == ()


def test_workspace_archived_pinned_and_tool_filters(
    store: Store, make_session, tmp_path: Path
) -> None:
    repo = str(tmp_path / "repo")
    in_repo = make_session(cwd=repo + "/sub", git_root=repo, messages=[("user", "a")])
    plain = make_session(cwd=str(tmp_path / "plain"), messages=[("user", "b")])
    archived = make_session(archived=True, messages=[("user", "c")])
    tool = make_session("tool", messages=[("user", "d")])
    assert {r.id for r in list_sessions(store, ListQuery(workspace=repo)).items} == {in_repo}
    needle = ListQuery(workspace_needle="PLAIN")
    assert {r.id for r in list_sessions(store, needle).items} == {plain}
    default = {r.id for r in list_sessions(store).items}
    assert default == {in_repo, plain}
    only = {r.id for r in list_sessions(store, ListQuery(archived="only")).items}
    assert only == {archived}
    assert tool in {r.id for r in list_sessions(store, ListQuery(source="tool")).items}
    set_pinned(store, plain, True)
    rows = list_sessions(store, ListQuery(pinned_only=True)).items
    assert [(r.id, r.pinned) for r in rows] == [(plain, True)]


@pytest.fixture(scope="module")
def thousand(tmp_path_factory: pytest.TempPathFactory) -> Store:
    path = tmp_path_factory.mktemp("thousand") / "state.db"
    generate_store(path, sessions=1_000, messages=6_000, now=NOW, seed=3)
    return Store.open(path)


def _expected(store: Store, query: ListQuery) -> set[str]:
    with store.read() as conn:
        where, params = _filters(store.capabilities, query)
        return {
            r[0]
            for r in conn.execute(
                f"SELECT s.id FROM sessions s WHERE {' AND '.join(where)}", params
            )
        }


@pytest.mark.parametrize("sort", ["started", "last_active"])
@pytest.mark.parametrize("limit", [1, 7, 50])
def test_paging_visits_every_conversation_once(thousand: Store, sort: str, limit: int) -> None:
    query = ListQuery(sort=sort)  # type: ignore[arg-type]
    if limit == 1 and sort == "last_active":
        query = ListQuery(sort="last_active", source="telegram")
    ids = _all_pages(thousand, query, limit)
    assert len(ids) == len(set(ids)), "a conversation appeared twice"
    assert set(ids) == _expected(thousand, query)
    assert len(ids) == count_sessions(thousand, query)


def test_paging_orders_are_monotonic(thousand: Store) -> None:
    starts = []
    cursor = None
    for _ in range(5):
        page = list_sessions(thousand, ListQuery(sort="started"), cursor=cursor, limit=40)
        starts += [r.started_at for r in page.items]
        cursor = page.next_cursor
    assert starts == sorted(starts, reverse=True)
    page = list_sessions(thousand, ListQuery(sort="last_active"), limit=200)
    actives = [r.last_active for r in page.items]
    assert actives == sorted(actives, reverse=True)


def test_pinned_first_pages_without_gaps(thousand: Store) -> None:
    rng = random.Random(5)
    ids = [r.root_id for r in list_sessions(thousand, ListQuery(), limit=400).items]
    pinned = set(rng.sample(ids, 23))
    for sid in pinned:
        set_pinned(thousand, sid, True)
    try:
        for sort in ("started", "last_active"):
            query = ListQuery(sort=sort, pinned_first=True)  # type: ignore[arg-type]
            seen = _all_pages(thousand, query, 10)
            assert set(seen[:23]) == pinned
            assert len(seen) == len(set(seen)) == count_sessions(thousand, ListQuery())
    finally:
        for sid in pinned:
            set_pinned(thousand, sid, False)


def test_list_query_plan_uses_the_start_index_and_touches_a_page(thousand: Store) -> None:
    conn = sqlite3.connect(f"file:{thousand.path}?mode=ro", uri=True)
    where, params = _filters(thousand.capabilities, ListQuery())
    sql = (
        f"SELECT s.id, s.started_at FROM sessions s WHERE {' AND '.join(where)} AND 1 "
        "AND s.started_at <= ? AND (s.started_at < ? OR s.id < ?) "
        "ORDER BY s.started_at DESC, s.id DESC LIMIT ?"
    )
    args = [*params, 1e12, 1e12, "~"]
    plan = " | ".join(r[3] for r in conn.execute("EXPLAIN QUERY PLAN " + sql, [*args, 51]))
    assert "SEARCH s USING INDEX idx_sessions_started" in plan
    assert "SCAN s" not in plan

    def steps(limit: int) -> int:
        counter = [0]
        conn.set_progress_handler(lambda: counter.__setitem__(0, counter[0] + 1) or 0, 100)
        conn.execute(sql, [*args, limit]).fetchall()
        return counter[0]

    small, large = steps(11), steps(401)
    assert small * 10 < large, "work must grow with the page, not the store"
