"""``--format trace``: a Claude-Code-style JSONL transcript the Hugging Face Agent Trace
Viewer reads (TRANSCRIPT_FORMATS.md §3, §6.3). One line per live message, system messages
left out, each with ``type`` (user/assistant), a ``uuid``, the previous line's uuid as
``parentUuid`` (null on the first: one unbroken chain), ``sessionId``, the message's own
``timestamp``, the session's ``cwd``/``gitBranch``, and ``message{role, content}``:

* assistant → text block + one ``tool_use`` per tool call (arguments parsed to an object,
  ``{"_raw": …}`` when not JSON); reasoning is left out (unsigned ``thinking`` blocks are
  not allowed);
* tool → a user line with one ``tool_result`` for the call it answers — matched by call id,
  else by tool name, else the oldest unanswered call;
* a call no result answers gets a ``[no result recorded]`` result (``is_error``) before the
  next turn, so every ``tool_use`` has its ``tool_result``; a result no call asked for
  becomes a plain user note.

Uuids are derived from the session and message ids, so exporting twice gives the same file.
Redaction is on by default (the request decides).
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from pathlib import Path
from typing import Any

from ... import __version__
from ..db import Capabilities
from .atomic import AtomicFile, Sink
from .model import Added, Item
from .records import Doc, Msg, call_arguments, call_name, iso, read_doc, text

_NAMESPACE = uuid.UUID("5f0b1f7e-3c2a-4d8e-9a61-6e2a7c4b9d10")
NO_RESULT = "[no result recorded]"


class _Chain:
    """The lines of one session's trace, linked parent to child."""

    def __init__(self, doc: Doc) -> None:
        base = doc.base
        self.session_id = doc.id
        self.cwd = text(base.get("cwd"))
        self.branch = text(base.get("git_branch"))
        self.model = text(base.get("model")) or "unknown"
        self.lines: list[dict[str, Any]] = []
        self.parent: str | None = None
        self.when = iso(base.get("started_at"), timespec="milliseconds")
        self.pending: list[tuple[str, str]] = []  # (tool_use id, tool name), oldest first
        self.used_ids: set[str] = set()

    def emit(self, kind: str, key: str, message: dict[str, Any], when: str) -> None:
        line_id = str(uuid.uuid5(_NAMESPACE, f"{self.session_id}/{key}"))
        self.when = when or self.when
        self.lines.append(
            {
                "parentUuid": self.parent,
                "isSidechain": False,
                "userType": "external",
                "cwd": self.cwd,
                "sessionId": self.session_id,
                "version": f"hermes_tui/{__version__}",
                "gitBranch": self.branch,
                "type": kind,
                "message": message,
                "uuid": line_id,
                "timestamp": self.when,
            }
        )
        self.parent = line_id

    def call_id(self, call: dict[str, Any], key: str, n: int) -> str:
        wanted = text(call.get("id")) or f"toolu_{uuid.uuid5(_NAMESPACE, key).hex[:24]}_{n}"
        unique, k = wanted, 2
        while unique in self.used_ids:
            unique, k = f"{wanted}_{k}", k + 1
        self.used_ids.add(unique)
        return unique

    def assistant(self, m: Msg) -> None:
        self.close_calls(m)
        key = f"m{m.id}"
        blocks: list[dict[str, Any]] = []
        if m.content or not m.tool_calls:
            blocks.append({"type": "text", "text": m.content})
        for n, call in enumerate(m.tool_calls):
            call_id = self.call_id(call, key, n)
            name = call_name(call)
            args = call_arguments(call)
            blocks.append(
                {
                    "type": "tool_use",
                    "id": call_id,
                    "name": name,
                    "input": args if isinstance(args, dict) else {"_raw": args},
                }
            )
            self.pending.append((call_id, name))
        message = {
            "id": f"msg_{uuid.uuid5(_NAMESPACE, f'{self.session_id}/{key}').hex[:24]}",
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": blocks,
        }
        self.emit("assistant", key, message, iso(m.timestamp, timespec="milliseconds"))

    def result(self, m: Msg) -> None:
        when = iso(m.timestamp, timespec="milliseconds")
        match = next((p for p in self.pending if p[0] == m.tool_call_id), None)
        if match is None and m.tool_name:
            match = next((p for p in self.pending if p[1] == m.tool_name), None)
        if match is None and self.pending:
            match = self.pending[0]
        if match is None:
            note = f"[tool output without a recorded call: {m.tool_name or 'tool'}]\n{m.content}"
            self.emit("user", f"m{m.id}", {"role": "user", "content": note}, when)
            return
        self.pending.remove(match)
        block = {"type": "tool_result", "tool_use_id": match[0], "content": m.content}
        self.emit("user", f"m{m.id}", {"role": "user", "content": [block]}, when)

    def close_calls(self, after: Msg | None) -> None:
        """Answer every call still open with ``[no result recorded]``."""
        for call_id, _ in list(self.pending):
            block = {
                "type": "tool_result",
                "tool_use_id": call_id,
                "content": NO_RESULT,
                "is_error": True,
            }
            key = f"noresult/{call_id}/{after.id if after else 'end'}"
            self.emit("user", key, {"role": "user", "content": [block]}, self.when)
        self.pending.clear()

    def user(self, m: Msg) -> None:
        self.close_calls(m)
        when = iso(m.timestamp, timespec="milliseconds")
        self.emit("user", f"m{m.id}", {"role": "user", "content": m.content}, when)


def trace_lines(doc: Doc) -> list[dict[str, Any]]:
    """The trace of one session (or lineage) as JSON objects, in order."""
    chain = _Chain(doc)
    for m in doc.messages:
        if m.role == "system":
            continue
        if m.role == "assistant":
            chain.assistant(m)
        elif m.role == "tool":
            chain.result(m)
        else:
            chain.user(m)
    chain.close_calls(None)
    return chain.lines


def _write(sink: Sink, doc: Doc) -> Added:
    for line in trace_lines(doc):
        sink.write(json.dumps(line, ensure_ascii=False).encode("utf-8") + b"\n")
    return Added(len(doc.segments), len(doc.messages))


class TraceWriter:
    """Traces into one stream (a single session) — see :class:`TraceFilesWriter` for bulk."""

    def __init__(self, sink: Sink, *, redact: bool) -> None:
        self.sink = sink
        self.redact = redact

    def add(self, conn: sqlite3.Connection, caps: Capabilities, item: Item) -> Added | None:
        doc = read_doc(conn, caps, item.session_ids, redact=self.redact)
        return None if doc is None else _write(self.sink, doc)


class TraceFilesWriter:
    """Bulk traces: one ``<id>.trace.jsonl`` per session (``item.path``)."""

    def __init__(self, *, redact: bool, force: bool) -> None:
        self.redact = redact
        self.force = force
        self.paths: list[Path] = []

    def add(self, conn: sqlite3.Connection, caps: Capabilities, item: Item) -> Added | None:
        doc = read_doc(conn, caps, item.session_ids, redact=self.redact)
        if doc is None or item.path is None:
            return None
        with AtomicFile(item.path, overwrite=self.force) as out:
            added = _write(out, doc)
        self.paths.append(item.path)
        return added
