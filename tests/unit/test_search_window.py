"""Windows, bookends, scrolling, reading and browsing."""

from __future__ import annotations

import pytest

import hermes_tui.store.search.window as window_module
from hermes_tui.store import Store
from hermes_tui.store.search import (
    SearchError,
    browse,
    discover,
    read_session,
    scroll,
    session_search,
)
from hermes_tui.store.search.window import anchored_view, get_message

from .searchkit import DAY, NOW, add_session, interleaved, set_flags


def turns(n: int, marker: int | None = None, word: str = "needle") -> list[tuple[str, str]]:
    out = [("user" if i % 2 == 0 else "assistant", f"message {i}") for i in range(n)]
    if marker is not None:
        role = out[marker][0]
        out[marker] = (role, f"message {marker} with the {word}")
    return out


def check_view(store: Store, sid: str, ids: list[int], pos: int, width: int = 5) -> None:
    """The invariants of a discovery view with the anchor at *pos* of a plain session."""
    caps = store.capabilities
    with store.read() as conn:
        anchor = get_message(conn, caps, ids[pos])
        assert anchor is not None
        start, window, end, gap_before, gap_after = anchored_view(
            conn, caps, sid, anchor, width=width, size=len(ids)
        )
    shown = [m.id for m in (*start, *window.messages, *end)]
    assert shown == sorted(shown) and len(shown) == len(set(shown)), "no duplicates, in order"
    assert window.messages_before == min(pos, width)
    assert window.messages_after == min(len(ids) - 1 - pos, width)
    assert [m.id for m in window.messages] == ids[
        pos - window.messages_before : pos + window.messages_after + 1
    ]
    assert gap_before >= 0 and gap_after >= 0
    assert len(start) + gap_before + len(window.messages) + gap_after + len(end) == len(ids)
    first, last = pos - window.messages_before, pos + window.messages_after
    assert [m.id for m in start] == ids[: min(3, first)]
    assert [m.id for m in end] == ids[max(last + 1, len(ids) - 3) :]


@pytest.mark.parametrize("length", [1, 2, 3, 5, 7, 11, 12, 16, 17, 18, 25])
def test_every_anchor_position_of_short_and_long_sessions(store: Store, length: int) -> None:
    sid, ids = add_session(store, turns(length))
    for pos in range(length):
        check_view(store, sid, ids, pos)


def test_hit_in_the_first_and_last_three_messages(store: Store) -> None:
    for pos in (0, 1, 2, 27, 28, 29):
        _sid, ids = add_session(store, turns(30, pos, word=f"w{pos}x"), ago=DAY + pos)
        hit = discover(store, f"w{pos}x", now=NOW).hits[0]
        assert hit.match_message_id == ids[pos]
        assert hit.window.messages_before == min(pos, 5)
        assert hit.window.messages_after == min(29 - pos, 5)
        if pos < 3:
            assert hit.bookend_start == () and hit.gap_before == 0
            assert [m.id for m in hit.bookend_end] == ids[-3:]
        else:
            assert hit.bookend_end == () and hit.gap_after == 0
            assert [m.id for m in hit.bookend_start] == ids[:3]


def test_bookends_skip_tool_rows_and_empty_messages(store: Store) -> None:
    rows = [("user", "goal"), ("assistant", ""), ("tool", "output"), ("assistant", "plan")]
    rows += turns(20)
    rows += [("user", "thanks"), ("tool", "x"), ("assistant", "bye")]
    rows[12] = ("user", "the bison step")
    _sid, ids = add_session(store, rows)
    hit = discover(store, "bison", now=NOW).hits[0]
    assert [m.content for m in hit.bookend_start] == ["goal", "plan", "message 0"]
    assert [m.content for m in hit.bookend_end] == ["message 19", "thanks", "bye"]
    assert all(m.role in ("user", "assistant") for m in hit.window.messages)
    # the gaps count the messages between the last/first bookend and the slice
    assert [m.id for m in hit.window.messages] == ids[7:18]
    assert (hit.gap_before, hit.gap_after) == (2, 5)


def test_windows_and_gaps_leave_out_rewound_rows(store: Store) -> None:
    _sid, ids = add_session(store, turns(30, 15))
    set_flags(store, ids[12:14], active=0, compacted=0)
    set_flags(store, ids[0:5], active=0, compacted=1)
    hit = discover(store, "needle", now=NOW).hits[0]
    shown = [m.id for m in hit.window.messages]
    assert ids[12] not in shown and ids[13] not in shown
    assert shown == [*ids[8:12], *ids[14:21]]
    assert [m.id for m in hit.bookend_start] == ids[:3]  # compacted history is shown
    assert len(hit.bookend_start) + hit.gap_before + 11 + hit.gap_after + len(hit.bookend_end) == 28


