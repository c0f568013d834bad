"""``/handoff <platform>``: hand the live conversation to a Hermes messaging gateway (SPEC §10).

The store is the only channel, as in Hermes: the session row gets ``handoff_state =
'pending'`` and ``handoff_platform`` (only if no handoff is in flight); the gateway claims
it (``running``) and finishes (``completed``) or gives up (``failed`` + ``handoff_error``).
We poll the row: nobody claims it within 60 s → it is marked failed (only if still
pending, so a late claim wins) and the session stays as it was, ready for a retry; once
claimed, the gateway owns it and we never touch the row again.

A home channel must exist for the platform, found where Hermes' gateway looks: the
``<PLATFORM>_HOME_CHANNEL`` variable (the environment, then ``$HERMES_HOME/.env``, where
``/sethome`` saves it) or ``home_channel`` under ``platforms.<platform>`` in config.yaml.
"""

from __future__ import annotations

import re
import sqlite3
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml

from ..paths import config_path
from ..store import Store
from .endpoint import hermes_env

PLATFORMS = (
    "telegram discord slack whatsapp signal matrix mattermost email sms homeassistant "
    "dingtalk feishu wecom weixin bluebubbles qqbot"
).split()
PENDING_TIMEOUT = 60.0
RUNNING_TIMEOUT = 900.0  # the gateway replays the whole session: minutes, not seconds
POLL_INTERVAL = 0.5
_NAME = re.compile(r"[a-z][a-z0-9_]{0,40}")

State = Literal["completed", "failed", "timeout", "refused", "stopped", "still-running"]


@dataclass(frozen=True, slots=True)
class HomeChannel:
    platform: str
    chat_id: str
    name: str
    source: str  # where it was found, for messages


@dataclass(frozen=True, slots=True)
class HandoffOutcome:
    state: State
    message: str
    platform: str

    @property
    def completed(self) -> bool:
        return self.state == "completed"


