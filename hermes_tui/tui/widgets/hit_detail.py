"""The selected search result, drawn from the engine's structure: how the conversation began
(bookend_start), a ``┄ N messages ┄`` gap, the window around the match with the anchor
highlighted, a gap, and how it ended (bookend_end). One Static, one renderable."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rich.console import Group, RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from ...sanitize import clean
from ...store import Message
from ...store.recap import tool_summary
from ...store.search import Hit
from ...timefmt import local_minutes
from ..render import ASSISTANT_STYLE, USER_STYLE

LINES = 6
ANCHOR_LINES = 30


@dataclass(frozen=True)
class WindowState:
    """What the detail pane shows of one hit; scrolling replaces it with a merged copy."""

    hit: Hit
    messages: tuple[Message, ...]
    at_start: bool
    at_end: bool
    width: int

    @classmethod
    def of(cls, hit: Hit) -> WindowState:
        return cls(hit, hit.window.messages, hit.window.at_start, hit.window.at_end, 5)

    def merged(
        self, more: Iterable[Message], *, at_start: bool | None = None, at_end: bool | None = None
    ) -> WindowState:
        by_id = {m.id: m for m in (*self.messages, *more)}
        return WindowState(
            self.hit,
            tuple(by_id[i] for i in sorted(by_id)),
            self.at_start if at_start is None else at_start,
            self.at_end if at_end is None else at_end,
            self.width,
        )


def _clip(text: str, lines: int) -> str:
    parts = text.split("\n")
    if len(parts) <= lines:
        return text
    return "\n".join(parts[:lines]) + f"\n… {len(parts) - lines} more lines"


def message_text(message: Message, *, anchor: bool = False) -> Text:
    """One message: a role mark, its time and id, and its text (clipped; tools folded)."""
    text = Text()
    if message.role == "user":
        text.append("● You", style=f"bold {USER_STYLE}")
    elif message.role == "assistant":
        text.append("◆ Hermes", style=f"bold {ASSISTANT_STYLE}")
    else:
        text.append(
            f"↳ {clean(message.tool_name or message.role, keep_newlines=False)}", style="bold dim"
        )
    text.append(f"  {local_minutes(message.timestamp)}  #{message.id}\n", style="dim")
    body = clean(message.content or "").strip()
    if message.role not in ("user", "assistant"):
        first = " ".join(body.split())
        body = first[:160] + ("…" if len(first) > 160 else "")
    text.append(_clip(body, ANCHOR_LINES if anchor else LINES), style="" if anchor else "dim")
    if message.tool_calls:
        text.append(("\n" if body else "") + tool_summary(message.tool_names), style="dim italic")
    if anchor:
        text.stylize("on #3a3000")
    return text


def _gap(count: int) -> Text:
    label = f"┄ {count:,} message{'s' * (count != 1)} ┄" if count > 0 else "┄"
    return Text(label, style="dim", justify="center")


def detail_renderable(state: WindowState) -> RenderableType:
    hit = state.hit
    window_ids = {m.id for m in state.messages}
    first, last = state.messages[0].id, state.messages[-1].id
    head = [m for m in hit.bookend_start if m.id < first and m.id not in window_ids]
    tail = [m for m in hit.bookend_end if m.id > last and m.id not in window_ids]
    parts: list[RenderableType] = []

    def add(messages: Sequence[Message]) -> None:
        for message in messages:
            parts.append(message_text(message, anchor=message.id == hit.match_message_id))
            parts.append(Text(""))

    extra_before = sum(1 for m in state.messages if m.id < hit.window.messages[0].id)
    extra_after = sum(1 for m in state.messages if m.id > hit.window.messages[-1].id)
    if head:
        add(head)
        if hit.gap_before - extra_before > 0 and not state.at_start:
            parts += [_gap(hit.gap_before - extra_before), Text("")]
    elif state.at_start:
        parts += [Text("— start of the conversation —", style="dim italic", justify="center")]
    add(state.messages)
    if tail:
        if hit.gap_after - extra_after > 0 and not state.at_end:
            parts += [_gap(hit.gap_after - extra_after), Text("")]
        add(tail)
    elif state.at_end:
        parts.append(Text("— end of the conversation —", style="dim italic", justify="center"))
    return Group(*parts)


class HitDetail(VerticalScroll, can_focus=False):
    """Scrolls with the mouse; keys on the results list scroll the window (the engine's)."""

    def compose(self) -> ComposeResult:
        yield Static(id="hit-body")

    def show(self, state: WindowState | None, note: str = "") -> None:
        body = self.query_one("#hit-body", Static)
        if state is None:
            body.update(Text(note, style="dim italic"))
            return
        body.update(detail_renderable(state))

    def reveal_anchor(self) -> None:
        """Scroll so the anchor is in view (it sits after the bookend and the gap)."""
        self.scroll_home(animate=False)
