"""Terminal-facing text helpers for the CLI and the TUI: cleaning and cell widths.

Not part of the store layer: widths are Rich's, so the CLI and the TUI measure alike.
"""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size

from .sanitize import clean

__all__ = ["cell_width", "clean", "fit"]


def cell_width(text: str) -> int:
    """Terminal cells *text* occupies (CJK and emoji are two cells wide), as Rich measures."""
    return cell_len(text)


def fit(text: str, width: int) -> str:
    """Cut *text* to at most *width* cells and pad it with spaces to exactly *width*."""
    return set_cell_size(text, max(0, width))
