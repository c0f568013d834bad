"""Discovery: what is found, what is not, the order, and every field of the result."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

import hermes_tui.store.search.discovery as discovery_module
from hermes_tui.store import Store
from hermes_tui.store.search import SearchError, discover, session_search
from hermes_tui.store.search.plan import make_plan
from hermes_tui.store.search.sanitize import parse_query

from .searchkit import (
    DAY,
    NOW,
    add_session,
    copy_store,
    drop_tables,
    old_store,
    oracle_sessions,
    set_flags,
)

LITERALS = [
    "chat-send", "sp_new", "src/main.py", "P2.2", "v2.1.3-beta", "alice@example.com",
    "#123", "don't", "50%", "$5", "a:b", "ok?", "a,b", "NOTE:",
]  # fmt: skip


def found_ids(result) -> list[str]:
    return [h.session_id for h in result.hits]


# -- the literal list ---------------------------------------------------------------------


@pytest.fixture
def literal_store(store: Store) -> dict[str, str]:
    owners = {}
    for n, literal in enumerate(LITERALS):
        sid, _ = add_session(
            store,
            [("user", f"please look at {literal} in the build log"), ("assistant", "done")],
            ago=DAY * (n + 1),
        )
        owners[literal] = sid
    add_session(store, [("user", "nothing special here at all"), ("assistant", "fine")])
    return owners


@pytest.mark.parametrize("literal", LITERALS)
def test_every_literal_is_found_and_highlighted(
    store: Store, literal_store: dict[str, str], literal: str
) -> None:
    result = discover(store, literal, limit=10, now=NOW)
    assert literal_store[literal] in found_ids(result), (literal, found_ids(result))
    hit = next(h for h in result.hits if h.session_id == literal_store[literal])
    assert any(s.match for s in hit.snippet)
    json_result = session_search(store, query=literal, limit=10)
    assert json_result["success"] is True
    assert literal_store[literal] in [r["session_id"] for r in json_result["results"]]


def test_the_literal_text_itself_is_highlighted(
    store: Store, literal_store: dict[str, str]
) -> None:
    hit = discover(store, "chat-send", now=NOW).hits[0]
    assert ">>>chat-send<<<" in hit.snippet_text
    hit = discover(store, "alice@example.com", now=NOW).hits[0]
    assert ">>>alice@example.com<<<" in hit.snippet_text


# -- CJK against a substring oracle -------------------------------------------------------

CJK_TEXTS = [
    "帮我规划一下周末旅行，预算两千元。",
    "广西桂林的漓江风景非常美丽。",
    "我想去桂林",
    "广西的天气怎么样",
    "修改youer服务端的配置文件，然后重启服务。",
    "東京で美味しいラーメン屋を教えてください。",
    "明日の会議の資料を準備してください。",
    "서울에서 부산까지 기차로 얼마나 걸려요?",
    "오늘 회의 내용을 요약해 주세요.",
    "旅行",
    "Mixed English and 中文 旅行 plans",
]
CJK_QUERIES = [
    "旅行", "桂林", "广西", "周末旅行", "修改youer服务端", "東京", "ラーメン", "会議",
    "서울", "서울에서", "회의", "的", "中文", "漓江风景",
]  # fmt: skip


@pytest.fixture
def cjk_store(store: Store) -> Store:
    for n, text in enumerate(CJK_TEXTS):
        add_session(store, [("user", text), ("assistant", f"ok {n}")], ago=DAY * (n + 1))
    # Noise that must not count: a tool row, a rewound row, an archived session.
    add_session(store, [("user", "run it"), ("tool", "旅行 桂林 東京 서울 的")], ago=DAY * 40)
    _, ids = add_session(store, [("user", "旅行 桂林 撤回"), ("assistant", "ok")], ago=DAY * 41)
    set_flags(store, ids[:1], active=0, compacted=0)
    add_session(store, [("user", "旅行 桂林 東京 서울 的")], ago=DAY * 42, archived=True)
    return store


@pytest.mark.parametrize("query", CJK_QUERIES)
def test_cjk_is_found_and_complete(cjk_store: Store, query: str) -> None:
    expected = oracle_sessions(cjk_store, query)
    assert expected, query
    result = discover(cjk_store, query, limit=10, now=NOW)
    assert result.index == "trigram"
    assert set(found_ids(result)) == expected
    for hit in result.hits:
        assert query.lower() in "".join(s.text for s in hit.snippet if s.match).lower()


def test_cjk_or_and_mixed_queries(cjk_store: Store) -> None:
    either = oracle_sessions(cjk_store, "广西") | oracle_sessions(cjk_store, "桂林")
    assert set(found_ids(discover(cjk_store, "广西 OR 桂林", limit=10, now=NOW))) == either
    both = oracle_sessions(cjk_store, "广西") & oracle_sessions(cjk_store, "桂林")
    assert set(found_ids(discover(cjk_store, "广西 桂林", limit=10, now=NOW))) == both
    mixed = oracle_sessions(cjk_store, "中文") & oracle_sessions(cjk_store, "english")
    assert set(found_ids(discover(cjk_store, "english 中文", limit=10, now=NOW))) == mixed
    without = oracle_sessions(cjk_store, "桂林") - oracle_sessions(cjk_store, "广西")
    assert set(found_ids(discover(cjk_store, "桂林 NOT 广西", limit=10, now=NOW))) == without


def test_cjk_message_level_completeness(cjk_store: Store) -> None:
    """Every visible user/assistant message containing the text is a candidate."""
    caps = cjk_store.capabilities
    for query in ("旅行", "的", "서울", "修改youer服务端"):
        with cjk_store.read() as conn:
            plan = make_plan(conn, caps, parse_query(query))
            where, params = discovery_module._filters(caps, ("user", "assistant"), False)
            rows = discovery_module._fetch(conn, plan, where, params, True, None, 0)
            expected = {
                r[0]
                for r in conn.execute(
                    "SELECT m.id FROM messages m JOIN sessions s ON s.id = m.session_id "
                    "WHERE m.role IN ('user','assistant') AND (m.active = 1 OR m.compacted = 1) "
                    "AND s.archived = 0 AND instr(lower(m.content), lower(?)) > 0",
                    (query,),
                )
            }
        assert {r[0] for r in rows} == expected, query


def test_without_trigram_cjk_uses_a_bounded_like_scan(
    cjk_store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = copy_store(cjk_store, tmp_path / "notrigram")
    drop_tables(path, "messages_fts_trigram")
    store = Store.open(path)
    assert not store.capabilities.has_trigram
    result = discover(store, "旅行", limit=10, now=NOW)
    assert result.index == "like" and not result.partial
    assert set(found_ids(result)) == oracle_sessions(store, "旅行")
    monkeypatch.setattr("hermes_tui.store.search.discovery.LIKE_SCAN_ROWS", 3)
    result = discover(store, "旅行", limit=10, now=NOW)
    assert result.partial and "newest 3 messages" in (result.warning or "")
    assert session_search(store, query="旅行")["warning"] == result.warning


def test_without_any_fts_the_error_says_so(store: Store, tmp_path: Path) -> None:
    add_session(store, [("user", "hello world")])
    path = copy_store(store, tmp_path / "nofts")
    drop_tables(path, "messages_fts", "messages_fts_trigram")
    bare = Store.open(path)
    with pytest.raises(SearchError, match="Full-text search is not available"):
        discover(bare, "hello")
    result = session_search(bare, query="hello")
    assert result["success"] is False and "FTS5" in result["error"]


def test_an_older_store_treats_every_row_as_live(tmp_path: Path) -> None:
    path = old_store(tmp_path / "old" / "state.db")
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(
        "INSERT INTO sessions (id, source, started_at, title) VALUES ('s1', 'cli', ?, 'Old')",
        (NOW - DAY,),
    )
    for n, text in enumerate(["where is the flux capacitor", "in the garage", "thanks"]):
        conn.execute(
            "INSERT INTO messages (session_id, role, content, timestamp) VALUES ('s1', ?, ?, ?)",
            ("user" if n % 2 == 0 else "assistant", text, NOW - DAY + n),
        )
    conn.close()
    store = Store.open(path)
    result = discover(store, "capacitor", now=NOW)
    assert found_ids(result) == ["s1"]
    assert [m.content for m in result.hits[0].window.messages][-1] == "thanks"
    # CJK on a store without a trigram table: the bounded LIKE fallback.
    assert discover(store, "旅行", now=NOW).index == "like"


# -- rules: lineage, roles, archived, rewound, compacted, cron ------------------------------


def test_one_result_per_lineage_naming_the_segment_and_its_root(store: Store) -> None:
    root, _ = add_session(store, [("user", "start the zebra migration")], ago=3 * DAY,
                          title="zebra", end_reason="compression")  # fmt: skip
    child, _child_ids = add_session(
        store, [("user", "zebra migration zebra step two"), ("assistant", "zebra done")],
        ago=2 * DAY, parent=root, title="zebra #2",
    )  # fmt: skip
    other, _ = add_session(store, [("user", "a zebra at the zoo")], ago=5 * DAY)
    result = discover(store, "zebra", limit=5, now=NOW)
    assert sorted(found_ids(result)) == sorted([child, other])
    hit = next(h for h in result.hits if h.session_id == child)
    assert hit.parent_session_id == root and hit.root.session_id == root
    assert hit.root.title == "zebra"
    as_json = session_search(store, query="zebra", limit=5)
    entry = next(r for r in as_json["results"] if r["session_id"] == child)
    assert entry["parent_session_id"] == root and entry["title"] == "zebra"
    plain = next(r for r in as_json["results"] if r["session_id"] == other)
    assert "parent_session_id" not in plain
    assert result.sessions_searched == 2


def test_delegate_and_tool_sources_are_hidden(store: Store) -> None:
    root, _ = add_session(store, [("user", "plain question")], ago=DAY)
    add_session(store, [("user", "okapi research")], parent=root, source="subagent",
                config={"_delegate_from": root})  # fmt: skip
    add_session(store, [("user", "okapi integration")], source="tool")
    assert discover(store, "okapi", now=NOW).hits == ()


def test_role_filters(store: Store) -> None:
    sid, _ = add_session(
        store,
        [("user", "run the check"), ("tool", "narwhal failed at step 3"),
         ("assistant", "see above"),
         ("system", "narwhal system note")],
    )  # fmt: skip
    assert discover(store, "narwhal", now=NOW).hits == ()
    hits = discover(store, "narwhal", roles=["user", "assistant", "tool"], now=NOW).hits
    assert [h.matched_role for h in hits] == ["tool"]
    assert any(m.role == "tool" for m in hits[0].window.messages)
    assert discover(store, "narwhal", roles=["tool"], now=NOW).hits[0].session_id == sid
    assert discover(store, "narwhal", roles=["system"], now=NOW).hits[0].matched_role == "system"
    as_json = session_search(store, query="narwhal", role_filter="tool")
    assert as_json["results"][0]["matched_role"] == "tool"
    bad = session_search(store, query="narwhal", role_filter="user,wizard")
    assert bad == {"success": False, "error": bad["error"]} and "wizard" in bad["error"]


def test_archived_only_when_asked(store: Store) -> None:
    sid, _ = add_session(store, [("user", "the quokka file")], archived=True)
    assert discover(store, "quokka", now=NOW).hits == ()
    assert found_ids(discover(store, "quokka", include_archived=True, now=NOW)) == [sid]
    assert session_search(store, query="quokka", include_archived=True)["count"] == 1


def test_rewound_never_compacted_always(store: Store) -> None:
    sid, ids = add_session(
        store,
        [("user", "old plan with axolotl"), ("assistant", "axolotl noted"),
         ("user", "taken back: pangolin"), ("assistant", "summary of the plan")],
    )  # fmt: skip
    set_flags(store, ids[:2], active=0, compacted=1)
    set_flags(store, ids[2:3], active=0, compacted=0)
    hits = discover(store, "axolotl", now=NOW).hits
    assert found_ids(discover(store, "axolotl", now=NOW)) == [sid]
    assert ids[2] not in [m.id for m in hits[0].window.messages]
    assert discover(store, "pangolin", now=NOW).hits == ()


def test_cron_is_demoted_below_the_users_conversations(store: Store) -> None:
    cron, _ = add_session(store, [("assistant", "lemur lemur lemur digest")], source="cron", ago=60)
    mine, _ = add_session(store, [("user", "the lemur question and other words")], ago=30 * DAY)
    assert found_ids(discover(store, "lemur", now=NOW)) == [mine, cron]
    assert found_ids(discover(store, "lemur", sort="newest", now=NOW)) == [mine, cron]


# -- order --------------------------------------------------------------------------------


def test_recency_beats_age_for_equal_text(store: Store) -> None:
    old, _ = add_session(store, [("user", "configure the tapir proxy")], ago=730 * DAY)
    new, _ = add_session(store, [("user", "configure the tapir proxy")], ago=DAY)
    assert found_ids(discover(store, "tapir proxy", now=NOW)) == [new, old]
    assert found_ids(discover(store, '"tapir proxy"', now=NOW)) == [new, old]


def test_a_much_more_relevant_old_message_can_still_win(store: Store) -> None:
    # BM25 ≈ 2.9× higher for the old message; 300 days old keeps 37% of it (vs 99.5%).
    old, _ = add_session(store, [("user", "ibex ibex ibex ibex ibex ibex")], ago=300 * DAY)
    new, _ = add_session(store, [("user", "long rambling text " * 100 + "ibex")], ago=DAY)
    for n in range(5):
        add_session(store, [("user", f"filler {n}")])
    assert found_ids(discover(store, "ibex", now=NOW)) == [old, new]


def test_a_marathon_session_does_not_take_every_slot(store: Store) -> None:
    marathon, _ = add_session(
        store, [("user" if n % 2 == 0 else "assistant", f"step {n}: the kiwi pipeline and more")
                for n in range(300)], ago=2 * DAY,
    )  # fmt: skip
    focused, _ = add_session(store, [("user", "kiwi kiwi kiwi")], ago=9 * DAY)
    other, _ = add_session(store, [("user", "one kiwi question")], ago=20 * DAY)
    result = discover(store, "kiwi", limit=3, now=NOW)
    assert found_ids(result)[0] == focused
    assert sorted(found_ids(result)) == sorted([marathon, focused, other])


def test_sort_newest_and_oldest(store: Store) -> None:
    sids = [
        add_session(store, [("user", f"gecko note {n}")], ago=(n + 1) * 10 * DAY)[0]
        for n in range(4)
    ]
    assert found_ids(discover(store, "gecko", limit=4, sort="newest", now=NOW)) == sids
    assert found_ids(discover(store, "gecko", limit=4, sort="oldest", now=NOW)) == sids[::-1]
    assert [
        r["session_id"]
        for r in session_search(store, query="gecko", limit=4, sort="OLDEST")["results"]
    ] == sids[::-1]


def test_deepening_past_a_batch_filled_by_one_session(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(discovery_module, "BATCH", 5)
    first, _ = add_session(store, [("user", "heron")], ago=30 * DAY)
    busy, _ = add_session(store, [("user", f"heron {n}") for n in range(12)], ago=DAY)
    result = discover(store, "heron", limit=2, now=NOW)
    assert sorted(found_ids(result)) == sorted([first, busy]) and not result.partial
    add_session(store, [("user", f"heron again {n}") for n in range(30)], ago=DAY / 2)
    result = discover(store, "heron", limit=3, now=NOW)
    assert len(result.hits) == 1 and result.partial
    assert "Only the 20 most recent matching messages were examined" in (result.warning or "")


# -- the title shortcut, the caller's lineage -----------------------------------------------


def test_a_session_titled_like_the_query_comes_first(store: Store) -> None:
    titled, ids = add_session(
        store, [("user", "hello"), ("assistant", "hi")], title="Budget review", ago=90 * DAY
    )
    add_session(store, [("user", "the budget review is due")], ago=DAY)
    result = discover(store, "Budget review", now=NOW)
    assert result.hits[0].session_id == titled and result.hits[0].title_match
    entry = session_search(store, query='"Budget review"')["results"][0]
    assert entry["matched_role"] == "session_title"
    assert entry["snippet"] == "Session title matched: Budget review"
    assert entry["match_message_id"] == ids[0]


def test_the_callers_own_conversation_is_left_out(store: Store) -> None:
    mine, _ = add_session(store, [("user", "walrus plan")], ago=DAY, end_reason="compression")
    tip, _ = add_session(store, [("user", "walrus again")], parent=mine)
    other, _ = add_session(store, [("user", "walrus elsewhere")], ago=2 * DAY)
    assert found_ids(discover(store, "walrus", exclude_lineage_of=tip, now=NOW)) == [other]


# -- every field --------------------------------------------------------------------------


def test_every_field_of_the_discovery_shape(store: Store) -> None:
    turns = [("user" if n % 2 == 0 else "assistant", f"turn {n}") for n in range(30)]
    turns[15] = ("assistant", "the osprey deployment finally worked")
    sid, ids = add_session(store, turns, title="Osprey", model="openai/gpt-5.1", ago=2 * DAY)
    result = session_search(store, query="osprey", limit=3)
    assert set(result) == {"success", "mode", "query", "results", "count", "sessions_searched"}
    assert (result["success"], result["mode"], result["query"], result["count"]) == (
        True,
        "discover",
        "osprey",
        1,
    )
    (entry,) = result["results"]
    assert set(entry) == {
        "session_id", "when", "source", "model", "title", "matched_role", "match_message_id",
        "snippet", "bookend_start", "messages", "bookend_end", "messages_before", "messages_after",
    }  # fmt: skip
    assert entry["session_id"] == sid and entry["title"] == "Osprey"
    assert entry["source"] == "cli" and entry["model"] == "openai/gpt-5.1"
    assert re.fullmatch(r"[A-Z][a-z]+ \d\d, \d{4} at \d\d:\d\d [AP]M", entry["when"])
    assert entry["matched_role"] == "assistant" and entry["match_message_id"] == ids[15]
    assert entry["snippet"] == "the >>>osprey<<< deployment finally worked"
    assert [m["id"] for m in entry["messages"]] == ids[10:21]
    assert [m.get("anchor") for m in entry["messages"]] == [None] * 5 + [True] + [None] * 5
    assert [m["id"] for m in entry["bookend_start"]] == ids[:3]
    assert [m["id"] for m in entry["bookend_end"]] == ids[-3:]
    assert (entry["messages_before"], entry["messages_after"]) == (5, 5)
    first = entry["bookend_start"][0]
    assert set(first) == {"id", "role", "content", "timestamp"}
    assert first["content"] == "turn 0" and isinstance(first["timestamp"], float)


def test_model_falls_back_and_tool_fields_are_shaped(store: Store) -> None:
    def work(conn: sqlite3.Connection) -> None:
        from hermes_tui.store import NewMessage
        from hermes_tui.store.messages import insert_message
        from hermes_tui.store.sessions import NewSession, insert_session

        sid = insert_session(
            conn, store.capabilities, NewSession(source="cli", started_at=NOW - DAY)
        )
        insert_message(conn, store.capabilities, sid, NewMessage("user", "check the marmot"))
        insert_message(conn, store.capabilities, sid, NewMessage(
            "assistant", "", tool_calls=[{"id": "c1", "type": "function",
            "function": {"name": "terminal", "arguments": "{}"}}]))  # fmt: skip
        insert_message(
            conn,
            store.capabilities,
            sid,
            NewMessage("tool", "ok", tool_call_id="c1", tool_name="terminal"),
        )

    store.write(work)
    entry = session_search(store, query="marmot", role_filter="user,assistant,tool")["results"][0]
    assert entry["model"] == "unknown" and entry["title"] is None
    call, result = entry["messages"][1], entry["messages"][2]
    assert call["tool_calls"][0]["function"]["name"] == "terminal" and call["content"] == ""
    assert result["tool_name"] == "terminal" and result["tool_call_id"] == "c1"


def test_empty_results_say_so(store: Store) -> None:
    add_session(store, [("user", "nothing")])
    assert session_search(store, query="zzzyzx") == {
        "success": True, "mode": "discover", "query": "zzzyzx", "results": [], "count": 0,
        "message": "No matching sessions found.",
    }  # fmt: skip
    nothing = session_search(store, query="()")
    assert nothing["count"] == 0 and "Nothing to search for" in nothing["message"]
    error = session_search(store, query="NOT this")
    assert error["success"] is False and "NOT needs" in error["error"]


def test_arguments_are_coerced_like_hermes(store: Store) -> None:
    for n in range(12):
        add_session(store, [("user", f"common word {n}")], ago=(n + 1) * DAY)
    assert session_search(store, query="common", limit=50)["count"] == 10
    assert session_search(store, query="common", limit="x")["count"] == 3
    assert session_search(store, query="common", limit=0)["count"] == 1
    with pytest.raises(SearchError):
        discover(store, "common", limit=11)
