"""The browser's keys: each has an id (remappable via tui.keymap in config.yaml), a
description for the footer and palette, and a tooltip for the help screen."""

from __future__ import annotations

from textual.binding import Binding

BROWSER_BINDINGS = [
    Binding("n", "new_chat", "New", id="browser.new", tooltip="Start a new conversation"),
    Binding("enter", "open", "Open", id="browser.open", tooltip="Resume this conversation"),
    Binding(
        "f",
        "filter",
        "Filter",
        id="browser.filter",
        tooltip="Type to filter by title, preview or id",
    ),
    Binding(
        "w",
        "toggle_workspace",
        "Workspace",
        id="browser.workspace",
        tooltip="This workspace only / all workspaces",
    ),
    Binding("s", "cycle_source", "Source", id="browser.source", tooltip="Cycle the source"),
    Binding(
        "S",
        "pick_source",
        "Pick source",
        show=False,
        id="browser.pick_source",
        tooltip="Choose a source from a list",
    ),
    Binding(
        "A",
        "cycle_archived",
        "Archived",
        show=False,
        id="browser.archived",
        tooltip="Hide / include / only archived conversations",
    ),
    Binding(
        "o",
        "toggle_sort",
        "Sort",
        id="browser.sort",
        tooltip="Sort by last activity or by start",
    ),
    Binding(
        "P",
        "toggle_pinned_first",
        "Pinned first",
        show=False,
        id="browser.pinned_first",
        tooltip="Pinned conversations on top or in place",
    ),
    Binding("r", "rename", "Rename", id="browser.rename", tooltip="Rename this conversation"),
    Binding("p", "toggle_pin", "Pin", id="browser.pin", tooltip="Pin or unpin"),
    Binding(
        "a",
        "toggle_archive",
        "Archive",
        id="browser.archive",
        tooltip="Archive or unarchive (reversible)",
    ),
    Binding(
        "d",
        "delete",
        "Delete",
        id="browser.delete",
        tooltip="Delete the whole conversation (asks first)",
    ),
    Binding(
        "e",
        "export",
        "Export",
        id="browser.export",
        tooltip="Export this conversation (Markdown, HTML, JSONL, trace)",
    ),
    Binding(
        "x",
        "prune_wizard",
        "Prune",
        id="browser.prune",
        tooltip="Prune or archive many conversations: filters, dry run, confirm, undo",
    ),
    Binding(
        "y",
        "copy_resume",
        "Copy cmd",
        id="browser.copy",
        tooltip="Copy `hermes --resume <id>` to the clipboard",
    ),
    Binding(
        "ctrl+r",
        "reload",
        "Reload",
        show=False,
        id="browser.reload",
        tooltip="Reload the list from the store",
    ),
]
