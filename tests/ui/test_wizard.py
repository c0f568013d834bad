"""The prune/archive wizard, step by step, and automatic maintenance at start."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input, Static

from hermes_tui.config import parse_config
from hermes_tui.store import ListQuery, Store, get_session, list_sessions
from hermes_tui.tui.app import build_app
from hermes_tui.tui.screens.browser import BrowserScreen
from hermes_tui.tui.screens.wizard import WizardScreen

from ..conftest import NOW
from .conftest import settle, text_of


def _all(path: Path) -> set[str]:
    import sqlite3

    with sqlite3.connect(path) as conn:
        return {r[0] for r in conn.execute("SELECT id FROM sessions")}


async def open_wizard(pilot) -> WizardScreen:  # type: ignore[no-untyped-def]
    await settle(pilot)
    await pilot.press("x")
    await settle(pilot)
    assert isinstance(pilot.app.screen, WizardScreen)
    return pilot.app.screen


async def set_field(pilot, name: str, value: str) -> None:  # type: ignore[no-untyped-def]
    field = pilot.app.screen.query_one(f"#field-{name}", Input)
    field.value = value
    await pilot.pause(0.4)
    await settle(pilot)


def count_text(app) -> str:  # type: ignore[no-untyped-def]
    return text_of(app.screen.query_one("#wizard-count", Static))


async def test_prune_walk_with_untick_and_undo(make_app, ui_store) -> None:
    path, ids = ui_store
    before = _all(path)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        wizard = await open_wizard(pilot)
        await pilot.press("n")  # action: prune
        await settle(pilot)
        await set_field(pilot, "source", "cron")
        await set_field(pilot, "older_than", "30d")
        assert "6 conversations match" in count_text(app)
        await pilot.press("pageup")  # back to the action (from a field) and forward again
        assert wizard.step == "action"
        await pilot.press("n")
        await settle(pilot)
        assert "6 conversations match" in count_text(app)
        wizard.query_one("#field-older_than", Input).focus()
        await pilot.press("enter")  # to the dry run
        await settle(pilot)
        assert wizard.step == "preview"
        summary = text_of(wizard.query_one("#wizard-summary", Static))
        assert "6 of 6 conversations would be deleted" in summary
        await pilot.press("space")  # untick the first (oldest) row
        assert "5 of 6" in text_of(wizard.query_one("#wizard-summary", Static))
        kept = wizard.preview.matches[0].id
        await pilot.press("n")
        assert wizard.step == "confirm"
        assert _all(path) == before, "nothing changes before the final confirmation"
        typed = wizard.query_one("#wizard-typed", Input)
        typed.value = "6"
        await pilot.press("enter")  # the wrong number: refused
        await settle(pilot)
        assert _all(path) == before
        typed.value = "5"
        await pilot.press("enter")
        await settle(pilot)
        await pilot.pause(0.3)
        await settle(pilot)
        progress = text_of(wizard.query_one("#wizard-progress", Static))
        assert "Pruned 5 conversation(s)" in progress and "hermes sessions restore" in progress
        gone = {ids[f"cron{n}"] for n in range(6)} - {kept}
        assert _all(path) == before - gone
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, BrowserScreen)
        shown = {r.root_id for r in app.screen.query_one("#browser-table").sessions}
        assert not shown & gone and kept in shown
    trash = next((path.parent / "session-trash").iterdir())
    from hermes_tui.store.restore import restore_file

    restore_file(Store.open(path), trash)
    assert _all(path) == before


@pytest.mark.parametrize("step", ["action", "filters", "preview", "confirm"])
async def test_leaving_at_any_step_changes_nothing(make_app, ui_store, step) -> None:
    path, _ = ui_store
    before = _all(path)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        wizard = await open_wizard(pilot)
        for _ in range(["action", "filters", "preview", "confirm"].index(step)):
            await pilot.press("pagedown" if wizard.step == "filters" else "n")
            await settle(pilot)
            if wizard.step == "filters":
                await set_field(pilot, "older_than", "1d")
                wizard.query_one("#field-older_than", Input).focus()
        assert wizard.step == step
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, BrowserScreen)
    assert _all(path) == before


async def test_archive_and_filter_errors(make_app, ui_store) -> None:
    path, ids = ui_store
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        wizard = await open_wizard(pilot)
        await pilot.press("down", "space")  # choose archive
        await pilot.press("n")
        await settle(pilot)
        await set_field(pilot, "older_than", "three days")
        assert "Invalid value for --older-than" in count_text(app)
        await set_field(pilot, "older_than", "")
        await set_field(pilot, "title", "my project")
        assert "1 conversation match" in count_text(app)
        wizard.query_one("#field-title", Input).focus()
        await pilot.press("enter")
        await settle(pilot)
        assert wizard.step == "preview"
        await pilot.press("n")
        wizard.query_one("#wizard-typed", Input).value = "1"
        await pilot.press("enter")
        await pilot.pause(0.3)
        await settle(pilot)
        assert "Archived 1 conversation(s)" in text_of(wizard.query_one("#wizard-progress"))
    store = Store.open(path)
    assert get_session(store, ids["lineage_tip"]).archived
    assert get_session(store, ids["lineage_root"]).archived
    archived = list_sessions(store, ListQuery(archived="only")).items
    assert ids["lineage_root"] in {r.root_id for r in archived}


def test_snapshot_steps(snap_compare, make_app, ui_store) -> None:
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await open_wizard(pilot)
        await pilot.press("n")
        await settle(pilot)
        await set_field(pilot, "older_than", "30d")
        pilot.app.screen.query_one("#field-older_than", Input).focus()
        await pilot.press("enter")
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=(120, 36), run_before=run_before)


def test_snapshot_filters(snap_compare, make_app) -> None:
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await open_wizard(pilot)
        await pilot.press("n")
        await settle(pilot)
        await pilot.pause(0.4)
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=(100, 32), run_before=run_before)


async def test_maintenance_at_start_prunes_and_says_how_to_undo(ui_store) -> None:
    path, ids = ui_store
    config = parse_config({"sessions": {"retention_days": 45}})
    app = build_app(path, config, now=lambda: NOW, maintenance=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause(2.0)
        await settle(pilot)
        notes = [str(n.message) for n in app._notifications]
        note = next(n for n in notes if n.startswith("Automatic maintenance pruned"))
        assert "hermes sessions restore" in note
    store = Store.open(path)
    for n in range(6):  # cron digests 50-55 days old
        assert get_session(store, ids[f"cron{n}"]) is None
    assert get_session(store, ids["archived"]) is not None  # archived: spared
    assert get_session(store, ids["runbook"]) is not None  # pinned: spared


@pytest.mark.parametrize("value", ["0", "-1", "abc", "'false'", "null"])
async def test_maintenance_with_nonsense_values_deletes_nothing(ui_store, value) -> None:
    import yaml

    path, _ = ui_store
    before = _all(path)
    key = "auto_prune" if value == "'false'" else "retention_days"
    config = parse_config(yaml.safe_load(f"sessions:\n  {key}: {value}\n"))
    app = build_app(path, config, now=lambda: NOW, maintenance=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause(2.0)
        await settle(pilot)
        notes = [str(n.message) for n in app._notifications]
        assert any("maintenance is skipped" in n for n in notes)
    assert _all(path) == before
