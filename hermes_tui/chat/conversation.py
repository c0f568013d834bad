"""One conversation with a model, for a UI to drive from a thread worker.

``Conversation(store, config)`` starts a new session (its row is created with the first
message, source ``tui``); ``Conversation.resume(store, config, session_id)`` continues one.
``send`` runs one turn — store the user's message, stream the reply, run tool calls until
the model answers — and reports :mod:`.events` through ``on_event`` as it goes. ``cancel``
(any thread) stops a streaming reply: what arrived is kept, marked ``cancelled``. An error
keeps the user's message (stored once); ``retry`` asks again without storing it twice.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ..config import Config
from ..store import NewMessage, SessionNotFound, Store, StoreError, TitleInUse
from ..store.sessions import end_session, rename_session
from ..store.titles import sanitize_title, title_holder
from .attachments import Attachment, compose_user_text, image_part, load_attachment
from .client import ChatClient
from .compress import Compressed, NothingToCompress, compress_session
from .endpoint import Endpoint, resolve_endpoint
from .errors import ModelError
from .events import (
    EventSink,
    MessageStored,
    Notice,
    SessionCreated,
    TitleChanged,
    TurnResult,
    ignore,
)
from .handoff import (
    PENDING_TIMEOUT,
    POLL_INTERVAL,
    RUNNING_TIMEOUT,
    HandoffOutcome,
    hand_off,
)
from .persist import (
    SessionMoved,
    append_user_message,
    create_with_message,
    last_user_message,
    session_spec,
)
from .prompt import build_system_prompt
from .titles import auto_title
from .turn import STORE_ERRORS, Turn, report_failure


class ConversationBusy(RuntimeError):
    """A turn (or command) is already running on this conversation."""


class Conversation:
    def __init__(
        self,
        store: Store,
        config: Config,
        *,
        session_id: str | None = None,
        home: Path | None = None,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
        auto_title: bool = True,
        client_factory: Callable[[Endpoint], ChatClient] = ChatClient,
    ) -> None:
        self.store = store
        self.config = config
        self.home = home or store.home
        self.cwd = cwd or Path.cwd()
        self.session_id = session_id
        self.title: str | None = None
        self.queued_title: str | None = None
        self.pending_attachments: list[Attachment] = []
        self.handed_off = False
        self.context_tokens = 0
        self.auto_title = auto_title
        self.client_factory = client_factory
        self._env = env
        self._system_prompt: str | None = None
        self._title_tried = False
        self._busy = threading.Lock()
        self._cancel = threading.Event()
        self._background: list[threading.Thread] = []
        self._turn_running: Turn | None = None

    @classmethod
    def resume(cls, store: Store, config: Config, session_id: str, **options: Any) -> Conversation:
        """Continue an existing session (reuses its stored system prompt)."""
        with store.read() as conn:
            row = conn.execute("SELECT * FROM sessions WHERE id = ?", (session_id,)).fetchone()
        if row is None:
            raise SessionNotFound(session_id)
        values = dict(row)  # older schemas may lack either column
        conversation = cls(store, config, session_id=session_id, **options)
        conversation.title = values.get("title")
        conversation._system_prompt = values.get("system_prompt") or None
        return conversation

    # -- state -------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self._busy.locked()

    @property
    def system_prompt(self) -> str:
        if self._system_prompt is None:
            self._system_prompt = build_system_prompt(
                self.config.model.system_prompt, self.home, cwd=self.cwd
            )
        return self._system_prompt

    def endpoint(self) -> Endpoint:
        """Resolved on every call, so a key added to ``.env`` works without a restart."""
        return resolve_endpoint(self.config.model, self.home, self._env)

    def flush(self) -> None:
        """Store the streaming reply's text right now (any thread): call it when the app is
        leaving — on exit, SIGHUP, SIGTERM — so nothing already received is lost."""
        turn = self._turn_running
        if turn is not None:
            turn.flush()

    def cancel(self) -> None:
        """Stop the running turn (thread-safe; a no-op when idle)."""
        self._cancel.set()

    def attach(self, path: str | Path) -> Attachment:
        """Queue a file for the next message; raises AttachmentError."""
        attachment = load_attachment(path, self.cwd)
        self.pending_attachments.append(attachment)
        return attachment

    def hold(self) -> Callable[[], None]:
        """Mark the conversation busy (for a command); returns the release function."""
        if not self._busy.acquire(blocking=False):
            raise ConversationBusy("A reply is still streaming; wait for it or press Esc.")
        self._cancel.clear()
        return self._busy.release

    def stopped(self, cancelled: Callable[[], bool] | None = None) -> Callable[[], bool]:
        return lambda: self._cancel.is_set() or (cancelled is not None and cancelled())

    # -- a turn ------------------------------------------------------------------------

    def send(
        self,
        text: str,
        attachments: list[Attachment] | None = None,
        on_event: EventSink = ignore,
        cancelled: Callable[[], bool] | None = None,
    ) -> TurnResult:
        """Store *text* (+ attachments; default: the ones queued by ``attach``) and get the
        reply. Blocking: call from a worker thread. Raises ConversationBusy or ValueError."""
        files = list(self.pending_attachments if attachments is None else attachments)
        if not text.strip() and not files:
            raise ValueError("Nothing to send.")
        if self.handed_off:  # the gateway owns it now; resuming it makes it ours again
            gone = ValueError("This session was handed off; /resume it to continue here.")
            return report_failure(self.session_id, gone, on_event, stored=False)
        release = self.hold()
        try:
            try:
                endpoint = self.endpoint()
            except ModelError as exc:
                return report_failure(self.session_id, exc, on_event, stored=False)
            content = compose_user_text(text, files, endpoint.vision)
            try:
                user_id = self._store_user(content, endpoint, on_event)
            except (*STORE_ERRORS, SessionMoved) as exc:
                return report_failure(self.session_id, exc, on_event, stored=False)
            if attachments is None:
                self.pending_attachments.clear()
            images = [image_part(a) for a in files if a.kind == "image"] if endpoint.vision else []
            return self._turn(endpoint, user_id, images, on_event, cancelled)
        finally:
            release()

    def retry(
        self, on_event: EventSink = ignore, cancelled: Callable[[], bool] | None = None
    ) -> TurnResult:
        """Ask again for a reply to the stored conversation (nothing new is stored first)."""
        release = self.hold()
        try:
            try:
                endpoint = self.endpoint()
            except ModelError as exc:
                return report_failure(self.session_id, exc, on_event, stored=True)
            last_user = last_user_message(self.store, self.session_id)
            if last_user is None:
                nothing = ValueError("There is nothing to retry yet.")
                return report_failure(self.session_id, nothing, on_event, stored=False)
            return self._turn(endpoint, last_user, [], on_event, cancelled)
        finally:
            release()

    def _store_user(self, content: str, endpoint: Endpoint, on_event: EventSink) -> int:
        message = NewMessage("user", content)
        if self.session_id is not None:
            message_id, _ = append_user_message(self.store, self.session_id, message)
        else:
            sid, message_id, applied, problem = create_with_message(
                self.store,
                session_spec(endpoint, self.system_prompt, self.cwd),
                message,
                self.queued_title,
            )
            self.session_id, self.queued_title = sid, None
            on_event(SessionCreated(sid))
            if applied:
                self.title = applied
                on_event(TitleChanged(sid, applied, "queued"))
            if problem:
                on_event(Notice(f"The queued title was not applied: {problem}", "warning"))
        on_event(MessageStored(self.session_id, message_id, "user"))
        return message_id

    def _turn(
        self,
        endpoint: Endpoint,
        user_id: int,
        images: list[dict[str, Any]],
        on_event: EventSink,
        cancelled: Callable[[], bool] | None,
    ) -> TurnResult:
        assert self.session_id is not None
        turn = Turn(
            self.store,
            self.session_id,
            endpoint,
            self.client_factory(endpoint),
            self.system_prompt,
            self.config.model.context_budget,
            on_event,
            self.stopped(cancelled),
        )
        self._turn_running = turn
        try:
            result = turn.run(user_id, {user_id: images} if images else None)
        finally:
            self._turn_running = None
        self.context_tokens = turn.context_tokens or self.context_tokens
        if result.error is None and not result.cancelled:
            self._maybe_title(endpoint, on_event)
        return result

    # -- titles, sessions ----------------------------------------------------------------

    def _free_title(self, raw: str | None, exclude: str | None = None) -> str | None:
        """A cleaned title no other session holds (None clears). Raises TitleError."""
        title = sanitize_title(raw)
        if title is not None:
            with self.store.read() as conn:
                holder = title_holder(conn, title, exclude=exclude)
            if holder is not None:
                raise TitleInUse(title, holder)
        return title

    def set_title(self, raw: str | None) -> tuple[str | None, bool]:
        """Set (or clear) the title; before the first message it is queued and applied with
        the session row. Returns (title, queued). Raises TitleInUse / TitleTooLong."""
        if self.session_id is None:
            self.queued_title = self._free_title(raw)
            return self.queued_title, True
        self.title = rename_session(self.store, self.session_id, sanitize_title(raw))
        self._title_tried = True  # the user's choice: no automatic title over it
        return self.title, False

    def start_new(self, title: str | None = None) -> str | None:
        """Leave this session (ended ``new_session``) for a fresh one, optionally titled.

        The standing notes are read again for the new session. Returns the session left."""
        queued = self._free_title(title)
        release = self.hold()
        try:
            left = self.session_id
            if left is not None and not self.handed_off:
                end_session(self.store, left, "new_session")
            self.session_id = self.title = None
            self.pending_attachments.clear()
            self.handed_off = False
            self.context_tokens = 0
            self._system_prompt = None
            self._title_tried = False
            self.queued_title = queued
            return left
        finally:
            release()

    def _maybe_title(self, endpoint: Endpoint, on_event: EventSink) -> None:
        if not self.auto_title or self._title_tried or self.title or self.session_id is None:
            return
        self._title_tried = True
        session_id = self.session_id

        def work() -> None:
            try:
                title, source = auto_title(self.store, session_id, endpoint, self.client_factory)
            except Exception as exc:  # a background title is never worth a crash
                on_event(Notice(f"No automatic title: {exc}", "warning"))
                return
            if title:
                if self.session_id == session_id:
                    self.title = title
                on_event(TitleChanged(session_id, title, source))  # type: ignore[arg-type]

        thread = threading.Thread(target=work, name="hermes-auto-title", daemon=True)
        self._background.append(thread)
        thread.start()

    def compress(self, cancelled: Callable[[], bool] | None = None) -> Compressed:
        """Summarise and continue in a lineage continuation; this object moves onto it.

        Blocking (it may call the model). Raises NothingToCompress or a StoreError."""
        release = self.hold()
        try:
            if self.session_id is None:
                raise NothingToCompress("Nothing to compress yet: send a message first.")
            try:
                endpoint: Endpoint | None = self.endpoint()
            except ModelError:
                endpoint = None  # the extractive summary needs no model
            result = compress_session(
                self.store,
                self.session_id,
                session_spec(endpoint, self.system_prompt, self.cwd),
                endpoint=endpoint,
                client_factory=self.client_factory,
                system_prompt=self.system_prompt,
                budget=self.config.model.context_budget,
                cancelled=self.stopped(cancelled),
            )
            self.session_id, self.title = result.new_id, result.title
            self.context_tokens = 0
            return result
        finally:
            release()

    def handoff(
        self,
        platform: str,
        *,
        timeout: float = PENDING_TIMEOUT,
        running_timeout: float = RUNNING_TIMEOUT,
        poll: float = POLL_INTERVAL,
        cancelled: Callable[[], bool] | None = None,
        on_progress: Callable[[str], None] | None = None,
    ) -> HandoffOutcome:
        """Hand this session to a messaging gateway (blocking; see :mod:`.handoff`)."""
        name = platform.strip().lower()
        try:
            release = self.hold()
        except ConversationBusy:
            why = "A reply is streaming: wait for it to finish (or press Esc), then /handoff again."
            return HandoffOutcome("refused", why, name)
        try:
            if self.session_id is None:
                return HandoffOutcome(
                    "refused", "Nothing to hand off yet: send a message first.", name
                )
            outcome = hand_off(
                self.store,
                self.session_id,
                name,
                title=self.title or self.session_id,
                home=self.home,
                env=self._env,
                pending_timeout=timeout,
                running_timeout=running_timeout,
                poll=poll,
                cancelled=self.stopped(cancelled),
                on_progress=on_progress,
            )
            self.handed_off = self.handed_off or outcome.completed
            return outcome
        finally:
            release()

    def join_background(self, timeout: float | None = None) -> bool:
        """Wait for background work (titles); True when none is left running."""
        for thread in list(self._background):
            thread.join(timeout)
        self._background = [t for t in self._background if t.is_alive()]
        return not self._background

    def close(self, reason: str = "tui_close") -> bool:
        """End the session row when leaving it (not after a handoff: the gateway owns it)."""
        if self.session_id is None or self.handed_off:
            return False
        try:
            return end_session(self.store, self.session_id, reason)
        except StoreError:
            return False
