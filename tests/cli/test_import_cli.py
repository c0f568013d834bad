"""`hermes sessions import` as a new user runs it: folders laid out like ~/.claude/projects
and ~/.codex/sessions (built from the fixtures, pointed at by the env vars), dry run, then
the real import, then browsing."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from hermes_tui.__main__ import main
from hermes_tui.cli.common import CliError
from hermes_tui.cli.import_cmd import parse_since
from hermes_tui.store import ListQuery, Store, get_messages, list_sessions
from tests.importing import cassistant, claude_layout, codex_layout, cuser, jsonl, text


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_claude_dry_run_then_import_then_browse(home: Path, capsys) -> None:
    claude_layout(Path(os.environ["CLAUDE_CONFIG_DIR"]))
    code, out, err = run(capsys, "sessions", "import", "--from", "claude", "--dry-run")
    assert code == 0, err
    assert out.startswith("Dry run: nothing was written.")
    assert "would import" in out and "mix phx.server doesnt seem to start" in out
    assert "Sessions: 5 would be imported" in out and "(5 files)" in out
    assert "injected context (isMeta) 1" in out
    assert not (home / "state.db").exists()  # a dry run creates nothing

    code, out, err = run(capsys, "sessions", "import", "--from", "claude")
    assert code == 0, err
    assert "Sessions: 5 imported, 0 updated" in out
    assert "↳ sub-agent of" in out
    assert "Browse them: hermes sessions list --source claude-code" in out
    assert oct((home / "state.db").stat().st_mode & 0o777) == "0o600"

    code, out, _ = run(capsys, "sessions", "list", "--source", "claude-code", "--json")
    rows = json.loads(out)
    assert {r["title"] for r in rows} == {
        "mix phx.server doesnt seem to start",
        "start phoenix in background",
        "[REDACTED_PROMPT]",
        "check the otel versions",
    }  # the sub-agent is its parent's child, not a conversation of its own
    code, out, _ = run(capsys, "sessions", "import", "--from", "claude", "--json")
    summary = json.loads(out)
    assert summary["sessions"] == {
        "created": 0,
        "updated": 0,
        "unchanged": 5,
        "skipped": 0,
        "failed": 0,
    }


def test_codex_layout_json_and_subagents(home: Path, capsys) -> None:
    codex_layout(Path(os.environ["CODEX_HOME"]))
    code, out, err = run(capsys, "sessions", "import", "--from", "codex", "--dry-run", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["dry_run"] is True and data["files"] == 5
    assert data["sessions"]["created"] == 5 and not (home / "state.db").exists()
    code, out, err = run(capsys, "sessions", "import", "--from", "codex", "--no-subagents")
    assert code == 0 and "Sessions: 4 imported" in out and "sub-agent (--no-subagents) 1" in out
    code, out, err = run(capsys, "sessions", "import", "--from", "codex")
    assert "Sessions: 1 imported, 0 updated, 4 unchanged" in out
    store = Store.open(home / "state.db")
    listed = list_sessions(store, ListQuery(source="codex-cli")).items
    assert len(listed) == 4  # the sub-agent child is not a conversation of its own
    modern = next(r for r in listed if r.title == "List the synthetic files")
    assert len(get_messages(store, modern.id)) == 8


def test_errors_are_one_line(capsys, tmp_path: Path) -> None:
    code, _, err = run(capsys, "sessions", "import", "--from", "claude")
    assert code == 1 and err.count("\n") == 1
    assert "No Claude Code history found" in err and "CLAUDE_CONFIG_DIR" in err
    code, _, err = run(capsys, "sessions", "import", "--from", "codex", str(tmp_path / "nope"))
    assert code == 1 and err.strip() == f"Error: No such file or folder: {tmp_path / 'nope'}"
    (tmp_path / "empty").mkdir()
    code, _, err = run(capsys, "sessions", "import", "--from", "codex", str(tmp_path / "empty"))
    assert code == 1 and "No Codex CLI transcripts found" in err
    code, _, err = run(capsys, "sessions", "import", "--from", "claude", "--since", "someday")
    assert code == 1 and err.startswith("Error: --since 'someday': expected a date")


def test_since_and_warnings_and_terminal_safety(home: Path, capsys, tmp_path: Path) -> None:
    folder = tmp_path / "proj"
    folder.mkdir()
    records = [
        cuser("u1", None, "clear \x1b[2J the screen \u202eplease", 1),
        cassistant("a1", "u1", "m1", [text("no")], 2),
    ]
    (folder / "evil.jsonl").write_bytes(jsonl(records)[:-1] + b"\n{broken\n")
    code, out, err = run(
        capsys, "sessions", "import", "--from", "claude", str(folder), "--since", "1d"
    )
    assert code == 0 and "not active since --since 1" in out  # transcript times are in 2026-03
    code, out, err = run(capsys, "sessions", "import", "--from", "claude", str(folder))
    assert code == 0 and "Sessions: 1 imported" in out
    assert "\x1b" not in out + err and "\u202e" not in out + err
    assert err.strip() == f"warning: {folder / 'evil.jsonl'}:3: not valid JSON — line skipped"


def test_parse_since() -> None:
    now = 1_800_000_000.0
    assert parse_since("7d", now) == now - 7 * 86400
    assert parse_since("12h", now) == now - 12 * 3600
    assert parse_since("2w", now) == now - 14 * 86400
    assert parse_since("30", now) == now - 30 * 86400
    assert parse_since("2026-01-02T03:04:05Z") == 1767323045.0
    assert parse_since("2026-01-02") > 0
    with pytest.raises(CliError):
        parse_since("last tuesday")
