"""How discovery orders hits: BM25 relevance blended with recency, cron last.

For each candidate message (see :mod:`.discovery` for how the candidates are chosen)::

    relevance = BM25 of the message for the query's terms   # k1 = 1.2, b = 0.75
    age_days  = max(0, now - message.timestamp) / 86400
    recency   = FLOOR + (1 - FLOOR) * 0.5 ** (age_days / HALF_LIFE_DAYS)
    score     = relevance * recency

with ``FLOOR = 0.3`` and ``HALF_LIFE_DAYS = 90``: a message from yesterday keeps ~100% of
its relevance, three months ~65%, a year ~34%, two years ~30%. Equal text therefore always
ranks the newer conversation first, while an old message about three times as relevant
still beats a fresh passing mention.

BM25 is FTS5's own formula (the one behind ``bm25()``, whose values are this relevance
negated), computed here over the candidates: term frequency = occurrences of each positive
term (the snippet matcher: whole words, phrases, prefixes, CJK substrings), document
length = characters of the indexed text, and IDF ``ln(1 + (N - df + 0.5) / (df + 0.5))``
with ``df`` and ``N`` counted among the candidates. FTS5's ``bm25()`` is not used because
it computes each term's IDF by reading *every* occurrence of the term in the store: about
9 ms per very common word, 20–30 ms per phrase (``"database migration"``, or
``v2.1.3-beta``, a four-word phrase to unicode61), a full prefix expansion again for
``deploy*`` — more than the rest of a search. (For a single term IDF is a common factor and
does not change the order; across terms, the candidates' proportions stand in for the
store's.) BM25 divides by document length, and hits are scored per *message* and then
de-duplicated per conversation (first hit per lineage wins), so a marathon session gets one
result from its best message — not one point per message it contains.

Order keys: relevance — ``(cron?, -score, -timestamp)``; ``newest`` — ``(cron?,
-timestamp, -score)``; ``oldest`` — ``(cron?, timestamp, -score)``. ``cron`` sessions come
after the user's own conversations in every order (demoted, not excluded), as in Hermes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from .models import SortOrder
from .sanitize import Leaf
from .snippet import leaf_pattern

FLOOR = 0.3
K1 = 1.2
B = 0.75
TF_SCAN = 20_000
HALF_LIFE_DAYS = 90.0
DAY = 86_400.0
DEMOTED_SOURCES = frozenset({"cron"})


@dataclass(frozen=True, slots=True)
class Candidate:
    """A matching message before ranking."""

    message_id: int
    session_id: str
    role: str
    timestamp: float
    source: str
    relevance: float


def recency(timestamp: float, now: float) -> float:
    age_days = max(0.0, now - timestamp) / DAY
    return FLOOR + (1.0 - FLOOR) * 0.5 ** (age_days / HALF_LIFE_DAYS)


def bm25(texts: Sequence[str], terms: Sequence[Leaf], substring: bool) -> list[float]:
    """BM25 of each text for the positive *terms*, statistics from *texts* themselves."""
    patterns = [p for p in (leaf_pattern(t, substring) for t in terms) if p is not None]
    if not texts or not patterns:
        return [1.0] * len(texts)
    tfs = [[len(p.findall(text[:TF_SCAN])) for p in patterns] for text in texts]
    n = len(texts)
    avg = max(1.0, sum(len(t) for t in texts) / n)
    idf = []
    for j in range(len(patterns)):
        df = sum(1 for row in tfs if row[j])
        idf.append(math.log(1.0 + (n - df + 0.5) / (df + 0.5)))
    out = []
    for text, row in zip(texts, tfs, strict=True):
        norm = K1 * (1.0 - B + B * len(text) / avg)
        total = sum(w * (tf * (K1 + 1.0)) / (tf + norm) for w, tf in zip(idf, row, strict=True))
        if total <= 0.0:  # FTS5 says it matches (e.g. folded diacritics): one occurrence
            total = min(idf) * (K1 + 1.0) / (1.0 + norm)
        out.append(total)
    return out


def score(candidate: Candidate, now: float) -> float:
    return candidate.relevance * recency(candidate.timestamp, now)


def order(
    candidates: list[Candidate], now: float, sort: SortOrder
) -> list[tuple[Candidate, float]]:
    """*candidates* with their scores, best first for *sort*."""
    scored = [(c, score(c, now)) for c in candidates]

    def demoted(c: Candidate) -> bool:
        return c.source in DEMOTED_SOURCES

    if sort == "newest":
        scored.sort(key=lambda p: (demoted(p[0]), -p[0].timestamp, -p[1], -p[0].message_id))
    elif sort == "oldest":
        scored.sort(key=lambda p: (demoted(p[0]), p[0].timestamp, -p[1], p[0].message_id))
    else:
        scored.sort(key=lambda p: (demoted(p[0]), -p[1], -p[0].timestamp, -p[0].message_id))
    return scored
