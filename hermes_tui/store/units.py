"""Conversations as units, for many at once: what acting on a conversation touches.

The same rules as :func:`.sessions.conversation_ids` (one conversation: its compression
lineage, then every delegate/subagent descendant; branches and resets stay), computed for
thousands of conversations from one read of the parent/child graph instead of several
queries per conversation. Classification is :func:`.lineage.child_kind` itself, so the two
can never disagree (a test compares them on generated stores).
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from . import lineage
from .db import Capabilities


@dataclass(frozen=True, slots=True)
class Unit:
    """What acting on the conversation whose listable row is ``root`` touches."""

    root: str
    lineage: tuple[str, ...]  # root → … compression segments (not in resume order)
    going: tuple[str, ...]  # delegate/subagent descendants that go with it
    staying: tuple[str, ...]  # branch/reset children that stay (detached on delete)

    @property
    def session_ids(self) -> tuple[str, ...]:
        return self.lineage + self.going


class SessionGraph:
    """Every session that has a parent, and every parent, with the columns that classify
    children (see :func:`.lineage.child_kind`) and the flags that spare a unit."""

    def __init__(self, rows: Iterable[sqlite3.Row]) -> None:
        self.rows: dict[str, sqlite3.Row] = {}
        self.children: dict[str, list[sqlite3.Row]] = defaultdict(list)
        for row in rows:
            self.rows[row["id"]] = row
            if row["parent_session_id"] is not None:
                self.children[row["parent_session_id"]].append(row)
        for kids in self.children.values():
            kids.sort(key=lambda r: (r["started_at"] or 0.0, r["id"]))

    @classmethod
    def load(cls, conn: sqlite3.Connection, caps: Capabilities) -> SessionGraph:
        sql = (
            "SELECT s.id, s.parent_session_id, s.end_reason, s.ended_at, s.started_at, "
            f"{caps.session_col('model_config')} AS model_config, "
            f"{caps.session_col('session_key')} AS session_key, "
            f"COALESCE({caps.session_col('archived', '0')}, 0) AS archived, "
            f"COALESCE({caps.session_col('pinned', '0')}, 0) AS pinned "
            "FROM sessions s WHERE s.parent_session_id IS NOT NULL OR s.id IN "
            "(SELECT parent_session_id FROM sessions WHERE parent_session_id IS NOT NULL)"
        )
        return cls(conn.execute(sql))

    def unit(self, root: str) -> Unit:
        """The unit of the conversation *root* (a listable row: its own lineage root)."""
        members = [root]
        seen = {root}
        frontier = [root]
        while frontier:
            parent = self.rows.get(frontier.pop())
            if parent is None or parent["end_reason"] != "compression":
                continue
            for child in self.children.get(parent["id"], ()):
                if child["id"] in seen:
                    continue
                if lineage.child_kind(parent, child) == "compression":
                    seen.add(child["id"])
                    members.append(child["id"])
                    frontier.append(child["id"])
        going: list[str] = []
        staying: list[str] = []
        frontier = list(members)
        while frontier:
            parent = self.rows.get(frontier.pop())
            if parent is None:
                continue
            for child in self.children.get(parent["id"], ()):
                if child["id"] in seen:
                    continue
                seen.add(child["id"])
                if lineage.child_kind(parent, child) in ("branch", "reset"):
                    staying.append(child["id"])
                else:
                    going.append(child["id"])
                    frontier.append(child["id"])
        return Unit(root, tuple(members), tuple(going), tuple(staying))

    def flag(self, session_id: str, name: str) -> object:
        """A column of a session in the graph (None for sessions without relatives)."""
        row = self.rows.get(session_id)
        return None if row is None else row[name]
