"""What a user types → a search expression that cannot be a syntax error.

The query language is FTS5's: terms (implicit AND), ``"exact phrases"``, ``AND``, ``OR``,
``NOT`` (binary: ``a NOT b``), ``prefix*`` and parentheses, with FTS5's precedence
(``NOT`` > ``AND`` > ``OR``). Everything else is literal text:

* Every term is emitted as a *quoted* FTS5 phrase (``"`` doubled), so punctuation never
  reaches FTS5's parser: ``chat-send`` → ``"chat-send"`` (the phrase *chat send*),
  ``src/main.py``, ``alice@example.com``, ``a:b``, ``50%`` and ``#123`` likewise. The
  unicode61 tokenizer splits them exactly as it split the stored text, so the literal is
  found.
* Repairs instead of errors: an unbalanced ``"`` is a space, unmatched parentheses are
  dropped, ``(`` / ``)`` inside a word (``print(x)``) are part of the word, ``AND``/``OR``
  without a left or right side are dropped (so ``docker OR`` while typing still searches),
  ``a AND NOT b`` means ``a NOT b``, and a query made only of operators (``OR``) searches
  those words. Only one thing is a genuine error, reported as such: ``NOT`` with nothing on
  its left (``NOT docker``) — FTS5 cannot express "everything except".
* Terms with no letters or digits (``?``, ``--``) are dropped when the query has words;
  a query made only of them is searched as literal text (substrings).
* Chinese, Japanese, Korean (and Thai, Lao, Khmer, Myanmar) are written without spaces, so
  unicode61 sees a whole clause as one token and ``旅行`` would never match. A term in those
  scripts is a *substring* term, and a query with one is run against the trigram index,
  every term as a case-insensitive substring (see :mod:`.discovery`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

MAX_QUERY_CHARS = 2048
MAX_TERMS = 64

Kind = Literal["token", "substring", "punct"]
Op = Literal["AND", "OR", "NOT"]


class QueryError(ValueError):
    """A query that has a real error (shown to the user as an error, never as 0 results)."""


@dataclass(frozen=True, slots=True)
class Leaf:
    """One search term: a word or a quoted phrase, as typed."""

    text: str
    prefix: bool = False
    quoted: bool = False
    kind: Kind = "token"


@dataclass(frozen=True, slots=True)
class Node:
    """``AND``/``OR`` over two or more children; ``NOT`` is (positive, negative)."""

    op: Op
    children: tuple[Tree, ...]


Tree = Leaf | Node


@dataclass(frozen=True, slots=True)
class Query:
    """A parsed query: ``tree`` is None when nothing searchable is left (``reason`` says why)."""

    text: str
    tree: Tree | None
    reason: str | None = None

    @property
    def substring(self) -> bool:
        """True when the query must run on the trigram index (a substring term is present)."""
        return any(leaf.kind == "substring" for leaf in leaves(self.tree))


# -- characters ------------------------------------------------------------------------

_CONTINUA = (
    (0x0E00, 0x0EFF),  # Thai, Lao
    (0x1000, 0x109F),  # Myanmar
    (0x1780, 0x17FF),  # Khmer
    (0x1100, 0x11FF),  # Hangul Jamo
    (0x2E80, 0x2FDF),  # CJK radicals
    (0x3000, 0x303F),  # CJK symbols and punctuation
    (0x3040, 0x30FF),  # Hiragana, Katakana
    (0x3100, 0x31FF),  # Bopomofo, Hangul compatibility Jamo, Katakana extensions
    (0x3400, 0x4DBF),  # CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xA960, 0xA97F),  # Hangul Jamo extended A
    (0xAC00, 0xD7FF),  # Hangul syllables, Jamo extended B
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFF65, 0xFFDC),  # half-width Katakana and Hangul
    (0x20000, 0x3134F),  # CJK extensions B–G
)


def is_continua_char(ch: str) -> bool:
    """A character of a script written without spaces between words."""
    code = ord(ch)
    return any(lo <= code <= hi for lo, hi in _CONTINUA)


def has_continua(text: str) -> bool:
    return any(ord(ch) >= 0x0E00 and is_continua_char(ch) for ch in text)


def has_token_chars(text: str) -> bool:
    """Letters or digits (what unicode61 keeps as token characters)."""
    return any(ch.isalnum() for ch in text)


def classify(text: str) -> Kind:
    if has_continua(text):
        return "substring"
    return "token" if has_token_chars(text) else "punct"


# -- lexing ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Tok:
    kind: Literal["term", "op", "lp", "rp"]
    leaf: Leaf | None = None
    op: Op | None = None


_OPS: dict[str, Op] = {"AND": "AND", "OR": "OR", "NOT": "NOT"}


def _word_tokens(word: str) -> Iterator[_Tok]:
    """A bare word: leading ``(``, the term, trailing ``)`` not balanced inside the word."""
    opened = len(word) - len(word.lstrip("("))
    yield from (_Tok("lp") for _ in range(opened))
    core = word[opened:]
    trailing = len(core) - len(core.rstrip(")"))
    inner_open = core.count("(")
    closing = max(0, trailing - inner_open)
    if closing:
        core = core[:-closing]
    if core in _OPS:
        yield _Tok("op", op=_OPS[core])
    elif core:
        stripped = core.rstrip("*")
        prefix = len(stripped) < len(core)
        stripped = stripped.lstrip("*")
        if stripped:
            yield _Tok("term", Leaf(stripped, prefix=prefix))
    yield from (_Tok("rp") for _ in range(closing))


def _lex(text: str) -> list[_Tok]:
    toks: list[_Tok] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
            continue
        if ch == '"':
            end = text.find('"', i + 1)
            if end < 0:  # an unbalanced quote is a space
                i += 1
                continue
            phrase = text[i + 1 : end]
            i = end + 1
            prefix = False
            while i < n and text[i] == "*":
                prefix = True
                i += 1
            if phrase.strip():
                toks.append(_Tok("term", Leaf(phrase, prefix=prefix, quoted=True)))
            continue
        start = i
        while i < n and not text[i].isspace() and text[i] != '"':
            i += 1
        toks.extend(_word_tokens(text[start:i]))
    return toks


def _balance(toks: list[_Tok]) -> list[_Tok]:
    """Drop unmatched parentheses and empty groups."""
    stack: list[int] = []
    unmatched: set[int] = set()
    for index, tok in enumerate(toks):
        if tok.kind == "lp":
            stack.append(index)
        elif tok.kind == "rp":
            if stack:
                stack.pop()
            else:
                unmatched.add(index)
    unmatched.update(stack)
    return [tok for index, tok in enumerate(toks) if index not in unmatched]


def _repair(toks: list[_Tok]) -> list[_Tok]:
    """Make operators well placed: drop dangling AND/OR, ``AND NOT`` → ``NOT``.

    Raises :class:`QueryError` for ``NOT`` with no left side."""
    if not any(t.kind == "term" for t in toks):
        # Only operators (and parentheses): search the words themselves.
        return [_Tok("term", Leaf(t.op or "")) for t in toks if t.kind == "op"]
    out: list[_Tok] = []
    for tok in toks:
        prev = out[-1] if out else None
        if tok.kind == "op":
            if prev is None or prev.kind in ("op", "lp"):
                if tok.op == "NOT" and prev is not None and prev.op == "AND":
                    out[-1] = tok
                elif tok.op == "NOT" and prev is not None and prev.op == "NOT":
                    continue
                elif tok.op == "NOT":
                    raise QueryError(
                        "NOT needs a search term on its left: write `deploy NOT docker` "
                        "(FTS5 cannot search for everything except a word)"
                    )
                continue
            out.append(tok)
        elif tok.kind == "rp":
            while out and out[-1].kind == "op":
                out.pop()
            if out and out[-1].kind == "lp":
                out.pop()  # an empty group
                continue
            out.append(tok)
        else:
            out.append(tok)
    while out and out[-1].kind == "op":
        out.pop()
    return out


class _Parser:
    """Recursive descent with FTS5's precedence: OR < AND (explicit or implicit) < NOT."""

    def __init__(self, toks: Sequence[_Tok]) -> None:
        self.toks = toks
        self.pos = 0

    def peek(self) -> _Tok | None:
        return self.toks[self.pos] if self.pos < len(self.toks) else None

    def parse(self) -> Tree | None:
        tree = self.or_expr()
        while (tok := self.peek()) is not None:  # defensive: AND any leftover on
            if tok.kind in ("term", "lp"):
                more = self.or_expr()
                tree = _join("AND", [t for t in (tree, more) if t is not None])
            else:
                self.pos += 1
        return tree

    def or_expr(self) -> Tree | None:
        parts = [self.and_expr()]
        while (tok := self.peek()) is not None and tok.op == "OR":
            self.pos += 1
            parts.append(self.and_expr())
        return _join("OR", [p for p in parts if p is not None])

    def and_expr(self) -> Tree | None:
        parts = [self.not_expr()]
        while (tok := self.peek()) is not None and (tok.op == "AND" or tok.kind in ("term", "lp")):
            if tok.op == "AND":
                self.pos += 1
            parts.append(self.not_expr())
        return _join("AND", [p for p in parts if p is not None])

    def not_expr(self) -> Tree | None:
        tree = self.primary()
        while (tok := self.peek()) is not None and tok.op == "NOT":
            self.pos += 1
            negative = self.primary()
            if tree is not None and negative is not None:
                tree = Node("NOT", (tree, negative))
        return tree

    def primary(self) -> Tree | None:
        tok = self.peek()
        if tok is None:
            return None
        if tok.kind == "lp":
            self.pos += 1
            inner = self.or_expr()
            if (close := self.peek()) is not None and close.kind == "rp":
                self.pos += 1
            return inner
        if tok.kind == "term":
            self.pos += 1
            return tok.leaf
        return None


