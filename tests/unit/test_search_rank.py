"""The ranking formula: BM25 over the candidates, times a recency factor."""

from __future__ import annotations

import pytest

from hermes_tui.store.search.rank import DAY, Candidate, bm25, order, recency
from hermes_tui.store.search.sanitize import leaves, parse_query

NOW = 1_796_000_000.0


def terms(query: str):
    return list(leaves(parse_query(query).tree, positive_only=True))


def test_recency_factor() -> None:
    assert recency(NOW, NOW) == pytest.approx(1.0)
    assert recency(NOW - DAY, NOW) == pytest.approx(0.995, abs=1e-3)
    assert recency(NOW - 90 * DAY, NOW) == pytest.approx(0.65)
    assert recency(NOW - 365 * DAY, NOW) == pytest.approx(0.342, abs=1e-3)
    assert recency(NOW - 730 * DAY, NOW) == pytest.approx(0.303, abs=1e-3)
    assert recency(NOW + DAY, NOW) == pytest.approx(1.0)  # a clock skewed into the future


def test_bm25_prefers_more_occurrences_in_shorter_text() -> None:
    short, focused, long = bm25(
        ["kiwi", "kiwi kiwi kiwi", "kiwi " + "filler " * 50], terms("kiwi"), False
    )
    assert focused > short > long > 0


def test_bm25_weighs_the_rarer_term_of_an_or() -> None:
    texts = ["docker"] * 8 + ["xylophone", "docker xylophone"]
    scores = bm25(texts, terms("docker OR xylophone"), False)
    assert scores[8] > 5 * scores[0] and scores[9] > 5 * scores[0]


def test_bm25_matches_words_phrases_prefixes_and_substrings() -> None:
    once, twice = bm25(
        ["use chat-send here", "chat-send then chat_send"], terms("chat-send"), False
    )
    assert twice > once > 0
    deploy, deploy_twice = bm25(["deployment done", "deployed, deploying"], terms("deploy*"), False)
    assert deploy_twice > deploy > 0
    assert bm25(["周末旅行计划"], terms("旅行"), True)[0] > 0


def test_every_candidate_found_by_fts_scores_above_zero() -> None:
    # FTS5 folds diacritics, the matcher does not: the match still counts, as one occurrence.
    assert bm25(["café"], terms("cafe"), False)[0] > 0


def test_order_demotes_cron_in_every_sort() -> None:
    def cand(i: int, source: str, ts: float, rel: float) -> Candidate:
        return Candidate(i, f"s{i}", "user", ts, source, rel)

    pool = [
        cand(1, "cron", NOW, 10.0),
        cand(2, "cli", NOW - 30 * DAY, 1.0),
        cand(3, "cli", NOW, 2.0),
    ]
    for sort, expected in (("relevance", [3, 2, 1]), ("newest", [3, 2, 1]), ("oldest", [2, 3, 1])):
        assert [c.message_id for c, _ in order(pool, NOW, sort)] == expected  # type: ignore[arg-type]
