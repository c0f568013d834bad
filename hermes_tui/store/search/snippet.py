"""Snippets: the part of a matching message around what the query found, highlighted.

Computed in Python for the few results returned only (never for every hit, and never with
FTS5's ``snippet()``, which re-runs a prefix query's full doclist merge for each row). Word
terms match whole words case-insensitively, separated by anything that is not a letter or
digit (as unicode61 splits them: ``chat-send`` finds ``chat send`` and ``chat_send``);
``prefix*`` terms match word starts; substring terms (CJK) match anywhere. Only terms on
the positive side of ``NOT`` are highlighted. The window is the stretch of about
:data:`WIDTH` characters holding the most different terms, whitespace collapsed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .models import Segment
from .sanitize import Leaf

WIDTH = 200
LEAD = 60
MAX_SCAN = 200_000
ELLIPSIS = "..."
_WORD = re.compile(r"[^\W_]+")
_SPACES = re.compile(r"\s+")


def leaf_pattern(leaf: Leaf, substring: bool) -> re.Pattern[str] | None:
    if substring or leaf.kind == "substring":
        return re.compile(re.escape(leaf.text), re.IGNORECASE)
    words = _WORD.findall(leaf.text)
    if not words:
        return None
    body = r"[\W_]+".join(re.escape(w) for w in words)
    tail = r"[^\W_]*" if leaf.prefix else r"(?![^\W_])"
    return re.compile(rf"(?<![^\W_]){body}{tail}", re.IGNORECASE)


def find_spans(text: str, terms: Sequence[Leaf], substring: bool) -> list[tuple[int, int, int]]:
    """(start, end, term index) of every match, in text order."""
    spans: list[tuple[int, int, int]] = []
    scan = text[:MAX_SCAN]
    for index, leaf in enumerate(terms):
        pattern = leaf_pattern(leaf, substring)
        if pattern is None:
            continue
        for count, match in enumerate(pattern.finditer(scan)):
            if match.end() > match.start():
                spans.append((match.start(), match.end(), index))
            if count >= 500:
                break
    spans.sort()
    return spans


def _best_start(text: str, spans: list[tuple[int, int, int]]) -> int:
    best, best_terms = 0, -1
    spans = spans[:1000]
    for start, _, _ in spans[:300]:
        lo = max(0, start - LEAD)
        hi = lo + WIDTH
        distinct = len({t for s, e, t in spans if s >= lo and e <= hi})
        if distinct > best_terms:
            best, best_terms = lo, distinct
    if best > 0:
        # Start at a word boundary when one is near.
        space = text.find(" ", best, best + 20)
        first_match = min((s for s, _, _ in spans if s >= best), default=best)
        if 0 <= space < first_match:
            best = space + 1
    return best


def build_snippet(text: str | None, terms: Sequence[Leaf], substring: bool) -> tuple[Segment, ...]:
    """The highlighted excerpt of *text* (empty when there is no text)."""
    if not text:
        return ()
    spans = find_spans(text, terms, substring)
    start = _best_start(text, spans) if spans else 0
    end = min(len(text), start + WIDTH)
    # Never cut a highlighted match in two.
    for s, e, _ in spans:
        if s < end < e:
            end = e
    merged: list[tuple[int, int]] = []
    for s, e, _ in spans:
        if e <= start or s >= end:
            continue
        s, e = max(s, start), min(e, end)
        if merged and s <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], e))
        else:
            merged.append((s, e))
    segments: list[Segment] = []
    if start > 0:
        segments.append(Segment(ELLIPSIS))
    cursor = start
    for s, e in merged:
        if s > cursor:
            segments.append(Segment(text[cursor:s]))
        segments.append(Segment(text[s:e], match=True))
        cursor = e
    if cursor < end:
        segments.append(Segment(text[cursor:end]))
    if end < len(text):
        segments.append(Segment(ELLIPSIS))
    return _flatten(segments)


def _flatten(segments: list[Segment]) -> tuple[Segment, ...]:
    """Collapse whitespace (a snippet is one line) and drop empty pieces."""
    out: list[Segment] = []
    for segment in segments:
        text = _SPACES.sub(" ", segment.text)
        if not text:
            continue
        if out and out[-1].match == segment.match:
            out[-1] = Segment(out[-1].text + text, segment.match)
        else:
            out.append(Segment(text, segment.match))
    if out and not out[0].match:
        out[0] = Segment(out[0].text.lstrip(), False)
    if out and not out[-1].match:
        out[-1] = Segment(out[-1].text.rstrip(), False)
    return tuple(s for s in out if s.text)


def has_match(segments: Sequence[Segment]) -> bool:
    return any(s.match for s in segments)
