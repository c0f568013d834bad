"""The session browser: the home of the app.

State lives here (the list query, the loaded rows, the next-page cursor, the total); every
store call runs in a thread worker and comes back as a message. Actions on the selected
conversation live in :mod:`.browser_actions`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Container, Horizontal
from textual.message import Message
from textual.timer import Timer
from textual.widgets import DataTable, Footer, Input, Static
from textual.worker import get_current_worker

from ...paths import workspace_key
from ...store import (
    Cancelled,
    ListQuery,
    Page,
    SessionRow,
    StoreError,
    count_sessions,
    get_session,
    list_sessions,
)
from ...store.recap import RecapLimits, load_recap
from ..widgets.session_preview import PreviewData, SessionPreview
from ..widgets.session_table import SessionTable
from .browser_actions import BrowserActions
from .browser_keys import BROWSER_BINDINGS

PAGE = 100
SOURCES = ("cli", "tui", "telegram", "discord", "slack", "whatsapp", "cron")
ARCHIVED_LABELS = {"hide": "no archived", "include": "with archived", "only": "archived only"}


@dataclass
class PageLoaded(Message):
    generation: int
    page: Page[SessionRow]
    append: bool


@dataclass
class TotalCounted(Message):
    generation: int
    total: int


@dataclass
class PreviewLoaded(Message):
    root_id: str
    data: PreviewData | None
    error: str = ""


class BrowserScreen(BrowserActions):
    BINDINGS = BROWSER_BINDINGS

    def __init__(self, workspace: str | None = None) -> None:
        super().__init__()
        self.here = workspace
        self.query_state = ListQuery(
            sort="last_active", workspace=workspace, pinned_first=True, exclude_sources=("tool",)
        )
        self.generation = 0
        self.next_cursor: tuple[Any, ...] | None = None
        self.total: int | None = None
        self.loading = False
        self._filter_timer: Timer | None = None
        self._preview_timer: Timer | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="browser-banner")
        with Horizontal(id="browser-bar"):
            yield Input(placeholder="filter: title, preview or id  (f)", id="browser-filter")
            yield Static(id="browser-scope")
        with Container(id="browser-body"):
            yield SessionTable(self.hermes.now, id="browser-table")
            yield SessionPreview(id="browser-preview")
        yield Static(id="browser-status")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#browser-banner").display = False
        self.query_one(SessionTable).loading = True
        self.query_one(SessionTable).focus()
        self._apply_width(self.app.size.width)
        self.reload()

    def on_resize(self) -> None:
        self._apply_width(self.size.width)

    def _apply_width(self, width: int) -> None:
        self.query_one("#browser-body").set_class(width >= 120, "-wide")

    # -- loading -------------------------------------------------------------------

    def reload(self) -> None:
        """Start over with the current query (new generation: late results are dropped)."""
        self.generation += 1
        self.next_cursor = None
        self.total = None
        self.loading = True
        self.query_one(SessionTable).loading = True
        self._update_status()
        self.load_page(self.generation, self.query_state, None, append=False)
        self.count_total(self.generation, self.query_state)

    @work(thread=True, exclusive=True, group="browser-page", exit_on_error=False)
    def load_page(
        self, generation: int, query: ListQuery, cursor: tuple[Any, ...] | None, append: bool
    ) -> None:
        worker = get_current_worker()
        try:
            store = self.hermes.store()
            page = list_sessions(
                store, query, cursor=cursor, limit=PAGE, cancelled=lambda: worker.is_cancelled
            )
        except Cancelled:
            return
        except StoreError as error:
            self.hermes.report_store_error(error)
            return
        if not worker.is_cancelled:
            self.post_message(PageLoaded(generation, page, append))

    @work(thread=True, exclusive=True, group="browser-count", exit_on_error=False)
    def count_total(self, generation: int, query: ListQuery) -> None:
        worker = get_current_worker()
        try:
            total = count_sessions(
                self.hermes.store(), query, cancelled=lambda: worker.is_cancelled
            )
        except (Cancelled, StoreError):
            return
        if not worker.is_cancelled:
            self.post_message(TotalCounted(generation, total))

    def on_page_loaded(self, message: PageLoaded) -> None:
        if message.generation != self.generation:
            return
        table = self.query_one(SessionTable)
        if message.append:
            table.append_rows(message.page.items)
        else:
            table.set_rows(message.page.items)
            self._show_read_only_banner()
        table.loading = False
        if not isinstance(self.focused, Input):
            table.focus()
        self.loading = False
        self.next_cursor = message.page.next_cursor
        self._update_status()
        if not table.sessions:
            self.query_one(SessionPreview).show_message(self._empty_text())
        elif not message.append:
            self._schedule_preview()

    def on_total_counted(self, message: TotalCounted) -> None:
        if message.generation == self.generation:
            self.total = message.total
            self._update_status()

    def _more(self) -> None:
        if self.next_cursor is not None and not self.loading:
            self.loading = True
            self.load_page(self.generation, self.query_state, self.next_cursor, append=True)
            self._update_status()

    # -- status --------------------------------------------------------------------

    def _empty_text(self) -> str:
        q = self.query_state
        if q.text or q.source or q.workspace or q.archived == "only":
            return "No conversation matches these filters (Esc in the filter clears it, w/s widen)."
        return "No conversations yet. Start one with `hermes` in a project, or try `hermes demo`."

    def _scope_text(self) -> Text:
        q = self.query_state
        parts = [
            "this workspace" if q.workspace else "all workspaces",
            q.source or "all sources",
            ARCHIVED_LABELS[q.archived],
            "by activity" if q.sort == "last_active" else "by start",
        ]
        if q.pinned_first:
            parts.append("pinned first")
        return Text(" · ".join(parts), style="dim", no_wrap=True, overflow="ellipsis")

    def _update_status(self) -> None:
        table = self.query_one(SessionTable)
        shown = len(table.sessions)
        if self.loading and not shown:
            status = "loading conversations…"
        else:
            if self.total is not None:
                total = f"{self.total:,}"
            else:
                total = f">{shown:,}" if self.next_cursor else f"{shown:,}"
            status = f"{shown:,} of {total} conversations"
            if self.loading:
                status += " · loading more…"
        self.query_one("#browser-status", Static).update(Text(status))
        self.query_one("#browser-scope", Static).update(self._scope_text())

    def _show_read_only_banner(self) -> None:
        banner = self.query_one("#browser-banner", Static)
        store = self.hermes._store
        reason = store.capabilities.read_only_reason if store else None
        banner.display = bool(reason)
        if reason:
            banner.update(Text(f"Read-only: {store.path} — {reason}"))  # type: ignore[union-attr]

    # -- selection and preview -----------------------------------------------------

    @on(DataTable.RowSelected, "#browser-table")
    def _row_selected(self) -> None:
        self.action_open()

    @on(DataTable.RowHighlighted, "#browser-table")
    def _row_highlighted(self) -> None:
        if self.query_one(SessionTable).near_end:
            self._more()
        self._schedule_preview()

    def _schedule_preview(self) -> None:
        if self._preview_timer is not None:
            self._preview_timer.stop()
        self._preview_timer = self.set_timer(0.08, self._start_preview)

    def _start_preview(self) -> None:
        row = self.query_one(SessionTable).current
        if row is not None:
            self.load_preview(row)

    @work(thread=True, exclusive=True, group="browser-preview", exit_on_error=False)
    def load_preview(self, row: SessionRow) -> None:
        display = self.hermes.config.display
        limits = RecapLimits(
            display.resume_exchanges,
            display.resume_max_user_chars,
            display.resume_max_assistant_chars,
            display.resume_max_assistant_lines,
            display.resume_skip_tool_only,
        )
        try:
            store = self.hermes.store()
            data = PreviewData(row, get_session(store, row.id), load_recap(store, row.id, limits))
        except StoreError as error:
            self.post_message(PreviewLoaded(row.root_id, None, error.one_line()))
            return
        if not get_current_worker().is_cancelled:
            self.post_message(PreviewLoaded(row.root_id, data))

    def on_preview_loaded(self, message: PreviewLoaded) -> None:
        current = self.query_one(SessionTable).current
        if current is None or current.root_id != message.root_id:
            return
        preview = self.query_one(SessionPreview)
        if message.data is None:
            preview.show_message(message.error)
        else:
            minimal = self.hermes.config.display.resume_display == "minimal"
            preview.show(message.data, self.hermes.now(), minimal)

    # -- filter and scopes ---------------------------------------------------------

    def action_filter(self) -> None:
        self.query_one("#browser-filter", Input).focus()

    @on(Input.Changed, "#browser-filter")
    def _filter_changed(self) -> None:
        if self._filter_timer is not None:
            self._filter_timer.stop()
        self._filter_timer = self.set_timer(0.25, self._apply_filter)

    def _apply_filter(self) -> None:
        text = self.query_one("#browser-filter", Input).value.strip() or None
        if text != self.query_state.text:
            self._set_query(text=text)

    @on(Input.Submitted, "#browser-filter")
    def _filter_done(self) -> None:
        self._apply_filter()
        self.query_one(SessionTable).focus()

    def key_escape(self) -> None:
        field = self.query_one("#browser-filter", Input)
        if field.has_focus and field.value:
            field.value = ""
        elif field.has_focus:
            self.query_one(SessionTable).focus()
        elif field.value:
            field.value = ""

    def key_down(self) -> None:
        if self.query_one("#browser-filter", Input).has_focus:
            self.query_one(SessionTable).focus()

    def _set_query(self, **changes: Any) -> None:
        self.query_state = dataclasses.replace(self.query_state, **changes)
        self.reload()

    def action_toggle_workspace(self) -> None:
        here = self.here or workspace_key(Path.cwd())
        self._set_query(workspace=None if self.query_state.workspace else here)

    def action_cycle_source(self) -> None:
        order = (None, *SOURCES)
        current = self.query_state.source
        index = order.index(current) if current in order else 0
        self._set_query(source=order[(index + 1) % len(order)])

    def action_cycle_archived(self) -> None:
        order = ("hide", "include", "only")
        self._set_query(archived=order[(order.index(self.query_state.archived) + 1) % 3])

    def action_toggle_sort(self) -> None:
        sort = "started" if self.query_state.sort == "last_active" else "last_active"
        self._set_query(sort=sort)

    def action_toggle_pinned_first(self) -> None:
        self._set_query(pinned_first=not self.query_state.pinned_first)

    def action_reload(self) -> None:
        self.reload()
