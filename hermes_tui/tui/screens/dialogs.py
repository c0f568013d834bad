"""Small modal dialogs: confirm, rename (with the title rules' errors inline), pick one."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from ...store import StoreError, TitleError
from ..render import plain


class ConfirmDialog(ModalScreen[bool]):
    """Yes/no; the safe answer has the focus, Esc always means no."""

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="dialog.cancel"),
        Binding("y", "confirm", "Yes", show=False, id="dialog.yes"),
        Binding("n", "cancel", "No", show=False, id="dialog.no"),
    ]

    def __init__(self, title: str, body: Content, confirm: str = "Delete") -> None:
        super().__init__()
        self.title_text = title
        self.body = body
        self.confirm_label = confirm

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog-box", classes="-danger"):
            yield Static(Content(self.title_text), id="dialog-title")
            yield Static(self.body, id="dialog-body")
            with Horizontal(id="dialog-buttons"):
                yield Button("Cancel", id="dialog-cancel")
                yield Button(self.confirm_label, variant="error", id="dialog-confirm")

    def on_mount(self) -> None:
        self.query_one("#dialog-cancel", Button).focus()

    @on(Button.Pressed, "#dialog-confirm")
    def action_confirm(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#dialog-cancel")
    def action_cancel(self) -> None:
        self.dismiss(False)


class RenameDialog(ModalScreen[str | None]):
    """Edit a title. *submit* stores it (in a thread worker) and returns what was stored;
    a refused title keeps the dialog open with the reason under the field."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="dialog.cancel")]

    def __init__(self, current: str | None, submit: Callable[[str], str | None]) -> None:
        super().__init__()
        self.current = current or ""
        self.submit = submit

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog-box"):
            yield Static(Content("Rename conversation"), id="dialog-title")
            yield Input(value=self.current, placeholder="empty clears the title", id="rename-input")
            yield Static(
                Content("Enter saves · Esc cancels · at most 100 characters, unique"),
                id="rename-error",
            )

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        self.query_one("#rename-error", Static).update(Content("saving…"))
        self._save(event.value)

    @work(thread=True, exclusive=True, group="rename", exit_on_error=False)
    def _save(self, value: str) -> None:
        try:
            stored = self.submit(value)
        except (TitleError, StoreError, LookupError) as error:
            text = error.one_line() if isinstance(error, StoreError) else str(error)
            self.app.call_from_thread(self._refused, text)
            return
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self.dismiss, stored if stored is not None else "")

    def _refused(self, reason: str) -> None:
        error = self.query_one("#rename-error", Static)
        error.update(plain(reason, one_line=True))
        error.add_class("-error")

    def action_cancel(self) -> None:
        self.dismiss(None)


class PickDialog(ModalScreen[str | None]):
    """Choose one value from a short list (e.g. a source)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="dialog.cancel")]

    def __init__(self, title: str, choices: Sequence[tuple[str, str]]) -> None:
        super().__init__()
        self.title_text = title
        self.choices = choices  # (value, label)

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog-box"):
            yield Static(Content(self.title_text), id="dialog-title")
            yield OptionList(
                *[Option(plain(label, one_line=True), id=value) for value, label in self.choices],
                id="pick-list",
            )

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