def _join(op: Op, parts: list[Tree]) -> Tree | None:
    if not parts:
        return None
    if len(parts) == 1:
        return parts[0]
    flat: list[Tree] = []
    for part in parts:
        if isinstance(part, Node) and part.op == op:
            flat.extend(part.children)
        else:
            flat.append(part)
    return Node(op, tuple(flat))


# -- classification and pruning ----------------------------------------------------------


def leaves(tree: Tree | None, positive_only: bool = False) -> Iterator[Leaf]:
    """The terms of *tree* (with *positive_only*, not those on the right of a NOT)."""
    if tree is None:
        return
    if isinstance(tree, Leaf):
        yield tree
        return
    children = tree.children[:1] if positive_only and tree.op == "NOT" else tree.children
    for child in children:
        yield from leaves(child, positive_only)


def _map_leaves(tree: Tree | None, fn: Callable[[Leaf], Tree | None]) -> Tree | None:
    """Rebuild *tree* with each leaf replaced by ``fn(leaf)``; None removes it."""
    if tree is None:
        return None
    if isinstance(tree, Leaf):
        return fn(tree)
    if tree.op == "NOT":
        positive = _map_leaves(tree.children[0], fn)
        negative = _map_leaves(tree.children[1], fn)
        if positive is None:
            return None
        return positive if negative is None else Node("NOT", (positive, negative))
    kept = [c for c in (_map_leaves(child, fn) for child in tree.children) if c is not None]
    return _join(tree.op, kept)


