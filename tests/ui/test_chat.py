"""The chat pane (read side): recap, transcript, folding, jumping, windows and history."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from textual.widgets import Input, Static

from hermes_tui.store import NewMessage, Store
from hermes_tui.store.messages import insert_message
from hermes_tui.tui.app import Start
from hermes_tui.tui.screens.chat import ChatScreen
from hermes_tui.tui.widgets.message_view import MessageView

from ..conftest import NOW
from .conftest import _add, settle, text_of

LONG = "20261115_100000_1a1a1a"
COMPACTED = "20261116_100000_2b2b2b"


def add_long(store: Store, count: int = 2_000) -> list[int]:
    """A long session: numbered turns, a tool call every 50 messages, fixed ids and times."""
    _add(
        store,
        LONG,
        "cli",
        15 * 86400,
        [],
        title="Long refactor session",
        cwd="/home/user/projects/myproject",
    )

    def fill(conn: sqlite3.Connection) -> list[int]:
        ids = []
        for n in range(count):
            if n % 50 == 25:
                calls = [
                    {
                        "id": f"t{n}",
                        "type": "function",
                        "function": {"name": "terminal", "arguments": '{"command": "make test"}'},
                    }
                ]
                message = NewMessage(
                    "assistant",
                    f"step {n}: running the tests",
                    tool_calls=calls,
                    timestamp=NOW - 15 * 86400 + n,
                )
            else:
                role = "user" if n % 2 == 0 else "assistant"
                message = NewMessage(role, f"{role} message {n}", timestamp=NOW - 15 * 86400 + n)
            ids.append(insert_message(conn, store.capabilities, LONG, message))
        return ids

    return store.write(fill)


def add_compacted(store: Store) -> None:
    _add(
        store,
        COMPACTED,
        "cli",
        14 * 86400,
        [("user", "plan the migration"), ("assistant", "dual-write then backfill")],
        title="Database migration plan",
    )

    def compact(conn: sqlite3.Connection) -> None:
        conn.execute(
            "UPDATE messages SET active = 0, compacted = 1 WHERE session_id = ?", (COMPACTED,)
        )
        for n, text in enumerate(
            ["[CONTEXT COMPACTION] migration plan so far", "verify counts next"]
        ):
            insert_message(
                conn,
                store.capabilities,
                COMPACTED,
                NewMessage(
                    "user" if n == 0 else "assistant", text, timestamp=NOW - 14 * 86400 + 600 + n
                ),
            )

    store.write(compact)


@pytest.fixture
def chat_store(ui_store) -> tuple[Path, dict[str, str], list[int]]:
    path, ids = ui_store
    store = Store.open(path)
    long_ids = add_long(store)
    add_compacted(store)
    return path, ids, long_ids


def views(app) -> list[MessageView]:  # type: ignore[no-untyped-def]
    return list(app.screen.query(MessageView))


async def test_resume_shows_recap_and_latest_messages(make_app, chat_store) -> None:
    _, ids, _ = chat_store
    app = make_app(start=Start(session_id=ids["flaky"]))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ChatScreen)
        assert "Fix flaky CI tests" in text_of(screen.query_one("#chat-header", Static))
        recap = text_of(screen.query_one("#chat-recap", Static))
        assert "● You:" in recap and "The CI job test_upload is flaky" in recap
        assert "CI is green." in recap  # the last reply in full
        roles = [v.message.role for v in views(app)]
        assert roles == ["user", "assistant", "tool", "assistant"]
        assert "start of the conversation" in text_of(screen.query_one("#chat-older", Static))
        field = screen.query_one("#chat-input", Input)
        assert app.focused is field, "a resumed conversation is ready for typing"
        assert "/help" in field.placeholder and not field.disabled
        screen.query_one("#chat-transcript").focus()
        await pilot.press("R")
        assert not screen.query_one("#chat-recap").display


async def test_tools_fold_and_expand(make_app, chat_store) -> None:
    _, ids, _ = chat_store
    app = make_app(start=Start(session_id=ids["flaky"]))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        call, result = views(app)[1], views(app)[2]
        folded = "".join(s.text for s in app.console.render(call.render()))
        assert "▸ terminal" in folded and '"pytest -x"' in folded
        call.focus()
        await pilot.press("enter")
        assert call.expanded
        expanded = "".join(s.text for s in app.console.render(call.render()))
        assert "▾ terminal" in expanded and '"command": "pytest -x"' in expanded
        result.focus()
        await pilot.press("enter")
        shown = "".join(s.text for s in app.console.render(result.render()))
        assert "17 passed, 3 failed" in shown
        await pilot.press("enter")
        assert not result.expanded


async def test_jump_to_a_message_in_the_middle(make_app, chat_store) -> None:
    _, _, long_ids = chat_store
    target = long_ids[1_000]
    app = make_app(start=Start(session_id=LONG, message_id=target))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        loaded = views(app)
        anchors = [v for v in loaded if v.has_class("-anchor")]
        assert [v.message.id for v in anchors] == [target]
        assert app.focused is anchors[0]
        assert loaded[0].message.id == long_ids[980] and loaded[-1].message.id == long_ids[1_020]
        region = app.screen.query_one("#chat-transcript").region
        assert anchors[0].region.overlaps(region)
        await pilot.press("right_square_bracket")
        await settle(pilot)
        assert views(app)[-1].message.id == long_ids[1_050]
        await pilot.press("left_square_bracket")
        await settle(pilot)
        assert views(app)[0].message.id == long_ids[950]
        ordered = [v.message.id for v in views(app)]
        assert ordered == sorted(ordered) and len(ordered) == len(set(ordered))


async def test_scrolling_up_reads_older_segments_of_a_lineage(make_app, chat_store) -> None:
    _, ids, _ = chat_store
    app = make_app(start=Start(session_id=ids["lineage_tip"]))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        app.screen.query_one("#chat-transcript").focus()
        for _ in range(4):
            await pilot.press("left_square_bracket")
            await settle(pilot)
        texts = [v.message.content for v in views(app)]
        assert texts[:2] == ["start my project", "ok"]
        assert texts[-2:] == ["write the README", "## Conflicts\nDone."]
        markers = app.screen.query(".chat-segment")
        assert len(markers) == 2
        assert "start of the conversation" in text_of(app.screen.query_one("#chat-older", Static))


async def test_pre_compression_history_on_demand(make_app, chat_store) -> None:
    app = make_app(start=Start(session_id=COMPACTED))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        app.screen.query_one("#chat-transcript").focus()
        assert next(v.message.content for v in views(app)).startswith("[CONTEXT COMPACTION]")
        await pilot.press("h")
        await settle(pilot)
        assert [v.message.content for v in views(app)] == [
            "plan the migration",
            "dual-write then backfill",
        ]
        assert "pre-compression history" in text_of(app.screen.query_one("#chat-header", Static))
        await pilot.press("h")
        await settle(pilot)
        assert len(views(app)) == 2 and views(app)[1].message.content == "verify counts next"


async def test_back_returns_to_the_browser(make_app, chat_store) -> None:
    from hermes_tui.tui.screens.browser import BrowserScreen

    _, ids, _ = chat_store
    app = make_app(start=Start(session_id=ids["trip"]))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ChatScreen)
        await pilot.press("escape")  # from the input: back to the browser
        await settle(pilot)
        assert isinstance(app.screen, BrowserScreen)


def _ready(target: int | None = None):  # type: ignore[no-untyped-def]
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await settle(pilot)
        await pilot.pause(0.3)
        await settle(pilot)

    return run_before


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
def test_snapshot_resume_with_recap(snap_compare, make_app, chat_store, size) -> None:
    _, ids, _ = chat_store
    app = make_app(start=Start(session_id=ids["flaky"]))
    assert snap_compare(app, terminal_size=size, run_before=_ready())


def test_snapshot_expanded_tools(snap_compare, make_app, chat_store) -> None:
    _, ids, _ = chat_store

    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await settle(pilot)
        pilot.app.screen.query(MessageView)[1].focus()
        await pilot.press("enter")
        await settle(pilot)

    app = make_app(start=Start(session_id=ids["flaky"]))
    assert snap_compare(app, terminal_size=(120, 40), run_before=run_before)


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
def test_snapshot_jump_into_a_long_session(snap_compare, make_app, chat_store, size) -> None:
    _, _, long_ids = chat_store
    app = make_app(start=Start(session_id=LONG, message_id=long_ids[1_025]))
    assert snap_compare(app, terminal_size=size, run_before=_ready())
