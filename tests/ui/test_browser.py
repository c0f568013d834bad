"""Pilot tests: every key path of the session browser, checked against the store."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from textual.widgets import Input, Static

from hermes_tui.sanitize import clean
from hermes_tui.store import Store, get_session, list_sessions
from hermes_tui.store.generate import generate_store
from hermes_tui.store.restore import restore_file
from hermes_tui.tui.app import build_app
from hermes_tui.tui.screens.browser import BrowserScreen
from hermes_tui.tui.screens.chat import ChatScreen
from hermes_tui.tui.screens.dialogs import ConfirmDialog, RenameDialog
from hermes_tui.tui.screens.problem import ProblemScreen
from hermes_tui.tui.widgets.session_table import SessionTable

from ..conftest import NOW
from .conftest import HOSTILE_TITLES, config_with, settle, store_of, text_of


def table(app) -> SessionTable:  # type: ignore[no-untyped-def]
    return app.screen.query_one(SessionTable)


def status(app) -> str:  # type: ignore[no-untyped-def]
    return text_of(app.screen.query_one("#browser-status", Static)).strip()


def preview_text(app) -> str:  # type: ignore[no-untyped-def]
    return text_of(app.screen.query_one("#preview-facts", Static))


async def to_row(pilot, root_id: str) -> int:  # type: ignore[no-untyped-def]
    t = table(pilot.app)
    index = [r.root_id for r in t.sessions].index(root_id)
    t.move_cursor(row=index)
    await settle(pilot)
    return index


async def test_first_page_status_and_preview(make_app, ui_store) -> None:
    _, ids = ui_store
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, BrowserScreen)
        rows = table(app).sessions
        # Pinned first, then by last activity; archived and `tool` rows hidden.
        assert rows[0].root_id == ids["runbook"] and rows[1].root_id == ids["quick"]
        assert ids["archived"] not in {r.root_id for r in rows}
        assert ids["tool"] not in {r.root_id for r in rows}
        assert len({r.root_id for r in rows}) == len(rows) == 18
        assert status(app) == "18 of 18 conversations"
        assert "Deployment runbook" in preview_text(app)
        await pilot.press("down")
        await settle(pilot)
        assert "quick question" in preview_text(app) and ids["quick"] in preview_text(app)
        lineage = next(r for r in rows if r.root_id == ids["lineage_root"])
        assert (lineage.id, lineage.title, lineage.segments) == (
            ids["lineage_tip"],
            "my project #3",
            3,
        )


async def test_loading_state_is_shown_not_a_blank_list(make_app, monkeypatch) -> None:
    from hermes_tui.tui.screens import browser

    gate = threading.Event()
    real = browser.list_sessions

    def slow(*args, **kwargs):  # type: ignore[no-untyped-def]
        gate.wait(10)
        return real(*args, **kwargs)

    monkeypatch.setattr(browser, "list_sessions", slow)
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause(0.2)
        assert table(app).loading and status(app) == "loading conversations…"
        gate.set()
        await settle(pilot)
        assert not table(app).loading and status(app).endswith("conversations")


async def test_filter_scope_source_archived_and_sort(make_app, ui_store) -> None:
    _, ids = ui_store
    app = make_app(start=None)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("f")
        assert isinstance(app.focused, Input)
        await pilot.press(*"旅行")
        await pilot.pause(0.4)
        await settle(pilot)
        assert [r.root_id for r in table(app).sessions] == [ids["trip"]]
        await pilot.press("escape")  # clears the filter
        await pilot.pause(0.4)
        await settle(pilot)
        assert len(table(app).sessions) == 18
        await pilot.press("escape")  # back to the table
        assert isinstance(app.focused, SessionTable)
        await pilot.press("s")  # cycle source: cli
        await settle(pilot)
        assert {r.source for r in table(app).sessions} == {"cli"}
        await pilot.press("s")  # tui: nothing — and the pane says why
        await settle(pilot)
        assert table(app).sessions == []
        assert "No conversation matches" in preview_text(app)
        for _ in range(6):  # back round to "all sources"
            await pilot.press("s")
        await settle(pilot)
        assert len(table(app).sessions) == 18
        await pilot.press("A")  # include archived
        await settle(pilot)
        assert ids["archived"] in {r.root_id for r in table(app).sessions}
        await pilot.press("A")  # archived only
        await settle(pilot)
        assert [r.root_id for r in table(app).sessions] == [ids["archived"]]
        await pilot.press("A", "P", "o")  # hide archived, pinned in place, by start
        await settle(pilot)
        starts = [r.started_at for r in table(app).sessions]
        assert starts == sorted(starts, reverse=True)
        assert "by start" in text_of(app.screen.query_one("#browser-scope", Static))


async def test_workspace_scope(make_app, ui_store) -> None:
    from hermes_tui.tui.app import Start

    _, ids = ui_store
    app = make_app(start=Start(workspace="/home/user/projects/webapp"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert {r.root_id for r in table(app).sessions} == {
            ids["flaky"],
            ids["plan"],
            ids["runbook"],
        }
        await pilot.press("w")
        await settle(pilot)
        assert len(table(app).sessions) == 18


async def test_open_resumes_the_tip_and_back(make_app, ui_store) -> None:
    _, ids = ui_store
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await to_row(pilot, ids["lineage_root"])
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ChatScreen) and app.screen.session_id == ids["lineage_tip"]
        # Resuming re-opens the row (as Hermes does); leaving ends it again.
        assert get_session(store_of(app), ids["lineage_tip"]).is_open
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, BrowserScreen)
        tip = get_session(store_of(app), ids["lineage_tip"])
        assert not tip.is_open and tip.end_reason == "tui_close"


async def test_rename_with_clash_error_then_success(make_app, ui_store) -> None:
    _, ids = ui_store
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        index = await to_row(pilot, ids["flaky"])
        await pilot.press("r")
        assert isinstance(app.screen, RenameDialog)
        field = app.screen.query_one(Input)
        field.value = "Deployment runbook"
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, RenameDialog), "a refused title keeps the dialog open"
        error = text_of(app.screen.query_one("#rename-error", Static))
        assert f"already in use by session {ids['runbook']}" in error
        field.value = "Flaky   CI\u200b fix"
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, BrowserScreen)
        assert get_session(store_of(app), ids["flaky"]).title == "Flaky CI fix"
        assert table(app).sessions[index].title == "Flaky CI fix"
        assert table(app).cursor_row == index
        await pilot.press("r", "escape")
        await settle(pilot)
        assert get_session(store_of(app), ids["flaky"]).title == "Flaky CI fix"


async def test_pin_archive_unarchive_keep_the_cursor(make_app, ui_store) -> None:
    _, ids = ui_store
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        index = await to_row(pilot, ids["flaky"])
        await pilot.press("p")
        await settle(pilot)
        assert get_session(store_of(app), ids["flaky"]).pinned
        assert table(app).sessions[index].pinned and table(app).cursor_row == index
        await pilot.press("p")
        await settle(pilot)
        assert not get_session(store_of(app), ids["flaky"]).pinned
        below = table(app).sessions[index + 1].root_id
        await pilot.press("a")
        await settle(pilot)
        assert get_session(store_of(app), ids["flaky"]).archived
        assert ids["flaky"] not in {r.root_id for r in table(app).sessions}
        assert table(app).cursor_row == index and table(app).current.root_id == below
        await pilot.press("A", "A")  # archived only
        await settle(pilot)
        await to_row(pilot, ids["flaky"])
        await pilot.press("a")
        await settle(pilot)
        assert not get_session(store_of(app), ids["flaky"]).archived


async def test_delete_confirm_cancel_refuse_open(make_app, ui_store) -> None:
    _, ids = ui_store
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await to_row(pilot, ids["quick"])  # still open: refused
        await pilot.press("d")
        await settle(pilot)
        assert isinstance(app.screen, BrowserScreen)
        assert get_session(store_of(app), ids["quick"]) is not None
        await to_row(pilot, ids["lineage_root"])
        await pilot.press("d")
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("enter")  # Cancel has the focus
        await settle(pilot)
        assert get_session(store_of(app), ids["lineage_root"]) is not None
        index = table(app).cursor_row
        await pilot.press("d", "y")
        await settle(pilot)
        store = store_of(app)
        for sid in (ids["lineage_root"], ids["lineage_tip"]):
            assert get_session(store, sid) is None
        assert ids["lineage_root"] not in {r.root_id for r in table(app).sessions}
        assert table(app).cursor_row == index
        assert status(app) == "17 of 17 conversations"
        # The notice carries the undo, and the trash file it names holds the conversation.
        [note] = [n.message for n in app._notifications if n.message.startswith("Deleted: ")]
        trash = Path(note.rsplit("hermes sessions restore ", 1)[1])
        restore_file(store, trash)
        assert get_session(store, ids["lineage_tip"]) is not None


async def test_copy_resume_command(make_app, ui_store) -> None:
    _, ids = ui_store
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await to_row(pilot, ids["lineage_root"])
        await pilot.press("y")
        assert app.clipboard == f"hermes --resume {ids['lineage_tip']}"


async def test_quit_with_q_and_ctrl_c(make_app) -> None:
    for key in ("q", "ctrl+c"):
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press(key)
            await pilot.pause()
            assert not app.is_running


async def test_hostile_titles_are_literal_and_inert(make_app, ui_store) -> None:
    _, ids = ui_store
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        shown = {r.root_id: r for r in table(app).sessions}
        for key, raw in HOSTILE_TITLES.items():
            await to_row(pilot, ids[key])
            cell = table(app).get_row(ids[key])[1]
            assert cell.plain == clean(raw, keep_newlines=False)
            assert "\x1b" not in cell.plain and "\u202e" not in cell.plain
            assert shown[ids[key]].title == raw  # the store's text is untouched
        assert app.is_running, "[@click=app.quit] must not be an action"


async def test_help_palette_and_keymap(make_app, ui_store) -> None:
    _, ids = ui_store
    app = make_app(config=config_with("tui:\n  keymap:\n    browser.pin: ctrl+t\n"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        text = text_of(app.screen.query_one("#help-keys", Static))
        assert "Rename" in text and "Delete the whole conversation" in text
        await pilot.press("escape")
        commands = [c.title for c in app.get_system_commands(app.screen)]
        assert any(c.startswith("Rename") for c in commands)
        assert any(c.startswith("Archive") for c in commands)
        await to_row(pilot, ids["flaky"])
        await pilot.press("ctrl+t")
        await settle(pilot)
        assert get_session(store_of(app), ids["flaky"]).pinned


async def test_paging_visits_every_conversation_once(home: Path) -> None:
    path = home / "state.db"
    generate_store(path, sessions=2_000, messages=8_000, now=NOW, seed=4)
    app = build_app(path, config_with("{}"), now=lambda: NOW)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        t = table(app)
        for _ in range(60):
            if app.screen.next_cursor is None:  # type: ignore[attr-defined]
                break
            t.move_cursor(row=len(t.sessions) - 1)
            await settle(pilot)
        seen = [r.root_id for r in t.sessions]
        store = store_of(app)
        every = list_sessions(store, app.screen.query_state, limit=5_000).items  # type: ignore[attr-defined]
        assert len(seen) == len(set(seen)) == len(every) > 1_500
        assert set(seen) == {r.root_id for r in every}
        assert status(app) == f"{len(seen):,} of {len(seen):,} conversations"


async def test_store_problems_show_a_screen_with_the_path(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    cases = {
        "missing": None,
        "corrupt": b"not a database" * 300,
    }
    for kind, content in cases.items():
        path = home / f"{kind}.db"
        if content is not None:
            path.write_bytes(content)
        app = build_app(path, config_with("{}"), now=lambda: NOW)
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            assert isinstance(app.screen, ProblemScreen), kind
            body = text_of(app.screen.query_one("#problem-body", Static))
            assert str(path) in body


async def test_locked_store_shows_the_locked_screen(home: Path) -> None:
    import subprocess
    import sys

    path = home / "state.db"
    generate_store(path, sessions=20, messages=60, now=NOW)
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sqlite3,sys,time;c=sqlite3.connect(sys.argv[1],isolation_level=None);"
         "c.execute('PRAGMA journal_mode=DELETE');c.execute('BEGIN EXCLUSIVE');"
         "print('locked',flush=True);time.sleep(4)", str(path)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert holder.stdout.readline().strip() == "locked"
    try:
        app = build_app(
            path,
            config_with("{}"),
            now=lambda: NOW,
            open_store=lambda p: Store.open(p, busy_timeout=0.3),
        )
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause(1.0)
            await settle(pilot)
            assert isinstance(app.screen, ProblemScreen)
            assert "locked" in text_of(app.screen.query_one("#problem-heading", Static))
    finally:
        holder.wait(timeout=10)
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


async def test_palette_opens_a_session_by_title(make_app, ui_store) -> None:
    from hermes_tui.tui.commands import SessionProvider

    _, ids = ui_store
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        provider = SessionProvider(app.screen)
        hits = [hit async for hit in provider.search("旅行")]
        assert [h.help.endswith(ids["trip"]) for h in hits] == [True]
        hostile = [hit async for hit in provider.search("click")]
        assert hostile and hostile[0].match_display.plain == "Open: [@click=app.quit]x"
        hits[0].command()
        await settle(pilot)
        assert isinstance(app.screen, ChatScreen) and app.screen.session_id == ids["trip"]
