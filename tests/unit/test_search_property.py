"""Arbitrary queries never raise and always return a well-formed result; searches cancel."""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hermes_tui.store import Cancelled, Store
from hermes_tui.store.search import discover, session_search

from .searchkit import DAY, add_session

TEXTS = [
    "deploy the chat-send service to src/main.py",
    "alice@example.com paid $5 (50%) for #123",
    "帮我规划一下周末旅行，预算两千元。",
    "서울에서 부산까지 기차로 얼마나 걸려요?",
    "NOTE: don't use a:b or a,b — ok?",
    "東京で美味しいラーメン屋を教えてください。",
    "emoji 🚀🎉 and combining e\u0301 and RTL \u202etext",
]

MESSAGE = {"id": int, "role": str, "timestamp": float}


@pytest.fixture(scope="module")
def search_store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    store = Store.create(tmp_path_factory.mktemp("prop") / "state.db")
    for n, text in enumerate(TEXTS * 3):
        add_session(store, [("user", text), ("assistant", f"reply {n} {text[::-1]}")],
                    ago=DAY * (n + 1))  # fmt: skip
    return store


def check_message(message: dict) -> None:
    for key, kind in MESSAGE.items():
        assert isinstance(message[key], kind), (key, message)
    assert "content" in message
    assert message.get("anchor", True) is True


def check_result(result: dict) -> None:
    assert isinstance(result, dict)
    json.dumps(result, ensure_ascii=False).encode("utf-8")  # serialisable, encodable
    if result["success"] is False:
        assert set(result) == {"success", "error"} and result["error"]
        return
    assert result["mode"] in ("discover", "browse")
    assert result["count"] == len(result["results"])
    for entry in result["results"]:
        if result["mode"] == "browse":
            continue
        anchors = [m for m in entry["messages"] if m.get("anchor")]
        assert len(anchors) == 1 and anchors[0]["id"] == entry["match_message_id"]
        for message in (*entry["bookend_start"], *entry["messages"], *entry["bookend_end"]):
            check_message(message)
        ids = [
            m["id"] for m in (*entry["bookend_start"], *entry["messages"], *entry["bookend_end"])
        ]
        assert ids == sorted(set(ids))
        assert isinstance(entry["snippet"], str)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(query=st.text(max_size=60), sort=st.sampled_from([None, "newest", "oldest", "bogus"]),
       roles=st.sampled_from([None, "user", "user,assistant,tool", "tool", ""]))  # fmt: skip
def test_arbitrary_unicode_queries_are_well_formed(
    search_store: Store, query: str, sort, roles
) -> None:
    check_result(session_search(search_store, query=query, sort=sort, role_filter=roles, limit=5))


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(words=st.lists(st.sampled_from(
    ["deploy", "chat-send", "OR", "AND", "NOT", "(", ")", '"', "*", "旅行", "서울", "$5", "a:b",
     "ok?", "#", "src/main.py", "\x00", "\ud800", "ラーメン", "e\u0301"]), max_size=8))  # fmt: skip
def test_operator_and_script_soup_is_well_formed(search_store: Store, words: list[str]) -> None:
    check_result(session_search(search_store, query=" ".join(words), limit=10))


def test_lone_surrogates_and_nul_are_safe(search_store: Store) -> None:
    for query in ("\ud800", "deploy\x00", "\x00\x00", "旅\udfff行"):
        check_result(session_search(search_store, query=query))


def test_a_cancelled_search_raises_cancelled_promptly(search_store: Store) -> None:
    start = time.perf_counter()
    with pytest.raises(Cancelled):
        discover(search_store, "deploy", cancelled=lambda: True)
    with pytest.raises(Cancelled):
        session_search(search_store, query="旅行", cancelled=lambda: True)
    assert time.perf_counter() - start < 1.0


def test_cancel_during_the_sqlite_work(search_store: Store) -> None:
    """The progress handler interrupts a statement in flight."""
    polls = []

    def cancel_after_a_while() -> bool:
        polls.append(1)
        return len(polls) > 3

    with pytest.raises(Cancelled):
        for _ in range(50):
            discover(search_store, "deploy OR reply", limit=10, cancelled=cancel_after_a_while)
    assert len(polls) > 3


def test_a_search_that_is_not_cancelled_completes(search_store: Store) -> None:
    assert discover(search_store, "deploy", cancelled=lambda: False).hits
