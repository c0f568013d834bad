"""``--format md|qmd``: one readable file per session, Hermes' layout (HERMES_AGENT_BEHAVIOUR
§6.3): JSON-valued front matter, ``# <title>``, the messages as ``### <Role> — <UTC time>``
sections with their tool calls as JSON, ``## Compression segment: <id>`` headers for a
logical lineage, and an ``## Export verification`` section whose SHA-256 covers the whole
file with that one hash line reading ``pending``.

:func:`verify_file` checks a written file the way ``--delete-after-verified`` needs: the
hash, the message count line and the session id line — read from the file's **last**
verification section, so a message that quotes such a section cannot vouch for the file.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..db import Capabilities
from . import manifest
from .atomic import AtomicFile
from .model import Added, Item
from .records import Doc, Msg, iso, last_activity, pretty_json, read_doc, text

EXPORTER = "hermes sessions export (md/qmd) v1"
HEADING = "## Export verification"
_SHA_PREFIX = "- SHA256 of exported body: `"
_SLUG_RUN = re.compile(r"[^A-Za-z0-9._-]+")
_UNSAFE_ID = re.compile(r"[^A-Za-z0-9._-]")


@dataclass(frozen=True, slots=True)
class WrittenFile:
    """A verified-on-write Markdown file: its path, the id it is named after, and how many
    messages of each of its sessions it holds."""

    path: Path
    session_id: str
    counts: tuple[tuple[str, int], ...]

    @property
    def message_count(self) -> int:
        return sum(n for _, n in self.counts)


def slug(title: str | None) -> str:
    """Hermes' slug: runs of other characters → ``-``, trimmed, lowercased, ≤ 60."""
    value = _SLUG_RUN.sub("-", title or "").strip(".-_").lower()
    return value[:60] or "session"


def safe_id(session_id: str) -> str:
    """A session id as a file name part: characters a path could misuse become ``_``, and
    it never starts with a dot (no hidden files, no ``..``)."""
    value = _UNSAFE_ID.sub("_", session_id)
    if value.startswith("."):
        value = "_" + value.lstrip(".")
    return value if value.strip("_") else f"session{value}"


def file_stem(session_id: str, title: str | None) -> str:
    """``<id>-<slug>``: a Markdown export's file name without its extension."""
    return f"{safe_id(session_id)}-{slug(title)}"


def _front(key: str, value: Any) -> str:
    if value is None or isinstance(value, bool):
        return f"{key}: {json.dumps(value)}"
    if not isinstance(value, int | float | list):
        value = text(value)
    return f"{key}: {json.dumps(value, ensure_ascii=False)}"


def fence(body: str, language: str = "") -> str:
    """A code fence longer than any backtick run inside *body*."""
    longest = max((len(m) for m in re.findall(r"`+", body)), default=0)
    marks = "`" * max(3, longest + 1)
    return f"{marks}{language}\n{body}\n{marks}"


def _one_line(value: str) -> str:
    return " ".join(value.split())


def _heading(m: Msg) -> str:
    label = m.role.capitalize() or "Message"
    if m.role == "tool" and m.tool_name:
        label = f"Tool — {_one_line(m.tool_name)}"
    when = iso(m.timestamp)
    return f"### {label}{' — ' + when if when else ''}"


def _message(m: Msg) -> list[str]:
    parts = [_heading(m), ""]
    if m.content.strip():
        parts += [m.content.rstrip(), ""]
    if m.tool_calls:
        parts += ["", "## Tool calls", "", fence(pretty_json(list(m.tool_calls)), "json"), ""]
    return parts


def _messages(doc: Doc) -> list[str]:
    if not doc.messages:
        return ["## Messages", "", "_No messages in this session._", ""]
    parts = ["## Messages", ""]
    for segment in doc.segments:
        if len(doc.segments) > 1:
            parts += [f"## Compression segment: {segment.id}", ""]
        for m in segment.messages:
            parts += _message(m)
    return parts


