"""`hermes demo` and `hermes sessions …` as a user runs them."""

from __future__ import annotations

import io
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from rich.cells import cell_len

from hermes_tui.__main__ import main
from hermes_tui.store import Store, get_session, list_sessions


@pytest.fixture
def demo_home(home: Path) -> Path:
    """The demo store, built in the test's HERMES_HOME (it carries the demo marker)."""
    assert main(["demo", "--home", str(home)]) == 0
    return home


def run(capsys: pytest.CaptureFixture[str], *argv: str, stdin: str | None = None,
        monkeypatch: pytest.MonkeyPatch | None = None) -> tuple[int, str, str]:  # fmt: skip
    if stdin is not None and monkeypatch is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_demo_then_list_shows_conversations_aligned(demo_home: Path, capsys) -> None:
    capsys.readouterr()
    code, out, err = run(capsys, "sessions", "list", "--limit", "50")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith("Title") and set(lines[1]) == {"─"}
    data = [line for line in lines[2:] if line.strip() and not line.startswith("Showing")]
    # The ID column starts at the same terminal cell on every row, CJK and emoji included.
    starts = {cell_len(line[: line.rindex(" ") + 1]) for line in data}
    assert starts == {62}, starts
    text = "\n".join(data)
    for expected in (
        "周末旅行计划 🗾",
        "my project #3",
        "[/plan — plan mode]",
        "📌 Deployment runbook",
    ):
        assert expected in text
    assert "Old experiments" not in text  # archived
    assert "my project #2" not in text  # lineage shown once, as its tip
    assert "\x1b" not in out


def test_list_json_and_filters(demo_home: Path, capsys) -> None:
    capsys.readouterr()
    code, out, _ = run(capsys, "sessions", "list", "--json", "--limit", "100")
    rows = json.loads(out)
    assert code == 0 and len(rows) == len({r["id"] for r in rows}) == 21
    lineage = next(r for r in rows if r["title"] == "my project #3")
    assert lineage["segments"] == 3 and lineage["root_id"] != lineage["id"]
    code, out, _ = run(capsys, "sessions", "list", "--source", "telegram", "--json")
    assert {r["source"] for r in json.loads(out)} == {"telegram"}
    code, out, _ = run(capsys, "sessions", "list", "--workspace", "scratch")
    assert "quick question" in out and "Src" in out.splitlines()[0]
    code, out, _ = run(capsys, "sessions", "list", "--source", "nothing")
    assert out.strip() == "No sessions found."


def test_stats_text_and_json(demo_home: Path, capsys) -> None:
    capsys.readouterr()
    code, out, _ = run(capsys, "sessions", "stats")
    assert code == 0
    assert out.splitlines()[0] == "Total sessions: 25"
    assert "  telegram: 3 sessions" in out and "  slack: 1 session" in out
    assert "Database size:" in out
    code, out, _ = run(capsys, "sessions", "stats", "--json")
    data = json.loads(out)
    assert data["total_sessions"] == 25 and data["archived_sessions"] == 1
    assert data["by_source"]["cli"] == 13 and data["pinned_sessions"] == 1


