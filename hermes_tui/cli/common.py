"""What every command shares: the user's store, errors as one line, confirmations."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from ..config import Config, load_config
from ..paths import config_path, hermes_home, state_db_path
from ..store import Store


class CliError(Exception):
    """An error the CLI reports as one line on stderr with a non-zero exit."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Context:
    home: Path
    config: Config

    @property
    def db_path(self) -> Path:
        return state_db_path(self.home)

    def open_store(self) -> Store:
        return Store.open(self.db_path)


def make_context() -> Context:
    home = hermes_home()
    config = load_config(config_path(home))
    for warning in config.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return Context(home=home, config=config)


def fail(message: str, code: int = 1) -> NoReturn:
    raise CliError(message, code)


def confirm(prompt: str) -> bool:
    """Ask on the terminal; anything but y/yes (and end of input) means no."""
    try:
        answer = input(prompt)
    except EOFError:
        print()
        return False
    return answer.strip().lower() in ("y", "yes")


def stdout_is_tty() -> bool:
    return sys.stdout.isatty() and os.environ.get("TERM") != "dumb"