def _from_config(platform: str, home: Path) -> HomeChannel | None:
    try:
        data = yaml.safe_load(config_path(home).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    if not isinstance(data, dict):
        return None
    platforms = data.get("platforms")
    sections = [
        platforms.get(platform) if isinstance(platforms, dict) else None,
        data.get(platform),
    ]
    for section in sections:
        value: Any = section.get("home_channel") if isinstance(section, dict) else None
        if isinstance(value, dict) and str(value.get("chat_id") or "").strip():
            name = str(value.get("name") or "Home")
            return HomeChannel(platform, str(value["chat_id"]).strip(), name, "config.yaml")
        if isinstance(value, str | int) and not isinstance(value, bool) and str(value).strip():
            return HomeChannel(platform, str(value).strip(), "Home", "config.yaml")
    return None


def home_channel(
    platform: str, home: Path, env: Mapping[str, str] | None = None
) -> HomeChannel | None:
    """The platform's home channel as the gateway would find it, or None."""
    values = hermes_env(home, env)
    prefix = platform.upper()
    keys = [f"{prefix}_HOME_CHANNEL"] + (["EMAIL_HOME_ADDRESS"] if platform == "email" else [])
    for key in keys:
        chat_id = values.get(key, "").strip()
        if chat_id:
            name = values.get(f"{prefix}_HOME_CHANNEL_NAME", "").strip() or "Home"
            return HomeChannel(platform, chat_id, name, key)
    return _from_config(platform, home)


def request_handoff(store: Store, session_id: str, platform: str) -> bool:
    """Mark the session pending for *platform* unless a handoff is already in flight."""
    return store.write(
        lambda conn: (
            conn.execute(
                "UPDATE sessions SET handoff_state = 'pending', handoff_platform = ?, "
                "handoff_error = NULL WHERE id = ? AND (handoff_state IS NULL "
                "OR handoff_state IN ('completed', 'failed'))",
                (platform, session_id),
            ).rowcount
            > 0
        )
    )


def fail_if_pending(store: Store, session_id: str, error: str) -> bool:
    """Give up on an unclaimed handoff (compare-and-set: a claim that just happened wins)."""
    return store.write(
        lambda conn: (
            conn.execute(
                "UPDATE sessions SET handoff_state = 'failed', handoff_error = ? "
                "WHERE id = ? AND handoff_state = 'pending'",
                (error[:500], session_id),
            ).rowcount
            > 0
        )
    )


def read_state(store: Store, session_id: str) -> tuple[str | None, str | None]:
    """(handoff_state, handoff_error) of the row, read-only."""
    with store.read() as conn:
        row: sqlite3.Row | None = conn.execute(
            "SELECT handoff_state, handoff_error FROM sessions WHERE id = ?", (session_id,)
        ).fetchone()
    return (None, None) if row is None else (row["handoff_state"], row["handoff_error"])


def refusal(platform: str, home: Path, env: Mapping[str, str] | None = None) -> str | None:
    """Why a handoff to *platform* cannot start (None when it can)."""
    if not _NAME.fullmatch(platform):
        return f"Unknown platform '{platform}'. Platforms: {', '.join(PLATFORMS)}."
    if home_channel(platform, home, env) is None:
        return (
            f"No home channel is configured for {platform}. Run /sethome in the {platform} "
            f"chat you want as home (Hermes saves it as {platform.upper()}_HOME_CHANNEL in "
            f"{home / '.env'}), then /handoff {platform} again."
        )
    return None


def hand_off(
    store: Store,
    session_id: str,
    platform: str,
    *,
    title: str,
    home: Path,
    env: Mapping[str, str] | None = None,
    pending_timeout: float = PENDING_TIMEOUT,
    running_timeout: float = RUNNING_TIMEOUT,
    poll: float = POLL_INTERVAL,
    cancelled: Callable[[], bool] | None = None,
    on_progress: Callable[[str], None] | None = None,
) -> HandoffOutcome:
    """Request the handoff and wait for the gateway. Blocking: run it in a worker."""
    platform = platform.strip().lower()
    say = on_progress or (lambda text: None)
    why = refusal(platform, home, env)
    if why is None and "handoff_state" not in store.capabilities.session_columns:
        why = "This store has no handoff columns (an older Hermes schema); update Hermes Agent."
    if why is None and not request_handoff(store, session_id, platform):
        why = "This session is already being handed off; wait for it to settle, then retry."
    if why is not None:
        return HandoffOutcome("refused", why, platform)
    channel = home_channel(platform, home, env)
    say(f"Queued handoff of '{title}' → {platform} (home: {channel.name if channel else '?'}).")
    say("Waiting for the gateway to pick it up…")
    pending_deadline = time.monotonic() + pending_timeout
    running_deadline: float | None = None
    while True:
        state, error = read_state(store, session_id)
        claimed = state not in ("pending", "completed", "failed", None)  # running (or newer)
        if claimed and running_deadline is None:
            say("The gateway picked it up; transferring…")
            running_deadline = time.monotonic() + running_timeout
        if state == "completed":
            return HandoffOutcome(
                "completed",
                f"↻ Handoff complete. The session is now active on {platform}. "
                f"Resume it later with: /resume {title}",
                platform,
            )
        if state in ("failed", None):
            reason = error or "the request was withdrawn"
            return HandoffOutcome(
                "failed",
                f"Handoff failed: {reason}. Your session is intact: try /handoff {platform} "
                "again, or /resume it on the platform.",
                platform,
            )
        stop = cancelled is not None and cancelled()
        now = time.monotonic()
        if state == "pending" and (stop or now >= pending_deadline):
            reason = "cancelled by the user" if stop else "timed out waiting for gateway"
            if fail_if_pending(store, session_id, reason):
                if stop:
                    return HandoffOutcome(
                        "stopped", "Handoff cancelled; the session is intact.", platform
                    )
                return HandoffOutcome(
                    "timeout",
                    f"Timed out after {pending_timeout:g} s waiting for the gateway (is `hermes "
                    f"gateway` running with {platform} enabled?). Your session is intact; "
                    f"/handoff {platform} to retry.",
                    platform,
                )
            continue  # claimed at the last moment: follow it
        if claimed and (stop or (running_deadline is not None and now >= running_deadline)):
            return HandoffOutcome(
                "stopped" if stop else "still-running",
                f"No longer waiting; the gateway is still transferring the session to "
                f"{platform} and owns it now. Check {platform} before continuing here.",
                platform,
            )
        time.sleep(poll)