# -- scrolling ----------------------------------------------------------------------------


def walk(store: Store, sid: str, start: int, width: int) -> tuple[list[int], list[int]]:
    """Scroll forward to the end, then back to the start (passing ``messages[-1].id`` /
    ``messages[0].id``); returns every id seen each way, in order."""
    seen: list[int] = []
    anchor = start
    while True:
        view = scroll(store, sid, anchor, window=width)
        ids = [m.id for m in view.window.messages]
        assert anchor in ids and view.window.anchor_id == anchor
        if seen:
            assert seen[-1] in ids, "the boundary message is in both windows"
        seen.extend(i for i in ids if not seen or i > seen[-1])
        if view.window.messages_after < width:
            break
        anchor = ids[-1]
    forward = seen
    seen = []
    while True:
        view = scroll(store, sid, anchor, window=width)
        ids = [m.id for m in view.window.messages]
        if seen:
            assert seen[0] in ids, "the boundary message is in both windows"
        seen = [i for i in ids if not seen or i < seen[0]] + seen
        if view.window.messages_before < width:
            break
        anchor = ids[0]
    return forward, seen


@pytest.mark.parametrize("width", [1, 3, 5, 20])
def test_scrolling_walks_a_whole_session_both_ways(store: Store, width: int) -> None:
    sid, ids = add_session(store, turns(47))
    forward, backward = walk(store, sid, ids[20], width)
    assert forward[-1] == ids[-1] and ids[20] in forward
    assert backward == ids