def render(doc: Doc, fmt: str, exported_at: float) -> str:
    """The file's text, hash included."""
    base = doc.base
    sid = doc.id
    count = len(doc.messages)
    title = text(base.get("title")) or None
    fields: list[tuple[str, Any]] = [
        ("session_id", sid),
        ("title", title),
        ("source", base.get("source")),
        ("created_at", iso(doc.segments[0].session.get("started_at"))),
        ("updated_at", iso(last_activity(doc))),
        ("ended_at", iso(base.get("ended_at"))),
        ("model", base.get("model")),
        ("provider", base.get("billing_provider")),
        ("cwd", base.get("cwd")),
        ("archived", bool(base.get("archived"))),
        ("message_count", count),
        ("tool_call_count", sum(int(s.session.get("tool_call_count") or 0) for s in doc.segments)),
    ]
    if len(doc.segments) > 1:
        fields.append(("lineage_session_ids", doc.lineage_ids))
    fields += [("format", fmt), ("exported_at", iso(exported_at)), ("exporter", EXPORTER)]
    stored = sum(int(s.session.get("message_count") or 0) for s in doc.segments)
    parts = ["---", *(_front(k, v) for k, v in fields), "---", ""]
    parts += [f"# {_one_line(title or sid)}", "", f"Session ID: `{sid}`", ""]
    if base.get("source"):
        parts += [f"Source: `{_one_line(text(base.get('source')))}`", ""]
    if base.get("cwd"):
        parts += [f"Working directory: `{_one_line(text(base.get('cwd')))}`", ""]
    parts += _messages(doc)
    parts += [
        HEADING,
        "",
        f"- Session id: `{sid}`",
        f"- Exported messages: `{count}`",
        f"- Source DB message count at export: `{stored}`",
        f"- Exported at: `{iso(exported_at)}`",
        f"{_SHA_PREFIX}pending`",
    ]
    body = "\n".join(parts) + "\n"
    digest = hashlib.sha256(body.encode("utf-8")).hexdigest()
    return body[: -len("pending`\n")] + f"{digest}`\n"


def verify_text(body: str, session_id: str, message_count: int) -> str | None:
    """Why *body* is not a verified export of *session_id* with *message_count* messages
    (None when it is)."""
    at = body.rfind(f"\n{HEADING}\n")
    if at < 0:
        return "the export verification section is missing"
    tail = body[at:]
    found = re.search(r"^- SHA256 of exported body: `([0-9a-f]{64})`\n?\Z", tail, re.MULTILINE)
    if found is None:
        return "the SHA-256 line is missing or is not the file's last line"
    pending = body[: at + found.start()] + f"{_SHA_PREFIX}pending`\n"
    if hashlib.sha256(pending.encode("utf-8")).hexdigest() != found.group(1):
        return "the SHA-256 does not match (the file was changed after the export)"
    if f"\n- Exported messages: `{message_count}`\n" not in tail:
        return f"the exported message count is not {message_count}"
    if f"\n- Session id: `{session_id}`\n" not in tail:
        return f"the session id is not {session_id}"
    return None


def verify_file(path: Path, session_id: str, message_count: int) -> str | None:
    try:
        body = path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return f"{path} is missing"
    except (OSError, UnicodeDecodeError) as exc:
        return f"{path} cannot be read ({exc})"
    why = verify_text(body, session_id, message_count)
    return None if why is None else f"{path.name}: {why}"


class MarkdownWriter:
    """Writes each item to its own file (``item.path``) and appends its manifest line."""

    def __init__(self, folder: Path, fmt: str, *, redact: bool, force: bool) -> None:
        self.folder = folder
        self.fmt = fmt
        self.redact = redact
        self.force = force
        self.written: list[WrittenFile] = []
        self.manifest: Path | None = None

    def add(self, conn: sqlite3.Connection, caps: Capabilities, item: Item) -> Added | None:
        doc = read_doc(conn, caps, item.session_ids, redact=self.redact)
        if doc is None:
            return None
        assert item.path is not None
        exported_at = time.time()
        with AtomicFile(item.path, overwrite=self.force) as out:
            out.write(render(doc, self.fmt, exported_at).encode("utf-8"))
        counts = tuple((s.id, len(s.messages)) for s in doc.segments)
        entry = manifest.ManifestEntry(
            path=item.path.absolute(),
            session_id=doc.id,
            lineage_session_ids=tuple(doc.lineage_ids),
            message_count=len(doc.messages),
            sha256=out.sha256,
            format=self.fmt,
            exported_at=exported_at,
        )
        self.manifest = manifest.append(self.folder, entry)
        self.written.append(WrittenFile(item.path, doc.id, counts))
        return Added(len(doc.segments), len(doc.messages))
