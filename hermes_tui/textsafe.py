"""Making stored text safe to put on a terminal, and measuring it in cells.

Not part of the store layer (it uses Rich's cell widths, so the CLI and the TUI agree).

Stored titles, messages and tool output are untrusted: an escape sequence could clear the
screen, retitle the window or write the clipboard, and a bidi override could disguise what
is shown. Both the CLI and the TUI pass stored text through :func:`clean` before display.
"""

from __future__ import annotations

import re

from rich.cells import cell_len, set_cell_size

# C0 controls except tab and newline, DEL, C1 controls; bidi embeddings/overrides/isolates.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")
# A whole escape sequence (CSI / OSC / DCS …) is dropped, not just its ESC byte, so no
# "[2J"-style residue reaches the screen.
_ESCAPES = re.compile(
    r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[PX^_][^\x1b]*(?:\x1b\\)?|.)",
    re.DOTALL,
)


def clean(text: str | None, *, keep_newlines: bool = True) -> str:
    """Strip escape sequences, C0/C1 controls and bidi overrides; tabs become spaces."""
    if not text:
        return ""
    text = _ESCAPES.sub("", text)
    text = _UNSAFE.sub("", text).replace("\t", "    ").replace("\r", "")
    if not keep_newlines:
        text = " ".join(text.split())
    return text


def cell_width(text: str) -> int:
    """Terminal cells *text* occupies (CJK and emoji are two cells wide), as Rich measures."""
    return cell_len(text)


def fit(text: str, width: int) -> str:
    """Cut *text* to at most *width* cells and pad it with spaces to exactly *width*."""
    return set_cell_size(text, max(0, width))
