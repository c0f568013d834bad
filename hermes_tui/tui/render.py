"""The only place stored text becomes something Textual draws.

Every title, message, snippet, path and error text from the store is untrusted: it is
cleaned (escape sequences, C0/C1 controls, bidi overrides removed) and wrapped in
``Content``/``Text`` — never passed as a markup string — so ``[/plan — plan mode]`` or
``[@click=app.quit]`` show literally and can neither crash the app nor trigger actions.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text
from textual.content import Content

from ..sanitize import clean
from ..store.recap import Recap
from ..timefmt import local_minutes, relative_time

USER_STYLE = "#DAA520"  # Hermes' gold for the user
ASSISTANT_STYLE = "#4caf50"  # Hermes' green for the assistant
BORDER_STYLE = "#8B8682"
MARKS = {"pinned": "★", "archived": "▣", "open": "●"}


def plain(text: str | None, *, one_line: bool = False) -> Content:
    """Stored text as literal Content (never parsed as markup)."""
    return Content(clean(text, keep_newlines=not one_line))


def cell(text: str | None, style: str = "", *, one_line: bool = True) -> Text:
    """A DataTable cell: literal text, cleaned, one line by default."""
    return Text(clean(text, keep_newlines=not one_line), style=style, no_wrap=one_line)


def styled(template: str, **values: str) -> Content:
    """Our own markup with stored values substituted as literal text (``$name``)."""
    return Content.from_markup(template, **{k: clean(v) for k, v in values.items()})


def when(ts: float | None, now: float) -> str:
    return relative_time(ts, now)


def stamp(ts: float | None) -> str:
    return local_minutes(ts)


def marks(pinned: bool, archived: bool, is_open: bool) -> Text:
    text = Text(no_wrap=True)
    text.append(MARKS["pinned"] if pinned else " ", style="bold yellow")
    text.append(MARKS["archived"] if archived else " ", style="dim")
    text.append(MARKS["open"] if is_open else " ", style="green")
    return text


def _entry(grid: Table, label: str, body: str, label_style: str, body_style: str) -> None:
    """One recap row; wrapped lines hang under the text, not under the label."""
    grid.add_row(Text(f"  {label}", style=label_style, no_wrap=True), Text(body, style=body_style))


def recap_renderable(recap: Recap, *, minimal: bool = False, title: str = "") -> RenderableType:
    """The "Previous Conversation" panel: gold ● You, green ◆ Hermes, dimmed but the last reply."""
    if minimal or not recap.entries:
        line = Text(f"↻ {recap.user_messages} user message", style="dim")
        line.append("s" if recap.user_messages != 1 else "")
        line.append(f", {recap.total_messages} total messages")
        if title:
            line.append(f" — {clean(title, keep_newlines=False)}")
        return line
    parts: list[RenderableType] = []
    if recap.earlier:
        parts.append(Text(f"  ... {recap.earlier} earlier messages ...", style="dim italic"))
        parts.append(Text(""))
    grid = Table.grid(padding=(0, 0))
    grid.add_column(no_wrap=True)
    grid.add_column(ratio=1, overflow="fold")  # CJK has no spaces to wrap at
    for entry in recap.entries:
        body = clean(entry.text)
        if entry.role == "user":
            _entry(grid, "● You: ", body, f"dim bold {USER_STYLE}", "dim")
        elif entry.full:
            _entry(grid, "◆ Hermes: ", body, f"bold {ASSISTANT_STYLE}", "")
        else:
            _entry(grid, "◆ Hermes: ", body, f"dim bold {ASSISTANT_STYLE}", "dim")
    parts.append(grid)
    return Panel(
        Group(*parts),
        title=Text("Previous Conversation", style=f"dim {USER_STYLE}"),
        border_style=f"dim {BORDER_STYLE}",
        padding=(0, 1),
    )


def key_value_lines(pairs: Iterable[tuple[str, str | None]]) -> Text:
    """Aligned ``label  value`` lines for metadata panes (values are stored text)."""
    text = Text()
    rows = [(k, v) for k, v in pairs if v]
    width = max((len(k) for k, _ in rows), default=0)
    for index, (key, value) in enumerate(rows):
        if index:
            text.append("\n")
        text.append(f"{key:<{width}}  ", style="dim")
        text.append(clean(value, keep_newlines=False))
    return text
