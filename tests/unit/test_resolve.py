"""Resolving what a user types: id, unique prefix, title, lineage, latest, compression tip."""

from __future__ import annotations

import pytest

from hermes_tui.store import (
    AmbiguousReference,
    SessionNotFound,
    Store,
    resolve_reference,
)


@pytest.fixture
def sessions(store: Store, make_session) -> dict[str, str]:
    ids = {
        "a": make_session(
            session_id="20261101_100000_aaa111", ago=50_000, messages=[("user", "x")]
        ),
        "b": make_session(
            session_id="20261101_100000_aaa222", ago=40_000, messages=[("user", "y")]
        ),
        "c": make_session(session_id="20261102_090000_bbb333", ago=30_000, title="deploy notes"),
    }
    root = make_session(title="my project", end_reason="compression", ago=20_000)
    second = make_session(title="my project #2", parent=root, end_reason="compression", ago=19_000)
    tip = make_session(title="my project #3", parent=second, ago=18_000, messages=[("user", "z")])
    ids.update(root=root, second=second, tip=tip)
    ids["fresh"] = make_session(ago=10, ended=False, messages=[("user", "newest")])
    return ids


def test_exact_id(store: Store, sessions: dict[str, str]) -> None:
    assert resolve_reference(store, "20261101_100000_aaa111") == sessions["a"]


def test_unique_prefix(store: Store, sessions: dict[str, str]) -> None:
    assert resolve_reference(store, "20261102") == sessions["c"]
    assert resolve_reference(store, "20261101_100000_aaa2") == sessions["b"]


def test_ambiguous_prefix_lists_candidates(store: Store, sessions: dict[str, str]) -> None:
    with pytest.raises(AmbiguousReference) as info:
        resolve_reference(store, "20261101_100000_aaa")
    assert set(info.value.candidates) == {sessions["a"], sessions["b"]}
    assert sessions["a"] in str(info.value) and sessions["b"] in str(info.value)


def test_title_and_lineage_member(store: Store, sessions: dict[str, str]) -> None:
    assert resolve_reference(store, "deploy notes") == sessions["c"]
    assert resolve_reference(store, "my project") == sessions["tip"]
    assert resolve_reference(store, "my project #2") == sessions["second"]


def test_follow_tip_from_any_segment(store: Store, sessions: dict[str, str]) -> None:
    for ref in (sessions["root"], sessions["second"], "my project #2"):
        assert resolve_reference(store, ref, follow_tip=True) == sessions["tip"]


def test_latest_is_the_most_recently_active_conversation(
    store: Store, sessions: dict[str, str]
) -> None:
    assert resolve_reference(store, "latest") == sessions["fresh"]
    assert resolve_reference(store, "LATEST") == sessions["fresh"]


def test_latest_of_a_workspace_projects_to_tip(store: Store, make_session, tmp_path) -> None:
    ws = str(tmp_path / "proj")
    root = make_session(
        git_root=ws, cwd=ws, end_reason="compression", ago=500, messages=[("user", "a")]
    )
    tip = make_session(git_root=ws, cwd=ws, parent=root, ago=400, messages=[("user", "b")])
    make_session(ago=5, messages=[("user", "elsewhere, newer")])
    assert resolve_reference(store, "latest", workspace=ws) == tip


@pytest.mark.parametrize("ref", ["nope", "", "  ", "2027", "deploy"])
def test_unknown_references(store: Store, sessions: dict[str, str], ref: str) -> None:
    with pytest.raises(SessionNotFound):
        resolve_reference(store, ref)


def test_latest_on_an_empty_store(store: Store) -> None:
    with pytest.raises(SessionNotFound):
        resolve_reference(store, "latest")
