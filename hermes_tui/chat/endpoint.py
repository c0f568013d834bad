"""Which model to call, where, and with which key — resolved the way Hermes does it.

Sources, first wins: ``model.*`` in config.yaml; the process environment; KEY=VALUE lines
in ``$HERMES_HOME/.env`` (where Hermes keeps keys). ``model.api_key`` may name a variable
as ``${OPENROUTER_API_KEY}``. Keys are only ever sent to the host they belong to: an
OpenRouter key goes to openrouter.ai, never to a custom ``base_url``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from ..config import ModelConfig
from .errors import NotConfigured

OPENROUTER_URL = "https://openrouter.ai/api/v1"
OPENAI_URL = "https://api.openai.com/v1"
PROVIDER_URLS = {"openrouter": OPENROUTER_URL, "openai": OPENAI_URL}
PROVIDER_KEYS = {"openrouter": "OPENROUTER_API_KEY", "openai": "OPENAI_API_KEY"}
_HOST_PROVIDERS = {"openrouter.ai": "openrouter", "api.openai.com": "openai"}
_VAR = re.compile(r"^\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?$")
# Model names that accept images (a guess; `model.vision` in config.yaml decides when set).
_VISION_HINTS = tuple(
    "gpt-4o gpt-4.1 gpt-5 vision -vl vl- llava pixtral claude-3 claude-sonnet-4 claude-opus-4 "
    "claude-haiku-4 gemini gemma-3 llama-4 qwen2.5-vl minicpm-v".split()
)


def read_env_file(path: Path) -> dict[str, str]:
    """KEY=VALUE lines of a dotenv file (``export`` prefixes, quotes and comments handled)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return {}
    values: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("export "):
            line = line[len("export ") :].lstrip()
        key, sep, value = line.partition("=")
        key = key.strip()
        if not sep or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
            continue
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        elif " #" in value:
            value = value.split(" #", 1)[0].rstrip()
        values[key] = value
    return values


def hermes_env(home: Path, env: Mapping[str, str] | None = None) -> dict[str, str]:
    """``$HERMES_HOME/.env`` overlaid by the process environment (the environment wins)."""
    merged = read_env_file(home / ".env")
    merged.update(os.environ if env is None else env)
    return merged


@dataclass(frozen=True)
class Endpoint:
    model: str
    base_url: str
    api_key: str | None = field(default=None, repr=False)
    provider: str = "custom"
    key_source: str = ""  # where the key came from, for error messages
    connect_timeout: float = 10.0
    idle_timeout: float = 120.0
    max_retries: int = 3
    vision: bool = False
    max_tool_rounds: int = 8


def _provider_of(base_url: str) -> str | None:
    host = (urlsplit(base_url).hostname or "").lower()
    return _HOST_PROVIDERS.get(host)


def guess_vision(model: str) -> bool:
    name = model.lower()
    return any(hint in name for hint in _VISION_HINTS)


def _expand(value: str | None, env: Mapping[str, str]) -> str | None:
    if not value:
        return None
    match = _VAR.match(value.strip())
    if match:
        return env.get(match.group(1)) or None
    return value.strip()


def _config_hint(home: Path) -> str:
    return f"in {home / 'config.yaml'}"


def resolve_endpoint(
    config: ModelConfig, home: Path, env: Mapping[str, str] | None = None
) -> Endpoint:
    """The endpoint to call, or :class:`NotConfigured` saying exactly what to set and where."""
    values = hermes_env(home, env)
    if not config.default:
        raise NotConfigured(
            "No model is configured",
            f"set model.default {_config_hint(home)} (e.g. `model: {{default: "
            f"openai/gpt-4o-mini}}`) and an API key in {home / '.env'}",
        )
    provider = (config.provider or "").strip().lower() or None
    base_url = (config.base_url or "").strip() or PROVIDER_URLS.get(provider or "", "")
    base_url = base_url or values.get("OPENAI_BASE_URL", "").strip()
    if not base_url:
        if values.get("OPENROUTER_API_KEY") and not values.get("OPENAI_API_KEY"):
            base_url = OPENROUTER_URL
        elif values.get("OPENAI_API_KEY"):
            base_url = OPENAI_URL
        else:
            raise NotConfigured(
                "No model endpoint is configured",
                f"set OPENROUTER_API_KEY or OPENAI_API_KEY in {home / '.env'}, or "
                f"model.base_url {_config_hint(home)} for a local server",
            )
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise NotConfigured(
            f"model.base_url {base_url!r} is not an http(s) URL",
            f"fix it {_config_hint(home)}, e.g. http://localhost:11434/v1",
        )
    host_provider = _provider_of(base_url)
    key_var = PROVIDER_KEYS.get(host_provider or "", "OPENAI_API_KEY")
    api_key = _expand(config.api_key, values)
    key_source = "model.api_key"
    if api_key is None:
        api_key = values.get(key_var) or None
        key_source = key_var
    if api_key is None and host_provider is not None:
        raise NotConfigured(
            f"No API key for {parts.hostname}",
            f"set {key_var} in {home / '.env'} or model.api_key {_config_hint(home)}",
        )
    return Endpoint(
        model=config.default,
        base_url=base_url,
        api_key=api_key,
        provider=provider or host_provider or "custom",
        key_source=key_source if api_key else "",
        connect_timeout=config.connect_timeout,
        idle_timeout=config.timeout,
        max_retries=config.max_retries,
        vision=config.vision if config.vision is not None else guess_vision(config.default),
        max_tool_rounds=config.max_tool_rounds,
    )
