"""``--format html``: one self-contained page (HERMES_AGENT_BEHAVIOUR §6.3, SPEC §8).

Message bubbles by role; tool calls, tool results, reasoning and system messages fold
away in ``<details>``; code is highlighted by Pygments with inline styles; several
sessions get a sidebar with a filter box (a small inline script shows one session at a
time; without scripts all of them show). Styles and icons are inline, nothing is fetched
(see :mod:`.htmlassets` for the page's Content-Security-Policy). Every stored string goes
through :func:`.htmltext.esc` or the escaping Markdown renderer — never raw.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Sequence
from typing import Any

from ... import __version__
from ..db import Capabilities
from .atomic import Sink
from .htmlassets import CSS, SCRIPT, csp, icon
from .htmltext import code_block, esc, json_block, markdown
from .model import Added, Entry, Item
from .records import Doc, Msg, call_arguments, call_name, iso, read_doc, text

PREVIEW = 140  # characters of a tool call's arguments shown in its folded summary


def _when(ts: Any) -> str:
    value = iso(ts, timespec="seconds")
    return value.replace("T", " ").replace("Z", " UTC") if value else ""


def _who(label: str, m: Msg) -> str:
    return f'<div class="who"><b>{esc(label)}</b>{esc(_when(m.timestamp))}</div>'


def _one_line(value: str, limit: int) -> str:
    flat = " ".join(value.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _tool_call(call: dict[str, Any]) -> str:
    args = call_arguments(call)
    preview = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
    inner = json_block(args) if not isinstance(args, str) else code_block(args)
    return (
        f'<details class="call"><summary>{icon("tool")}<b>{esc(call_name(call))}</b>'
        f'<span class="arg">{esc(_one_line(text(preview), PREVIEW))}</span></summary>'
        f'<div class="inner">{inner}</div></details>'
    )


def _output(content: str) -> str:
    stripped = content.strip()
    if stripped[:1] in ("{", "["):
        try:
            return json_block(json.loads(stripped))
        except ValueError:
            pass
    return code_block(content)


def _result(m: Msg) -> str:
    lines = m.content.count("\n") + 1 if m.content else 0
    about = f"result · {lines} line{'s' * (lines != 1)} · {_when(m.timestamp)}"
    return (
        f'<details class="result"><summary>{icon("result")}<b>{esc(m.tool_name or "tool")}'
        f'</b><span class="arg">{esc(about)}</span></summary>'
        f'<div class="inner">{_output(m.content)}</div></details>'
    )


def _system(m: Msg) -> str:
    return (
        f'<details class="system"><summary>{icon("system")}<b>System</b>'
        f'<span class="arg">{esc(_when(m.timestamp))}</span></summary>'
        f'<div class="inner">{code_block(m.content)}</div></details>'
    )


def _bubble(m: Msg) -> str:
    role = "user" if m.role == "user" else "assistant"
    parts: list[str] = []
    if m.reasoning:
        parts.append(
            f'<details class="reasoning"><summary>{icon("thought")}<b>Reasoning</b></summary>'
            f'<div class="inner body">{markdown(m.reasoning)}</div></details>'
        )
    if m.content.strip():
        parts.append(f'<div class="body">{markdown(m.content)}</div>')
    parts += [_tool_call(c) for c in m.tool_calls]
    if not parts:
        parts.append('<p class="empty">(empty message)</p>')
    label = m.role.capitalize() if m.role in ("user", "assistant") else m.role
    return (
        f'<div class="msg {role}"><div class="avatar">{icon(role)}</div>'
        f'<div class="bubble">{_who(label, m)}{"".join(parts)}</div></div>'
    )


def message_html(m: Msg) -> str:
    if m.role == "tool":
        return _result(m)
    if m.role == "system":
        return _system(m)
    return _bubble(m)


def _meta(doc: Doc) -> str:
    base = doc.base
    facts = [
        ("ID", doc.id),
        ("Source", text(base.get("source"))),
        ("Model", text(base.get("model"))),
        ("Started", _when(doc.segments[0].session.get("started_at"))),
        ("Ended", _when(base.get("ended_at"))),
        ("Messages", str(len(doc.messages))),
        ("Tool calls", str(sum(len(m.tool_calls) for m in doc.messages))),
        ("Directory", text(base.get("cwd"))),
    ]
    shown = "".join(f"<span><b>{esc(k)}</b> {esc(v)}</span>" for k, v in facts if v)
    return f'<div class="meta">{shown}</div>'


def session_html(doc: Doc, anchor: str) -> str:
    title = text(doc.base.get("title")) or doc.id
    parts = [
        f'<section class="session" id="{esc(anchor)}"><header><h1>{esc(title)}</h1>',
        f"{_meta(doc)}</header>",
    ]
    for segment in doc.segments:
        if len(doc.segments) > 1:
            parts.append(f'<div class="segment">Compression segment · {esc(segment.id)}</div>')
        parts += [message_html(m) for m in segment.messages]
    if not doc.messages:
        parts.append('<p class="empty">No messages in this session.</p>')
    parts.append("</section>")
    return "\n".join(parts)


def _sidebar(items: Sequence[Item], entries: dict[str, Entry]) -> str:
    rows: list[str] = []
    for n, item in enumerate(items):
        entry = entries.get(item.id)
        title = (entry.title if entry else None) or item.id
        source = entry.source if entry else ""
        count = sum(entries[s].message_count for s in item.session_ids if s in entries)
        first = entries.get(item.session_ids[0])
        started = _when(first.started_at) if first else ""
        words = " ".join([title, item.id, source, (entry.model or "") if entry else ""])
        rows.append(
            f'<li data-target="s{n}" data-q="{esc(words.lower())}"><a href="#s{n}">'
            f'<span class="t">{esc(title)}</span><span class="m">{esc(started[:16])} · '
            f"{esc(source)} · {count} msgs</span></a></li>"
        )
    return (
        f'<nav id="side"><header>{icon("logo")}Hermes sessions</header>'
        '<input id="q" type="search" placeholder="Filter sessions…" aria-label="Filter sessions">'
        f'<div id="count">{len(items)} sessions</div><ul id="list">{"".join(rows)}</ul></nav>'
    )


class HtmlWriter:
    """Streams the page: head and sidebar first, then one section per item, then the end."""

    def __init__(
        self, sink: Sink, items: Sequence[Item], entries: dict[str, Entry], *, redact: bool
    ) -> None:
        self.sink = sink
        self.redact = redact
        self.several = len(items) > 1
        self.index = 0
        first = entries.get(items[0].id) if items else None
        title = "Hermes sessions" if self.several or first is None else (first.title or first.id)
        head = [
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f'<meta http-equiv="Content-Security-Policy" content="{csp(self.several)}">',
            '<meta name="referrer" content="no-referrer"><link rel="icon" href="data:,">',
            f"<title>{esc(title)}</title><style>{CSS}</style></head><body>",
        ]
        if self.several:
            head.append(_sidebar(items, entries))
        head.append("<main>")
        self.sink.write("\n".join(head).encode("utf-8"))

    def add(self, conn: sqlite3.Connection, caps: Capabilities, item: Item) -> Added | None:
        anchor = f"s{self.index}"
        self.index += 1
        doc = read_doc(conn, caps, item.session_ids, redact=self.redact)
        if doc is None:
            return None
        self.sink.write(("\n" + session_html(doc, anchor)).encode("utf-8"))
        return Added(len(doc.segments), len(doc.messages))

    def finish(self) -> None:
        stamp = iso(time.time(), timespec="seconds")
        note = f"Exported by hermes_tui {__version__} at {stamp}" + (
            "; secrets redacted." if self.redact else "."
        )
        tail = [f'<footer class="note">{esc(note)}</footer></main>']
        if self.several:
            tail.append(f"<script>{SCRIPT}</script>")
        tail.append("</body></html>\n")
        self.sink.write("\n".join(tail).encode("utf-8"))
