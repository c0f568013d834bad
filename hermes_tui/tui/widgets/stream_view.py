"""The reply being streamed: text as it arrives, tool calls as they run, and what went
wrong if the turn failed. Replaced by the stored messages when the turn ends."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from ...sanitize import clean
from ..render import ASSISTANT_STYLE


class StreamView(Widget):
    """One growing assistant reply (plain text while streaming; Markdown comes after)."""

    version: reactive[int] = reactive(0, layout=True)

    def __init__(self) -> None:
        super().__init__(classes="chat-item -pending -assistant")
        self.text = ""
        self.reasoning = 0
        self.tools: list[Text] = []
        self.status = "thinking…"
        self.error: Text | None = None

    def add_text(self, text: str) -> None:
        self.text += text
        self.status = ""
        self.version += 1

    def add_reasoning(self, text: str) -> None:
        self.reasoning += len(text)
        self.version += 1

    def tool_started(self, name: str, arguments: str) -> None:
        line = Text("  ▸ ", style="dim")
        line.append(clean(name, keep_newlines=False), style="bold")
        flat = " ".join(clean(arguments).split())
        line.append(f"  {flat[:80]}{'…' if len(flat) > 80 else ''}  running…", style="dim")
        self.tools.append(line)
        self.version += 1

    def tool_finished(self, name: str, ok: bool) -> None:
        for index in range(len(self.tools) - 1, -1, -1):
            line = self.tools[index]
            if line.plain.endswith("running…"):
                done = line[: len(line.plain) - len("running…")]
                done.append("done" if ok else "failed", style="green" if ok else "red")
                self.tools[index] = done
                break
        self.version += 1

    def set_status(self, status: str) -> None:
        self.status = status
        self.version += 1

    def fail(self, message: str, hint: str = "") -> None:
        text = Text(clean(message), style="bold red")
        if hint:
            text.append("\n" + clean(hint), style="red")
        self.error = text
        self.status = ""
        self.version += 1

    def render(self) -> RenderableType:
        head = Text("◆ Hermes", style=f"bold {ASSISTANT_STYLE}")
        if self.status:
            head.append(f"  {self.status}", style="dim italic")
        parts: list[RenderableType] = [head]
        if self.reasoning:
            parts.append(Text(f"  ▸ reasoning ({self.reasoning:,} chars)", style="dim"))
        parts += self.tools
        if self.text:
            parts.append(Text(clean(self.text)))
        if self.error is not None:
            parts.append(self.error)
        return Group(*parts)
