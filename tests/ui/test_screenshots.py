"""The README's screenshots, made from the demo store (deselected by default).

Run: ``pytest -m screenshots tests/ui/test_screenshots.py`` — writes ``screenshots/*.svg``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_tui.config import Config
from hermes_tui.demo import create_demo
from hermes_tui.store import ListQuery, list_sessions
from hermes_tui.tui.app import Start, build_app

from .conftest import settle

OUT = Path(__file__).resolve().parents[2] / "screenshots"
pytestmark = pytest.mark.screenshots


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    return create_demo(tmp_path / "demo").path


def _id(path: Path, title: str) -> str:
    from hermes_tui.store import Store

    rows = list_sessions(Store.open(path), ListQuery(), limit=100).items
    return next(r.id for r in rows if r.title == title)


async def _shoot(app, name: str, size: tuple[int, int], keys: tuple[str, ...] = ()) -> None:  # type: ignore[no-untyped-def]
    OUT.mkdir(exist_ok=True)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.pause(0.3)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)
        await pilot.pause(0.3)
        app.save_screenshot(str(OUT / f"{name}.svg"))


async def test_browser(demo: Path) -> None:
    await _shoot(build_app(demo, Config()), "browser", (140, 36), ("down",) * 10)


async def test_browser_small(demo: Path) -> None:
    await _shoot(build_app(demo, Config()), "browser-80x24", (80, 24))


async def test_chat_resume(demo: Path) -> None:
    start = Start(session_id=_id(demo, "Fix flaky CI tests"))
    await _shoot(build_app(demo, Config(), start=start), "chat-resume", (120, 40))


async def test_delete_dialog(demo: Path) -> None:
    await _shoot(build_app(demo, Config()), "delete-dialog", (120, 36), ("down", "down", "d"))


async def test_help(demo: Path) -> None:
    await _shoot(build_app(demo, Config()), "help", (120, 44), ("question_mark",))


async def test_search(demo: Path) -> None:
    app = build_app(demo, Config(), start=Start(search="tests"))
    await _shoot(app, "search", (130, 40))


async def test_prune_wizard_preview(demo: Path) -> None:
    # Prune → filters (the default: inactive for 90 days) → the dry-run preview.
    await _shoot(build_app(demo, Config()), "prune-preview", (120, 36), ("x", "n", "pagedown"))
