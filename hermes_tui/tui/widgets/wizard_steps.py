"""The steps of the prune/archive wizard. Each draws its part and posts what the user
chose; the wizard screen owns the state, runs the store calls and moves between steps."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Checkbox, DataTable, Input, Label, RadioButton, RadioSet, Static

from ...sanitize import clean
from ...store.prune import Match, Preview
from ...timefmt import local_minutes
from .. import render

PRESETS = (
    ("7d", "older than 7 days"),
    ("30d", "older than 30 days"),
    ("90d", "older than 90 days"),
    ("", "custom"),
)
TEXT_FIELDS = (
    ("older_than", "Older than", "e.g. 30d, 2w, 12h, 0.5, 2026-07-05"),
    ("source", "Source", "cli, telegram, cron, …"),
    ("title", "Title contains", "substring, any case"),
    ("model", "Model contains", "e.g. gpt, claude"),
    ("cwd", "Workspace (path)", "a folder: itself and everything under it"),
    ("min_messages", "At least N messages", "whole number"),
    ("max_messages", "At most N messages", "whole number"),
)


class ActionStep(Vertical):
    def compose(self) -> ComposeResult:
        yield Static(Text("What should happen to the conversations you choose?", style="bold"))
        with RadioSet(id="wizard-action"):
            yield RadioButton(
                "Prune — delete them (saved to the trash first; undo with "
                "`hermes sessions restore`)",
                value=True,
                id="action-prune",
            )
            yield RadioButton(
                "Archive — hide them from lists (reversible; nothing deleted)", id="action-archive"
            )
        yield Static(
            Text(
                "Only ended conversations are ever touched. n: next · Esc: leave",
                style="dim",
            )
        )

    @property
    def action(self) -> str:
        return "archive" if self.query_one("#action-archive", RadioButton).value else "prune"


class FilterStep(VerticalScroll):
    @dataclass
    class Changed(Message):
        values: dict[str, Any]

    def compose(self) -> ComposeResult:
        yield Static(Text("Which conversations? (all conditions must hold)", style="bold"))
        yield Static(id="wizard-count")
        with RadioSet(id="wizard-preset"):
            for value, label in PRESETS:
                yield RadioButton(label, value=value == "90d", name=value)
        for name, label, hint in TEXT_FIELDS:
            with Horizontal(classes="wizard-field"):
                yield Label(label, classes="wizard-label")
                yield Input(placeholder=hint, id=f"field-{name}", classes="wizard-input")
        with Horizontal(classes="wizard-field"):
            yield Checkbox("include pinned", id="field-include_pinned")
            yield Checkbox("include archived", id="field-include_archived")
        yield Static(
            Text(
                "Enter or PgDn: see the matches (nothing changes yet) · PgUp: back · Esc: leave",
                style="dim",
            )
        )

    def on_mount(self) -> None:
        self.query_one("#field-older_than", Input).value = "90d"

    @on(RadioSet.Changed, "#wizard-preset")
    def _preset(self, event: RadioSet.Changed) -> None:
        preset = event.pressed.name or ""
        field = self.query_one("#field-older_than", Input)
        if preset:
            field.value = preset
        else:
            field.focus()

    @on(Input.Changed)
    @on(Checkbox.Changed)
    def _edited(self) -> None:
        self.post_message(self.Changed(self.values()))

    def values(self) -> dict[str, Any]:
        values: dict[str, Any] = {
            name: self.query_one(f"#field-{name}", Input).value for name, _, _ in TEXT_FIELDS
        }
        for flag in ("include_pinned", "include_archived"):
            values[flag] = self.query_one(f"#field-{flag}", Checkbox).value
        return values

    def show_count(self, text: str, *, error: bool = False) -> None:
        count = self.query_one("#wizard-count", Static)
        count.update(Text(clean(text), style="bold red" if error else "bold"))


class PreviewStep(Vertical):
    """Count, oldest, newest, the matches (space unticks one), and what is spared and why."""

    def compose(self) -> ComposeResult:
        yield Static(id="wizard-summary")
        table: DataTable[Text] = DataTable(cursor_type="row", id="wizard-matches")
        yield table
        yield Static(id="wizard-spared")

    def on_mount(self) -> None:
        table = self.query_one("#wizard-matches", DataTable)
        for label, width in (
            ("", 3),
            ("Title", 36),
            ("Source", 9),
            ("Last active", 16),
            ("Msgs", 6),
            ("Model", 18),
        ):
            table.add_column(Text(label, style="bold"), width=width, key=label or "tick")

    def show(self, preview: Preview, unticked: set[str]) -> None:
        self.summarize(preview, unticked)
        table = self.query_one("#wizard-matches", DataTable)
        table.clear()
        for match in preview.matches:
            table.add_row(*self._cells(match, match.id not in unticked), key=match.id)
        self.query_one("#wizard-spared", Static).update(_spared_text(preview))

    def summarize(self, preview: Preview, unticked: set[str]) -> None:
        oldest = local_minutes(preview.oldest) if preview.oldest else "—"
        newest = local_minutes(preview.newest) if preview.newest else "—"
        verb = "deleted" if preview.action == "prune" else "archived"
        summary = Text()
        summary.append(
            f"{preview.count - len(unticked):,} of {preview.count:,} conversations ", style="bold"
        )
        summary.append(
            f"would be {verb} ({preview.description()}); oldest {oldest}, newest {newest}"
        )
        summary.append("\nSpace unticks a row · n: next · b: back · Esc: leave", style="dim")
        self.query_one("#wizard-summary", Static).update(summary)

    def _cells(self, match: Match, ticked: bool) -> list[Text]:
        return [
            Text("☑" if ticked else "☐", style="bold" if ticked else "dim"),
            render.cell(match.title or match.tip_id),
            render.cell(match.source, "dim"),
            render.cell(local_minutes(match.last_active)),
            Text(f"{match.messages:,}", justify="right"),
            render.cell((match.model or "").rsplit("/", 1)[-1], "dim"),
        ]

    def tick(self, match: Match, ticked: bool) -> None:
        table = self.query_one("#wizard-matches", DataTable)
        table.update_cell(match.id, "tick", Text("☑" if ticked else "☐"))

    @property
    def current(self) -> str | None:
        table = self.query_one("#wizard-matches", DataTable)
        if not table.row_count:
            return None
        return str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)


def _spared_text(preview: Preview) -> Text:
    counts = preview.spared_counts()
    text = Text()
    if not any(counts.values()):
        text.append("Nothing is spared.", style="dim")
        return text
    reasons = {
        "open": "still open (a running Hermes may use them)",
        "pinned": "pinned (tick “include pinned” to include them)",
        "archived": "archived (tick “include archived” to include them)",
    }
    text.append("Spared, and why:\n", style="bold")
    for reason, count in counts.items():
        if count:
            text.append(f"  {count:,} {reasons[reason]}\n")
    for spared in preview.spared[:8]:
        title = clean(spared.match.title or spared.match.tip_id, keep_newlines=False)
        text.append(f"    {spared.reason:<8} {title[:60]}\n", style="dim")
    if len(preview.spared) > 8:
        text.append(f"    … and {len(preview.spared) - 8:,} more\n", style="dim")
    return text


class ConfirmStep(Vertical):
    """Type the number of conversations to confirm; then progress, then the result."""

    def compose(self) -> ComposeResult:
        yield Static(id="wizard-confirm-text")
        yield Input(placeholder="type the number shown above, then Enter", id="wizard-typed")
        yield Static(id="wizard-progress")

    def ask(self, action: str, count: int, messages: int) -> None:
        verb = "Delete" if action == "prune" else "Archive"
        text = Text()
        text.append(f"{verb} {count:,} conversation{'s' * (count != 1)}?\n", style="bold")
        if action == "prune":
            text.append(
                f"{messages:,} messages will be saved to the trash, then deleted in one "
                "transaction; Hermes processes writing meanwhile wait until it is done"
                f" (about {max(1, messages // 6000):,} s).\n"
            )
        text.append(f"Type {count} and press Enter to confirm · PgUp: back · Esc: leave")
        self.query_one("#wizard-confirm-text", Static).update(text)
        self.query_one("#wizard-typed", Input).value = ""

    def progress(self, lines: Sequence[str]) -> None:
        self.query_one("#wizard-progress", Static).update(Text("\n".join(lines)))
