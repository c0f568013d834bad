"""The query sanitizer: FTS5 syntax kept, everything else literal, never an FTS5 error."""

from __future__ import annotations

import sqlite3

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hermes_tui.store.search.emit import to_fts5, to_like, to_trigram
from hermes_tui.store.search.sanitize import Leaf, QueryError, classify, leaves, parse_query


def fts(text: str) -> str:
    query = parse_query(text)
    assert query.tree is not None, query.reason
    return to_fts5(query.tree)


@pytest.mark.parametrize(
    ("typed", "expression"),
    [
        ("docker", '"docker"'),
        ("docker kubernetes", '("docker" AND "kubernetes")'),
        ('"exact phrase"', '"exact phrase"'),
        ("docker OR kubernetes", '("docker" OR "kubernetes")'),
        ("python NOT java", '("python" NOT "java")'),
        ("deploy*", '"deploy"*'),
        ('"deploy pipe"*', '"deploy pipe"*'),
        ("(a OR b) c", '(("a" OR "b") AND "c")'),
        # FTS5 precedence: NOT > AND > OR (FTS5 itself rejects "a b OR c"; we do not)
        ("a b OR c", '(("a" AND "b") OR "c")'),
        ("a OR b NOT c", '("a" OR ("b" NOT "c"))'),
        ("a NOT b AND c", '(("a" NOT "b") AND "c")'),
        ("a AND NOT b", '("a" NOT "b")'),
    ],
)
def test_fts5_syntax_is_kept(typed: str, expression: str) -> None:
    assert fts(typed) == expression


@pytest.mark.parametrize(
    ("typed", "expression"),
    [
        ("chat-send", '"chat-send"'),
        ("src/main.py", '"src/main.py"'),
        ("alice@example.com", '"alice@example.com"'),
        ("a:b", '"a:b"'),
        ("content:foo", '"content:foo"'),
        ("print(x)", '"print(x)"'),
        ("(print(x))", '"print(x)"'),
        ('"unbalanced quote', '("unbalanced" AND "quote")'),
        ("((a", '"a"'),
        ("a)", '"a"'),
        ("hello AND", '"hello"'),
        ("OR world", '"world"'),
        ("docker OR", '"docker"'),
        ("a OR OR b", '("a" OR "b")'),
        ("a AND OR b", '("a" AND "b")'),
        ("***deploy*", '"deploy"*'),
        ("a ( ) b", '("a" AND "b")'),
        ("OR", '"OR"'),
        ("AND NOT", '("AND" AND "NOT")'),
        ('say "it"s', '("say" AND "it" AND "s")'),
        ("docker ?", '"docker"'),
        ('he said ""quoted""', '("he" AND "said" AND "quoted")'),
        ("x NOT", '"x"'),
        ("a NOT NOT b", '("a" NOT "b")'),
    ],
)
def test_everything_else_is_literal_or_repaired(typed: str, expression: str) -> None:
    assert fts(typed) == expression


@pytest.mark.parametrize("typed", ["NOT docker", "(NOT docker)", "a OR NOT b"])
def test_not_without_a_left_side_is_a_real_error(typed: str) -> None:
    with pytest.raises(QueryError, match="NOT needs a search term"):
        parse_query(typed)


@pytest.mark.parametrize("typed", ["", "   ", "()", '""', "*", "( )"])
def test_nothing_to_search_has_a_reason(typed: str) -> None:
    query = parse_query(typed)
    assert query.tree is None and query.reason


def test_limits_are_errors_not_silent_truncation() -> None:
    with pytest.raises(QueryError, match="too long"):
        parse_query("x" * 5000)
    with pytest.raises(QueryError, match="too many terms"):
        parse_query(" ".join(f"w{i}" for i in range(100)))


def test_punctuation_only_terms_become_substrings() -> None:
    query = parse_query("?")
    assert query.substring and [leaf.kind for leaf in leaves(query.tree)] == ["substring"]
    query = parse_query("-> ::")
    assert query.substring


@pytest.mark.parametrize(
    ("text", "kind"),
    [("docker", "token"), ("旅行", "substring"), ("서울에서", "substring"),
     ("ラーメン", "substring"), ("修改youer服务端", "substring"), ("--", "punct"),
     ("#123", "token"), ("ภาษาไทย", "substring")],
)  # fmt: skip
def test_classification(text: str, kind: str) -> None:
    assert classify(text) == kind


def test_trigram_expression_expands_short_terms() -> None:
    tree = parse_query("广西 OR 桂林 修改youer服务端").tree
    assert tree is not None
    expanded = to_trigram(tree, lambda text: [text + "x", text + "y"])
    assert expanded == ('(("广西x" OR "广西y") OR (("桂林x" OR "桂林y") AND "修改youer服务端"))')
    # A short term that occurs nowhere: an AND cannot match, an OR drops it.
    assert (
        to_trigram(parse_query("旅行 东京").tree, lambda t: [] if t == "东京" else [t + "!"])
        is None
    )  # type: ignore[arg-type]
    assert (
        to_trigram(parse_query("旅行 OR 东京").tree, lambda t: [] if t == "东京" else [t + "!"])
        == '("旅行!")'
    )  # type: ignore[arg-type]
    # NOT with nothing to exclude keeps the positive side.
    assert (
        to_trigram(parse_query("旅行 NOT 东京").tree, lambda t: [] if t == "东京" else [t + "!"])
        == '("旅行!")'
    )  # type: ignore[arg-type]


def test_like_expression_escapes_wildcards() -> None:
    tree = parse_query("50% NOT a_b").tree
    assert tree is not None
    sql, params = to_like(tree, "c")
    assert sql == "(c LIKE ? ESCAPE '\\' AND NOT c LIKE ? ESCAPE '\\')"
    assert params == ["%50\\%%", "%a\\_b%"]


def test_positive_leaves_skip_the_excluded_side() -> None:
    tree = parse_query("deploy NOT docker").tree
    assert [leaf.text for leaf in leaves(tree, positive_only=True)] == ["deploy"]


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=80))
def test_any_text_parses_or_is_a_query_error_and_never_breaks_fts5(text: str) -> None:
    """Whatever is typed, the emitted expression is valid FTS5 syntax."""
    try:
        query = parse_query(text)
    except QueryError:
        return
    if query.tree is None:
        assert query.reason
        return
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE f USING fts5(content)")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(content, tokenize='trigram')")
    conn.execute("INSERT INTO f VALUES ('some text')")
    if not query.substring:
        conn.execute("SELECT rowid FROM f WHERE f MATCH ?", (to_fts5(query.tree),)).fetchall()
    expression = to_trigram(query.tree, lambda t: [t + "zz"])
    if expression is not None:
        conn.execute("SELECT rowid FROM t WHERE t MATCH ?", (expression,)).fetchall()


@given(st.lists(st.sampled_from(["a", "b", "OR", "AND", "NOT", "(", ")", '"', "*", "-"]),
                max_size=12))  # fmt: skip
def test_operator_soup_never_raises_anything_but_query_error(parts: list[str]) -> None:
    try:
        query = parse_query(" ".join(parts))
    except QueryError:
        return
    if query.tree is not None:
        assert all(isinstance(leaf, Leaf) and leaf.text for leaf in leaves(query.tree))
