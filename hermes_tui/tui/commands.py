"""Command palette providers: open a conversation by its title (or preview, or id).

Textual's ``Matcher.highlight`` parses its candidate as markup, which a stored title must
never be; matches are highlighted here on a literal ``Content`` instead.
"""

from __future__ import annotations

import asyncio
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content

from ..sanitize import clean
from ..store import ListQuery, SessionRow, StoreError, list_sessions
from .messages import OpenSession


def _label(row: SessionRow) -> str:
    return clean(row.title or row.preview or row.id, keep_newlines=False)


class SessionProvider(Provider):
    """``Open: <title>`` for conversations whose title, preview or id contains the query."""

    def _rows(self, text: str | None) -> list[SessionRow]:
        store = self.app.store()  # type: ignore[attr-defined]
        query = ListQuery(sort="last_active", text=text, exclude_sources=("tool",))
        return list(list_sessions(store, query, limit=25).items)

    async def _find(self, text: str | None) -> list[SessionRow]:
        try:
            return await asyncio.to_thread(self._rows, text)
        except StoreError:
            return []

    def _open(self, row: SessionRow) -> None:
        self.app.post_message(OpenSession(row.id))

    async def discover(self) -> Hits:
        for row in (await self._find(None))[:8]:
            yield DiscoveryHit(
                Content("Open: ") + Content(_label(row)), partial(self._open, row), help=row.id
            )

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for row in await self._find(query.strip() or None):
            label = _label(row)
            score, offsets = matcher.fuzzy_search.match(query, label)
            content = Content(label)
            for offset in offsets:
                content = content.stylize("bold reverse", offset, offset + 1)
            yield Hit(
                max(score, 0.5),
                Content("Open: ") + content,
                partial(self._open, row),
                help=f"{row.source} · {row.id}",
            )
