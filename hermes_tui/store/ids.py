"""Session ids as Hermes makes them: ``YYYYMMDD_HHMMSS_<hex>`` from local time."""

from __future__ import annotations

import secrets
import time

# Sources whose ids carry 8 hex digits (messaging gateways); CLI/TUI and their
# continuations use 6.
SHORT_ID_SOURCES = frozenset({"cli", "tui", "tool", "subagent", "unknown"})


def new_session_id(source: str, now: float | None = None) -> str:
    stamp = time.strftime("%Y%m%d_%H%M%S", time.localtime(time.time() if now is None else now))
    digits = 3 if source in SHORT_ID_SOURCES else 4
    return f"{stamp}_{secrets.token_hex(digits)}"


def cron_session_id(job_id: str, now: float | None = None) -> str:
    stamp = time.strftime("%Y%m%d_%H%M%S", time.localtime(time.time() if now is None else now))
    return f"cron_{job_id}_{stamp}"
