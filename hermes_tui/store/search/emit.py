"""Emitting a parsed query (:mod:`.sanitize`) for each index: an FTS5 MATCH expression for
unicode61, one for the trigram table, or an SQL ``LIKE`` condition for the fallback."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .sanitize import Leaf, Tree


def quote(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def to_fts5(tree: Tree) -> str:
    """The unicode61 MATCH expression: every leaf a quoted phrase, groups parenthesised."""
    if isinstance(tree, Leaf):
        return quote(tree.text) + ("*" if tree.prefix else "")
    if tree.op == "NOT":
        return f"({to_fts5(tree.children[0])} NOT {to_fts5(tree.children[1])})"
    return "(" + f" {tree.op} ".join(to_fts5(child) for child in tree.children) + ")"


TRIGRAM = 3
Expander = Callable[[str], Sequence[str]]


def to_trigram(tree: Tree, expand: Expander) -> str | None:
    """The trigram MATCH expression (every leaf a substring), or None if nothing can match.

    A leaf of three or more characters is a trigram phrase: its text as a substring. A
    shorter one is the OR of the indexed trigrams that begin with it (``expand``): every
    occurrence of a one- or two-character string is followed by at least two more
    characters in the indexed text (the separators Hermes appends), so it begins one.
    """
    if isinstance(tree, Leaf):
        if len(tree.text) >= TRIGRAM:
            return quote(tree.text)
        terms = expand(tree.text)
        if not terms:
            return None
        return "(" + " OR ".join(quote(term) for term in terms) + ")"
    parts = [to_trigram(child, expand) for child in tree.children]
    if tree.op == "NOT":
        positive, negative = parts
        if positive is None:
            return None
        return positive if negative is None else f"({positive} NOT {negative})"
    if tree.op == "AND":
        if any(part is None for part in parts):
            return None
        return "(" + " AND ".join(p for p in parts if p) + ")"
    kept = [p for p in parts if p is not None]
    if not kept:
        return None
    return kept[0] if len(kept) == 1 else "(" + " OR ".join(kept) + ")"


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def to_like(tree: Tree, column: str) -> tuple[str, list[str]]:
    """An SQL condition matching every leaf as a substring of *column* (the bounded
    fallback when the store has no trigram index)."""
    if isinstance(tree, Leaf):
        return f"{column} LIKE ? ESCAPE '\\'", [f"%{_escape_like(tree.text)}%"]
    parts = [to_like(child, column) for child in tree.children]
    params = [p for _, ps in parts for p in ps]
    if tree.op == "NOT":
        return f"({parts[0][0]} AND NOT {parts[1][0]})", params
    return "(" + f" {tree.op} ".join(sql for sql, _ in parts) + ")", params
