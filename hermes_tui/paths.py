"""Where Hermes keeps its files, and the workspace key of a directory.

Everything lives under ``$HERMES_HOME`` (default ``~/.hermes``), as Hermes Agent does.
Nothing here runs at import time: every function reads the environment when called.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

STATE_DB_NAME = "state.db"
CONFIG_NAME = "config.yaml"


def hermes_home(env: Mapping[str, str] | None = None) -> Path:
    """``$HERMES_HOME`` if set (``~`` expanded), else ``~/.hermes``."""
    env = os.environ if env is None else env
    raw = env.get("HERMES_HOME", "").strip()
    return Path(raw).expanduser() if raw else Path.home() / ".hermes"


def state_db_path(home: Path) -> Path:
    return home / STATE_DB_NAME


def config_path(home: Path) -> Path:
    return home / CONFIG_NAME


def terminal_sessions_dir(home: Path) -> Path:
    return home / "terminal-sessions"


def exports_dir(home: Path) -> Path:
    return home / "session-exports"


def trash_dir(home: Path) -> Path:
    return home / "session-trash"


def transcripts_dir(home: Path) -> Path:
    """Hermes' per-session JSON/JSONL transcript files (removed with the session)."""
    return home / "sessions"


def memories_dir(home: Path) -> Path:
    return home / "memories"


def ensure_home(home: Path) -> None:
    """Create HERMES_HOME with mode 0700 if it does not exist (never loosens an existing one)."""
    if not home.exists():
        home.mkdir(parents=True, mode=0o700)


def styles_dir() -> Path:
    """The TCSS folder: the copy shipped in the wheel first, else the source checkout's."""
    packaged = Path(__file__).resolve().parent / "styles"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parent.parent / "styles"


def git_root(directory: Path) -> Path | None:
    """The enclosing git work tree of *directory* (a ``.git`` dir or file), if any."""
    try:
        current = directory.resolve()
    except OSError:
        return None
    for candidate in (current, *current.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def git_branch(root: Path | None) -> str | None:
    """The branch checked out in the work tree *root*, read from ``HEAD`` (worktrees too)."""
    if root is None:
        return None
    git = root / ".git"
    try:
        if git.is_file():  # a linked worktree: ".git" names its git dir
            pointer = git.read_text(encoding="utf-8").strip()
            if not pointer.startswith("gitdir:"):
                return None
            git = root / pointer.removeprefix("gitdir:").strip()
        head = (git / "HEAD").read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return head.removeprefix("ref: refs/heads/") if head.startswith("ref: ") else None


def workspace_key(directory: Path) -> str:
    """The key Hermes groups sessions by: the git repository root, else the directory."""
    root = git_root(directory)
    if root is not None:
        return str(root)
    try:
        return str(directory.resolve())
    except OSError:
        return str(directory.absolute())
