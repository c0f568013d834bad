"""Fixtures for Pilot and snapshot tests: a deterministic store, a fixed clock and zone."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from textual.widgets import Input

from hermes_tui.config import Config, parse_config
from hermes_tui.store import NewMessage, NewSession, Store
from hermes_tui.store.messages import insert_message
from hermes_tui.store.sessions import ensure_pinned_column, insert_session
from hermes_tui.tui.app import HermesApp, Start, build_app

from ..conftest import NOW

HOSTILE_TITLES = {
    "h_close": "[/] closing tag",
    "h_bold": "[bold unclosed",
    "h_click": "[@click=app.quit]x",
    "h_osc": "\x1b]0;pwn\x07 title",
    "h_rtl": "evil \u202ereversed",
}


@pytest.fixture(autouse=True)
def utc_and_steady(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Local times in UTC and no blinking cursor, so screens are the same on every run."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    monkeypatch.setattr(Input, "_toggle_cursor", lambda self: None, raising=False)
    yield
    monkeypatch.delenv("TZ")
    time.tzset()


def _add(
    store: Store,
    sid: str,
    source: str,
    ago: float,
    messages: list[tuple[str, str]] | None = None,
    *,
    title: str | None = None,
    end_reason: str | None = "cli_close",
    parent: str | None = None,
    config: dict | None = None,
    archived: bool = False,
    pinned: bool = False,
    cwd: str | None = None,
    model: str = "anthropic/claude-sonnet-4.6",
    raw_title: bool = False,
) -> str:
    started = NOW - ago

    def work(conn: sqlite3.Connection) -> str:
        insert_session(
            conn,
            store.capabilities,
            NewSession(
                source=source,
                id=sid,
                title=None if raw_title else title,
                model=model,
                parent_session_id=parent,
                model_config=json.dumps(config) if config else None,
                cwd=cwd,
                git_repo_root=cwd,
                started_at=started,
            ),
        )
        if raw_title:  # another tool wrote it unsanitised; we must still render it safely
            conn.execute("UPDATE sessions SET title = ? WHERE id = ?", (title, sid))
        ts = started
        for role, text in messages or []:
            ts += 30
            calls = None
            if role == "assistant+tool":
                role, calls = (
                    "assistant",
                    [
                        {
                            "id": f"{sid}-c",
                            "type": "function",
                            "function": {
                                "name": "terminal",
                                "arguments": '{"command": "pytest -x"}',
                            },
                        }
                    ],
                )
            message = NewMessage(
                role,
                text,
                tool_calls=calls,
                timestamp=ts,
                tool_name="terminal" if role == "tool" else None,
            )
            insert_message(conn, store.capabilities, sid, message)
        conn.execute(
            "UPDATE sessions SET ended_at = ?, end_reason = ?, archived = ? WHERE id = ?",
            (ts + 5 if end_reason else None, end_reason, int(archived), sid),
        )
        if pinned:
            ensure_pinned_column(conn)
            conn.execute("UPDATE sessions SET pinned = 1 WHERE id = ?", (sid,))
        return sid

    out = store.write(work)
    store.refresh_capabilities()
    return out


def build_ui_store(path: Path) -> dict[str, str]:
    """About twenty conversations covering what the browser must show."""
    store = Store.create(path)
    ids: dict[str, str] = {}
    web = "/home/user/projects/webapp"
    ids["quick"] = _add(
        store,
        "20261130_005205_c0ffee",
        "cli",
        7200,
        [
            ("user", "quick question: how do I list open ports on linux?"),
            ("assistant", "Use `ss -tulpn`."),
        ],
        end_reason=None,
        cwd="/home/user/scratch",
    )
    ids["flaky"] = _add(
        store,
        "20261127_025205_5f5f5f",
        "cli",
        3 * 86400,
        [
            ("user", "The CI job test_upload is flaky. Can you find out why?"),
            ("assistant+tool", ""),
            ("tool", "17 passed, 3 failed"),
            ("assistant", "The test races the worker.\nI'll wait on the event.\nCI is green."),
        ],
        title="Fix flaky CI tests",
        cwd=web,
    )
    ids["trip"] = _add(
        store,
        "20261120_025205_7e1e9a4b",
        "telegram",
        10 * 86400,
        [("user", "帮我规划一下周末旅行，预算两千元 🏔️"), ("assistant", "好的！周六出发。")],
        title="周末旅行计划 🗾",
        end_reason="idle",
    )
    ids["party"] = _add(
        store,
        "20261105_025205_9f8e7d6c",
        "discord",
        25 * 86400,
        [("user", "🎉 release party ideas for v2.0? 🚀🚀"), ("assistant", "Stickers!")],
        end_reason="idle",
    )
    ids["plan"] = _add(
        store,
        "20261124_025205_9e1431",
        "cli",
        6 * 86400,
        [("user", "/plan refactor"), ("assistant", "Plan [bold] a [/] b")],
        title="[/plan — plan mode]",
        cwd=web,
    )
    root = _add(
        store,
        "20261020_025205_0a0a0a",
        "cli",
        41 * 86400,
        [("user", "start my project"), ("assistant", "ok")],
        title="my project",
        end_reason="compression",
        cwd="/home/user/projects/myproject",
    )
    mid = _add(
        store,
        "20261021_025205_0b0b0b",
        "cli",
        40 * 86400,
        [("user", "more"), ("assistant", "ok")],
        title="my project #2",
        parent=root,
        end_reason="compression",
        cwd="/home/user/projects/myproject",
    )
    ids["lineage_root"] = root
    ids["lineage_tip"] = _add(
        store,
        "20261023_025205_0c0c0c",
        "cli",
        38 * 86400,
        [("user", "write the README"), ("assistant", "## Conflicts\nDone.")],
        title="my project #3",
        parent=mid,
        cwd="/home/user/projects/myproject",
    )
    ids["runbook"] = _add(
        store,
        "20261031_025205_f4ee00",
        "cli",
        30 * 86400,
        [("user", "Write a deployment runbook"), ("assistant", "1. pull\n2. migrate")],
        title="Deployment runbook",
        pinned=True,
        cwd=web,
    )
    ids["archived"] = _add(
        store,
        "20260901_025205_a4c41e",
        "cli",
        90 * 86400,
        [("user", "old embeddings"), ("assistant", "cosine")],
        title="Old experiments",
        archived=True,
    )
    ids["tool"] = _add(store, "20260827_025205_70015e", "tool", 95 * 86400, [("user", "ping")])
    for n, (key, title) in enumerate(HOSTILE_TITLES.items()):
        ids[key] = _add(
            store,
            f"2026111{n}_025205_ba{n}ba{n}",
            "cli",
            (12 + n) * 86400,
            [("user", f"hostile {key}: [b]x[/b] \x1b[2J"), ("assistant", "[/]")],
            title=title,
            raw_title=True,
        )
    for n in range(6):
        ids[f"cron{n}"] = _add(
            store,
            f"cron_abc123def456_2026110{n}_025205",
            "cron",
            (50 + n) * 86400,
            [("user", "digest"), ("assistant", "all quiet")],
            title=f"Daily digest · Nov 0{n}",
            end_reason="cron_complete",
        )
    return ids


@pytest.fixture
def ui_store(home: Path) -> tuple[Path, dict[str, str]]:
    path = home / "state.db"
    return path, build_ui_store(path)


AppMaker = Callable[..., HermesApp]


@pytest.fixture
def make_app(ui_store: tuple[Path, dict[str, str]]) -> AppMaker:
    def make(
        config: Config | None = None, start: Start | None = None, path: Path | None = None
    ) -> HermesApp:
        return build_app(path or ui_store[0], config or Config(), start=start, now=lambda: NOW)

    return make


def config_with(text: str) -> Config:
    import yaml

    return parse_config(yaml.safe_load(text))


async def settle(pilot, rounds: int = 3) -> None:  # type: ignore[no-untyped-def]
    """Wait until workers are done and their messages are handled."""
    from textual.worker import WorkerCancelled

    for _ in range(rounds):
        try:
            await pilot.app.workers.wait_for_complete()
        except WorkerCancelled:
            pass  # a search a newer one replaced: expected, and already handled
        await pilot.pause()


def text_of(widget: object, width: int = 200) -> str:
    """What a Static shows, as plain text (rendered with Rich, styles dropped)."""
    from rich.console import Console

    console = Console(width=width, record=True, file=open(os.devnull, "w"))  # noqa: SIM115
    console.print(widget.content)  # type: ignore[attr-defined]
    return console.export_text()


def store_of(app: HermesApp) -> Store:
    return Store.open(app.store_path)


os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