_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_query(text: str) -> str:
    """Control characters cannot be typed into a search and NUL would cut the expression
    short inside SQLite: they become spaces. Lone surrogates (from JSON) cannot be encoded
    at all: they become U+FFFD."""
    return _SURROGATE.sub("\ufffd", _UNSAFE.sub(" ", text))


def parse_query(text: str) -> Query:
    """Parse and repair *text*. Raises :class:`QueryError` only for genuine errors."""
    if len(text) > MAX_QUERY_CHARS:
        raise QueryError(f"Query too long ({len(text):,} characters; at most {MAX_QUERY_CHARS:,})")
    tree = _Parser(_repair(_balance(_lex(clean_query(text))))).parse()
    if tree is None:
        return Query(text, None, "Nothing to search for: the query has no words.")
    classified = _map_leaves(
        tree, lambda leaf: Leaf(leaf.text, leaf.prefix, leaf.quoted, classify(leaf.text))
    )
    kinds = {leaf.kind for leaf in leaves(classified)}
    if kinds == {"punct"}:
        final = _map_leaves(
            classified, lambda leaf: Leaf(leaf.text, False, leaf.quoted, "substring")
        )
    else:
        final = _map_leaves(classified, lambda leaf: None if leaf.kind == "punct" else leaf)
    if final is None:
        return Query(text, None, "Nothing to search for: the query has no words.")
    count = sum(1 for _ in leaves(final))
    if count > MAX_TERMS:
        raise QueryError(f"Query has too many terms ({count}; at most {MAX_TERMS})")
    return Query(text, final)
