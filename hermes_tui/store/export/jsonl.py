"""``--format jsonl``: one session record per line — the trash's format (:mod:`..sessionio`):
every ``sessions`` column, every message row (inactive ones too, with their ``active`` flag,
so nothing is lost), usage rows, tool calls decoded to JSON where that is lossless. So
``hermes sessions restore FILE`` puts exported sessions back exactly as they were.

With ``redact`` every string in the messages is redacted (session metadata is not, as
Hermes); such a file restores the redacted text, and says so in its ``_hermes_tui`` field.
"""

from __future__ import annotations

import sqlite3

from ..db import Capabilities
from ..sessionio import MESSAGES, META, encode_line, read_record
from .atomic import Sink
from .model import Added, Item
from .redact import redact_value


class JsonlWriter:
    def __init__(self, sink: Sink, *, redact: bool) -> None:
        self.sink = sink
        self.redact = redact

    def add(self, conn: sqlite3.Connection, caps: Capabilities, item: Item) -> Added | None:
        lines: list[bytes] = []
        messages = 0
        for sid in item.session_ids:
            record = read_record(conn, caps, sid, unit=item.unit, decode_tool_calls=True)
            if record is None:
                return None
            if self.redact:
                record[MESSAGES] = redact_value(record[MESSAGES])
                record[META]["redacted"] = True
            messages += len(record[MESSAGES])
            lines.append(encode_line(record))
        for line in lines:
            self.sink.write(line)
        return Added(len(lines), messages)
