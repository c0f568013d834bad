"""``hermes sessions export`` as a user runs it: outputs, Hermes' wording, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hermes_tui.__main__ import main
from hermes_tui.store import Store
from tests.exporting import MASKED, SECRET, ExportStore, build


@pytest.fixture
def ex(store: Store) -> ExportStore:
    return build(store)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["sessions", "export", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--format", "md"], "Error: Refusing bulk export without a filter. Pass --session-id"),
        (["--format", "html", "x.html"], "Error: Refusing bulk export without a filter."),
        ([], "Error: JSONL export requires an output path (use - for stdout)."),
        (["--format", "pdf", "x"], "Error: Unknown export format 'pdf'. Use one of: jsonl, md,"),
        (["--session-id", "nope", "x.jsonl"], "Session 'nope' not found."),
        (["--format", "trace", "--upload"], "Error: hermes_tui never uploads anything"),
        (["--format", "html", "--session-id", "2026", "x.html"], "Error: "),
        (["--dry-run"], "Error: --dry-run requires at least one filter."),
        (["--only", "user-prompts", "--format", "html", "--source", "cli", "x.html"],
         "Error: --only user-prompts supports --format jsonl or md."),
        (["--format", "md", "--session-id", "20261115", "--delete-after-verified"],
         "Error: --delete-after-verified needs --yes"),
        (["--format", "md", "--older-than", "3months"], "Error: Invalid value for --older-than"),
        (["--format", "md", "--session-id", "20261115", "-"], "Error: Markdown/QMD export writes"),
        (["--format", "html", "--source", "cli"], "Error: HTML export requires an output file"),
        (["--format", "jsonl", "--lineage", "logical", "--source", "cli", "x.jsonl"],
         "Error: --lineage logical supports --format md, qmd or html."),
    ],
)  # fmt: skip
def test_errors_are_one_line_and_fail(
    ex: ExportStore, capsys, argv: list[str], message: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert code != 0 and out == ""
    assert err.startswith(message) and err.count("\n") == 1, err
    assert "Traceback" not in err


def test_existing_file_without_force(ex: ExportStore, home: Path, capsys) -> None:
    target = home / "x.jsonl"
    target.write_text("keep me")
    code, out, err = run(capsys, str(target))
    assert (
        code == 1 and err == f"Error: Export already exists: {target}. Pass --force to overwrite.\n"
    )
    assert target.read_text() == "keep me"
    code, out, _ = run(capsys, str(target), "--force")
    assert code == 0 and out == f"Exported 8 sessions to {target}\n"
    assert len(target.read_text().splitlines()) == 8


def test_jsonl_to_stdout_prints_only_records(ex: ExportStore, capsys) -> None:
    code, out, err = run(capsys, "-", "--session-id", ex.cjk[:12])
    assert code == 0 and err == ""
    (line,) = out.splitlines()
    assert json.loads(line)["id"] == ex.cjk


def test_markdown_single_and_bulk_wording(ex: ExportStore, home: Path, capsys) -> None:
    code, out, _ = run(capsys, "--format", "md", "--session-id", ex.cjk)
    folder = home / "session-exports"
    assert code == 0
    assert out == f"Exported 1 session (2 messages) to {folder / (ex.cjk + '-session.md')}\n"
    code, out, _ = run(capsys, "--format", "qmd", "--source", "cli", str(home / "q"))
    lines = out.splitlines()
    assert code == 0 and lines[0].startswith("Exported ") and lines[0].endswith(f"to {home / 'q'}")
    assert lines[1] == f"Manifest: {home / 'q' / 'manifest.jsonl'}"
    assert "1 open session(s) also match and were NOT exported" in out


def test_dry_run_lists_and_writes_nothing(ex: ExportStore, home: Path, capsys) -> None:
    code, out, _ = run(capsys, "--format", "md", "--older-than", "1d", "--dry-run")
    lines = out.splitlines()
    assert code == 0 and lines[0].startswith("Would export 7 session(s) (last active before ")
    assert any(ex.cjk in line and "telegram" in line and "桂林周末旅行" in line for line in lines)
    assert "1 open session(s) also match and will NOT be exported" in out
    assert not (home / "session-exports").exists()


def test_html_to_stdout_and_redaction(ex: ExportStore, capsys) -> None:
    code, out, err = run(capsys, "--format", "html", "--session-id", ex.rich, "-", "--redact")
    assert code == 0 and err == ""
    assert out.startswith("<!DOCTYPE html>") and SECRET not in out and MASKED in out


def test_trace_defaults_to_latest_session_on_stdout(ex: ExportStore, capsys) -> None:
    code, out, err = run(capsys, "--format", "trace")
    assert code == 0 and err == ""
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines and {line["sessionId"] for line in lines} == {ex.rich}  # newest activity


def test_user_prompts_to_stdout_as_markdown(ex: ExportStore, capsys) -> None:
    code, out, _ = run(
        capsys, "-", "--session-id", ex.rich, "--only", "user-prompts", "--format", "md"
    )
    assert code == 0 and out.startswith(f"# User prompts for session {ex.rich}\n")


def test_delete_after_verified(ex: ExportStore, home: Path, capsys) -> None:
    code, out, _ = run(
        capsys, "--format", "md", "--session-id", ex.cjk, "--delete-after-verified", "--yes"
    )
    assert code == 0 and out.splitlines()[-1] == f"Deleted exported session '{ex.cjk}'."
    with ex.store.read() as conn:
        assert conn.execute("SELECT 1 FROM sessions WHERE id = ?", (ex.cjk,)).fetchone() is None
    code, out, err = run(
        capsys, "--format", "md", "--session-id", ex.rich, "--delete-after-verified", "--yes"
    )
    assert code == 1 and err.startswith("Error: Export verification failed; not deleting: session ")
    assert err.count("\n") == 1 and out.startswith("Exported 2 session(s) to ")
