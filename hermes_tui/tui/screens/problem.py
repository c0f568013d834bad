"""A store that cannot be used gets a screen that says so — never an empty list."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer, Static

from ...sanitize import clean
from ...store import StoreError

HEADINGS = {
    "missing": "No session store yet",
    "empty": "The session store is empty (0 bytes)",
    "corrupt": "The session store is damaged",
    "unreadable": "The session store cannot be read",
    "locked": "The session store is locked",
    "foreign": "This is not a Hermes session store",
    "read-only": "The session store is read-only",
}


class ProblemScreen(Screen[None]):
    """What went wrong, the path, and the next step; `r` retries, `q` quits."""

    BINDINGS = [
        Binding("r", "retry", "Retry", id="problem.retry", tooltip="Try opening the store again"),
        Binding("q", "app.quit", "Quit", id="problem.quit"),
    ]

    def __init__(self, error: StoreError) -> None:
        super().__init__()
        self.error = error

    def compose(self) -> ComposeResult:
        with Vertical(id="problem-box"):
            yield Static(id="problem-heading")
            yield Static(id="problem-body")
        yield Footer()

    def on_mount(self) -> None:
        error = self.error
        heading = HEADINGS.get(error.kind, "The session store cannot be used")
        self.query_one("#problem-heading", Static).update(Text(heading, style="bold"))
        body = Text()
        body.append(clean(error.message) + "\n\n")
        if error.path is not None:
            body.append("path  ", style="dim")
            body.append(clean(str(error.path)) + "\n")
        if error.hint:
            body.append("next  ", style="dim")
            body.append(clean(error.hint) + "\n")
        body.append("\nr retries · q quits", style="dim")
        self.query_one("#problem-body", Static).update(body)

    def action_retry(self) -> None:
        from ..app import HermesApp

        app = self.app
        if isinstance(app, HermesApp):
            app.forget_store()
        self.dismiss()
        for screen in self.app.screen_stack:
            reload = getattr(screen, "reload", None)
            if callable(reload):
                reload()
