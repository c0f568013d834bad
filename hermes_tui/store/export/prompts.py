"""``--only user-prompts``: only what the user typed (HERMES_AGENT_BEHAVIOUR §6.3).

JSONL: one record per user message, ``{"session_id", "index" (1-based per session),
"created_at" (UTC, seconds, ``Z``), "role": "user", "text", "message_id"[, "event_id"]}``.
Markdown: ``# User prompts for session <id>``, metadata bullets, then ``## <n>. <time>``
sections (several sessions: ``# User prompts export`` with a ``## Session <id>`` each).
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from ..db import Capabilities
from .atomic import Sink
from .model import Added, Item
from .records import Doc, iso, read_doc, text


def prompt_records(doc: Doc) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    index: dict[str, int] = {}
    for m in doc.messages:
        if m.role != "user":
            continue
        index[m.session_id] = index.get(m.session_id, 0) + 1
        record: dict[str, Any] = {
            "session_id": m.session_id,
            "index": index[m.session_id],
            "created_at": iso(m.timestamp, timespec="seconds"),
            "role": "user",
            "text": m.content,
        }
        if m.id is not None:
            record["message_id"] = m.id
        if m.platform_message_id:
            record["event_id"] = m.platform_message_id
        records.append(record)
    return records


def _one_line(value: Any) -> str:
    return " ".join(text(value).split())


def _metadata(doc: Doc) -> list[str]:
    base = doc.base
    lines = [f"- Session ID: `{doc.id}`"]
    for label, key in (("Source", "source"), ("Model", "model")):
        if base.get(key):
            lines.append(f"- {label}: `{_one_line(base.get(key))}`")
    if base.get("title"):
        lines.append(f"- Title: {_one_line(base.get('title'))}")
    if iso(base.get("started_at"), timespec="seconds"):
        lines.append(f"- Started: {iso(base.get('started_at'), timespec='seconds')}")
    lines.append(f"- Messages: {len(doc.messages)}")
    return lines


def _sections(records: list[dict[str, Any]], level: int) -> list[str]:
    marker = "#" * level
    lines: list[str] = []
    for r in records:
        lines.append(f"{marker} {r['index']}. {r['created_at'] or 'time unknown'}")
        if r.get("message_id") is not None:
            lines += [f"Message ID: `{r['message_id']}`", ""]
        lines += [r["text"], ""]
    return lines or ["_No user prompts found._", ""]


class PromptsWriter:
    """User prompts of every item into one stream, as JSONL or Markdown."""

    def __init__(self, sink: Sink, fmt: str, *, redact: bool, several: bool) -> None:
        self.sink = sink
        self.markdown = fmt == "md"
        self.redact = redact
        self.several = several
        if self.markdown and several:
            self.sink.write(b"# User prompts export\n\n")

    def add(self, conn: sqlite3.Connection, caps: Capabilities, item: Item) -> Added | None:
        doc = read_doc(conn, caps, item.session_ids, redact=self.redact)
        if doc is None:
            return None
        records = prompt_records(doc)
        if not self.markdown:
            out = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
        elif self.several:
            out = "\n".join([f"## Session {doc.id}", *_metadata(doc), "", *_sections(records, 3)])
        else:
            head = [f"# User prompts for session {doc.id}", *_metadata(doc), ""]
            out = "\n".join([*head, *_sections(records, 2)])
        self.sink.write(out.encode("utf-8"))
        return Added(len(doc.segments), len(doc.messages), len(records))
