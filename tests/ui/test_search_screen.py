"""Pilot and snapshot tests of the search screen."""

from __future__ import annotations

import pytest
from textual.widgets import Input, OptionList, Static

from hermes_tui.store import Store
from hermes_tui.tui.app import Start
from hermes_tui.tui.screens import search as search_screen
from hermes_tui.tui.screens.browser import BrowserScreen
from hermes_tui.tui.screens.chat import ChatScreen
from hermes_tui.tui.screens.search import SearchScreen
from hermes_tui.tui.search_history import SearchHistory
from hermes_tui.tui.widgets.hit_detail import HitDetail

from .conftest import settle, text_of
from .test_chat import LONG, add_long


@pytest.fixture
def long_store(ui_store):  # type: ignore[no-untyped-def]
    path, ids = ui_store
    return path, ids, add_long(Store.open(path))


async def type_query(pilot, text: str) -> None:  # type: ignore[no-untyped-def]
    field = pilot.app.screen.query_one("#search-query", Input)
    field.focus()
    field.value = ""
    await pilot.press(*text)
    await pilot.pause(0.1)
    await settle(pilot)


def results(app) -> list[str]:  # type: ignore[no-untyped-def]
    return [hit.root.session_id for hit in app.screen.hits]


def status(app) -> str:  # type: ignore[no-untyped-def]
    return text_of(app.screen.query_one("#search-status", Static)).strip()


def detail(app) -> str:  # type: ignore[no-untyped-def]
    return text_of(app.screen.query_one("#search-detail", HitDetail).query_one("#hit-body"))


