"""Export one or more conversations from the TUI: format, destination, redaction; the export
runs in a thread worker with progress and ends with the path(s) and a key to copy them.
The same code (``hermes_tui.store.export``) serves ``hermes sessions export``."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, ProgressBar, RadioButton, RadioSet, Static
from textual.worker import get_current_worker

from ...paths import exports_dir
from ...sanitize import clean
from ...store import StoreError
from ...store.export import ExportError, ExportRequest, export_sessions

if TYPE_CHECKING:
    from ..app import HermesApp

FORMATS = (
    ("md", "Markdown — one file per session, with a verified manifest"),
    ("html", "HTML — one self-contained page (no remote resources)"),
    ("jsonl", "JSONL — every column; `hermes sessions restore` reads it back"),
    ("qmd", "Quarto Markdown"),
    ("trace", "Trace — Claude-Code-style JSONL for the Agent Trace Viewer"),
)
FOLDER_FORMATS = ("md", "qmd")


@dataclass
class Progressed(Message):
    done: int
    total: int

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, Progressed)


@dataclass
class Exported(Message):
    paths: tuple[Path, ...]
    summary: str
    error: str = ""


def default_output(home: Path, fmt: str, label: str) -> Path:
    folder = exports_dir(home)
    if fmt in FOLDER_FORMATS:
        return folder
    suffix = {"html": "html", "jsonl": "jsonl", "trace": "trace.jsonl"}[fmt]
    return folder / f"{label}-{time.strftime('%Y%m%d-%H%M%S')}.{suffix}"


class ExportDialog(ModalScreen[None]):
    BINDINGS = [
        Binding("escape", "close", "Close", id="export.close"),
        Binding("y", "copy_path", "Copy path", show=False, id="export.copy"),
    ]

    def __init__(self, conversations: Sequence[str], label: str) -> None:
        super().__init__()
        self.conversations = tuple(conversations)
        self.label = label
        self.paths: tuple[Path, ...] = ()
        self.running = False

    @property
    def hermes(self) -> HermesApp:
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog-box"):
            yield Static(
                Content(f"Export {len(self.conversations)} conversation(s)"), id="dialog-title"
            )
            with RadioSet(id="export-format"):
                for index, (name, label) in enumerate(FORMATS):
                    yield RadioButton(label, value=index == 0, name=name)
            yield Input(id="export-output", placeholder="destination")
            yield Checkbox(
                "redact secrets (keys, tokens, passwords, phone numbers)", id="export-redact"
            )
            yield ProgressBar(id="export-progress", show_eta=False)
            yield Static(id="export-result")
            with Horizontal(id="dialog-buttons"):
                yield Button("Cancel", id="export-cancel")
                yield Button("Export", variant="primary", id="export-go")

    def on_mount(self) -> None:
        self.query_one("#export-progress").display = False
        self._format_changed()
        self.query_one("#export-go", Button).focus()

    @property
    def format(self) -> str:
        pressed = self.query_one("#export-format", RadioSet).pressed_button
        return (pressed.name if pressed is not None else None) or "md"

    @on(RadioSet.Changed, "#export-format")
    def _format_changed(self) -> None:
        home = self.hermes.store_path.parent
        output = default_output(home, self.format, self.label)
        self.query_one("#export-output", Input).value = str(output)
        self.query_one("#export-redact", Checkbox).value = self.format == "trace"

    @on(Button.Pressed, "#export-cancel")
    def action_close(self) -> None:
        if not self.running:
            self.dismiss()

    @on(Button.Pressed, "#export-go")
    @on(Input.Submitted, "#export-output")
    def _go(self) -> None:
        if self.running:
            return
        raw = self.query_one("#export-output", Input).value.strip()
        if not raw:
            self._result("Choose a destination.", error=True)
            return
        request = ExportRequest(
            format=self.format,  # type: ignore[arg-type]
            conversations=self.conversations,
            output=Path(raw).expanduser(),
            redact=self.query_one("#export-redact", Checkbox).value,
        )
        self.running = True
        self.query_one("#export-go", Button).disabled = True
        self.query_one("#export-progress").display = True
        self._result("exporting…")
        self._export(request)

    @work(thread=True, exclusive=True, group="export", exit_on_error=False)
    def _export(self, request: ExportRequest) -> None:
        worker = get_current_worker()
        try:
            result = export_sessions(
                self.hermes.store(),
                request,
                progress=lambda done, total: self.post_message(Progressed(done, total)),
                cancelled=lambda: worker.is_cancelled,
            )
        except (ExportError, StoreError, LookupError, OSError) as error:
            text = error.one_line() if isinstance(error, StoreError) else str(error)
            self.post_message(Exported((), "", text))
            return
        summary = f"Exported {result.sessions} session(s), {result.messages:,} messages"
        if result.redacted:
            summary += " (redacted)"
        self.post_message(Exported(tuple(result.paths), summary))

    def on_progressed(self, message: Progressed) -> None:
        bar = self.query_one("#export-progress", ProgressBar)
        bar.update(total=max(1, message.total), progress=message.done)

    def on_exported(self, message: Exported) -> None:
        self.running = False
        self.query_one("#export-go", Button).disabled = False
        if message.error:
            self._result(message.error, error=True)
            return
        self.paths = message.paths
        shown = "\n".join(str(p) for p in self.paths[:5])
        more = f"\n… and {len(self.paths) - 5} more" if len(self.paths) > 5 else ""
        self._result(f"{message.summary} to:\n{shown}{more}\ny copies the path · Esc closes")
        self.query_one("#export-cancel", Button).label = "Close"
        self.query_one("#export-cancel", Button).focus()

    def _result(self, text: str, *, error: bool = False) -> None:
        self.query_one("#export-result", Static).update(
            Text(clean(text), style="bold red" if error else "")
        )

    def action_copy_path(self) -> None:
        if self.paths:
            target = self.paths[0] if len(self.paths) == 1 else self.paths[0].parent
            self.app.copy_to_clipboard(str(target))
            self.notify(f"Copied: {target}", markup=False)
