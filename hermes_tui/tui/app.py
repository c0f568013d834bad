"""The app shell: global keys, theme, keymap, the store handle and screen switching."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from ..config import Config
from ..paths import styles_dir
from ..store import Store, StoreError
from .commands import SessionProvider
from .messages import OpenSession, StoreProblem

STYLE_FILES = (
    "app.tcss",
    "browser.tcss",
    "chat.tcss",
    "dialogs.tcss",
    "help.tcss",
    "problem.tcss",
    "search.tcss",
    "wizard.tcss",
)


@dataclass(frozen=True)
class Start:
    """Where the app opens: the browser, or a conversation (optionally at one message)."""

    session_id: str | None = None
    message_id: int | None = None
    workspace: str | None = None
    notices: tuple[str, ...] = ()
    search: str | None = None


class HermesApp(App[None]):
    TITLE = "hermes"
    COMMANDS = App.COMMANDS | {SessionProvider}
    CSS_PATH = [styles_dir() / name for name in STYLE_FILES]
    BINDINGS = [
        Binding("q", "quit", "Quit", id="app.quit", tooltip="Leave hermes"),
        Binding(
            "ctrl+c",
            "quit",
            "Quit",
            show=False,
            priority=True,
            id="app.quit_ctrl_c",
            tooltip="Leave hermes",
        ),
        Binding("question_mark", "help", "Help", id="app.help", tooltip="Every key of this screen"),
        Binding("slash", "search", "Search", id="app.search", tooltip="Search every conversation"),
    ]

    def __init__(
        self,
        store_path: Path,
        config: Config,
        *,
        start: Start | None = None,
        now: Callable[[], float] = time.time,
        open_store: Callable[[Path], Store] = Store.open,
        maintenance: bool = False,
    ) -> None:
        super().__init__()
        self.maintenance = maintenance
        self.open_store = open_store
        self.store_path = store_path
        self.config = config
        self.start = start or Start()
        self.now = now
        self._store: Store | None = None
        self._store_lock = threading.Lock()
        self.reopened: set[str] = set()

    # -- the store (opened lazily from thread workers) ---------------------------------

    def store(self, *, create: bool = False) -> Store:
        """The open store; call from a thread worker (opening reads the file). With *create*,
        a missing store is created (a new conversation's first message needs one)."""
        with self._store_lock:
            if self._store is None:
                if create and not self.store_path.exists():
                    Store.create(self.store_path)
                self._store = self.open_store(self.store_path)
            return self._store

    def flush_conversations(self) -> None:
        """Write what streaming replies have received so far (at exit, or a hangup)."""
        from .screens.chat import ChatScreen

        for screen in self.screen_stack:
            if isinstance(screen, ChatScreen) and screen.conversation is not None:
                screen.conversation.flush()

    def forget_store(self) -> None:
        """Open the store afresh next time (after the user fixed a problem)."""
        with self._store_lock:
            self._store = None

    def release_session(self, session_id: str) -> None:
        """End a session we re-opened to resume it (leaving it, as Hermes does)."""
        self.reopened.add(session_id)
        self.run_worker(lambda: self.end_reopened(session_id), thread=True, exit_on_error=False)

    def end_reopened(self, *session_ids: str) -> None:
        """Blocking: end the given (or all) re-opened sessions; errors are ignored."""
        from ..store.sessions import end_session

        for session_id in session_ids or tuple(self.reopened):
            self.reopened.discard(session_id)
            try:
                end_session(self.store(), session_id, "tui_close")
            except StoreError:
                pass  # leaving never fails; the row simply stays open

    # -- lifecycle -----------------------------------------------------------------

    def on_mount(self) -> None:
        from .screens.browser import BrowserScreen

        theme = self.config.tui.theme
        if theme in self.available_themes:
            self.theme = theme
        else:
            self.notify(
                f"config.yaml: tui.theme '{theme}' is not a known theme; using the default",
                severity="warning",
                markup=False,
            )
        if self.config.tui.keymap:
            self.set_keymap(dict(self.config.tui.keymap))
        for warning in (*self.config.warnings, *self.start.notices):
            self.notify(warning, severity="warning", markup=False, timeout=8)
        self.push_screen(BrowserScreen(workspace=self.start.workspace))
        if self.start.search is not None:
            self.action_search(self.start.search)
        if self.start.session_id:
            self.post_message(OpenSession(self.start.session_id, self.start.message_id))
        if self.maintenance:
            # After the first screen has its rows: maintenance must never delay them.
            self.set_timer(1.5, self._maintain)

    def _maintain(self) -> None:
        self.run_worker(self._run_maintenance, thread=True, exit_on_error=False, group="maint")

    def _run_maintenance(self) -> None:
        from ..store.maintenance import run_maintenance

        try:
            result = run_maintenance(self.store(), self.config.sessions, now=self.now())
        except StoreError:
            return  # the store problem is already on screen
        if result.deleted:
            days = f"{self.config.sessions.retention_days:g}"
            undo = (
                f"hermes sessions restore {result.trash[0]}"
                if len(result.trash) == 1
                else f"hermes sessions restore <file> (in {result.trash[0].parent})"
            )
            self.call_from_thread(
                self.notify,
                f"Automatic maintenance pruned {result.deleted:,} conversation(s) inactive for "
                f"{days}+ days ({result.messages:,} messages). Undo: {undo}",
                title="Maintenance",
                markup=False,
                timeout=15,
            )

    def on_open_session(self, message: OpenSession) -> None:
        from .screens.chat import ChatScreen

        chat = ChatScreen(message.session_id, anchor=message.message_id, resume=message.resumed)
        self.push_screen(chat)

    def on_store_problem(self, message: StoreProblem) -> None:
        from .screens.problem import ProblemScreen

        if not isinstance(self.screen, ProblemScreen):
            self.push_screen(ProblemScreen(message.error))

    def report_store_error(self, error: StoreError) -> None:
        """Thread-safe: a worker found the store unusable."""
        self.post_message(StoreProblem(error))

    # -- actions -------------------------------------------------------------------

    def action_search(self, query: str = "") -> None:
        from .screens.search import SearchScreen

        if not isinstance(self.screen, SearchScreen):
            self.push_screen(SearchScreen(query))

    def action_help(self) -> None:
        from .screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """Every action of the current screen (its bindings), then the app's own."""
        seen: set[str] = set()
        for active in screen.active_bindings.values():
            binding = active.binding
            if active.node is not screen or not binding.description or binding.action in seen:
                continue
            seen.add(binding.action)
            key = self.get_key_display(binding)
            yield SystemCommand(
                f"{binding.description} ({key})",
                binding.tooltip or binding.description,
                partial(screen.run_action, binding.action),
            )
        yield from super().get_system_commands(screen)
        yield SystemCommand("Help: keys", "Every key of this screen", self.action_help)
        for tool, name in (("claude", "Claude Code"), ("codex", "Codex CLI")):
            yield SystemCommand(
                f"Import {name} history",
                "Bring its transcripts into this store (dry run first)",
                partial(self.action_import, tool),
            )

    def action_import(self, tool: str) -> None:
        from .screens.import_dialog import ImportDialog

        def done(imported: bool | None) -> None:
            reload = getattr(self.screen, "reload", None)
            if imported and callable(reload):
                reload()

        self.push_screen(ImportDialog(tool), done)


def build_app(
    store_path: Path,
    config: Config,
    *,
    start: Start | None = None,
    now: Callable[[], float] = time.time,
    open_store: Callable[[Path], Store] = Store.open,
    maintenance: bool = False,
) -> HermesApp:
    """The one factory the CLI and the tests use to make the app (the CLI turns on the
    automatic maintenance of config.yaml's ``sessions:``)."""
    return HermesApp(
        store_path, config, start=start, now=now, open_store=open_store, maintenance=maintenance
    )
