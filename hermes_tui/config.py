"""``$HERMES_HOME/config.yaml`` → a frozen, validated :class:`Config`.

The file is Hermes Agent's own; we read only the keys we use and ignore the rest. A
malformed file or a wrong-typed value never crashes: it becomes a warning that names the
key and the default used. For the ``sessions:`` maintenance keys a nonsense value does
not fall back to a default (a default could delete data the user meant to keep): it marks
maintenance as skipped, with the warning saying so.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

import yaml

Check = Callable[[Any], bool]


def _positive(value: float) -> bool:
    return value > 0


def _non_negative(value: float) -> bool:
    return value >= 0


def _choice(*allowed: str) -> Check:
    return lambda value: value in allowed


def _spec(default: Any, check: Check | None = None, why: str = "") -> Any:
    """A config field: its default, and an extra check beyond the type (with its wording)."""
    return field(default=default, metadata={"check": check, "why": why})


@dataclass(frozen=True)
class ModelConfig:
    default: str | None = _spec(None)
    base_url: str | None = _spec(None)
    api_key: str | None = _spec(None)
    provider: str | None = _spec(None)
    system_prompt: str | None = _spec(None)
    context_budget: int = _spec(32_000, _positive, "a positive number of tokens")
    # Seconds without a byte from the model (waiting for the reply, or between chunks).
    timeout: float = _spec(120.0, _positive, "a positive number of seconds")
    connect_timeout: float = _spec(10.0, _positive, "a positive number of seconds")
    max_retries: int = _spec(3, _non_negative, "zero or a positive integer")
    max_tool_rounds: int = _spec(8, _positive, "a positive integer")
    # Whether the model accepts images; unset = guessed from the model's name.
    vision: bool | None = _spec(None)


@dataclass(frozen=True)
class DisplayConfig:
    resume_display: str = _spec("full", _choice("full", "minimal"), "'full' or 'minimal'")
    resume_exchanges: int = _spec(10, _positive, "a positive integer")
    resume_max_user_chars: int = _spec(300, _positive, "a positive integer")
    resume_max_assistant_chars: int = _spec(200, _positive, "a positive integer")
    resume_max_assistant_lines: int = _spec(3, _positive, "a positive integer")
    resume_skip_tool_only: bool = _spec(True)


@dataclass(frozen=True)
class SessionConfig:
    terminal_continue: bool = _spec(True)


@dataclass(frozen=True)
class MaintenanceConfig:
    """The ``sessions:`` section: automatic pruning at TUI start."""

    auto_prune: bool = _spec(True)
    retention_days: float = _spec(90.0, _positive, "a positive number of days")
    min_interval_hours: float = _spec(24.0, _non_negative, "zero or a positive number of hours")
    vacuum_after_prune: bool = _spec(True)
    min_vacuum_interval_days: float = _spec(30.0, _non_negative, "zero or more days")
    valid: bool = True


@dataclass(frozen=True)
class TuiConfig:
    theme: str = _spec("textual-dark")
    keymap: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))


@dataclass(frozen=True)
class Config:
    model: ModelConfig = field(default_factory=ModelConfig)
    display: DisplayConfig = field(default_factory=DisplayConfig)
    session: SessionConfig = field(default_factory=SessionConfig)
    sessions: MaintenanceConfig = field(default_factory=MaintenanceConfig)
    tui: TuiConfig = field(default_factory=TuiConfig)
    warnings: tuple[str, ...] = ()
    path: Path | None = None


def _type_ok(value: Any, default: Any, annotation: str) -> tuple[bool, Any]:
    """Is *value* of the field's type? Returns (ok, value converted where lossless)."""
    if "bool" in annotation:
        return isinstance(value, bool), value
    if annotation.startswith("int"):
        return isinstance(value, int) and not isinstance(value, bool), value
    if annotation.startswith("float"):
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        return ok, float(value) if ok else value
    if annotation.startswith("str"):
        if isinstance(value, str):
            return True, value
        # YAML reads `model: 3.5` as a number; a plain scalar is still meant as text.
        if isinstance(value, int | float) and not isinstance(value, bool):
            return True, str(value)
        return False, value
    return True, value