async def test_typing_shows_results_and_only_the_last_query_runs(make_app, ui_store, monkeypatch):
    _, ids = ui_store
    calls: list[str] = []
    real = search_screen.discover

    def counting(store, query, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(query)
        return real(store, query, **kwargs)

    monkeypatch.setattr(search_screen, "discover", counting)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        assert isinstance(app.screen, SearchScreen)
        field = app.screen.query_one("#search-query", Input)
        for char in "flaky":  # keys faster than the debounce: one search, for the whole word
            field.insert_text_at_cursor(char)
        await pilot.pause(0.2)
        await settle(pilot)
        assert calls == ["flaky"]
        assert results(app) == [ids["flaky"]]
        assert status(app).startswith("1 conversation")
        assert "The CI job test_upload is flaky" in detail(app)


async def test_no_results_error_and_hostile_queries(make_app, ui_store) -> None:
    app = make_app(start=Start(search=""))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await type_query(pilot, "zzzznothing")
        assert results(app) == [] and status(app) == "No results for “zzzznothing”."
        await type_query(pilot, "NOT docker")
        assert results(app) == []
        assert "NOT needs a search term" in status(app)
        assert app.screen.query_one("#search-status").has_class("-error")
        for query in ('"unbalanced', "(((", "*", "-- :: ##", "[/]", "[@click=app.quit]x"):
            await type_query(pilot, query)
            assert app.is_running and isinstance(app.screen, SearchScreen)


async def test_cjk_hostile_and_selection_updates_the_window(make_app, ui_store) -> None:
    _, ids = ui_store
    app = make_app(start=Start(search="旅行"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert results(app) == [ids["trip"]]
        await type_query(pilot, "hostile")
        assert len(results(app)) == 5
        first = detail(app)
        assert "[b]x[/b]" in first and "\x1b" not in first
        app.screen.query_one("#search-results", OptionList).focus()
        await pilot.press("down")
        await settle(pilot)
        assert detail(app) != first
        labels = [str(o.prompt) for o in app.screen.query_one(OptionList).options]
        assert any("[@click=app.quit]x" in label for label in labels)
        assert app.is_running


@pytest.mark.parametrize(
    ("query", "key", "end"),
    [
        ('"user message 30"', "left_square_bracket", "start"),
        ('"user message 1980"', "right_square_bracket", "end"),
    ],
)
async def test_scrolling_the_window_to_both_ends(make_app, long_store, query, key, end) -> None:
    _, _, long_ids = long_store
    app = make_app(start=Start(search=query))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert results(app) == [LONG]
        screen.query_one("#search-results", OptionList).focus()
        start_ids = [m.id for m in screen.state.messages]
        for _ in range(20):
            if getattr(screen.state, f"at_{end}"):
                break
            await pilot.press(key)
            await settle(pilot)
        ids = [m.id for m in screen.state.messages]
        assert ids == sorted(set(ids)), "the merged window has no duplicates"
        assert set(start_ids) <= set(ids), "scrolling merges into what was shown"
        boundary = long_ids[0] if end == "start" else long_ids[-1]
        assert getattr(screen.state, f"at_{end}") and boundary in ids
        assert f"{end} of the conversation" in detail(app)


async def test_widen_sort_roles_and_open_resume_copy(make_app, ui_store, long_store) -> None:
    _, ids, long_ids = long_store
    app = make_app(start=Start(search="message"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        screen.query_one("#search-results", OptionList).focus()
        before = len(screen.state.messages)
        await pilot.press("plus")
        await settle(pilot)
        assert screen.state.width == 10 and len(screen.state.messages) > before
        await pilot.press("o")
        await settle(pilot)
        assert "newest" in text_of(screen.query_one("#search-mode", Static))
        await type_query(pilot, "passed")  # only a tool's output says it
        assert results(app) == []
        screen.query_one("#search-results", OptionList).focus()
        await pilot.press("t")  # user + assistant + tool output
        await settle(pilot)
        assert ids["flaky"] in results(app)
        await pilot.press("y")
        assert app.clipboard == screen.hits[0].session_id
        await pilot.press("enter")
        await settle(pilot)
        chat = app.screen
        assert isinstance(chat, ChatScreen) and chat.anchor == screen.hits[0].match_message_id
        assert [v.message.id for v in chat.query(".-anchor")] == [chat.anchor]
        assert not chat.resume
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, SearchScreen)
        app.screen.query_one("#search-results", OptionList).focus()
        await pilot.press("r")
        await settle(pilot)
        assert isinstance(app.screen, ChatScreen) and app.screen.resume
        await pilot.press("escape", "escape")
        await settle(pilot)
        assert isinstance(app.screen, SearchScreen)
        await pilot.press("escape", "escape")
        assert isinstance(app.screen, BrowserScreen)
    assert long_ids


async def test_history_recall_with_up_and_down(make_app, home) -> None:
    history = SearchHistory(home)
    for query in ("first", "second"):
        history.add(query)
    app = make_app(start=Start(search=""))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        field = app.screen.query_one("#search-query", Input)
        await pilot.press(*"dra")
        await pilot.press("up")
        assert field.value == "second"
        await pilot.press("up")
        assert field.value == "first"
        await pilot.press("down", "down")
        assert field.value == "dra"
        field.value = "third"
        await pilot.press("enter")
        await settle(pilot)
    assert SearchHistory(home).queries == ["first", "second", "third"]


def _search(query: str):  # type: ignore[no-untyped-def]
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await settle(pilot)
        await pilot.pause(0.2)
        await settle(pilot)
        pilot.app.screen.query_one("#search-results", OptionList).focus()
        await settle(pilot)

    return run_before


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
@pytest.mark.parametrize(
    "where", ['"user message 2"', '"user message 1000"', '"user message 1998"']
)
def test_snapshot_hits_in_a_long_session(snap_compare, make_app, long_store, size, where) -> None:
    app = make_app(start=Start(search=where))
    assert snap_compare(app, terminal_size=size, run_before=_search(where))


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
def test_snapshot_hostile_text(snap_compare, make_app, ui_store, size) -> None:
    app = make_app(start=Start(search="hostile"))
    assert snap_compare(app, terminal_size=size, run_before=_search("hostile"))
