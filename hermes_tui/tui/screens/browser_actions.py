"""What the browser does to the selected conversation: open, rename, pin, archive, delete,
copy the resume command, pick a source. Each store call runs in a thread worker; the row is
then refreshed in place (or removed), and the cursor keeps its index. A failed action leaves
the row as it was and says why."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual import work
from textual.content import Content
from textual.message import Message
from textual.screen import Screen

from ...sanitize import clean
from ...store import (
    ListQuery,
    SessionIsOpen,
    SessionNotFound,
    SessionRow,
    StoreError,
    TitleError,
    delete_conversation,
    get_row,
    rename_session,
    set_archived,
    set_pinned,
    store_stats,
)
from ..messages import OpenSession
from ..widgets.session_table import SessionTable
from .dialogs import ConfirmDialog, PickDialog, RenameDialog

if TYPE_CHECKING:
    from ..app import HermesApp


@dataclass
class RowChanged(Message):
    row: SessionRow
    note: str = ""


@dataclass
class RowGone(Message):
    root_id: str
    note: str = ""


@dataclass
class ActionFailed(Message):
    text: str


def _label(row: SessionRow) -> str:
    text = clean(row.title or row.preview or row.id, keep_newlines=False)
    return text if len(text) <= 50 else text[:49] + "…"


class BrowserActions(Screen[None]):
    """The browser's actions; BrowserScreen provides the list state and its loading."""

    query_state: ListQuery
    total: int | None

    @property
    def hermes(self) -> HermesApp:
        return self.app  # type: ignore[return-value]

    def _update_status(self) -> None:
        raise NotImplementedError

    def _schedule_preview(self) -> None:
        raise NotImplementedError

    def _set_query(self, **changes: Any) -> None:
        raise NotImplementedError

    def _selected(self) -> SessionRow | None:
        row = self.query_one(SessionTable).current
        if row is None:
            self.notify("No conversation selected.", severity="warning", markup=False)
        return row

    def _visible(self, row: SessionRow) -> bool:
        mode = self.query_state.archived
        return not ((mode == "hide" and row.archived) or (mode == "only" and not row.archived))

    @work(thread=True, exit_on_error=False, group="browser-action")
    def _act(self, root_id: str, action: Callable[[], str], refresh: str) -> None:
        """Run *action* (a store write returning a note), then re-read the row."""
        try:
            note = action()
            row = get_row(self.hermes.store(), refresh)
        except (StoreError, TitleError, SessionIsOpen, SessionNotFound) as error:
            text = error.one_line() if isinstance(error, StoreError) else str(error)
            self.post_message(ActionFailed(text))
            return
        if row is None or not self._visible(row):
            self.post_message(RowGone(root_id, note))
        else:
            self.post_message(RowChanged(row, note))

    def on_row_changed(self, message: RowChanged) -> None:
        self.query_one(SessionTable).replace_row(message.row)
        self._schedule_preview()
        if message.note:
            self.notify(message.note, markup=False)

    def on_row_gone(self, message: RowGone) -> None:
        self.query_one(SessionTable).remove_root(message.root_id)
        if self.total is not None:
            self.total = max(0, self.total - 1)
        self._update_status()
        self._schedule_preview()
        if message.note:  # a delete's note carries the undo command: give time to read it
            self.notify(message.note, markup=False, timeout=12)

    def on_action_failed(self, message: ActionFailed) -> None:
        self.notify(message.text, severity="error", markup=False, timeout=8)

    # -- the actions -----------------------------------------------------------------

    def action_open(self) -> None:
        row = self._selected()
        if row is not None:
            self.post_message(OpenSession(row.id))

    def action_rename(self) -> None:
        row = self._selected()
        if row is None:
            return

        def submit(title: str) -> str | None:
            return rename_session(self.hermes.store(), row.id, title)

        def done(result: str | None) -> None:
            if result is not None:
                note = f"Renamed to: {result}" if result else "Title cleared."
                self._act(row.root_id, lambda: note, row.id)

        self.app.push_screen(RenameDialog(row.title, submit), done)

    def action_toggle_pin(self) -> None:
        row = self._selected()
        if row is None:
            return
        pinned = not row.pinned

        def pin() -> str:
            set_pinned(self.hermes.store(), row.id, pinned)
            return f"{'Pinned' if pinned else 'Unpinned'}: {_label(row)}"

        self._act(row.root_id, pin, row.id)

    def action_toggle_archive(self) -> None:
        row = self._selected()
        if row is None:
            return
        archived = not row.archived

        def archive() -> str:
            set_archived(self.hermes.store(), row.id, archived)
            if archived:
                return f"Archived: {_label(row)} (A shows archived; a again unarchives)"
            return f"Unarchived: {_label(row)}"

        self._act(row.root_id, archive, row.id)

    def action_delete(self) -> None:
        row = self._selected()
        if row is None:
            return
        if row.is_open:
            self.notify(
                f"Not deleted: {_label(row)} is still open (a running Hermes may be using it).",
                severity="error",
                markup=False,
            )
            return
        segments = f" in {row.segments} segments" if row.segments > 1 else ""
        body = Content.assemble(
            (_label(row), "bold"),
            f"\n\n{row.message_count:,} messages{segments}, with any subagent runs, will be "
            "deleted. Branches stay as their own conversations.\n"
            "It goes to the trash first: `hermes sessions restore` brings it back.",
        )

        def done(confirmed: bool | None) -> None:
            if confirmed:

                def delete() -> str:
                    result = delete_conversation(self.hermes.store(), row.id)
                    return (
                        f"Deleted: {_label(row)} ({len(result.deleted)} session(s)). "
                        f"Undo: hermes sessions restore {shlex.quote(str(result.trash))}"
                    )

                self._act(row.root_id, delete, row.id)

        self.app.push_screen(ConfirmDialog("Delete this conversation?", body), done)

    def action_copy_resume(self) -> None:
        row = self._selected()
        if row is None:
            return
        command = f"hermes --resume {row.id}"
        self.app.copy_to_clipboard(command)
        self.notify(f"Copied to the clipboard: {command}", markup=False)

    def action_pick_source(self) -> None:
        self._load_sources()

    @work(thread=True, exit_on_error=False, group="browser-sources")
    def _load_sources(self) -> None:
        try:
            stats = store_stats(self.hermes.store())
        except StoreError as error:
            self.post_message(ActionFailed(error.one_line()))
            return
        choices = [("", "all sources")] + [(s, f"{s}  ({n:,})") for s, n in stats.by_source]
        self.app.call_from_thread(self._show_sources, choices)

    def _show_sources(self, choices: list[tuple[str, str]]) -> None:
        def done(value: str | None) -> None:
            if value is not None:
                self._set_query(source=value or None)

        self.app.push_screen(PickDialog("Show conversations from", choices), done)

    def action_new_chat(self) -> None:
        from .chat import ChatScreen

        self.app.push_screen(ChatScreen(None))

    def action_export(self) -> None:
        from .export_dialog import ExportDialog

        row = self._selected()
        if row is not None:
            self.app.push_screen(ExportDialog([row.id], row.id))

    def action_prune_wizard(self) -> None:
        from .wizard import WizardScreen

        def done(changed: bool | None) -> None:
            if changed:
                self.reload()  # type: ignore[attr-defined]

        self.app.push_screen(WizardScreen(), done)
