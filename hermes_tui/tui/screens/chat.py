"""The chat pane: a conversation's transcript, the recap of where it stood, and the input.

The transcript is windowed: the newest messages (or a window around one message) are
mounted first, older ones as you scroll up — across compression segments, so a lineage
reads as one conversation — and newer ones as you scroll down from a jump. One widget per
message, and only for the messages loaded.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Footer, Input, Static

from ...chat import Conversation
from ...sanitize import clean
from ...store import Session, StoreError, get_session
from ...store import lineage as lin
from ...store import transcript as tx
from ...store.recap import RecapLimits, load_recap
from ...store.sessions import reopen_session
from ...store.terminals import terminal_identity, write_breadcrumb
from .. import render
from ..widgets.message_view import MessageView
from .chat_keys import CHAT_BINDINGS
from .chat_live import ChatLive, SlashSuggester
from .chat_messages import Loaded, LoadFailed, MoreLoaded, NewChat

if TYPE_CHECKING:
    pass

WINDOW = 30
FIRST_WINDOW = 16  # a screenful; older ones come as you scroll up


class ChatScreen(ChatLive):
    BINDINGS = CHAT_BINDINGS

    def __init__(
        self, session_id: str | None, *, anchor: int | None = None, resume: bool = True
    ) -> None:
        """*session_id* None starts a new conversation (its row comes with the first message)."""
        super().__init__()
        self.session_id = session_id
        self.conversation: Conversation | None = None
        self.anchor = anchor
        self.resume = resume
        self.session: Session | None = None
        self.segments: list[str] = [session_id] if session_id else []
        self.oldest_segment = 0
        self.first: MessageView | None = None
        self.last: MessageView | None = None
        self.has_older = False
        self.has_newer = False
        self.reopened = False
        self.busy = False
        self.view: tx.View = "live"
        self.compacted = 0
        self._last_y = 0.0
        self._settled = False  # the first load is done (later ones keep the focus alone)

    def compose(self) -> ComposeResult:
        yield Static(id="chat-header")
        yield Static(id="chat-recap")
        with VerticalScroll(id="chat-transcript"):
            yield Static(id="chat-older")
            yield Static(id="chat-newer")
        yield Input(
            id="chat-input",
            placeholder="Write a message · /help lists the commands · Esc stops a reply",
            suggester=SlashSuggester(self.hermes.store_path.parent),
        )
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#chat-recap").display = False
        self.query_one("#chat-newer").display = False
        transcript = self.query_one("#chat-transcript")
        self.watch(transcript, "scroll_y", self._scrolled, init=False)
        transcript.loading = True
        self.load()

    # -- loading -------------------------------------------------------------------

    def _limits(self) -> RecapLimits:
        d = self.hermes.config.display
        return RecapLimits(
            d.resume_exchanges,
            d.resume_max_user_chars,
            d.resume_max_assistant_chars,
            d.resume_max_assistant_lines,
            d.resume_skip_tool_only,
        )

    @work(thread=True, exclusive=True, group="chat-load", exit_on_error=False)
    def load(self) -> None:
        if self.session_id is None:
            try:
                store = self.hermes.store(create=True)
            except StoreError as error:
                self.post_message(LoadFailed(error.one_line()))
                return
            self.post_message(NewChat(Conversation(store, self.hermes.config)))
            return
        try:
            store = self.hermes.store()
            session = get_session(store, self.session_id)
            if session is None:
                self.post_message(LoadFailed(f"Session '{self.session_id}' not found."))
                return
            with store.snapshot() as conn:
                segments = lin.lineage_path(conn, self.session_id)
            window = None
            if self.anchor is not None:
                window = tx.around(store, self.session_id, self.anchor)
            if window is None:
                window = tx.latest(store, self.session_id, FIRST_WINDOW, self.view)
            compacted = tx.count_compacted(store, self.session_id)
            recap = None
            if self.resume and self.view == "live":
                recap = load_recap(store, self.session_id, self._limits())
            reopened = False
            if self.resume and not session.is_open and not store.read_only:
                reopened = reopen_session(store, self.session_id)
            if self.resume:
                self._remember_in_terminal()
            conversation = Conversation.resume(store, self.hermes.config, self.session_id)
        except (StoreError, LookupError) as error:
            text = error.one_line() if isinstance(error, StoreError) else str(error)
            self.post_message(LoadFailed(text))
            return
        self.post_message(
            Loaded(session, segments, recap, window, self.anchor, reopened, compacted, conversation)
        )

    def _remember_in_terminal(self) -> None:
        """This terminal's `hermes -c` continues this conversation next time."""
        identity = terminal_identity(os.environ)
        if identity is not None:
            try:
                write_breadcrumb(self.hermes.store_path.parent, identity, self.session_id)
            except OSError as error:
                self.app.call_from_thread(
                    self.notify,
                    f"Could not remember this terminal's session: {error}",
                    severity="warning",
                    markup=False,
                )

    def on_new_chat(self, message: NewChat) -> None:
        self.conversation = message.conversation
        self.query_one("#chat-transcript").loading = False
        self.query_one("#chat-older", Static).update(
            Text("— a new conversation: it is saved with your first message —", style="dim italic")
        )
        self._header()
        self._writable(message.conversation)
        self.query_one("#chat-input", Input).focus()

    def _writable(self, conversation: Conversation) -> None:
        field = self.query_one("#chat-input", Input)
        if conversation.store.read_only:
            field.disabled = True
            field.placeholder = "The store is read-only here: this conversation cannot continue."

    async def on_loaded(self, message: Loaded) -> None:
        self.conversation = message.conversation
        self._writable(message.conversation)
        self.session = message.session
        self.segments = message.segments
        self.oldest_segment = self.segments.index(self.session_id)
        self.reopened = self.reopened or message.reopened
        self.compacted = message.compacted
        if self.reopened:
            self.hermes.reopened.add(self.session_id)
        self._header()
        if message.recap is not None and message.recap.entries:
            recap = self.query_one("#chat-recap", Static)
            minimal = self.hermes.config.display.resume_display == "minimal"
            recap.update(render.recap_renderable(message.recap, minimal=minimal))
            # Opened at one message (a search hit), the message matters more than the recap.
            recap.display = message.anchor is None
        transcript = self.query_one("#chat-transcript", VerticalScroll)
        transcript.loading = False
        await transcript.remove_children(".chat-item")
        views = [MessageView(m, anchor=m.id == message.anchor) for m in message.window.messages]
        await transcript.mount_all(views, before="#chat-newer")
        self.first = views[0] if views else None
        self.last = views[-1] if views else None
        self.has_older = message.window.has_older
        self.has_newer = message.window.has_newer
        self._hints()
        target = next((v for v in views if v.has_class("-anchor")), None)
        if target is not None:
            target.focus(scroll_visible=False)
            self.call_after_refresh(self._reveal, target)
        else:
            self.call_after_refresh(transcript.scroll_end, animate=False)
            field = self.query_one("#chat-input", Input)
            if not field.disabled and not self._settled:
                field.focus()  # resumed to continue: the input is where typing goes
        self._settled = True

    def _reveal(self, view: MessageView, tries: int = 5) -> None:
        """The anchor in the middle of the pane, with its context around it, focused.

        The target is computed from the anchor's place in the transcript's virtual space
        (not from where it is on screen now), so repeating it is harmless; it is repeated
        after each refresh while heights still settle (Markdown, wrapping)."""
        transcript = self.query_one("#chat-transcript", VerticalScroll)
        laid_out = view.virtual_region.height > 0 and transcript.virtual_size.height > 0
        if not laid_out and tries:
            self.call_after_refresh(self._reveal, view, tries - 1)
            return
        region = view.virtual_region
        target = max(0, region.y - (transcript.size.height - region.height) // 2)
        if transcript.scroll_y != target:
            transcript.scroll_to(y=target, animate=False, immediate=True)
        if tries:
            self.call_after_refresh(self._reveal, view, tries - 1)

    def on_load_failed(self, message: LoadFailed) -> None:
        self.query_one("#chat-transcript").loading = False
        self.query_one("#chat-header", Static).update(render.cell(message.text, "bold red"))
        self.notify(message.text, severity="error", markup=False)

    def _header(self) -> None:
        s = self.session
        text = Text(no_wrap=True, overflow="ellipsis")
        if s is None or (self.session_id and s.id != self.session_id):
            title = self.conversation.title if self.conversation else None
            text.append(clean(title or "New conversation", keep_newlines=False), style="bold")
            if self.session_id:
                text.append(f"   {self.session_id}", style="dim")
            self.query_one("#chat-header", Static).update(text)
            return
        title = (self.conversation.title if self.conversation else None) or s.title
        text.append(clean(title or "untitled", keep_newlines=False), style="bold")
        details = [s.id, s.source, s.model or "", s.workspace_key or ""]
        if self.view == "compacted":
            details.insert(0, f"pre-compression history ({self.compacted} messages; h returns)")
        if len(self.segments) > 1:
            details.append(
                f"segment {self.segments.index(self.session_id) + 1}/{len(self.segments)}"
            )
        text.append(
            "   " + "  ·  ".join(clean(d, keep_newlines=False) for d in details if d), style="dim"
        )
        self.query_one("#chat-header", Static).update(text)

    def _hints(self) -> None:
        older = self.query_one("#chat-older", Static)
        if self.has_older or self.oldest_segment > 0:
            older.update(Text("▲ older messages — scroll up or press [", style="dim italic"))
        else:
            older.update(Text("— start of the conversation —", style="dim italic"))
        newer = self.query_one("#chat-newer", Static)
        newer.display = self.has_newer
        newer.update(Text("▼ newer messages — press ]", style="dim italic"))

    def action_older(self) -> None:
        if self.busy or self.first is None:
            return
        if self.has_older:
            self.busy = True
            self.load_more(
                self.segments[self.oldest_segment], self.first, True, self.oldest_segment
            )
        elif self.oldest_segment > 0 and self.view == "live":
            self.busy = True
            self.load_more(
                self.segments[self.oldest_segment - 1], None, True, self.oldest_segment - 1
            )

    def action_newer(self) -> None:
        if not self.busy and self.has_newer and self.last is not None:
            self.busy = True
            self.load_more(self.session_id, self.last, False, self.oldest_segment)

    @work(thread=True, exclusive=True, group="chat-more", exit_on_error=False)
    def load_more(
        self, session_id: str, edge: MessageView | None, older: bool, segment: int
    ) -> None:
        store = self.hermes.store()
        try:
            if edge is None:
                window = tx.latest(store, session_id, WINDOW, self.view)
            elif older:
                window = tx.older(store, session_id, edge.message, WINDOW, self.view)
            else:
                window = tx.newer(store, session_id, edge.message, WINDOW, self.view)
        except StoreError as error:
            self.post_message(LoadFailed(error.one_line()))
            return
        self.post_message(MoreLoaded(window, older, segment))

    async def on_more_loaded(self, message: MoreLoaded) -> None:
        self.busy = False
        transcript = self.query_one("#chat-transcript", VerticalScroll)
        views = [MessageView(m) for m in message.window.messages]
        if message.older:
            if message.segment != self.oldest_segment:
                note = f"── continued from {self.segments[message.segment]} (compressed) ──"
                marker = Static(Text(note, style="dim"), classes="chat-segment chat-item")
                views.append(marker)  # type: ignore[arg-type]
                self.oldest_segment = message.segment
            height, y = transcript.virtual_size.height, transcript.scroll_y
            await transcript.mount_all(views, after="#chat-older")
            self.has_older = message.window.has_older
            first = next((v for v in views if isinstance(v, MessageView)), None)
            self.first = first or self.first

            def keep_place() -> None:
                # What was on screen stays there: move down by what was added above.
                added = transcript.virtual_size.height - height
                self._last_y = y + added
                transcript.scroll_to(y=y + added, animate=False)

            self.call_after_refresh(keep_place)
        else:
            await transcript.mount_all(views, before="#chat-newer")
            self.has_newer = message.window.has_newer
            self.last = views[-1] if views else self.last
        self._hints()

    def _scrolled(self, y: float) -> None:
        """Reaching the top by scrolling (not by our own re-positioning) loads older ones."""
        arrived = y <= 0 < self._last_y
        self._last_y = y
        if arrived and not self.busy and self.first is not None:
            self.action_older()

    # -- keys ----------------------------------------------------------------------

    def _views(self) -> list[MessageView]:
        return list(self.query(MessageView))

    def action_page_up(self) -> None:
        transcript = self.query_one("#chat-transcript", VerticalScroll)
        if transcript.scroll_y <= 0:
            self.action_older()
        transcript.scroll_page_up(animate=False)

    def action_page_down(self) -> None:
        self.query_one("#chat-transcript", VerticalScroll).scroll_page_down(animate=False)

    def action_next_message(self) -> None:
        self._step(1)

    def action_previous_message(self) -> None:
        self._step(-1)

    def _step(self, delta: int) -> None:
        views = self._views()
        if not views:
            return
        focused = self.focused if isinstance(self.focused, MessageView) else None
        index = views.index(focused) + delta if focused in views else len(views) - 1
        target = views[max(0, min(index, len(views) - 1))]
        target.focus()
        target.scroll_visible(animate=False)

    def action_toggle_history(self) -> None:
        if self.view == "live" and not self.compacted:
            self.notify("This session keeps no pre-compression history.", markup=False)
            return
        self.view = "compacted" if self.view == "live" else "live"
        self.anchor = None
        self.oldest_segment = self.segments.index(self.session_id)
        self.query_one("#chat-transcript").loading = True
        self.load()

    def action_toggle_recap(self) -> None:
        recap = self.query_one("#chat-recap")
        recap.display = not recap.display

    def action_focus_input(self) -> None:
        self.query_one("#chat-input", Input).focus()

    def action_back(self) -> None:
        if not self.stop_reply():
            self.dismiss()

    def on_unmount(self) -> None:
        if self.conversation is not None:
            self.conversation.flush()
        if self.session_id and self.session_id in self.hermes.reopened:
            self.hermes.release_session(self.session_id)