def test_rename_pin_unpin_delete(demo_home: Path, capsys, monkeypatch) -> None:
    store = Store.open(demo_home / "state.db")
    rows = {r.title: r for r in list_sessions(store, limit=100).items}
    flaky = rows["Fix flaky CI tests"].id
    capsys.readouterr()
    code, out, _ = run(capsys, "sessions", "rename", flaky[:15], "Flaky", "CI", "\u200bfix")
    assert code == 0 and out.strip() == f"Session '{flaky}' renamed to: Flaky CI fix"
    assert get_session(store, flaky).title == "Flaky CI fix"
    code, _, err = run(capsys, "sessions", "rename", flaky, "Deployment", "runbook")
    assert code == 1 and err.startswith("Error: Title 'Deployment runbook' is already in use")
    assert len(err.strip().splitlines()) == 1
    code, out, _ = run(capsys, "sessions", "pin", flaky)
    assert code == 0 and "Pinned" in out
    code, out, _ = run(capsys, "sessions", "pinned", "--json")
    assert {r["id"] for r in json.loads(out)} == {flaky, rows["Deployment runbook"].id}
    code, out, _ = run(capsys, "sessions", "unpin", flaky)
    assert code == 0 and not get_session(store, flaky).pinned
    # delete: "n" and end of input cancel; "y" deletes the conversation (lineage included).
    lineage = rows["my project #3"]
    for answer in ("n\n", ""):
        code, out, _ = run(
            capsys, "sessions", "delete", lineage.id, stdin=answer, monkeypatch=monkeypatch
        )
        assert code == 0 and "Cancelled." in out
    assert get_session(store, lineage.root_id) is not None
    code, out, _ = run(
        capsys, "sessions", "delete", lineage.id, stdin="y\n", monkeypatch=monkeypatch
    )
    assert code == 0 and f"Deleted session '{lineage.id}'." in out and "3 sessions" in out
    assert get_session(store, lineage.root_id) is None
    # The last line is the undo, and it works as printed.
    undo = out.strip().splitlines()[-1]
    assert undo.startswith("Saved to the trash; undo with: hermes sessions restore ")
    code, out, _ = run(capsys, *shlex.split(undo.split("hermes ", 1)[1]))
    assert code == 0 and get_session(store, lineage.root_id) is not None
    assert {r.title for r in list_sessions(store, limit=100).items} >= {"my project #3"}


def test_unarchive(demo_home: Path, capsys) -> None:
    store = Store.open(demo_home / "state.db")
    from hermes_tui.store import ListQuery

    [archived] = list_sessions(store, ListQuery(archived="only")).items
    capsys.readouterr()
    code, out, _ = run(capsys, "sessions", "unarchive", archived.id)
    assert code == 0 and "Unarchived" in out
    assert not get_session(store, archived.id).archived
    code, out, _ = run(capsys, "sessions", "unarchive", archived.id)
    assert "was not archived" in out


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["sessions", "rename", "nope", "x"], "Session 'nope' not found."),
        (["sessions", "delete", "2026", "--yes"], "matches"),
        (["sessions", "pin", "nope"], "not found"),
        (["sessions", "list", "--limit", "0"], "--limit must be at least 1"),
    ],
)
def test_errors_are_one_line_and_non_zero(demo_home: Path, capsys, argv, expected) -> None:
    capsys.readouterr()
    code, out, err = run(capsys, *argv)
    assert code != 0 and out == ""
    assert expected in err and len(err.strip().splitlines()) == 1


def test_store_problems_are_reported_with_the_path(home: Path, capsys) -> None:
    code, _, err = run(capsys, "sessions", "list")
    assert code == 2 and str(home / "state.db") in err and "hermes demo" in err
    home.mkdir(parents=True, exist_ok=True)
    (home / "state.db").write_bytes(b"garbage" * 500)
    code, _, err = run(capsys, "sessions", "stats")
    assert code == 2 and "damaged" in err and len(err.strip().splitlines()) == 1


def test_demo_never_overwrites_real_history(tmp_path: Path, capsys) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (real / "state.db").write_bytes(b"precious")
    code, _, err = run(capsys, "demo", "--home", str(real))
    assert code == 1 and "not a hermes demo folder" in err
    assert (real / "state.db").read_bytes() == b"precious"
    demo = tmp_path / "demo"
    assert main(["demo", "--home", str(demo)]) == 0
    code, out, _ = run(capsys, "demo", "--home", str(demo))
    assert code == 0 and "already exists" in out and "--force" in out
    assert main(["demo", "--home", str(demo), "--force"]) == 0


def test_console_script_prints_no_traceback(home: Path) -> None:
    env = {**os.environ, "HERMES_HOME": str(home)}
    result = subprocess.run(
        [sys.executable, "-m", "hermes_tui", "sessions", "delete", "missing", "--yes"],
        capture_output=True, text=True, env=env, timeout=60,
    )  # fmt: skip
    assert result.returncode != 0
    assert "Traceback" not in result.stderr and str(home / "state.db") in result.stderr
