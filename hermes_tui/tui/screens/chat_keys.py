"""The chat pane's keys (ids remappable via tui.keymap in config.yaml)."""

from __future__ import annotations

from textual.binding import Binding

CHAT_BINDINGS = [
    Binding(
        "pageup",
        "page_up",
        "Page up",
        show=False,
        id="chat.page_up",
        tooltip="Scroll up (loads older messages at the top), even while typing",
    ),
    Binding("pagedown", "page_down", "Page down", show=False, id="chat.page_down"),
    Binding("escape", "back", "Back", id="chat.back", tooltip="Back to the browser"),
    Binding("b", "back", "Back", show=False, id="chat.back_b"),
    Binding(
        "left_square_bracket", "older", "Older", id="chat.older", tooltip="Load older messages"
    ),
    Binding(
        "right_square_bracket",
        "newer",
        "Newer",
        show=False,
        id="chat.newer",
        tooltip="Load newer messages",
    ),
    Binding("R", "toggle_recap", "Recap", id="chat.recap", tooltip="Show or hide the recap"),
    Binding("j", "next_message", "Next", show=False, id="chat.next"),
    Binding("k", "previous_message", "Previous", show=False, id="chat.previous"),
    Binding("i", "focus_input", "Write", id="chat.input", tooltip="Write a message"),
    Binding(
        "h",
        "toggle_history",
        "History",
        id="chat.history",
        tooltip="Show the pre-compression history kept by in-place compaction",
    ),
]
