"""Exporting sessions: JSONL (restorable), Markdown/QMD with a verified manifest, one
self-contained HTML page, Claude-Code-style traces, user prompts only — with optional
redaction of secrets. The CLI (``hermes sessions export``) and the TUI call :mod:`.api`.
"""

from .api import REFUSE_BULK, export_sessions, plan_export, validate
from .model import (
    FORMATS,
    ExportError,
    ExportPlan,
    ExportRequest,
    ExportResult,
    Format,
    Item,
    VerificationFailed,
)

__all__ = [
    "FORMATS",
    "REFUSE_BULK",
    "ExportError",
    "ExportPlan",
    "ExportRequest",
    "ExportResult",
    "Format",
    "Item",
    "VerificationFailed",
    "export_sessions",
    "plan_export",
    "validate",
]
