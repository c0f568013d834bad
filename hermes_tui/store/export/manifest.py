"""``manifest.jsonl``: one line per Markdown/QMD file an export writes (HERMES_AGENT_BEHAVIOUR
§6.3), so a folder of exports can be checked later: sorted keys ``exported_at`` (epoch),
``format``, ``lineage_session_ids``, ``message_count``, ``path``, ``session_id`` and
``sha256`` (of the whole file). A line is appended as each file is finished, so the
manifest of an export that stopped early lists exactly the files it completed."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

NAME = "manifest.jsonl"


@dataclass(frozen=True, slots=True)
class ManifestEntry:
    path: Path
    session_id: str
    lineage_session_ids: tuple[str, ...]
    message_count: int
    sha256: str
    format: str
    exported_at: float

    def as_json(self) -> dict[str, Any]:
        return {
            "exported_at": self.exported_at,
            "format": self.format,
            "lineage_session_ids": list(self.lineage_session_ids),
            "message_count": self.message_count,
            "path": str(self.path),
            "session_id": self.session_id,
            "sha256": self.sha256,
        }


def append(folder: Path, entry: ManifestEntry) -> Path:
    """Append one line (a single write, so concurrent exports never interleave a line)."""
    path = folder / NAME
    line = json.dumps(entry.as_json(), ensure_ascii=False, sort_keys=True) + "\n"
    flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags, 0o600)
    try:
        os.write(fd, line.encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)
    return path
