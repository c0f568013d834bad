"""config.yaml: unknown keys ignored, bad values warned about, never a crash."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_tui.config import Config, load_config, parse_config


def _load(tmp_path: Path, text: str) -> Config:
    path = tmp_path / "config.yaml"
    path.write_text(text, encoding="utf-8")
    return load_config(path)


def test_missing_file_means_defaults(tmp_path: Path) -> None:
    config = load_config(tmp_path / "nope.yaml")
    assert config.warnings == ()
    assert config.display.resume_display == "full" and config.display.resume_exchanges == 10
    assert config.sessions.auto_prune is True and config.sessions.retention_days == 90
    assert config.session.terminal_continue is True


def test_hermes_config_with_unknown_keys(tmp_path: Path) -> None:
    config = _load(
        tmp_path,
        """
model:
  default: anthropic/claude-sonnet-4.6
  provider: openrouter
  base_url: https://openrouter.ai/api/v1
  something_new: 3
display:
  resume_display: minimal
  skin: ares
session:
  terminal_continue: false
sessions:
  retention_days: 30
  write_json_snapshots: false
tui:
  theme: nord
  keymap:
    sessions.delete: ctrl+d
toolsets: [web, terminal]
compression: {enabled: true, in_place: true}
""",
    )
    assert config.warnings == ()
    assert config.model.default == "anthropic/claude-sonnet-4.6"
    assert config.model.base_url == "https://openrouter.ai/api/v1"
    assert config.display.resume_display == "minimal"
    assert config.session.terminal_continue is False
    assert config.sessions.retention_days == 30.0 and config.sessions.valid
    assert config.tui.theme == "nord" and dict(config.tui.keymap) == {"sessions.delete": "ctrl+d"}
    with pytest.raises(TypeError):
        config.tui.keymap["x"] = "y"  # type: ignore[index]
    with pytest.raises(AttributeError):
        config.model.default = "other"  # type: ignore[misc]


def test_model_as_a_plain_string(tmp_path: Path) -> None:
    assert _load(tmp_path, "model: gpt-4.1\n").model.default == "gpt-4.1"


def test_malformed_yaml_warns_and_uses_defaults(tmp_path: Path) -> None:
    config = _load(tmp_path, "display: [unclosed\n  resume_display: minimal\n")
    assert config.display.resume_display == "full"
    assert len(config.warnings) == 1 and "not valid YAML" in config.warnings[0]
    assert "line" in config.warnings[0]


@pytest.mark.parametrize(
    ("text", "key", "attr", "default"),
    [
        ("display:\n  resume_exchanges: x\n", "display.resume_exchanges", "resume_exchanges", 10),
        ("display:\n  resume_display: fancy\n", "display.resume_display", "resume_display", "full"),
        ("display:\n  resume_skip_tool_only: 'yes'\n", "display.resume_skip_tool_only",
         "resume_skip_tool_only", True),
        ("display:\n  resume_max_user_chars: -5\n", "display.resume_max_user_chars",
         "resume_max_user_chars", 300),
    ],
)  # fmt: skip
def test_wrong_values_warn_with_key_and_default(
    tmp_path: Path, text: str, key: str, attr: str, default: object
) -> None:
    config = _load(tmp_path, text)
    assert getattr(config.display, attr) == default
    [warning] = config.warnings
    assert key in warning and repr(default) in warning


@pytest.mark.parametrize(
    "text",
    [
        "sessions:\n  retention_days: 0\n",
        "sessions:\n  retention_days: -1\n",
        "sessions:\n  retention_days: abc\n",
        "sessions:\n  retention_days: null\n",
        "sessions:\n  auto_prune: 'false'\n",
        "sessions:\n  vacuum_after_prune: 'no'\n",
        "sessions:\n  min_interval_hours: -3\n",
        "sessions: 5\n",
    ],
)
def test_nonsense_maintenance_values_skip_maintenance(tmp_path: Path, text: str) -> None:
    config = _load(tmp_path, text)
    # Never a destructive fallback: maintenance is skipped, and the warning says so.
    assert config.sessions.valid is False
    [warning] = config.warnings
    assert "sessions" in warning and "maintenance is skipped" in warning
    assert "using the default" not in warning


def test_top_level_not_a_mapping() -> None:
    config = parse_config(["a", "list"])
    assert config.warnings and config.display.resume_display == "full"


def test_keymap_entries_are_checked(tmp_path: Path) -> None:
    config = _load(tmp_path, "tui:\n  keymap:\n    app.quit: ctrl+q\n    bad: 3\n")
    assert dict(config.tui.keymap) == {"app.quit": "ctrl+q"}
    assert "tui.keymap.bad" in config.warnings[0]
