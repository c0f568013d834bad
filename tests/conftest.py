"""Shared fixtures. Every test runs with HERMES_HOME in a temporary folder: the developer's
real ~/.hermes is never read or written."""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from hermes_tui.store import NewMessage, NewSession, Store
from hermes_tui.store.messages import insert_message
from hermes_tui.store.sessions import insert_session

NOW = 1_796_000_000.0  # 2026-11-30, a fixed "now" so relative times are stable


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    home = tmp_path / "hermes-home"
    monkeypatch.setenv("HERMES_HOME", str(home))
    # Importers must never read the developer's real Claude Code / Codex history.
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-home"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-home"))
    for var in ("OPENAI_API_KEY", "OPENROUTER_API_KEY", "TMUX_PANE", "KITTY_WINDOW_ID"):
        monkeypatch.delenv(var, raising=False)
    real = Path.home() / ".hermes" / "state.db"
    before = real.stat().st_mtime if real.exists() else None
    yield home
    after = real.stat().st_mtime if real.exists() else None
    assert before == after, "a test touched the real ~/.hermes/state.db"


@pytest.fixture
def home(isolated_home: Path) -> Path:
    return isolated_home


@pytest.fixture
def store(home: Path) -> Store:
    """A new, empty Hermes-compatible store in the temporary HERMES_HOME."""
    return Store.create(home / "state.db", write_attempts=3)


SessionMaker = Callable[..., str]


@pytest.fixture
def make_session(store: Store) -> SessionMaker:
    """Insert a session with back-dated times and messages in one write.

    ``make_session("cli", messages=[("user", "hi"), ("assistant", "hello")], ago=3600,
    title="x", ended=True, parent=..., config={...}, end_reason=..., archived=True)``
    """

    def make(
        source: str = "cli",
        *,
        messages: list[tuple[str, str]] | None = None,
        ago: float = 3600.0,
        title: str | None = None,
        ended: bool = True,
        end_reason: str | None = None,
        parent: str | None = None,
        config: dict | None = None,
        archived: bool = False,
        cwd: str | None = None,
        git_root: str | None = None,
        session_id: str | None = None,
        now: float = NOW,
        session_key: str | None = None,
    ) -> str:
        started = now - ago

        def work(conn: sqlite3.Connection) -> str:
            sid = insert_session(
                conn,
                store.capabilities,
                NewSession(
                    source=source,
                    id=session_id,
                    title=title,
                    parent_session_id=parent,
                    model_config=json.dumps(config) if config else None,
                    cwd=cwd,
                    git_repo_root=git_root,
                    started_at=started,
                    session_key=session_key,
                ),
            )
            ts = started
            for role, text in messages or []:
                ts += 10
                insert_message(conn, store.capabilities, sid, NewMessage(role, text, timestamp=ts))
            conn.execute(
                "UPDATE sessions SET ended_at = ?, end_reason = ?, archived = ? WHERE id = ?",
                (
                    ts + 5 if ended else None,
                    (end_reason or "cli_close") if ended else None,
                    int(archived),
                    sid,
                ),
            )
            return sid

        return store.write(work)

    return make


def running_as_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0
