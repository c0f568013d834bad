"""`hermes sessions prune|archive|restore|optimize` as a user runs them, on the demo store."""

from __future__ import annotations

import io
import re
import sqlite3
import sys
from contextlib import closing
from pathlib import Path

import pytest
from rich.cells import cell_len

from hermes_tui.__main__ import main


@pytest.fixture
def demo(home: Path, capsys) -> Path:
    assert main(["demo", "--home", str(home)]) == 0
    capsys.readouterr()
    return home


def run(capsys, *argv: str, stdin: str | None = None, monkeypatch=None) -> tuple[int, str, str]:
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(["sessions", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def ids(home: Path) -> set[str]:
    with closing(sqlite3.connect(home / "state.db")) as conn:
        return {r[0] for r in conn.execute("SELECT id FROM sessions")}


HEADER = re.compile(
    r"^(\d+) session\(s\) match \((.+); oldest \d{4}-\d\d-\d\d \d\d:\d\d, "
    r"newest \d{4}-\d\d-\d\d \d\d:\d\d\):$"
)


def test_dry_run_lists_everything_and_changes_nothing(demo: Path, capsys) -> None:
    before = ids(demo)
    code, out, err = run(capsys, "prune", "--older-than", "1h", "--dry-run")
    assert code == 0 and err == "" and "\x1b" not in out
    lines = out.splitlines()
    head = HEADER.match(lines[0])
    assert head and head.group(2).startswith("last active before ")
    count = int(head.group(1))
    rows = [line for line in lines[1:] if re.match(r"^  \S+ +\d{4}-", line)]
    spared = lines[lines.index("Spared:") + 1 : -1]
    assert len(rows) == count + len(spared)
    # The time column starts at the same terminal cell on every row (ids differ in length).
    assert (
        len({cell_len(r[: re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d", r).start()]) for r in rows}) == 1
    )
    assert "  1 open session(s) also match and will NOT be deleted (still open" in out
    assert "  1 pinned session(s) also match" in out and "--include-pinned" in out
    assert "  1 archived session(s) also match" in out and "--include-archived" in out
    assert any(r.endswith("[open]") for r in spared) and any("[pinned]" in r for r in spared)
    assert lines[-1] == "Dry run — nothing deleted."
    assert "周末旅行计划 🗾" in out and "my project #3" in out and "my project #2" not in out
    assert ids(demo) == before


def test_bare_prune_has_the_90_day_default_and_any_filter_removes_it(demo, capsys) -> None:
    code, out, _ = run(capsys, "prune", "--dry-run")
    assert code == 0 and "[the default: 90 days]" in out.splitlines()[0]
    code, out, _ = run(capsys, "prune", "--source", "cron", "--dry-run")
    head = HEADER.match(out.splitlines()[0])
    assert head and head.group(2) == "source 'cron'" and int(head.group(1)) == 3  # every age


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["prune", "--older-than", "3months"], "Error: Invalid value for --older-than: '3months'."),
        (["prune", "--before", "yesterday"], "Error: Invalid value for --before: 'yesterday'."),
        (["prune", "--newer-than", "2d", "--older-than", "5d"], "Error: Empty time window:"),
        (["prune", "--after", "2026-07-05", "--before", "2026-07-01"], "Error: Empty time window"),
        (["prune", "--min-messages", "x"], "Error: Invalid value for --min-messages: 'x'."),
        (["prune", "--min-cost", "3", "--max-cost", "1"], "Error: Empty range: --min-cost 3"),
        (["archive"], "Error: Refusing to archive every ended session: pass at least one filter"),
        (["archive", "--dry-run"], "Error: Refusing to archive every ended session"),
        (["restore", "nope.jsonl"], "Error: No such trash file: nope.jsonl"),
    ],
)
def test_errors_are_one_line_and_non_zero(demo, capsys, argv, message) -> None:
    before = ids(demo)
    code, out, err = run(capsys, *argv)
    assert code == 1 and out == "" and err.startswith(message) and err.count("\n") == 1
    assert ids(demo) == before


def test_no_answer_or_no_input_cancels(demo, capsys, monkeypatch) -> None:
    before = ids(demo)
    for answer in ("n\n", "", "maybe\n"):
        code, out, _ = run(capsys, "prune", "--older-than", "1d", stdin=answer,
                           monkeypatch=monkeypatch)  # fmt: skip
        assert code == 0 and out.rstrip().endswith("Cancelled.")
        assert re.search(r"Delete these \d+ session\(s\) \(oldest .*, newest .*\)\? \[y/N\] ", out)
        assert "… and " in out  # only 15 rows before asking
    assert ids(demo) == before


def test_prune_then_restore(demo, capsys, monkeypatch) -> None:
    before = ids(demo)
    code, out, _ = run(capsys, "prune", "--older-than", "30d", stdin="y\n", monkeypatch=monkeypatch)
    assert code == 0
    pruned = int(re.search(r"\[y/N\] Pruned (\d+) session\(s\)\.$", out, re.M).group(1))
    trash = re.search(r"^Saved to trash: (.+\.jsonl)$", out, re.M).group(1)
    assert f"Undo with: hermes sessions restore {trash}" in out
    assert pruned == 5 and len(before - ids(demo)) == 7  # a lineage of three went as one
    code, out, _ = run(capsys, "restore", Path(trash).name)  # a bare name finds the trash
    assert code == 0 and out.startswith("Restored 7 session(s) (") and ids(demo) == before
    code, out, _ = run(capsys, "restore", trash)
    assert code == 0 and out.startswith("Restored 0 session(s)") and "Skipped 5 conversation" in out
    Path(trash).write_bytes(Path(trash).read_bytes()[:-40])
    code, out, err = run(capsys, "restore", trash)
    assert code == 1 and "nothing was restored" in err and err.count("\n") == 1


def test_yes_skips_the_question_and_no_match_says_so(demo, capsys) -> None:
    code, out, _ = run(capsys, "prune", "--title", "Old laptop", "--yes")
    assert code == 0 and out.startswith("Pruned 1 session(s).") and "Saved to trash:" in out
    code, out, _ = run(capsys, "prune", "--title", "Old laptop", "--yes")
    assert code == 0 and out == "No sessions match (title contains 'Old laptop').\n"


def test_archive_and_unarchive(demo, capsys) -> None:
    code, out, _ = run(capsys, "archive", "--title", "my project", "--yes")
    assert code == 0
    assert out.startswith(
        "Archived 1 session(s). They're hidden from listings but fully recoverable "
        "(nothing was deleted)."
    )
    assert "Undo with: hermes sessions unarchive <id>" in out and "Saved to trash" not in out
    code, out, _ = run(capsys, "list", "--limit", "100")
    assert "my project" not in out
    code, out, _ = run(capsys, "archive", "--title", "my project", "--dry-run")
    assert out.startswith("No sessions match")  # already archived: nothing to do
    code, out, _ = run(capsys, "unarchive", "my project #3")
    assert code == 0 and "3 session(s) in its lineage" in out


def test_optimize(demo, capsys) -> None:
    code, out, _ = run(capsys, "optimize")
    lines = out.splitlines()
    assert code == 0 and lines[0] == "Optimizing session store (FTS merge + VACUUM)…"
    assert lines[1] == "Optimized 2 FTS index(es)."
    assert re.fullmatch(r"Database size: [\d.]+ MB -> [\d.]+ MB \(reclaimed [\d.]+ MB\)", lines[-1])
    writer = sqlite3.connect(demo / "state.db", isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    try:
        code, out, err = run(capsys, "optimize")
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert code == 2 and err.startswith("Error: Another process is writing to the session store")


def test_large_prune_or_restore_refused_while_hermes_has_the_store_open(
    demo, capsys, monkeypatch
) -> None:
    from hermes_tui.cli import prune_cmd

    monkeypatch.setattr(prune_cmd, "LARGE_ROWS", 5)
    before = ids(demo)
    hermes = sqlite3.connect(demo / "state.db")  # a running Hermes keeps its connection
    hermes.execute("SELECT COUNT(*) FROM sessions").fetchone()
    try:
        code, out, err = run(capsys, "prune", "--older-than", "30d", "--yes")
        assert code == 1 and out == "" and err.count("\n") == 1
        assert "Another process has the session store open" in err and "--force" in err
        assert ids(demo) == before
        code, out, _ = run(capsys, "prune", "--older-than", "30d", "--yes", "--force")
        assert code == 0 and out.startswith("Pruned 5 session(s).")
        trash = re.search(r"^Saved to trash: (.+)$", out, re.M).group(1)
        code, _, err = run(capsys, "restore", trash)
        assert code == 1 and "restoring" in err and "--force" in err
        code, out, _ = run(capsys, "restore", trash, "--force")
        assert code == 0 and ids(demo) == before
    finally:
        hermes.close()
    code, out, _ = run(capsys, "prune", "--older-than", "30d", "--yes")  # alone: no guard
    assert code == 0 and out.startswith("Pruned 5 session(s).")
