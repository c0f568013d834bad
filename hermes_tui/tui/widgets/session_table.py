"""The conversation list: a line-API DataTable of text cells, fed page by page."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePath

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.widgets import DataTable

from ...store import SessionRow
from .. import render

NEAR_END = 20


@dataclass(frozen=True)
class Column:
    key: str
    label: str
    width: int


class SessionTable(DataTable[Text]):
    """One row per conversation (keyed by its root id); never one widget per row."""

    BINDINGS = [
        Binding(
            "enter", "select_cursor", "Open", id="browser.open", tooltip="Resume this conversation"
        ),
    ]

    def __init__(self, now: Callable[[], float], **kwargs: object) -> None:
        super().__init__(cursor_type="row", zebra_stripes=False, **kwargs)  # type: ignore[arg-type]
        self.now = now
        self.sessions: list[SessionRow] = []
        self._width = 0
        # Cells that repeat (marks, source, age, count, workspace, model) share one Text:
        # a table of 25,000 rows then holds ~25,000 Text objects instead of ~175,000.
        self._shared: dict[tuple[str, str], Text] = {}

    # -- layout ------------------------------------------------------------------

    def columns_for(self, width: int) -> list[Column]:
        """Columns that fit *width* cells; the title takes what the others leave.

        Each column costs its width plus 2 cells of padding; 2 more go to the scrollbar."""
        width -= 2
        extra = [
            Column("source", "Source", 9),
            Column("active", "Active", 10),
            Column("msgs", "Msgs", 5),
            Column("workspace", "Workspace", 14),
            Column("model", "Model", 18),
        ]
        fixed = [Column("marks", "", 3)]
        while extra:
            used = sum(c.width + 2 for c in fixed + extra)
            if width - used >= 28:
                break
            extra.pop()  # drop from the right: model, then workspace, ...
        used = sum(c.width + 2 for c in fixed + extra)
        title = Column("title", "Title / preview", max(16, width - used - 3))
        return [fixed[0], title, *extra]

    def on_resize(self, event: events.Resize) -> None:
        if event.size.width != self._width:
            self.rebuild(event.size.width)

    def rebuild(self, width: int | None = None) -> None:
        width = width or self.size.width or self.app.size.width
        self._width = width
        index = self.cursor_row
        self.clear(columns=True)
        for column in self.columns_for(width):
            self.add_column(Text(column.label, style="bold"), width=column.width, key=column.key)
        self._add(self.sessions)
        if self.sessions:
            self.move_cursor(row=min(index, len(self.sessions) - 1), animate=False)

    # -- cells -------------------------------------------------------------------

    def _shared_cell(self, column: str, value: str, make: Callable[[], Text]) -> Text:
        key = (column, value)
        cell = self._shared.get(key)
        if cell is None:
            cell = self._shared[key] = make()
        return cell

    def _cells(self, row: SessionRow) -> list[Text]:
        keys = [str(c.key.value) for c in self.columns.values()]
        title = row.title or row.preview or row.id
        title_style = "" if row.title else "italic"
        marks = f"{row.pinned:d}{row.archived:d}{row.is_open:d}"
        active = render.when(row.last_active, self.now())
        workspace = PurePath(row.workspace).name if row.workspace else ""
        model = (row.model or "").rsplit("/", 1)[-1]
        count = str(row.message_count)
        shared = self._shared_cell
        values = {
            "marks": shared(
                "marks", marks, lambda: render.marks(row.pinned, row.archived, row.is_open)
            ),
            "title": render.cell(title, title_style),
            "source": shared("source", row.source, lambda: render.cell(row.source, "dim")),
            "active": shared("active", active, lambda: render.cell(active)),
            "msgs": shared("msgs", count, lambda: Text(count, justify="right", no_wrap=True)),
            "workspace": shared("workspace", workspace, lambda: render.cell(workspace, "dim")),
            "model": shared("model", model, lambda: render.cell(model, "dim")),
        }
        return [values[k] for k in keys]

    # -- rows --------------------------------------------------------------------

    def set_rows(self, rows: Sequence[SessionRow]) -> None:
        """Replace everything (a new filter or scope); the cursor goes to the top."""
        self.sessions = list(rows)
        self.clear()
        self._add(self.sessions)
        if self.sessions:
            self.move_cursor(row=0, animate=False)

    def append_rows(self, rows: Iterable[SessionRow]) -> None:
        known = {r.root_id for r in self.sessions}
        fresh = [r for r in rows if r.root_id not in known]
        self.sessions.extend(fresh)
        self._add(fresh)

    def _add(self, rows: Iterable[SessionRow]) -> None:
        for row in rows:
            self.add_row(*self._cells(row), key=row.root_id)

    def replace_row(self, row: SessionRow) -> None:
        """Update one conversation's cells in place (after rename, pin, ...)."""
        for index, old in enumerate(self.sessions):
            if old.root_id == row.root_id:
                self.sessions[index] = row
                for column, value in zip(self.columns, self._cells(row), strict=True):
                    self.update_cell(row.root_id, column, value)
                return

    def remove_root(self, root_id: str) -> None:
        """Drop a row; the cursor stays on the same index (the next row moves up)."""
        index = self.cursor_row
        self.sessions = [r for r in self.sessions if r.root_id != root_id]
        if root_id in self.rows:
            self.remove_row(root_id)
        if self.sessions:
            self.move_cursor(row=min(index, len(self.sessions) - 1), animate=False)

    @property
    def current(self) -> SessionRow | None:
        if not self.sessions or not 0 <= self.cursor_row < len(self.sessions):
            return None
        return self.sessions[self.cursor_row]

    @property
    def near_end(self) -> bool:
        """The cursor is within a screenful of the last loaded row."""
        return bool(self.sessions) and self.cursor_row >= len(self.sessions) - NEAR_END
