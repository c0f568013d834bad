"""The prune/archive wizard: action → filters (live match count) → dry-run preview (untick
rows) → typed confirmation → progress → result with the undo hint.

Nothing changes before the final confirmation; Esc leaves at any step with the store as it
was. The preview's ids are what is executed, re-checked in the same transaction (a row
that changed meanwhile is reported, not included).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import ContentSwitcher, DataTable, Footer, Input, ProgressBar, Static
from textual.worker import get_current_worker

from ...store import Cancelled, StoreError
from ...store.execute import ExecuteResult, Progress, execute
from ...store.filters import SessionFilter, build_filter
from ...store.prune import Preview, archive_selection, preview, prune_selection
from ...store.timevalues import FilterError
from ..widgets.wizard_steps import ActionStep, ConfirmStep, FilterStep, PreviewStep

if TYPE_CHECKING:
    from ..app import HermesApp

STEPS = ("action", "filters", "preview", "confirm")


@dataclass
class Previewed(Message):
    generation: int
    preview: Preview | None
    error: str = ""


@dataclass
class Progressed(Message):
    progress: Progress

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, Progressed)


@dataclass
class Finished(Message):
    result: ExecuteResult | None
    error: str = ""


class WizardScreen(Screen[bool]):
    """Dismisses with True when something was changed (the browser then reloads)."""

    BINDINGS = [
        Binding("escape", "leave", "Leave", id="wizard.leave", tooltip="Leave; nothing changes"),
        Binding("n", "next", "Next", id="wizard.next", tooltip="The next step"),
        Binding("b", "back", "Back", id="wizard.back", tooltip="The previous step"),
        Binding(
            "space",
            "toggle_row",
            "Untick",
            id="wizard.untick",
            tooltip="Leave this conversation out (or back in)",
        ),
        Binding("pagedown", "next", "Next", show=False, id="wizard.next_page"),
        Binding("pageup", "back", "Back", show=False, id="wizard.back_page"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.step = "action"
        self.values: dict[str, Any] = {"older_than": "90d"}
        self.generation = 0
        self.preview: Preview | None = None
        self.unticked: set[str] = set()
        self.running = False
        self.changed = False
        self._timer: Timer | None = None

    @property
    def hermes(self) -> HermesApp:
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        yield Static(id="wizard-title")
        with ContentSwitcher(initial="action", id="wizard-steps"):
            yield ActionStep(id="action")
            yield FilterStep(id="filters")
            yield PreviewStep(id="preview")
            yield ConfirmStep(id="confirm")
        with Vertical(id="wizard-run"):
            yield ProgressBar(id="wizard-bar", show_eta=False)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#wizard-run").display = False
        self._show("action")

    # -- moving between steps ------------------------------------------------------

    def _show(self, step: str) -> None:
        self.step = step
        self.query_one("#wizard-steps", ContentSwitcher).current = step
        action = self.query_one(ActionStep).action
        names = {
            "action": "1 action",
            "filters": "2 filters",
            "preview": "3 dry run",
            "confirm": "4 confirm",
        }
        trail = "  ›  ".join(f"[{n}]" if s == step else n for s, n in names.items())
        self.query_one("#wizard-title", Static).update(f"{action.title()} conversations   {trail}")
        if step == "filters":
            self.query_one("#field-older_than", Input).focus()
            self._recount()
        elif step == "preview":
            self.query_one("#wizard-matches", DataTable).focus()
        elif step == "confirm" and self.preview is not None:
            count = self.preview.count - len(self.unticked)
            self.query_one(ConfirmStep).ask(self.preview.action, count, self._messages())
            self.query_one("#wizard-typed", Input).focus()
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.running and action in ("next", "back", "leave", "toggle_row"):
            return False
        if action == "toggle_row":
            return self.step == "preview"
        if action == "back":
            return self.step != "action"
        if action == "next":
            return self.step in ("action", "filters", "preview")
        return True

    def action_next(self) -> None:
        if self.step == "action":
            self._show("filters")
        elif self.step == "filters":
            if self.preview is None or self.preview.count == 0:
                self.notify("No conversation matches yet: change the filters.", markup=False)
                return
            self._show("preview")
            self.query_one(PreviewStep).show(self.preview, self.unticked)
        elif self.step == "preview":
            if self.preview is None or self.preview.count == len(self.unticked):
                self.notify("Every row is unticked: nothing to do.", markup=False)
                return
            self._show("confirm")

    def action_back(self) -> None:
        index = STEPS.index(self.step)
        if index:
            self._show(STEPS[index - 1])

    def action_leave(self) -> None:
        self.dismiss(self.changed)

    @on(Input.Submitted, "#field-older_than, .wizard-input")
    def _filters_done(self) -> None:
        self.action_next()

    @on(DataTable.RowSelected, "#wizard-matches")
    def _row_selected(self) -> None:
        self.action_toggle_row()

    # -- filters and the live count ------------------------------------------------

    @on(FilterStep.Changed)
    def _filters_changed(self, event: FilterStep.Changed) -> None:
        self.values = event.values
        self.unticked.clear()
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(0.3, self._recount)

    def _selection(self) -> Any:
        values = dict(self.values)
        include_pinned = bool(values.pop("include_pinned", False))
        include_archived = bool(values.pop("include_archived", False))
        now = self.hermes.now()
        given: SessionFilter = build_filter(values, now)
        if self.query_one(ActionStep).action == "archive":
            return archive_selection(given, include_pinned=include_pinned)
        return prune_selection(
            given, now=now, include_pinned=include_pinned, include_archived=include_archived
        )

    def _recount(self) -> None:
        self.generation += 1
        try:
            selection = self._selection()
        except FilterError as error:
            self.preview = None
            self.query_one(FilterStep).show_count(str(error), error=True)
            return
        self.query_one(FilterStep).show_count("counting…")
        self._preview(self.generation, selection)

    @work(thread=True, exclusive=True, group="wizard-preview", exit_on_error=False)
    def _preview(self, generation: int, selection: Any) -> None:
        worker = get_current_worker()
        try:
            result = preview(
                self.hermes.store(),
                selection,
                now=self.hermes.now(),
                cancelled=lambda: worker.is_cancelled,
            )
        except Cancelled:
            return
        except (StoreError, FilterError) as error:
            text = error.one_line() if isinstance(error, StoreError) else str(error)
            self.post_message(Previewed(generation, None, text))
            return
        self.post_message(Previewed(generation, result))

    def on_previewed(self, message: Previewed) -> None:
        if message.generation != self.generation:
            return
        self.preview = message.preview
        step = self.query_one(FilterStep)
        if message.preview is None:
            step.show_count(message.error, error=True)
            return
        p = message.preview
        spared = sum(p.spared_counts().values())
        extra = f"; {spared:,} spared (open, pinned or archived)" if spared else ""
        step.show_count(
            f"{p.count:,} conversation{'s' * (p.count != 1)} match{extra}. "
            "n: see them (nothing changes yet)"
        )

    # -- the preview ---------------------------------------------------------------

    def action_toggle_row(self) -> None:
        step = self.query_one(PreviewStep)
        row = step.current
        if self.preview is None or row is None:
            return
        match = next(m for m in self.preview.matches if m.id == row)
        if row in self.unticked:
            self.unticked.discard(row)
        else:
            self.unticked.add(row)
        step.tick(match, row not in self.unticked)
        step.summarize(self.preview, self.unticked)

    def _messages(self) -> int:
        if self.preview is None:
            return 0
        return sum(m.messages for m in self.preview.matches if m.id not in self.unticked)

    # -- confirm and run -----------------------------------------------------------

    @on(Input.Submitted, "#wizard-typed")
    def _typed(self, event: Input.Submitted) -> None:
        if self.preview is None:
            return
        count = self.preview.count - len(self.unticked)
        if event.value.strip() != str(count):
            self.notify(f"Type {count} to confirm (or b to go back).", markup=False)
            return
        only = [m.id for m in self.preview.matches if m.id not in self.unticked]
        self.running = True
        self.query_one("#wizard-typed", Input).disabled = True
        self.query_one("#wizard-run").display = True
        self.query_one("#wizard-bar", ProgressBar).update(total=len(only), progress=0)
        self.refresh_bindings()
        self._execute(self.preview, only)

    @work(thread=True, exclusive=True, group="wizard-run", exit_on_error=False)
    def _execute(self, preview_: Preview, only: list[str]) -> None:
        try:
            result = execute(
                self.hermes.store(),
                preview_,
                only=only,
                progress=lambda p: self.post_message(Progressed(p)),
            )
        except (StoreError, Cancelled, ValueError) as error:
            text = error.one_line() if isinstance(error, StoreError) else str(error)
            self.post_message(Finished(None, text or "cancelled"))
            return
        self.post_message(Finished(result))

    def on_progressed(self, message: Progressed) -> None:
        p = message.progress
        self.query_one("#wizard-bar", ProgressBar).update(total=max(1, p.total), progress=p.done)
        self.query_one(ConfirmStep).progress([f"{p.phase}… {p.done:,} of {p.total:,}"])

    def on_finished(self, message: Finished) -> None:
        self.running = False
        self.refresh_bindings()
        step = self.query_one(ConfirmStep)
        if message.result is None:
            step.progress([f"Nothing was changed: {message.error}"])
            self.notify(f"Nothing was changed: {message.error}", severity="error", markup=False)
            return
        result = message.result
        self.changed = result.count > 0
        lines = [_result_line(result)]
        for changed in result.changed[:5]:
            lines.append(f"  left alone: {changed.id} — {changed.reason}")
        if result.action == "prune":
            for path in result.trash:
                lines.append(f"Undo with:  hermes sessions restore {path}")
        else:
            lines.append("Undo: show archived conversations in the browser (A), then a.")
        lines.append("Esc returns to the browser.")
        step.progress(lines)
        self.query_one("#wizard-bar", ProgressBar).update(progress=result.count)


def _result_line(result: ExecuteResult) -> str:
    verb = "Pruned" if result.action == "prune" else "Archived"
    extra = f", {result.messages:,} messages" if result.action == "prune" else ""
    sessions = len(result.session_ids)
    return f"{verb} {result.count:,} conversation(s) ({sessions:,} sessions{extra})."
