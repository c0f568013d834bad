"""Title rules: cleaning, the 100-character limit, uniqueness, lineage numbering."""

from __future__ import annotations

import sqlite3

import pytest

from hermes_tui.store import (
    NewSession,
    Store,
    TitleInUse,
    TitleTooLong,
    create_session,
    get_session,
    rename_session,
)
from hermes_tui.store.titles import (
    derive_title,
    next_title_in_lineage,
    resolve_title,
    sanitize_title,
    split_lineage,
)


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("  hello   world  ", "hello world"),
        ("a\u200bb", "ab"),
        ("tab\there\nnl", "tab here nl"),
        ("\x00\x01ctl\x7f", "ctl"),
        ("   ", None),
        ("", None),
        (None, None),
        ("x\u200c\u200d\u200e\u200fy", "xy"),  # zero-width and direction marks
        ("a\u2028b\u2029c", "abc"),  # line/paragraph separators
        ("\u202aemb\u202b\u202c\u202d\u202eed", "embed"),  # bidi embeddings and overrides
        ("iso\u2066\u2067\u2068\u2069late\u2060", "isolate"),  # isolates, word joiner
        ("bom\ufeff\ufff9\ufffa\ufffb\ufffcx", "bomx"),  # BOM, annotation chars, object
        ("lone \ud800 surrogate", "lone surrogate"),
        ("\x0b\x0cvt ff\x1b", "vt ff"),
        ("周末旅行计划 🗾", "周末旅行计划 🗾"),  # CJK and emoji are fine
        ("Café [/plan — plan mode]", "Café [/plan — plan mode]"),  # brackets are kept
    ],
)
def test_sanitize_title(raw: str | None, clean: str | None) -> None:
    assert sanitize_title(raw) == clean


def test_title_length_limit_counts_after_cleaning() -> None:
    assert sanitize_title("x" * 100) == "x" * 100
    assert sanitize_title("  " + "x" * 100 + "\u200b  ") == "x" * 100
    with pytest.raises(TitleTooLong, match=r"Title too long \(101 chars, max 100\)"):
        sanitize_title("x" * 101)


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("my project #2", ("my project", 2)),
        ("my project #12", ("my project", 12)),
        ("my project", ("my project", None)),
        ("my project #bar", ("my project #bar", None)),
        ("my project #２", ("my project #２", None)),  # full-width digit is not ASCII
        ("my project#2", ("my project#2", None)),  # the space is part of the rule
        ("X #2 #5", ("X #2", 5)),
        ("#3", ("#3", None)),
    ],
)
def test_split_lineage_is_strict(title: str, expected: tuple[str, int | None]) -> None:
    assert split_lineage(title) == expected


def _titled(store: Store, *titles: str, start: float = 1_000.0) -> list[str]:
    return [
        create_session(store, NewSession(source="cli", title=t, started_at=start + i))
        for i, t in enumerate(titles)
    ]


def test_lineage_numbering(store: Store) -> None:
    conn = sqlite3.connect(store.path)
    conn.row_factory = sqlite3.Row
    assert next_title_in_lineage(conn, "my project") == "my project"
    _titled(store, "my project")
    assert next_title_in_lineage(conn, "my project") == "my project #2"
    _titled(store, "my project #2", "my project #3", start=2_000)
    assert next_title_in_lineage(conn, "my project") == "my project #4"
    assert next_title_in_lineage(conn, "my project #2") == "my project #4"
    # Look-alikes are not members and do not move the counter.
    _titled(
        store, "my project #bar", "my project #９", "my project #2 #5", "My Project #7", start=3_000
    )
    assert next_title_in_lineage(conn, "my project") == "my project #4"
    assert next_title_in_lineage(conn, "my project #2 #5") == "my project #2 #6"
    assert next_title_in_lineage(conn, "My Project") == "My Project #8"


def test_resolve_title_prefers_newest_numbered_member(store: Store) -> None:
    conn = sqlite3.connect(store.path)
    conn.row_factory = sqlite3.Row
    base, second, third = _titled(store, "my project", "my project #2", "my project #3")
    hijack = _titled(store, "my project #bar", "my project #２", start=9_000)
    assert resolve_title(conn, "my project") == third
    assert resolve_title(conn, "my project #2") == second
    assert resolve_title(conn, "my project #bar") == hijack[0]
    assert resolve_title(conn, "nothing like it") is None
    solo = _titled(store, "solo")[0]
    assert resolve_title(conn, "solo") == solo
    assert base


def test_uniqueness_error_names_the_holder(store: Store) -> None:
    first, second = _titled(store, "deploy notes", "other")
    with pytest.raises(
        TitleInUse, match=f"Title 'deploy notes' is already in use by session {first}"
    ):
        rename_session(store, second, "deploy   notes")
    assert get_session(store, second).title == "other"
    # Case differs: a different title.
    assert rename_session(store, second, "Deploy Notes") == "Deploy Notes"


def test_rename_cleans_and_clears(store: Store) -> None:
    [sid] = _titled(store, "start")
    assert rename_session(store, sid, "  new\u200b  name\n") == "new name"
    assert get_session(store, sid).title == "new name"
    assert rename_session(store, sid, " \u200b ") is None
    assert get_session(store, sid).title is None
    with pytest.raises(TitleTooLong):
        rename_session(store, sid, "y" * 101)
    assert get_session(store, sid).title is None


def test_title_held_by_compression_ancestor_moves_to_the_tip(store: Store, make_session) -> None:
    root = make_session(title="refactor", end_reason="compression")
    tip = make_session(parent=root, ago=100)
    rename_session(store, tip, "refactor")
    assert get_session(store, tip).title == "refactor"
    assert get_session(store, root).title is None
    unrelated = make_session(title="unrelated")
    with pytest.raises(TitleInUse):
        rename_session(store, unrelated, "refactor")


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("How do I list open ports on linux? I tried netstat.", "How do I list open ports on"),
        ("fix the flaky CI test", "fix the flaky CI test"),
        (
            "<workspace_context active='true'>repo</workspace_context>\nplan the release",
            "plan the release",
        ),
        ("/plan", None),
        ("[SYSTEM: you are a bot]", None),
        ("帮我规划一下周末旅行，预算两千元。然后订票", "帮我规划一下周末旅行，预算两千元"),
        ("", None),
        ("`ss -tulpn` shows ports", "ss -tulpn shows ports"),
    ],
)
def test_derived_titles(text: str, title: str | None) -> None:
    assert derive_title(text) == title
