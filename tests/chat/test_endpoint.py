"""Which endpoint, model and key: config.yaml, the environment, $HERMES_HOME/.env."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_tui.chat.endpoint import (
    OPENAI_URL,
    OPENROUTER_URL,
    read_env_file,
    resolve_endpoint,
)
from hermes_tui.chat.errors import NotConfigured
from hermes_tui.config import ModelConfig, parse_config


def model(**values: object) -> ModelConfig:
    return parse_config({"model": values}).model


def test_no_model_says_what_to_set_and_where(home: Path) -> None:
    with pytest.raises(NotConfigured) as caught:
        resolve_endpoint(model(), home, {})
    assert "model.default" in caught.value.hint
    assert str(home / "config.yaml") in caught.value.hint
    assert not caught.value.retryable


def test_a_model_without_endpoint_or_key_names_the_keys(home: Path) -> None:
    with pytest.raises(NotConfigured) as caught:
        resolve_endpoint(model(default="gpt-4o-mini"), home, {})
    assert "OPENROUTER_API_KEY" in caught.value.hint and "OPENAI_API_KEY" in caught.value.hint


def test_only_an_openrouter_key_means_openrouter(home: Path) -> None:
    endpoint = resolve_endpoint(
        model(default="anthropic/claude-sonnet-4"), home, {"OPENROUTER_API_KEY": "sk-or"}
    )
    assert endpoint.base_url == OPENROUTER_URL
    assert endpoint.api_key == "sk-or" and endpoint.provider == "openrouter"
    assert endpoint.key_source == "OPENROUTER_API_KEY"


def test_an_openai_key_means_openai(home: Path) -> None:
    endpoint = resolve_endpoint(model(default="gpt-4o-mini"), home, {"OPENAI_API_KEY": "sk-oa"})
    assert (endpoint.base_url, endpoint.api_key, endpoint.provider) == (
        OPENAI_URL,
        "sk-oa",
        "openai",
    )


def test_keys_are_read_from_the_hermes_env_file_and_the_environment_wins(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / ".env").write_text(
        "# Hermes keys\nexport OPENROUTER_API_KEY='sk-from-file'\nOTHER=1 # note\n",
        encoding="utf-8",
    )
    assert read_env_file(home / ".env") == {"OPENROUTER_API_KEY": "sk-from-file", "OTHER": "1"}
    endpoint = resolve_endpoint(model(default="m"), home, {})
    assert endpoint.api_key == "sk-from-file" and endpoint.base_url == OPENROUTER_URL
    endpoint = resolve_endpoint(model(default="m"), home, {"OPENROUTER_API_KEY": "sk-env"})
    assert endpoint.api_key == "sk-env"


def test_a_custom_server_never_receives_the_openrouter_key(home: Path) -> None:
    config = model(default="llama3", base_url="http://127.0.0.1:11434/v1")
    endpoint = resolve_endpoint(config, home, {"OPENROUTER_API_KEY": "sk-or"})
    assert endpoint.api_key is None and endpoint.provider == "custom"
    endpoint = resolve_endpoint(config, home, {"OPENAI_API_KEY": "sk-oa"})
    assert endpoint.api_key == "sk-oa"


def test_api_key_may_name_a_variable(home: Path) -> None:
    config = model(default="m", base_url="https://openrouter.ai/api/v1", api_key="${MY_KEY}")
    endpoint = resolve_endpoint(config, home, {"MY_KEY": "sk-mine"})
    assert endpoint.api_key == "sk-mine" and endpoint.key_source == "model.api_key"


def test_a_known_host_without_its_key_is_not_configured(home: Path) -> None:
    with pytest.raises(NotConfigured) as caught:
        resolve_endpoint(model(default="m", provider="openrouter"), home, {"OPENAI_API_KEY": "x"})
    assert "OPENROUTER_API_KEY" in caught.value.hint


def test_a_bad_base_url_is_reported(home: Path) -> None:
    with pytest.raises(NotConfigured, match="not an http"):
        resolve_endpoint(model(default="m", base_url="localhost:8080"), home, {})


def test_vision_is_guessed_from_the_name_and_config_decides(home: Path) -> None:
    env = {"OPENAI_API_KEY": "k"}
    assert resolve_endpoint(model(default="gpt-4o"), home, env).vision
    assert not resolve_endpoint(model(default="gpt-3.5-turbo"), home, env).vision
    assert resolve_endpoint(model(default="my-local", vision=True), home, env).vision


def test_timeouts_and_retries_come_from_config(home: Path) -> None:
    config = model(default="m", base_url="http://127.0.0.1:1/v1", timeout=7, max_retries=0)
    endpoint = resolve_endpoint(config, home, {})
    assert (endpoint.idle_timeout, endpoint.max_retries) == (7.0, 0)


def test_nonsense_model_values_fall_back_with_a_warning() -> None:
    config = parse_config({"model": {"default": "m", "max_retries": -1, "vision": "yes"}})
    assert config.model.max_retries == 3 and config.model.vision is None
    assert any("model.max_retries" in w for w in config.warnings)
    assert any("model.vision" in w for w in config.warnings)
