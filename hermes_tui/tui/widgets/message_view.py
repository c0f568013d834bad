"""One message of a transcript as one widget: text or Markdown, tools and reasoning folded.

Enter expands a folded message (tool arguments, tool output, reasoning, a long paste);
long bodies are clipped until then, so a multi-megabyte tool output costs nothing to show.
"""

from __future__ import annotations

import json

from rich.console import Group, RenderableType
from rich.markdown import Markdown
from rich.text import Text
from textual.binding import Binding
from textual.reactive import reactive
from textual.widget import Widget

from ...sanitize import clean
from ...store import Message
from ...timefmt import local_minutes
from ..render import ASSISTANT_STYLE, USER_STYLE

CLIP_LINES = 40
EXPANDED_LINES = 2_000
MARKDOWN_HINTS = ("```", "\n#", "\n- ", "\n* ", "\n1. ", "**", "`", "|")


def _clip(text: str, lines: int) -> tuple[str, int]:
    parts = text.split("\n")
    if len(parts) <= lines:
        return text, 0
    return "\n".join(parts[:lines]), len(parts) - lines


def _arguments(raw: object) -> str:
    if isinstance(raw, str):
        try:
            return json.dumps(json.loads(raw), ensure_ascii=False, indent=2)
        except ValueError:
            return raw
    return json.dumps(raw, ensure_ascii=False, indent=2)


def _one_line(text: str, width: int = 90) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


class MessageView(Widget, can_focus=True):
    """A message; ``-anchor`` marks the one a search or a jump pointed at."""

    BINDINGS = [
        Binding(
            "enter",
            "toggle",
            "Expand",
            id="message.toggle",
            tooltip="Show or fold tool calls, output and reasoning",
        ),
    ]
    expanded: reactive[bool] = reactive(False, layout=True)

    def __init__(self, message: Message, *, anchor: bool = False) -> None:
        classes = f"chat-item -{message.role}" + (" -anchor" if anchor else "")
        super().__init__(classes=classes)
        self.message = message

    @property
    def foldable(self) -> bool:
        m = self.message
        body = m.content or ""
        return bool(
            m.tool_calls
            or m.reasoning
            or m.role in ("tool", "system")
            or body.count("\n") >= CLIP_LINES
        )

    def action_toggle(self) -> None:
        if self.foldable:
            self.expanded = not self.expanded

    def _header(self, label: str, style: str) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(label, style=style)
        text.append(f"  {local_minutes(self.message.timestamp)}", style="dim")
        if self.message.id:  # 0: shown before the store has given it an id
            text.append(f"  #{self.message.id}", style="dim")
        if not self.message.active:
            text.append("  (pre-compression)", style="dim italic")
        return text

    def _body(self, text: str, markdown: bool) -> list[RenderableType]:
        limit = EXPANDED_LINES if self.expanded else CLIP_LINES
        shown, hidden = _clip(clean(text), limit)
        parts: list[RenderableType] = []
        if markdown and any(h in shown for h in MARKDOWN_HINTS):
            parts.append(Markdown(shown, code_theme="monokai", hyperlinks=False))
        elif shown.strip():
            parts.append(Text(shown))
        if hidden:
            hint = "Enter folds" if self.expanded else "Enter shows them"
            parts.append(Text(f"… {hidden:,} more lines ({hint})", style="dim italic"))
        return parts

    def _tool_calls(self) -> list[RenderableType]:
        parts: list[RenderableType] = []
        for call in self.message.tool_calls:
            fn = call.get("function") if isinstance(call, dict) else None
            name = clean(str((fn or {}).get("name") or "tool"), keep_newlines=False)
            args = _arguments((fn or {}).get("arguments", ""))
            line = Text("  ▾ " if self.expanded else "  ▸ ", style="dim")
            line.append(name, style="bold")
            if self.expanded:
                parts.append(line)
                parts.append(Text(clean(_clip(args, 200)[0]), style="dim"))
            else:
                line.append("  " + _one_line(clean(args)), style="dim")
                parts.append(line)
        return parts

    def render(self) -> RenderableType:
        m = self.message
        parts: list[RenderableType] = []
        if m.role == "user":
            parts.append(self._header("● You", f"bold {USER_STYLE}"))
            parts += self._body(m.content or "", markdown=False)
        elif m.role == "assistant":
            parts.append(self._header("◆ Hermes", f"bold {ASSISTANT_STYLE}"))
            if m.reasoning:
                if self.expanded:
                    parts.append(Text(clean(m.reasoning), style="dim italic"))
                else:
                    parts.append(Text(f"  ▸ reasoning ({len(m.reasoning):,} chars)", style="dim"))
            parts += self._body(m.content or "", markdown=True)
            parts += self._tool_calls()
        elif m.role == "tool":
            name = clean(m.tool_name or "tool", keep_newlines=False)
            body = clean(m.content or "")
            lines = body.count("\n") + 1 if body else 0
            head = Text("  ↳ ", style="dim")
            head.append(name, style="bold dim")
            if self.expanded:
                parts.append(head)
                shown, hidden = _clip(body, EXPANDED_LINES)
                parts.append(Text(shown, style="dim"))
                if hidden:
                    parts.append(Text(f"… {hidden:,} more lines not shown", style="dim italic"))
            else:
                head.append(
                    f"  {_one_line(body, 80)}  ({lines:,} line{'s' * (lines != 1)})", style="dim"
                )
                parts.append(head)
        else:
            head = Text(f"  ⚙ {m.role} ({len(m.content or ''):,} chars)", style="dim")
            parts.append(head)
            if self.expanded:
                parts.append(Text(clean(m.content or ""), style="dim"))
        return Group(*parts)
