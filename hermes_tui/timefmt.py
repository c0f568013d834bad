"""Times as people read them: Hermes' relative times and local timestamps."""

from __future__ import annotations

import time


def relative_time(ts: float | None, now: float | None = None) -> str:
    """``just now``, ``5m ago``, ``2h ago``, ``yesterday``, ``3d ago``, else ``YYYY-MM-DD``."""
    if ts is None:
        return "?"
    now = time.time() if now is None else now
    delta = now - ts
    if delta < 60:
        return "just now"
    if delta < 3600:
        return f"{int(delta // 60)}m ago"
    if delta < 86_400:
        return f"{int(delta // 3600)}h ago"
    if delta < 172_800:
        return "yesterday"
    if delta < 7 * 86_400:
        return f"{int(delta // 86_400)}d ago"
    return time.strftime("%Y-%m-%d", time.localtime(ts))


def local_minutes(ts: float | None) -> str:
    """``2026-11-30 14:05`` in local time (``?`` when unknown)."""
    if ts is None:
        return "?"
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(ts))