def test_scrolling_a_long_session_uses_the_rowid_walk(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    sid, ids = add_session(store, turns(window_module.WALK_FROM + 40))
    calls = []
    original = window_module._walk
    monkeypatch.setattr(window_module, "_walk", lambda *a: calls.append(a) or original(*a))
    _, backward = walk(store, sid, ids[150], 20)
    assert backward == ids and calls


def test_scrolling_interleaved_sessions(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(window_module, "WALK_FROM", 4)
    a, b, ids_a, ids_b = interleaved(store, 60)
    for sid, ids in ((a, ids_a), (b, ids_b)):
        _, backward = walk(store, sid, ids[30], 7)
        assert backward == ids
    view = scroll(store, a, ids_a[0], window=5)
    assert view.window.messages_before == 0 and [m.id for m in view.window.messages] == ids_a[:6]


def test_scroll_shape_fields_and_errors(store: Store) -> None:
    sid, ids = add_session(store, [*turns(12), ("tool", "tool output")], title="Scroll me")
    _other, other_ids = add_session(store, turns(3))
    result = session_search(store, session_id=sid, around_message_id=ids[6], window=2)
    assert set(result) == {
        "success", "mode", "session_id", "around_message_id", "session_meta", "window",
        "messages", "messages_before", "messages_after",
    }  # fmt: skip
    assert (result["mode"], result["session_id"], result["around_message_id"]) == (
        "scroll",
        sid,
        ids[6],
    )
    assert set(result["session_meta"]) == {"when", "source", "model", "title"}
    assert result["session_meta"]["title"] == "Scroll me" and result["window"] == 2
    assert [m["id"] for m in result["messages"]] == ids[4:9]
    assert [m.get("anchor") for m in result["messages"]] == [None, None, True, None, None]
    end = session_search(store, session_id=sid, around_message_id=ids[-1])
    assert end["messages"][-1]["role"] == "tool" and end["messages_after"] == 0
    assert session_search(store, session_id="nope", around_message_id=1) == {
        "success": False, "error": "session_id not found: nope"}  # fmt: skip
    assert session_search(store, session_id=sid, around_message_id=other_ids[0])["error"] == (
        f"around_message_id {other_ids[0]} not in session_id {sid}"
    )
    assert session_search(store, session_id=sid, around_message_id="x")["error"] == (
        "scroll requires integer around_message_id"
    )
    assert (
        session_search(store, session_id=sid, around_message_id=ids[6], window=99)["window"] == 20
    )
    assert (
        session_search(store, session_id=sid, around_message_id=ids[6], window="x")["window"] == 5
    )
    with pytest.raises(SearchError, match="between 1 and 20"):
        scroll(store, sid, ids[6], window=0)


def test_scroll_rebinds_within_a_compression_lineage(store: Store) -> None:
    root, _ = add_session(store, turns(4), end_reason="compression", ago=2 * DAY)
    child, child_ids = add_session(store, turns(6), parent=root, ago=DAY)
    result = session_search(store, session_id=root, around_message_id=child_ids[2])
    assert result["session_id"] == child
    assert result["warning"] == (
        f"around_message_id {child_ids[2]} lives in {child} (child of {root}); "
        "rebound transparently"
    )
    rejected = session_search(
        store, session_id=root, around_message_id=child_ids[2], exclude_lineage_of=child
    )
    assert "scroll rejected" in rejected["error"]


# -- read and browse ----------------------------------------------------------------------


def test_read_shape(store: Store) -> None:
    short, short_ids = add_session(store, turns(25), title="Short")
    result = session_search(store, session_id=short)
    assert set(result) == {"success", "mode", "session_id", "session_meta", "message_count",
                           "truncated", "messages"}  # fmt: skip
    assert (result["mode"], result["message_count"], result["truncated"]) == ("read", 25, False)
    assert [m["id"] for m in result["messages"]] == short_ids
    long, long_ids = add_session(store, turns(45))
    set_flags(store, long_ids[30:32], active=0, compacted=0)
    result = session_search(store, session_id=long)
    assert result["message_count"] == 43 and result["truncated"] is True
    kept = [i for i in long_ids if i not in long_ids[30:32]]
    assert [m["id"] for m in result["messages"]] == kept[:20] + kept[-10:]
    assert result["message"] == (
        "Session has 43 messages; showing first 20 + last 10. Pass around_message_id "
        "(any id above) to scroll the middle."
    )
    typed = read_session(store, long)
    assert typed.truncated and len(typed.head) == 20 and len(typed.tail) == 10
    empty, _ = add_session(store, [])
    assert session_search(store, session_id=empty)["messages"] == []


def test_browse_shape(store: Store) -> None:
    older, _ = add_session(store, [("user", "first thing")], ago=3 * DAY, title="Older")
    newer, _ = add_session(store, [("user", "second thing")], ago=DAY)
    add_session(store, [("user", "hidden")], archived=True)
    add_session(store, [("user", "a tool run")], source="tool")
    add_session(store, [("user", "a branch")], parent=older, config={"_branched_from": older})
    result = session_search(store)
    assert set(result) == {"success", "mode", "results", "count", "message"}
    assert result["mode"] == "browse" and result["count"] == 2
    assert [r["session_id"] for r in result["results"]] == [newer, older]
    assert set(result["results"][0]) == {
        "session_id", "title", "source", "started_at", "last_active", "message_count", "preview",
    }  # fmt: skip
    assert result["results"][0]["preview"] == "second thing"
    assert result["message"].startswith("Showing 2 most recent sessions.")
    assert [r.id for r in browse(store, limit=5, exclude_lineage_of=newer)] == [older]
    assert session_search(store, query="   ", limit=1)["count"] == 1


def test_the_rowid_walk_falls_back_to_the_index_across_a_long_gap(store: Store) -> None:
    """A long session resumed after another session wrote 200 messages in between."""
    import sqlite3

    from hermes_tui.store import NewMessage, NewSession
    from hermes_tui.store.messages import insert_message
    from hermes_tui.store.sessions import insert_session

    def work(conn: sqlite3.Connection) -> tuple[str, list[int]]:
        caps = store.capabilities
        a = insert_session(conn, caps, NewSession(source="cli", started_at=NOW - DAY))
        b = insert_session(conn, caps, NewSession(source="telegram", started_at=NOW - DAY))
        ids = [insert_message(conn, caps, a, NewMessage("user", f"a {n}", timestamp=NOW - DAY + n))
               for n in range(window_module.WALK_FROM + 20)]  # fmt: skip
        for n in range(200):
            insert_message(conn, caps, b, NewMessage("user", f"b {n}", timestamp=NOW - 500 + n))
        for n in range(8):
            ids.append(
                insert_message(conn, caps, a, NewMessage("user", f"again {n}", timestamp=NOW - n))
            )
        return a, ids

    sid, ids = store.write(work)
    pivot = window_module.WALK_FROM + 19  # the last message before the gap
    view = scroll(store, sid, ids[pivot], window=5)
    assert [m.id for m in view.window.messages] == ids[pivot - 5 : pivot + 6]
    assert view.window.messages_after == 5
    _, backward = walk(store, sid, ids[pivot], 5)
    assert backward == ids
