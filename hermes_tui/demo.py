"""``hermes demo``: a realistic store in its own HERMES_HOME, so a newcomer can try things.

It holds what a real Hermes user's history holds: CLI, TUI, Telegram, Discord, Slack and
cron sessions; titled and untitled ones; a compression lineage ``my project`` → ``#2`` →
``#3``; a ``/branch`` child and a subagent run; tool calls; Chinese, Japanese, Korean and
emoji; hostile text (``[/plan — plan mode]``, escape sequences, a bidi override); an
archived and a pinned conversation; an in-place compacted one; months of timestamps.
The demo home carries a marker file, and only a folder with that marker is ever replaced.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .store import NewMessage, NewSession, Store
from .store.generate import generate_store
from .store.messages import insert_message
from .store.sessions import ensure_pinned_column, insert_session

MARKER = ".hermes-demo"
DEMO_CONFIG = """\
# The demo's config.yaml (the same file and keys as Hermes Agent's).
# Its history is months old on purpose; automatic maintenance (prune conversations
# inactive for retention_days) is off so a first look shows all of it.
sessions:
  auto_prune: false
  retention_days: 90
display:
  resume_display: full
"""
HOUR = 3600.0
DAY = 86_400.0


class DemoError(Exception):
    pass


class DemoExists(DemoError):
    """A demo store is already there (rebuilt only with ``force``)."""


@dataclass
class Turn:
    role: str
    content: str = ""
    calls: tuple[tuple[str, dict[str, Any]], ...] = ()
    tool_name: str | None = None


def U(text: str) -> Turn:
    return Turn("user", text)


def A(text: str, *calls: tuple[str, dict[str, Any]]) -> Turn:
    return Turn("assistant", text, calls)


def T(name: str, output: str) -> Turn:
    return Turn("tool", output, tool_name=name)


class _Builder:
    def __init__(self, store: Store, home: Path, now: float) -> None:
        self.store = store
        self.home = home
        self.now = now
        self.workspaces = home / "workspaces"

    def workspace(self, name: str, git: bool = True) -> Path:
        path = self.workspaces / name
        path.mkdir(parents=True, exist_ok=True)
        if git:
            (path / ".git").mkdir(exist_ok=True)
        return path

    def session(
        self,
        source: str,
        turns: list[Turn],
        *,
        ago: float,
        title: str | None = None,
        workspace: Path | None = None,
        git: bool = True,
        model: str = "anthropic/claude-sonnet-4.6",
        end_reason: str | None = "cli_close",
        parent: str | None = None,
        config: dict[str, Any] | None = None,
        archived: bool = False,
        pinned: bool = False,
        gap: float = 45.0,
        extra: dict[str, Any] | None = None,
        session_id: str | None = None,
    ) -> str:
        started = self.now - ago
        spec = NewSession(
            source=source,
            id=session_id,
            title=title,
            model=model,
            model_config=json.dumps(config) if config else None,
            parent_session_id=parent,
            cwd=str(workspace) if workspace else None,
            git_repo_root=str(workspace) if workspace and git else None,
            git_branch="main" if workspace and git else None,
            started_at=started,
            **(extra or {}),
        )

        def work(conn: sqlite3.Connection) -> str:
            sid = insert_session(conn, self.store.capabilities, spec)
            ts = started
            pending: list[str] = []
            for n, turn in enumerate(turns):
                ts += gap if turn.role == "user" else gap / 3
                calls = [
                    {
                        "id": f"call_{sid[-6:]}_{n}_{k}",
                        "type": "function",
                        "function": {"name": name, "arguments": json.dumps(args)},
                    }
                    for k, (name, args) in enumerate(turn.calls)
                ]
                pending.extend(c["id"] for c in calls)
                insert_message(
                    conn,
                    self.store.capabilities,
                    sid,
                    NewMessage(
                        role=turn.role,
                        content=turn.content,
                        tool_calls=calls or None,
                        tool_call_id=pending.pop(0) if turn.role == "tool" and pending else None,
                        tool_name=turn.tool_name,
                        timestamp=ts,
                    ),
                )
            tokens = sum(len(t.content) for t in turns) // 4
            conn.execute(
                "UPDATE sessions SET ended_at = ?, end_reason = ?, archived = ?, "
                "input_tokens = ?, output_tokens = ?, api_call_count = ?, "
                "estimated_cost_usd = ? WHERE id = ?",
                (
                    ts + 30 if end_reason else None,
                    end_reason,
                    int(archived),
                    tokens * 6,
                    tokens,
                    sum(t.role == "assistant" for t in turns),
                    round(tokens * 0.00002, 4),
                    sid,
                ),
            )
            if pinned:
                ensure_pinned_column(conn)
                conn.execute("UPDATE sessions SET pinned = 1 WHERE id = ?", (sid,))
            return sid

        sid = self.store.write(work)
        if pinned:
            self.store.refresh_capabilities()
        return sid


def _conversations(b: _Builder) -> None:
    from . import demo_content as c

    webapp = b.workspace("webapp")
    myproject = b.workspace("myproject")
    scratch = b.workspace("scratch", git=False)
    b.session("cli", c.QUICK_PORTS, ago=2 * HOUR, workspace=scratch, git=False, end_reason=None)
    for days in (1, 8, 120):
        stamp = time.strftime("%b %d %H:%M", time.localtime(b.now - days * DAY))
        b.session(
            "cron",
            c.DIGEST,
            ago=days * DAY,
            title=f"Daily digest · {stamp}",
            model="nousresearch/hermes-4-70b",
            end_reason="cron_complete",
            session_id="cron_abc123def456_"
            + time.strftime("%Y%m%d_%H%M%S", time.localtime(b.now - days * DAY)),
        )
    flaky = b.session(
        "cli",
        c.FLAKY_CI,
        ago=3 * DAY,
        title="Fix flaky CI tests",
        workspace=webapp,
        end_reason="branched",
    )
    b.session(
        "cli",
        c.FLAKY_BRANCH,
        ago=2 * DAY,
        title="Fix flaky CI tests #2",
        workspace=webapp,
        parent=flaky,
        config={"_branched_from": flaky},
    )
    b.session(
        "subagent",
        c.SUBAGENT,
        ago=3 * DAY - 600,
        parent=flaky,
        config={"_delegate_from": flaky},
        workspace=webapp,
    )
    root = b.session(
        "cli",
        c.PROJECT_1,
        ago=40 * DAY,
        title="my project",
        workspace=myproject,
        end_reason="compression",
    )
    second = b.session(
        "cli",
        c.PROJECT_2,
        ago=39 * DAY,
        title="my project #2",
        workspace=myproject,
        parent=root,
        end_reason="compression",
    )
    b.session(
        "cli", c.PROJECT_3, ago=38 * DAY, title="my project #3", workspace=myproject, parent=second
    )
    b.session(
        "cli",
        c.long_refactor(),
        ago=5 * DAY,
        title="Long refactor session",
        workspace=myproject,
        gap=20.0,
    )
    telegram = {"user_id": "123456789", "chat_type": "dm", "chat_id": "123456789"}
    b.session(
        "telegram",
        c.TRIP,
        ago=10 * DAY,
        title="周末旅行计划 🗾",
        model="nousresearch/hermes-4-405b",
        end_reason="idle",
        extra=telegram,
    )
    b.session("telegram", c.WIFI, ago=60 * DAY, end_reason="daily", extra=telegram)
    b.session(
        "discord",
        c.RELEASE_PARTY,
        ago=25 * DAY,
        end_reason="idle",
        extra={"chat_type": "group", "chat_id": "9988776655", "thread_id": "4455"},
    )
    b.session("discord", c.RAMEN, ago=18 * DAY, title="東京のラーメン 🍜", end_reason="idle")
    b.session("telegram", c.SEOUL, ago=16 * DAY, title="서울 여행 계획", end_reason="idle")
    b.session("cli", c.HOSTILE, ago=6 * DAY, title="[/plan — plan mode]", workspace=webapp)
    b.session("cli", c.SEARCH_TORTURE, ago=7 * DAY, title="Search syntax torture test")
    b.session(
        "cli", c.EMBEDDINGS, ago=90 * DAY, title="Old experiments with embeddings", archived=True
    )
    b.session(
        "cli", c.RUNBOOK, ago=30 * DAY, title="Deployment runbook", workspace=webapp, pinned=True
    )
    b.session("cli", [], ago=20 * DAY)
    b.session("cli", c.LAPTOP, ago=200 * DAY, title="Old laptop setup notes", model="gpt-4.1")
    b.session("tool", c.TOOL_ROW, ago=95 * DAY, model="gpt-4.1", end_reason="agent_close")
    b.session(
        "slack",
        c.INCIDENT,
        ago=12 * DAY,
        title="Incident review: API latency",
        extra={"chat_type": "channel", "chat_id": "C024BE91L", "thread_id": "1712.42"},
    )
    b.session(
        "tui", c.TUI_CHAT, ago=26 * HOUR, title="Explain WAL checkpoints", workspace=myproject
    )
    compacted = b.session(
        "cli", c.MIGRATION_OLD, ago=15 * DAY, title="Database migration plan", workspace=myproject
    )
    _compact_in_place(b.store, compacted, c.MIGRATION_SUMMARY)


def _compact_in_place(store: Store, session_id: str, summary: list[Turn]) -> None:
    """What Hermes' default in-place compression leaves: old rows active=0, compacted=1."""

    def work(conn: sqlite3.Connection) -> None:
        last = conn.execute(
            "SELECT MAX(timestamp) FROM messages WHERE session_id = ?", (session_id,)
        ).fetchone()[0]
        conn.execute(
            "UPDATE messages SET active = 0, compacted = 1 WHERE session_id = ?", (session_id,)
        )
        for n, turn in enumerate(summary):
            insert_message(
                conn,
                store.capabilities,
                session_id,
                NewMessage(turn.role, turn.content, timestamp=last + 60 + n * 30),
            )
        conn.execute(
            "UPDATE sessions SET message_count = (SELECT COUNT(*) FROM messages "
            "WHERE session_id = ? AND active = 1) WHERE id = ?",
            (session_id, session_id),
        )

    store.write(work)


def create_demo(
    home: Path, *, sessions: int = 0, force: bool = False, now: float | None = None
) -> Store:
    """Build the demo store in *home* (refusing any folder that is not a previous demo)."""
    home = home.expanduser()
    db = home / "state.db"
    if home.exists() and any(home.iterdir()):
        if not (home / MARKER).exists():
            raise DemoError(
                f"{home} already exists and is not a hermes demo folder; "
                "choose another with --home (the demo never writes into real history)"
            )
        if not force and db.exists():
            raise DemoExists(f"A demo store already exists at {db} (--force rebuilds it).")
        shutil.rmtree(home)
    home.mkdir(parents=True, mode=0o700)
    (home / MARKER).write_text("Created by `hermes demo`; safe to delete.\n", encoding="utf-8")
    (home / "config.yaml").write_text(DEMO_CONFIG, encoding="utf-8")
    now = time.time() if now is None else now
    if sessions > 0:
        generate_store(db, sessions=sessions, messages=sessions * 14, now=now - 3 * DAY, seed=11)
    store = Store.create(db)
    _conversations(_Builder(store, home, now))
    return store
