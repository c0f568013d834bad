"""Earlier queries of the search screen, recalled with Up/Down (newest last).

Kept in ``$HERMES_HOME/tui-search-history`` (one query a line, at most 200, mode 0600) —
a file of our own, so searching never writes to Hermes' state.db.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

LIMIT = 200
FILE_NAME = "tui-search-history"


class SearchHistory:
    def __init__(self, home: Path) -> None:
        self.path = home / FILE_NAME
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            lines = []
        self.queries = [line for line in lines if line.strip()][-LIMIT:]
        self.position = len(self.queries)
        self.draft = ""

    def add(self, query: str) -> None:
        query = " ".join(query.split())
        if not query:
            return
        self.queries = [*[q for q in self.queries if q != query][-(LIMIT - 1) :], query]
        self.position = len(self.queries)
        self._save()

    def step(self, direction: int, current: str) -> str | None:
        """The query one step older (-1) or newer (+1); past the newest, what was typed."""
        if not self.queries:
            return None
        if self.position == len(self.queries):
            self.draft = current
        position = max(0, min(len(self.queries), self.position + direction))
        if position == self.position:
            return None
        self.position = position
        return self.draft if position == len(self.queries) else self.queries[position]

    def _save(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".search-", suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write("\n".join(self.queries) + "\n")
            Path(tmp).chmod(0o600)
            Path(tmp).replace(self.path)
        except OSError:
            pass  # history is a convenience; never an error for the user
