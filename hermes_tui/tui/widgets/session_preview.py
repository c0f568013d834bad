"""The preview pane: the selected conversation's facts and the recap of where it stood."""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Group, RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from ...store import Session, SessionRow
from ...store.recap import Recap
from .. import render


@dataclass(frozen=True)
class PreviewData:
    row: SessionRow
    tip: Session | None
    recap: Recap


def _status(row: SessionRow, tip: Session | None) -> str:
    parts = ["open" if row.is_open else f"ended ({row.end_reason or 'unknown'})"]
    if row.pinned:
        parts.append("pinned")
    if row.archived:
        parts.append("archived")
    if row.segments > 1:
        parts.append(f"{row.segments} segments (compressed)")
    if tip is not None and tip.handoff_state:
        parts.append(f"handoff {tip.handoff_state}")
    return ", ".join(parts)


def _moment(ts: float, now: float) -> str:
    """Local time, with the relative form when it says more than the date."""
    relative = render.when(ts, now)
    return render.stamp(ts) + (
        "" if relative[:1].isdigit() and "-" in relative else f" ({relative})"
    )


def _usage(tip: Session | None) -> str | None:
    if tip is None or not (tip.input_tokens or tip.output_tokens):
        return None
    text = f"{tip.input_tokens:,} in / {tip.output_tokens:,} out"
    if tip.cost_usd:
        text += f" · ${tip.cost_usd:.4f}"
    return text


class SessionPreview(VerticalScroll, can_focus=False):
    """Facts first, then the recap panel; scrolls (with the mouse) when the recap is long."""

    def compose(self) -> ComposeResult:
        yield Static(id="preview-facts")
        yield Static(id="preview-recap")

    def show_message(self, text: str) -> None:
        self.query_one("#preview-facts", Static).update(Text(text, style="dim italic"))
        self.query_one("#preview-recap", Static).update("")

    def show(self, data: PreviewData, now: float, minimal: bool) -> None:
        row, tip = data.row, data.tip
        title = render.cell(row.title or row.preview or row.id, "bold")
        gateway = None
        if tip is not None and (tip.chat_type or tip.user_id):
            gateway = " · ".join(p for p in (tip.chat_type, tip.user_id, tip.thread_id) if p)
        facts = render.key_value_lines(
            [
                ("id", row.id),
                ("source", row.source + (f" · {gateway}" if gateway else "")),
                ("model", row.model),
                ("started", _moment(row.started_at, now)),
                ("active", _moment(row.last_active, now)),
                ("messages", f"{row.message_count:,}"),
                ("workspace", row.workspace),
                ("branch", tip.git_branch if tip else None),
                ("status", _status(row, tip)),
                ("tokens", _usage(tip)),
            ]
        )
        body: RenderableType = Group(title, facts)
        self.query_one("#preview-facts", Static).update(body)
        recap = render.recap_renderable(data.recap, minimal=minimal)
        self.query_one("#preview-recap", Static).update(recap)
        self.scroll_home(animate=False)
