"""Import Claude Code or Codex CLI history from the TUI (the palette offers both): a dry run
first — what would be imported and what would be skipped — then the import with progress.
The same code (``hermes_tui.store.importers``) serves ``hermes sessions import``."""

from __future__ import annotations

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
from textual.widgets import Button, Input, ProgressBar, Static
from textual.worker import get_current_worker

from ...sanitize import clean
from ...store import Store, StoreError
from ...store.importers import ImportOptions, ImportProgress, ImportReport, import_history

if TYPE_CHECKING:
    from ..app import HermesApp

TOOLS = {"claude": "Claude Code", "codex": "Codex CLI"}


@dataclass
class Progressed(Message):
    progress: ImportProgress

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, Progressed)


@dataclass
class Done(Message):
    report: ImportReport | None
    dry_run: bool
    error: str = ""


def summary(report: ImportReport) -> str:
    verb = "would be" if report.dry_run else "were"
    lines = [
        f"{report.count('created')} new and {report.count('updated')} grown conversation(s) "
        f"{verb} imported ({report.messages_added:,} messages); "
        f"{report.count('unchanged')} unchanged, {report.count('failed')} failed."
    ]
    skipped = ", ".join(f"{n} {reason}" for reason, n in report.skipped_records.most_common(6))
    if skipped:
        lines.append(f"Records skipped: {skipped}.")
    for problem in report.problems[:3]:
        lines.append(f"⚠ {problem}")
    return "\n".join(lines)


class ImportDialog(ModalScreen[bool]):
    """Dismisses with True when something was imported (the browser reloads)."""

    BINDINGS = [Binding("escape", "close", "Close", id="import.close")]

    def __init__(self, tool: str) -> None:
        super().__init__()
        self.tool = tool
        self.imported = False
        self.running = False
        self.previewed = False

    @property
    def hermes(self) -> HermesApp:
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog-box"):
            yield Static(Content(f"Import {TOOLS[self.tool]} history"), id="dialog-title")
            yield Input(
                placeholder="folder or file (empty: the tool's own folder)", id="import-path"
            )
            yield ProgressBar(id="import-progress", show_eta=False)
            yield Static(id="import-result")
            with Horizontal(id="dialog-buttons"):
                yield Button("Close", id="import-close")
                yield Button("Dry run", id="import-dry")
                yield Button("Import", variant="primary", id="import-go", disabled=True)

    def on_mount(self) -> None:
        self.query_one("#import-progress").display = False
        self._say("A dry run shows what would be imported; nothing is written until Import.")
        self.query_one("#import-dry", Button).focus()

    def _say(self, text: str, *, error: bool = False) -> None:
        self.query_one("#import-result", Static).update(
            Text(clean(text), style="bold red" if error else "")
        )

    @on(Button.Pressed, "#import-close")
    def action_close(self) -> None:
        if not self.running:
            self.dismiss(self.imported)

    @on(Input.Changed, "#import-path")
    def _path_changed(self) -> None:
        self.previewed = False
        self.query_one("#import-go", Button).disabled = True

    @on(Button.Pressed, "#import-dry")
    @on(Input.Submitted, "#import-path")
    def _dry(self) -> None:
        self._start(dry_run=True)

    @on(Button.Pressed, "#import-go")
    def _go(self) -> None:
        if self.previewed:
            self._start(dry_run=False)

    def _start(self, *, dry_run: bool) -> None:
        if self.running:
            return
        raw = self.query_one("#import-path", Input).value.strip()
        paths = [Path(raw).expanduser()] if raw else None
        self.running = True
        for button in ("#import-dry", "#import-go"):
            self.query_one(button, Button).disabled = True
        self.query_one("#import-progress").display = True
        self._say("dry run…" if dry_run else "importing…")
        self._run(paths, dry_run)

    @work(thread=True, exclusive=True, group="import", exit_on_error=False)
    def _run(self, paths: list[Path] | None, dry_run: bool) -> None:
        worker = get_current_worker()
        try:
            store = None
            if not dry_run or self.hermes.store_path.exists():
                store = Store.create(self.hermes.store_path)
            report = import_history(
                store,
                self.tool,
                paths,
                ImportOptions(dry_run=dry_run),
                progress=lambda p: self.post_message(Progressed(p)),
                cancelled=lambda: worker.is_cancelled,
            )
        except (StoreError, ValueError, OSError) as error:
            text = error.one_line() if isinstance(error, StoreError) else str(error)
            self.post_message(Done(None, dry_run, text))
            return
        self.post_message(Done(report, dry_run))

    def on_progressed(self, message: Progressed) -> None:
        p = message.progress
        self.query_one("#import-progress", ProgressBar).update(
            total=max(1, p.files_total), progress=p.files_done
        )

    def on_done(self, message: Done) -> None:
        self.running = False
        self.query_one("#import-dry", Button).disabled = False
        if message.report is None:
            self._say(message.error, error=True)
            return
        report = message.report
        self._say(summary(report))
        if message.dry_run:
            self.previewed = True
            self.query_one("#import-go", Button).disabled = False
            self.query_one("#import-go", Button).focus()
        else:
            self.imported = report.count("created") + report.count("updated") > 0
            self.query_one("#import-close", Button).focus()
