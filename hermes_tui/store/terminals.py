"""Terminal-aware ``-c``: each terminal remembers the last conversation it ran.

A terminal is identified by the first of ``TMUX_PANE`` (with the tmux server's socket),
``KITTY_WINDOW_ID``, ``WEZTERM_PANE``, ``WT_SESSION``, ``ITERM_SESSION_ID`` /
``TERM_SESSION_ID``, else the tty of stdin. Its breadcrumb is a small JSON file in
``$HERMES_HOME/terminal-sessions/`` (mode 0600, written atomically), so two panes side
by side each continue their own conversation. Breadcrumbs older than 30 days are ignored.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

EXPIRY_SECONDS = 30 * 86_400
_KEYS = (
    ("KITTY_WINDOW_ID", "kitty", "KITTY_PID"),
    ("WEZTERM_PANE", "wezterm", "WEZTERM_UNIX_SOCKET"),
    ("WT_SESSION", "windows-terminal", None),
    ("ITERM_SESSION_ID", "iterm", None),
    ("TERM_SESSION_ID", "terminal-app", None),
)


@dataclass(frozen=True)
class Breadcrumb:
    terminal: str
    session_id: str
    updated_at: float


def terminal_identity(env: Mapping[str, str], tty: str | None = None) -> str | None:
    """A stable name for the terminal (pane, window or tty) this process runs in."""
    pane = env.get("TMUX_PANE")
    if pane:
        socket = env.get("TMUX", "").split(",")[0]
        return f"tmux:{socket}:{pane}"
    for key, kind, scope in _KEYS:
        value = env.get(key)
        if value:
            return f"{kind}:{env.get(scope, '') if scope else ''}:{value}"
    if tty is None:
        try:
            tty = os.ttyname(0)
        except OSError:
            return None
    return f"tty:{tty}"


def folder(home: Path) -> Path:
    return home / "terminal-sessions"


def _path(home: Path, identity: str) -> Path:
    return folder(home) / (hashlib.sha256(identity.encode()).hexdigest()[:24] + ".json")


def read_breadcrumb(home: Path, identity: str, now: float | None = None) -> Breadcrumb | None:
    """The terminal's remembered session, unless missing, unreadable or older than 30 days."""
    try:
        data = json.loads(_path(home, identity).read_text(encoding="utf-8"))
        crumb = Breadcrumb(
            str(data["terminal"]), str(data["session_id"]), float(data["updated_at"])
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None
    now = time.time() if now is None else now
    if crumb.terminal != identity or now - crumb.updated_at > EXPIRY_SECONDS:
        return None
    return crumb


def write_breadcrumb(home: Path, identity: str, session_id: str, now: float | None = None) -> None:
    """Remember *session_id* for this terminal (atomic replace; never a partial file)."""
    target = _path(home, identity)
    target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    record = {
        "terminal": identity,
        "session_id": session_id,
        "updated_at": time.time() if now is None else now,
    }
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".crumb-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(record, handle)
        Path(tmp).chmod(0o600)
        Path(tmp).replace(target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
