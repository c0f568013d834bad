"""What `hermes -r/-c/--in` opens: every resolution rule, breadcrumbs and workspaces."""

from __future__ import annotations

import json
import sqlite3
import stat
from pathlib import Path

import pytest

from hermes_tui.__main__ import main
from hermes_tui.config import Config, parse_config
from hermes_tui.resume import StartError, plan_start
from hermes_tui.store import AmbiguousReference, SessionNotFound, Store, delete_conversation
from hermes_tui.store.terminals import (
    folder,
    read_breadcrumb,
    terminal_identity,
    write_breadcrumb,
)

from ..conftest import NOW


@pytest.fixture
def world(store: Store, make_session, tmp_path: Path) -> dict[str, str]:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "sub").mkdir()
    plain = tmp_path / "plain"
    plain.mkdir()
    ids = {"repo": str(repo), "plain": str(plain)}
    ids["a"] = make_session(
        session_id="20261101_100000_aaa111",
        ago=90_000,
        cwd=str(repo),
        git_root=str(repo),
        messages=[("user", "repo work")],
    )
    ids["b"] = make_session(
        session_id="20261101_100000_aaa222",
        ago=80_000,
        cwd=str(plain),
        messages=[("user", "plain work")],
    )
    root = make_session(title="my project", end_reason="compression", ago=70_000)
    ids["p2"] = make_session(
        title="my project #2", parent=root, ago=60_000, messages=[("user", "continued")]
    )
    ids["bar"] = make_session(title="my project #bar", ago=10, messages=[("user", "look-alike")])
    ids["root"] = root
    ids["newest"] = make_session(ago=5, messages=[("user", "newest of all")], cwd="/gone/dir")
    return ids


def plan(
    store: Store, cwd: Path, env: dict[str, str] | None = None, config: Config | None = None, **kw
):  # type: ignore[no-untyped-def]
    return plan_start(store.path, config or Config(), env or {}, cwd, **kw)


def test_resume_rules(store: Store, world: dict[str, str], tmp_path: Path) -> None:
    assert plan(store, tmp_path, resume="20261101_100000_aaa111").session_id == world["a"]
    assert plan(store, tmp_path, resume="20261101_100000_aaa2").session_id == world["b"]
    with pytest.raises(AmbiguousReference) as info:
        plan(store, tmp_path, resume="20261101_100000_aaa")
    assert world["a"] in str(info.value) and world["b"] in str(info.value)
    assert plan(store, tmp_path, resume="my project").session_id == world["p2"]
    assert plan(store, tmp_path, resume="my project #bar").session_id == world["bar"]
    assert plan(store, tmp_path, resume=world["root"]).session_id == world["p2"]  # tip
    assert plan(store, tmp_path, resume="latest").session_id == world["newest"]
    assert plan(store, tmp_path, continue_=["my", "project"]).session_id == world["p2"]
    for ref in ("nope", "my project #3"):
        with pytest.raises(SessionNotFound):
            plan(store, tmp_path, resume=ref)


def test_two_terminals_continue_their_own_sessions(store: Store, world, tmp_path) -> None:
    left = {"TMUX": "/tmp/tmux-0/default,1,0", "TMUX_PANE": "%1"}
    right = {"TMUX": "/tmp/tmux-0/default,1,0", "TMUX_PANE": "%2"}
    write_breadcrumb(store.home, terminal_identity(left), world["a"])
    write_breadcrumb(store.home, terminal_identity(right), world["root"])
    assert plan(store, tmp_path, left, continue_=[]).session_id == world["a"]
    assert plan(store, tmp_path, right, continue_=[]).session_id == world["p2"]  # tip
    elsewhere = {"KITTY_WINDOW_ID": "7", "KITTY_PID": "99"}
    assert plan(store, tmp_path, elsewhere, continue_=[]).session_id == world["newest"]
    for path in folder(store.home).iterdir():
        assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_deleted_expired_and_disabled_breadcrumbs_fall_back(store, world, tmp_path) -> None:
    env = {"WEZTERM_PANE": "3"}
    identity = terminal_identity(env)
    write_breadcrumb(store.home, identity, world["b"])
    assert plan(store, tmp_path, env, continue_=[]).session_id == world["b"]
    off = parse_config({"session": {"terminal_continue": False}})
    assert plan(store, tmp_path, env, off, continue_=[]).session_id == world["newest"]
    write_breadcrumb(store.home, identity, world["b"], now=NOW - 31 * 86_400)
    assert read_breadcrumb(store.home, identity, now=NOW) is None
    write_breadcrumb(store.home, identity, world["b"])
    delete_conversation(store, world["b"])
    assert plan(store, tmp_path, env, continue_=[]).session_id == world["newest"]


