"""Snapshot tests of each screen's layout (SVGs in __snapshots__/, reviewed when they change).

Fixed store, clock (NOW) and zone (UTC), so a change in a snapshot is a change in the app.
Update after reviewing the report: ``pytest tests/ui/test_snapshots.py --snapshot-update``.
"""

from __future__ import annotations

import pytest

from .conftest import settle


async def _ready(pilot) -> None:  # type: ignore[no-untyped-def]
    await settle(pilot)
    await pilot.pause(0.2)
    await settle(pilot)


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
def test_browser(snap_compare, make_app, size: tuple[int, int]) -> None:
    assert snap_compare(make_app(), terminal_size=size, run_before=_ready)


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
def test_browser_on_hostile_titles(snap_compare, make_app, ui_store, size) -> None:
    _, ids = ui_store

    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await _ready(pilot)
        table = pilot.app.screen.query_one("#browser-table")
        rows = [r.root_id for r in table.sessions]
        table.move_cursor(row=rows.index(ids["h_click"]))
        await _ready(pilot)

    assert snap_compare(make_app(), terminal_size=size, run_before=run_before)


def test_browser_delete_dialog(snap_compare, make_app, ui_store) -> None:
    _, ids = ui_store

    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await _ready(pilot)
        table = pilot.app.screen.query_one("#browser-table")
        table.move_cursor(row=[r.root_id for r in table.sessions].index(ids["trip"]))
        await _ready(pilot)
        await pilot.press("d")
        await pilot.pause(0.2)

    assert snap_compare(make_app(), terminal_size=(100, 30), run_before=run_before)


def test_help_screen(snap_compare, make_app) -> None:
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await _ready(pilot)
        await pilot.press("question_mark")
        await pilot.pause(0.2)

    assert snap_compare(make_app(), terminal_size=(100, 40), run_before=run_before)
