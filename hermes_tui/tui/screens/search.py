"""Search: results as you type, each with its bookend/scroll window.

Typing restarts a short debounce; the search then runs in an exclusive thread worker that
cancels the one it replaces (SQLite's progress handler stops it mid-query). "Searching…",
"no results" and a real error are different states. Keys on the results list scroll the
selected hit's window with the engine's scroll shape, widen or narrow it, change the sort
and the roles searched, open the conversation at the match, resume it, or copy its id.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container, Horizontal
from textual.content import Content
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Input, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from ...sanitize import clean
from ...store import Cancelled, StoreError
from ...store import lineage as lin
from ...store.search import Discovery, Hit, QueryError, SearchError, discover, scroll
from ..messages import OpenSession
from ..search_history import SearchHistory
from ..widgets.hit_detail import HitDetail, WindowState

if TYPE_CHECKING:
    from ..app import HermesApp

DEBOUNCE = 0.04
LIMIT = 10
SORTS = ("relevance", "newest", "oldest")
ROLES = (("user", "assistant"), ("user", "assistant", "tool"), ("tool",))
SYNTAX = 'words (all must match), "exact phrase", OR, NOT, prefix*'


@dataclass
class Searched(Message):
    generation: int
    result: Discovery | None
    error: str = ""


@dataclass
class Scrolled(Message):
    state: WindowState


def _result_option(hit: Hit, index: int) -> Option:
    meta = hit.root
    title = Content(clean(meta.title or "untitled", keep_newlines=False)).stylize("bold")
    details = f"  {meta.when} · {meta.source} · {meta.message_count:,} messages"
    snippet = Content("")
    for segment in hit.snippet:
        # Keep the spaces at the edges of a piece: they separate it from the match.
        piece = Content(clean(segment.text).replace("\n", " "))
        snippet += piece.stylize("bold reverse") if segment.match else piece.stylize("dim")
    prompt = Content.assemble(title, (details, "dim"), "\n  ", snippet)
    return Option(prompt, id=str(index))


class SearchScreen(Screen[None]):
    BINDINGS = [
        Binding("escape", "back", "Back", id="search.back", tooltip="Back to the query / close"),
        Binding(
            "enter",
            "open",
            "Open at match",
            id="search.open",
            show=False,
            tooltip="Open the conversation at the matching message",
        ),
        Binding("r", "resume", "Resume", id="search.resume", tooltip="Resume this conversation"),
        Binding("y", "copy_id", "Copy id", id="search.copy", tooltip="Copy the session id"),
        Binding(
            "left_square_bracket",
            "scroll_up",
            "Earlier",
            id="search.earlier",
            tooltip="Scroll the window towards the start",
        ),
        Binding(
            "right_square_bracket",
            "scroll_down",
            "Later",
            id="search.later",
            tooltip="Scroll the window towards the end",
        ),
        Binding("plus", "widen", "Wider", id="search.wider", tooltip="Show more around the match"),
        Binding("minus", "narrow", "Narrower", show=False, id="search.narrower"),
        Binding(
            "o", "cycle_sort", "Sort", id="search.sort", tooltip="Relevance, newest or oldest first"
        ),
        Binding(
            "t",
            "cycle_roles",
            "Roles",
            id="search.roles",
            tooltip="Search user+assistant, +tool output, or tool output only",
        ),
        Binding("slash", "focus_query", "Query", show=False, id="search.query"),
    ]

    def __init__(self, query: str = "") -> None:
        super().__init__()
        self.initial = query
        self.sort_index = 0
        self.role_index = 0
        self.generation = 0
        self.hits: tuple[Hit, ...] = ()
        self.state: WindowState | None = None
        self._timer: Timer | None = None
        self.history: SearchHistory | None = None

    @property
    def hermes(self) -> HermesApp:
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        with Horizontal(id="search-bar"):
            yield Input(value=self.initial, placeholder=f"search: {SYNTAX}", id="search-query")
            yield Static(id="search-mode")
        with Container(id="search-body"):
            yield OptionList(id="search-results")
            yield HitDetail(id="search-detail")
        yield Static(id="search-status")
        yield Footer()

    def on_mount(self) -> None:
        self.history = SearchHistory(self.hermes.store_path.parent)
        self.query_one("#search-body").set_class(self.app.size.width >= 120, "-wide")
        self._mode()
        self._status("Type to search every conversation.")
        self.query_one("#search-detail", HitDetail).show(None, f"Query syntax: {SYNTAX}.")
        self.query_one("#search-query", Input).focus()
        if self.initial:
            self._run()

    def on_resize(self) -> None:
        self.query_one("#search-body").set_class(self.size.width >= 120, "-wide")

    # -- the query -----------------------------------------------------------------

    @on(Input.Changed, "#search-query")
    def _changed(self) -> None:
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(DEBOUNCE, self._run)

    @on(Input.Submitted, "#search-query")
    def _submitted(self) -> None:
        if self._timer is not None:
            self._timer.stop()
        query = self.query_one("#search-query", Input).value.strip()
        if query and self.history is not None:
            self.history.add(query)
        self._run()
        self.query_one("#search-results", OptionList).focus()

    def key_up(self) -> None:
        self._recall(-1)

    def key_down(self) -> None:
        self._recall(1)

    def _recall(self, step: int) -> None:
        field = self.query_one("#search-query", Input)
        if not field.has_focus or self.history is None:
            return
        recalled = self.history.step(step, field.value)
        if recalled is not None:
            field.value = recalled
            field.cursor_position = len(recalled)

    def _run(self) -> None:
        query = self.query_one("#search-query", Input).value
        self.generation += 1
        if not query.strip():
            self.workers.cancel_group(self, "search")
            self._show(Discovery("", (), 0, "none"), None)
            self._status("Type to search every conversation.")
            return
        self._status("searching…")
        self.search(self.generation, query, SORTS[self.sort_index], ROLES[self.role_index])

    @work(thread=True, exclusive=True, group="search", exit_on_error=False)
    def search(self, generation: int, query: str, sort: str, roles: tuple[str, ...]) -> None:
        worker = get_current_worker()
        try:
            result = discover(
                self.hermes.store(),
                query,
                limit=LIMIT,
                sort=sort,
                roles=roles,  # type: ignore[arg-type]
                now=self.hermes.now(),
                cancelled=lambda: worker.is_cancelled,
            )
        except Cancelled:
            return
        except (SearchError, QueryError) as error:
            self.post_message(Searched(generation, None, f"{error}  (syntax: {SYNTAX})"))
            return
        except StoreError as error:
            self.post_message(Searched(generation, None, error.one_line()))
            return
        if not worker.is_cancelled:
            self.post_message(Searched(generation, result))

    def on_searched(self, message: Searched) -> None:
        if message.generation != self.generation:
            return
        if message.result is None:
            self._show(Discovery("", (), 0, "none"), None)
            self._status(message.error, error=True)
            return
        result = message.result
        self._show(result, None)
        if result.reason:
            self._status(result.reason, error=True)
        elif not result.hits:
            self._status(f"No results for “{clean(result.query, keep_newlines=False)}”.")
        else:
            note = f" — {result.warning}" if result.warning else ""
            self._status(
                f"{len(result.hits)} conversation{'s' * (len(result.hits) != 1)} "
                f"({result.sessions_searched:,} searched){note}"
            )

    def _show(self, result: Discovery, _: object) -> None:
        self.hits = result.hits
        results = self.query_one("#search-results", OptionList)
        results.clear_options()
        results.add_options([_result_option(hit, i) for i, hit in enumerate(self.hits)])
        if self.hits:
            results.highlighted = 0
        else:
            self.state = None
            self.query_one("#search-detail", HitDetail).show(None, "")

    @on(OptionList.OptionHighlighted, "#search-results")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        index = int(event.option.id or 0)
        if 0 <= index < len(self.hits):
            self.state = WindowState.of(self.hits[index])
            detail = self.query_one("#search-detail", HitDetail)
            detail.show(self.state)
            detail.reveal_anchor()

    @on(OptionList.OptionSelected, "#search-results")
    def _selected(self) -> None:
        self.action_open()

    # -- status and modes ----------------------------------------------------------

    def _status(self, text: str, *, error: bool = False) -> None:
        status = self.query_one("#search-status", Static)
        status.update(Text(clean(text, keep_newlines=False), style="bold red" if error else ""))
        status.set_class(error, "-error")

    def _mode(self) -> None:
        roles = "+".join(ROLES[self.role_index])
        self.query_one("#search-mode", Static).update(
            Text(f"{SORTS[self.sort_index]} · {roles}", style="dim", no_wrap=True)
        )

    def action_cycle_sort(self) -> None:
        self.sort_index = (self.sort_index + 1) % len(SORTS)
        self._mode()
        self._run()

    def action_cycle_roles(self) -> None:
        self.role_index = (self.role_index + 1) % len(ROLES)
        self._mode()
        self._run()

    # -- the window ----------------------------------------------------------------

    def action_scroll_up(self) -> None:
        if self.state is not None and not self.state.at_start:
            self._scroll(self.state, self.state.messages[0].id, "older")

    def action_scroll_down(self) -> None:
        if self.state is not None and not self.state.at_end:
            self._scroll(self.state, self.state.messages[-1].id, "newer")

    def action_widen(self) -> None:
        self._resize(5)

    def action_narrow(self) -> None:
        self._resize(-2)

    def _resize(self, step: int) -> None:
        if self.state is None:
            return
        width = max(1, min(20, self.state.width + step))
        if width != self.state.width:
            state = dataclasses.replace(self.state, width=width)
            self._scroll(state, state.hit.match_message_id, "reset")

    @work(thread=True, exclusive=True, group="search-scroll", exit_on_error=False)
    def _scroll(self, state: WindowState, around: int, mode: str) -> None:
        """The engine's scroll shape; "older"/"newer" merge into what is shown, "reset"
        replaces it with ±width around the match."""
        try:
            view = scroll(self.hermes.store(), state.hit.session_id, around, window=state.width)
        except (SearchError, StoreError) as error:
            text = error.one_line() if isinstance(error, StoreError) else str(error)
            self.app.call_from_thread(self.notify, text, severity="error", markup=False)
            return
        window = view.window
        if mode == "older":
            merged = state.merged(window.messages, at_start=window.at_start)
        elif mode == "newer":
            merged = state.merged(window.messages, at_end=window.at_end)
        else:
            merged = WindowState(
                state.hit, window.messages, window.at_start, window.at_end, state.width
            )
        self.post_message(Scrolled(merged))

    def on_scrolled(self, message: Scrolled) -> None:
        if self.state is not None and message.state.hit is self.state.hit:
            self.state = message.state
            self.query_one("#search-detail", HitDetail).show(self.state)

    # -- acting on a hit -----------------------------------------------------------

    def _current(self) -> Hit | None:
        index = self.query_one("#search-results", OptionList).highlighted
        return self.hits[index] if index is not None and index < len(self.hits) else None

    def action_open(self) -> None:
        hit = self._current()
        if hit is not None:
            self.post_message(OpenSession(hit.session_id, hit.match_message_id, resumed=False))

    def action_resume(self) -> None:
        hit = self._current()
        if hit is not None:
            self._resume(hit.session_id)

    @work(thread=True, exit_on_error=False, group="search-resume")
    def _resume(self, session_id: str) -> None:
        try:
            with self.hermes.store().snapshot() as conn:
                tip = lin.compression_tip(conn, session_id)
        except StoreError as error:
            self.app.call_from_thread(self.notify, error.one_line(), severity="error", markup=False)
            return
        self.post_message(OpenSession(tip))

    def action_copy_id(self) -> None:
        hit = self._current()
        if hit is not None:
            self.app.copy_to_clipboard(hit.session_id)
            self.notify(f"Copied: {hit.session_id}", markup=False)

    def action_focus_query(self) -> None:
        self.query_one("#search-query", Input).focus()

    def action_back(self) -> None:
        field = self.query_one("#search-query", Input)
        if not field.has_focus:
            field.focus()
        else:
            self.dismiss()
