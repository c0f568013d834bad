"""`?`: every key of the screen you came from, with what it does."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static


class HelpScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape", "close", "Close", id="help.close"),
        Binding("question_mark", "close", "Close", show=False, id="help.close_q"),
        Binding("q", "close", "Close", show=False, id="help.close_quit"),
    ]

    def __init__(self, screen: Screen) -> None:
        super().__init__()
        self.target = screen

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box"):
            yield Static(self._table(), id="help-keys")

    def _table(self) -> Table:
        """This screen's keys first, then the app's, then the focused widget's."""
        table = Table(title="Keys", box=None, show_header=False, pad_edge=False, expand=True)
        table.add_column("key", style="bold", no_wrap=True)
        table.add_column("does")
        groups: dict[str, list[tuple[str, Text]]] = {"screen": [], "app": [], "widget": []}
        seen: set[str] = set()
        for key, active in self.target.active_bindings.items():
            binding = active.binding
            label = binding.description or binding.action
            if label in seen:
                continue
            seen.add(label)
            group = "screen" if active.node is self.target else "app"
            if active.node is not self.target and active.node is not self.app:
                group = "widget"
            text = Text(label)
            if binding.tooltip:
                text.append(f" — {binding.tooltip}", style="dim")
            groups[group].append((self.app.get_key_display(binding) or key, text))
        headings = {"screen": "This screen", "app": "Everywhere", "widget": "Moving around"}
        for group, rows in groups.items():
            if not rows:
                continue
            table.add_row(Text(headings[group], style="bold underline"), "")
            for key, text in rows:
                table.add_row(key, text)
            if group == "app":
                table.add_row("ctrl+p", Text("Command palette — every action by name"))
            table.add_row("", "")
        return table

    def action_close(self) -> None:
        self.dismiss()
