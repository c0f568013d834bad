"""Fixtures for the chat engine: a fake model server on 127.0.0.1 and configs pointing at it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from hermes_tui.chat import Conversation, Event
from hermes_tui.config import Config, parse_config
from hermes_tui.store import Store

from ..fakemodel import FakeModel


@pytest.fixture
def fake() -> Iterator[FakeModel]:
    with FakeModel() as model:
        yield model


def model_config(url: str | None, **model: Any) -> Config:
    section: dict[str, Any] = {"default": "fake/hermes-test", "max_retries": 2, "timeout": 5}
    if url is not None:
        section["base_url"] = url
    section.update(model)
    return parse_config({"model": section})


@pytest.fixture
def config(fake: FakeModel) -> Config:
    return model_config(fake.url)


class Recorder:
    """Collects events (from any thread) for assertions."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    def __call__(self, event: Event) -> None:
        self.events.append(event)

    def of(self, kind: type) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]

    def names(self) -> list[str]:
        return [type(e).__name__ for e in self.events]


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
def conversation(store: Store, config: Config, home: Path, tmp_path: Path) -> Conversation:
    """A new conversation (no row yet) that never titles itself in the background."""
    return Conversation(store, config, home=home, env={}, cwd=tmp_path, auto_title=False)


MakeConversation = Callable[..., Conversation]


@pytest.fixture
def make_conversation(store: Store, home: Path, tmp_path: Path) -> MakeConversation:
    def make(config: Config, **options: Any) -> Conversation:
        options.setdefault("env", {})
        options.setdefault("cwd", tmp_path)
        options.setdefault("auto_title", False)
        return Conversation(store, config, home=home, **options)

    return make
