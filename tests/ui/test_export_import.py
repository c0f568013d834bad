"""Export from the browser and import from the palette, as a user does them."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from textual.widgets import Button, Input, RadioSet, Static

from hermes_tui.store import ListQuery, Store, list_sessions
from hermes_tui.tui.screens.browser import BrowserScreen
from hermes_tui.tui.screens.export_dialog import ExportDialog
from hermes_tui.tui.screens.import_dialog import ImportDialog

from ..importing import claude_layout
from .conftest import settle, text_of
from .test_browser import to_row


async def test_export_html_from_the_browser(make_app, ui_store, tmp_path) -> None:
    _, ids = ui_store
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await to_row(pilot, ids["plan"])
        await pilot.press("e")
        dialog = app.screen
        assert isinstance(dialog, ExportDialog)
        radios = dialog.query_one("#export-format", RadioSet)
        radios.focus()
        await pilot.press("down", "enter")  # HTML
        await settle(pilot)
        target = tmp_path / "plan.html"
        dialog.query_one("#export-output", Input).value = str(target)
        await pilot.click("#export-go")
        await pilot.pause(0.3)
        await settle(pilot)
        result = text_of(dialog.query_one("#export-result", Static))
        assert "Exported 1 session(s)" in result and str(target) in result
        page = target.read_text(encoding="utf-8")
        assert "[/plan — plan mode]" in page and "<script>" not in page.split("</head>")[0]
        await pilot.press("y")
        assert app.clipboard == str(target)
        await pilot.press("escape")
        assert isinstance(app.screen, BrowserScreen)


async def test_export_markdown_default_folder(make_app, ui_store) -> None:
    path, ids = ui_store
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await to_row(pilot, ids["lineage_root"])
        await pilot.press("e")
        await pilot.click("#export-go")
        await pilot.pause(0.3)
        await settle(pilot)
    folder = path.parent / "session-exports"
    names = sorted(p.name for p in folder.iterdir())
    assert "manifest.jsonl" in names and sum(n.endswith(".md") for n in names) == 3


async def test_import_claude_history_from_the_palette(make_app, ui_store, tmp_path, monkeypatch):
    path, _ = ui_store
    claude_home = claude_layout(tmp_path / "claude")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude_home))

    def rows() -> int:
        with sqlite3.connect(path) as conn:
            return conn.execute("SELECT COUNT(*) FROM sessions").fetchone()[0]

    before = rows()
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        commands = [c.title for c in app.get_system_commands(app.screen)]
        assert "Import Claude Code history" in commands
        app.action_import("claude")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ImportDialog)
        assert dialog.query_one("#import-go", Button).disabled  # a dry run comes first
        await pilot.click("#import-dry")
        await pilot.pause(0.5)
        await settle(pilot)
        said = text_of(dialog.query_one("#import-result", Static))
        assert "would be imported" in said and rows() == before
        await pilot.click("#import-go")
        await pilot.pause(0.5)
        await settle(pilot)
        assert "were imported" in text_of(dialog.query_one("#import-result", Static))
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, BrowserScreen)
        sources = {r.source for r in app.screen.query_one("#browser-table").sessions}
        assert "claude-code" in sources
    assert rows() > before
    imported = list_sessions(Store.open(path), ListQuery(source="claude-code")).items
    assert imported and not any(r.is_open for r in imported)
    assert Path(path).exists()