def _describe(annotation: str, why: str) -> str:
    if why:
        return why
    for name, words in (("bool", "true or false"), ("int", "an integer"), ("float", "a number")):
        if name in annotation:
            return words
    return "text"


def _load_section(cls: type, raw: Any, section: str, warnings: list[str]) -> tuple[Any, bool]:
    """Build one section; returns (instance, every value was valid)."""
    if raw is None:
        return cls(), True
    if not isinstance(raw, dict):
        warnings.append(f"config.yaml: '{section}' should be a mapping; using its defaults")
        return cls(), False
    values: dict[str, Any] = {}
    all_valid = True
    for f in dataclasses.fields(cls):
        if f.name not in raw or "check" not in f.metadata:
            continue
        value = raw[f.name]
        annotation = str(f.type)
        if value is None and "None" in annotation:
            continue
        ok, converted = _type_ok(value, f.default, annotation)
        check: Check | None = f.metadata["check"]
        if ok and check is not None:
            ok = check(converted)
        if ok:
            values[f.name] = converted
        else:
            all_valid = False
            wanted = _describe(annotation, f.metadata["why"])
            warnings.append(
                f"config.yaml: {section}.{f.name} = {value!r} is not {wanted}; "
                f"using the default {f.default!r}"
            )
    return cls(**values), all_valid


def _load_keymap(raw: Any, warnings: list[str]) -> Mapping[str, str]:
    if raw is None:
        return MappingProxyType({})
    if not isinstance(raw, dict):
        warnings.append("config.yaml: tui.keymap should map binding ids to keys; ignoring it")
        return MappingProxyType({})
    keymap: dict[str, str] = {}
    for key, value in raw.items():
        if isinstance(key, str) and isinstance(value, str) and value.strip():
            keymap[key] = value.strip()
        else:
            warnings.append(f"config.yaml: tui.keymap.{key} = {value!r} is not a key name; ignored")
    return MappingProxyType(keymap)


def parse_config(data: Any, path: Path | None = None) -> Config:
    """Validate an already-parsed YAML document."""
    warnings: list[str] = []
    if data is None:
        data = {}
    if not isinstance(data, dict):
        warnings.append("config.yaml: the top level is not a mapping; using all defaults")
        data = {}
    raw_model = data.get("model")
    if isinstance(raw_model, str):  # Hermes also accepts `model: provider/name`
        raw_model = {"default": raw_model}
    model, _ = _load_section(ModelConfig, raw_model, "model", warnings)
    display, _ = _load_section(DisplayConfig, data.get("display"), "display", warnings)
    session, _ = _load_section(SessionConfig, data.get("session"), "session", warnings)
    before = len(warnings)
    sessions, sessions_valid = _load_section(
        MaintenanceConfig, data.get("sessions"), "sessions", warnings
    )
    if not sessions_valid:
        for i in range(before, len(warnings)):
            warnings[i] = warnings[i].split("; using")[0] + (
                "; automatic maintenance is skipped until this is fixed"
            )
        sessions = dataclasses.replace(sessions, valid=False)
    raw_tui = data.get("tui")
    tui, _ = _load_section(TuiConfig, raw_tui, "tui", warnings)
    if isinstance(raw_tui, dict):
        tui = dataclasses.replace(tui, keymap=_load_keymap(raw_tui.get("keymap"), warnings))
    return Config(
        model=model,
        display=display,
        session=session,
        sessions=sessions,
        tui=tui,
        warnings=tuple(warnings),
        path=path,
    )


def load_config(path: Path) -> Config:
    """Read and validate *path*; a missing file means all defaults, never an error."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Config(path=path)
    except (OSError, UnicodeDecodeError) as exc:
        return Config(warnings=(f"config.yaml: cannot read {path}: {exc}; using defaults",))
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        where = ""
        mark = getattr(exc, "problem_mark", None)
        if mark is not None:
            where = f" (line {mark.line + 1}, column {mark.column + 1})"
        return Config(
            warnings=(f"config.yaml: {path} is not valid YAML{where}; using all defaults",),
            path=path,
        )
    return parse_config(data, path)
