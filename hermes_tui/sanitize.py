"""Stripping what must never reach a terminal from stored text (no dependencies).

Stored titles, messages and tool output are untrusted: an escape sequence could clear the
screen, retitle the window or write the clipboard, and a bidi override could disguise what
is shown. Everything shown — by the CLI, the TUI and the recap — passes through :func:`clean`.
"""

from __future__ import annotations

import re

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