def test_breadcrumb_files_are_robust(home: Path) -> None:
    identity = terminal_identity({}, tty="/dev/pts/4")
    assert identity == "tty:/dev/pts/4"
    assert terminal_identity({"TMUX_PANE": "%0"}) != terminal_identity({"TMUX_PANE": "%1"})
    assert read_breadcrumb(home, identity) is None
    write_breadcrumb(home, identity, "x")
    [path] = folder(home).iterdir()
    path.write_text("{not json")
    assert read_breadcrumb(home, identity) is None
    path.write_text(json.dumps({"terminal": "someone else", "session_id": "x", "updated_at": 1e12}))
    assert read_breadcrumb(home, identity) is None


def test_in_dir_picks_the_workspace_and_implies_no_restore(store, world, tmp_path) -> None:
    inside = Path(world["repo"]) / "sub"
    p = plan(store, tmp_path, resume="latest", in_dir=str(inside))
    assert (p.session_id, p.workspace, p.chdir, p.notices) == (
        world["a"],
        world["repo"],
        inside.resolve(),
        (),
    )
    p = plan(store, tmp_path, continue_=[], in_dir=world["plain"])
    assert (p.session_id, p.workspace) == (world["b"], str(Path(world["plain"]).resolve()))
    p = plan(store, tmp_path, in_dir=world["plain"])
    assert p.session_id is None and p.workspace == str(Path(world["plain"]).resolve())
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(SessionNotFound):
        plan(store, tmp_path, resume="latest", in_dir=str(empty))
    with pytest.raises(StartError):
        plan(store, tmp_path, resume="latest", in_dir=str(tmp_path / "missing"))


def test_restoring_the_workspace(store, world, tmp_path) -> None:
    p = plan(store, tmp_path, resume=world["a"])
    assert p.chdir == Path(world["repo"])
    assert p.notices == (f"↪ restored workspace: {world['repo']}",)
    p = plan(store, Path(world["repo"]), resume=world["a"])
    assert p.chdir is None and p.notices == ()  # already there
    p = plan(store, tmp_path, resume=world["a"], no_restore_cwd=True)
    assert p.chdir is None
    p = plan(store, tmp_path, resume="latest")  # its recorded dir is gone: a warning only
    assert p.session_id == world["newest"] and p.chdir is None
    assert p.notices[0].startswith("⚠ session's recorded workspace is gone (/gone/dir)")


def _rows(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT COUNT(*) FROM sessions").fetchone()[0]


def test_unknown_reference_exits_non_zero_and_creates_nothing(store, world, capsys) -> None:
    before = _rows(store.path)
    for argv in (["-r", "nope"], ["--tui", "-c", "no", "such", "title"], ["-r", "2026"]):
        assert main(argv) == 1
        err = capsys.readouterr().err
        assert err.strip() and "Traceback" not in err
    assert _rows(store.path) == before


def test_no_store_yet_is_an_error_not_a_new_store(home: Path, capsys) -> None:
    assert main(["-c"]) == 2
    assert "No session store yet" in capsys.readouterr().err
    assert not (home / "state.db").exists()
