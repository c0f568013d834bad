"""A store for the export tests: tool calls (with and without ids, Hermes' ASCII-escaped
JSON and ours), CJK, hostile text, secrets, a compression lineage, a delegate run, an open
session, reasoning, an inactive row, a BLOB and usage rows."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from hermes_tui.store import NewMessage, NewSession, Store, Usage
from hermes_tui.store.messages import apply_usage, insert_message
from hermes_tui.store.sessions import insert_session
from tests.conftest import NOW

DAY = 86_400.0
SECRET = "sk-test1234567890abcdefXYZ"
MASKED = "sk-tes...fXYZ"
HOSTILE = (
    '<script>alert(1)</script> "><img src=x onerror=alert(2)> </style><style>body{display:none}'
    "</style> <!-- x --> &amp; <a href='https://evil.example/'>link</a>"
)
CODE = "```python\ndef f(x):\n    return '</pre><script>alert(3)</script>'\n```"
FAKE_VERIFY = (
    "## Export verification\n\n- Session id: `nope`\n- Exported messages: `1`\n"
    "- SHA256 of exported body: `" + "0" * 64 + "`"
)


@dataclass(frozen=True)
class ExportStore:
    store: Store
    rich: str  # tool calls, CJK, hostile text, secrets, reasoning
    lineage: tuple[str, str, str]  # root, #2, #3 (compression)
    delegate: str  # subagent run of ``rich``
    open: str  # not ended
    cjk: str  # CJK title
    ascii_calls: str  # tool calls stored as Hermes writes them (ASCII escapes)


def _session(conn: sqlite3.Connection, store: Store, sid: str, **kw: object) -> str:
    spec = NewSession(source=str(kw.pop("source", "cli")), id=sid, **kw)  # type: ignore[arg-type]
    return insert_session(conn, store.capabilities, spec)


def _msg(conn: sqlite3.Connection, store: Store, sid: str, ts: float, **kw: object) -> int:
    return insert_message(conn, store.capabilities, sid, NewMessage(timestamp=ts, **kw))  # type: ignore[arg-type]


def _end(conn: sqlite3.Connection, sid: str, at: float, reason: str = "cli_close") -> None:
    conn.execute("UPDATE sessions SET ended_at = ?, end_reason = ? WHERE id = ?", (at, reason, sid))


def build(store: Store) -> ExportStore:
    t = NOW - 10 * DAY
    ids = {
        "rich": "20261120_100000_aaaaaa",
        "root": "20261110_100000_111111",
        "two": "20261110_110000_222222",
        "three": "20261110_120000_333333",
        "delegate": "20261120_100500_dddddd",
        "open": "20261125_100000_0e0e0e",
        "cjk": "20261115_100000_c1c1c1c1",
        "ascii": "20261118_100000_a5c11a",
    }

    def work(conn: sqlite3.Connection) -> None:
        rich = _session(
            conn,
            store,
            ids["rich"],
            title="Fix the parser <b>now</b> / 修复",
            started_at=t,
            cwd="/home/me/proj",
            git_branch="main",
            model="anthropic/claude-sonnet-4.6",
        )
        calls = [
            {
                "id": "call_1",
                "type": "function",
                "function": {
                    "name": "read_file",
                    "arguments": json.dumps({"path": "文件.txt"}, ensure_ascii=False),
                },
            },
            {
                "type": "function",
                "function": {
                    "name": "terminal",
                    "arguments": json.dumps({"command": f"export OPENAI_API_KEY={SECRET}"}),
                },
            },
        ]
        _msg(conn, store, rich, t + 1, role="system", content="You are Hermes.")
        _msg(conn, store, rich, t + 2, role="user", content=f"{HOSTILE}\n你好，世界 🚀")
        _msg(
            conn,
            store,
            rich,
            t + 3,
            role="assistant",
            content="Let me look.",
            tool_calls=calls,
            reasoning="I should read the file first.",
        )
        _msg(
            conn,
            store,
            rich,
            t + 4,
            role="tool",
            content="第一行\n</pre>",
            tool_call_id="call_1",
            tool_name="read_file",
        )
        _msg(
            conn,
            store,
            rich,
            t + 5,
            role="tool",
            content='{"ok": true, "token": "abc"}',
            tool_name="terminal",
        )
        _msg(conn, store, rich, t + 6, role="user", content=f"My key is {SECRET}\n\n{FAKE_VERIFY}")
        _msg(conn, store, rich, t + 7, role="assistant", content=f"Here:\n\n{CODE}\n\nDone `ok`.")
        dangling = [
            {
                "id": "call_x",
                "type": "function",
                "function": {"name": "web_search", "arguments": "not json"},
            }
        ]
        _msg(conn, store, rich, t + 8, role="assistant", content="", tool_calls=dangling)
        apply_usage(conn, store.capabilities, rich, Usage(input_tokens=10, model="m1"))
        conn.execute(
            "INSERT INTO messages (session_id, role, content, timestamp, active, api_content) "
            "VALUES (?, 'assistant', 'rewound answer', ?, 0, X'00ff')",
            (rich, t + 7.5),
        )
        _end(conn, rich, t + 60)

        delegate = _session(
            conn,
            store,
            ids["delegate"],
            source="subagent",
            parent_session_id=rich,
            model_config=json.dumps({"_delegate_from": rich}),
            started_at=t + 3.5,
        )
        _msg(conn, store, delegate, t + 3.6, role="user", content="sub task")
        _msg(conn, store, delegate, t + 3.7, role="assistant", content="sub done")
        _end(conn, delegate, t + 3.8)

        previous = None
        for n, key in enumerate(("root", "two", "three")):
            start = t - 5 * DAY + n * 3600
            sid = _session(
                conn,
                store,
                ids[key],
                title="my lineage" + (f" #{n + 1}" if n else ""),
                parent_session_id=previous,
                started_at=start,
            )
            _msg(conn, store, sid, start + 1, role="user", content=f"segment {n + 1} question")
            _msg(conn, store, sid, start + 2, role="assistant", content=f"segment {n + 1} answer")
            _end(conn, sid, start + 10, "compression" if key != "three" else "cli_close")
            previous = sid

        sid = _session(conn, store, ids["open"], title="still running", started_at=t)
        _msg(conn, store, sid, t + 1, role="user", content="open question")

        sid = _session(
            conn, store, ids["cjk"], source="telegram", title="桂林周末旅行 🏞️", started_at=t - DAY
        )
        _msg(
            conn, store, sid, t - DAY + 1, role="user", content="帮我规划一下周末旅行 +14155552671"
        )
        _msg(conn, store, sid, t - DAY + 2, role="assistant", content="好的！")
        _end(conn, sid, t - DAY + 3, "session_reset")

        sid = _session(conn, store, ids["ascii"], title="hermes wrote this", started_at=t - 2 * DAY)
        hermes_calls = json.dumps(
            [
                {
                    "id": "c9",
                    "type": "function",
                    "function": {
                        "name": "write_file",
                        "arguments": json.dumps({"text": "naïve 東京"}),
                    },
                }
            ]
        )
        conn.execute(
            "INSERT INTO messages (session_id, role, content, tool_calls, timestamp) "
            "VALUES (?, 'assistant', 'writing', ?, ?)",
            (sid, hermes_calls, t - 2 * DAY + 1),
        )
        conn.execute(
            "INSERT INTO messages (session_id, role, content, tool_call_id, tool_name, timestamp) "
            "VALUES (?, 'tool', 'written', 'c9', 'write_file', ?)",
            (sid, t - 2 * DAY + 2),
        )
        conn.execute(
            "UPDATE sessions SET message_count = 2, tool_call_count = 1 WHERE id = ?", (sid,)
        )
        _end(conn, sid, t - 2 * DAY + 3)

    store.write(work)
    return ExportStore(
        store,
        ids["rich"],
        (ids["root"], ids["two"], ids["three"]),
        ids["delegate"],
        ids["open"],
        ids["cjk"],
        ids["ascii"],
    )


def table_rows(path: Path, ids: set[str]) -> dict[str, list[tuple]]:
    """Every row of these sessions, byte for byte (sessions, messages, usage)."""
    marks = json.dumps(sorted(ids))
    where = "IN (SELECT value FROM json_each(?))"
    conn = sqlite3.connect(path)
    try:
        conn.text_factory = bytes
        return {
            "sessions": conn.execute(
                f"SELECT * FROM sessions WHERE id {where} ORDER BY id", (marks,)
            ).fetchall(),
            "messages": conn.execute(
                f"SELECT * FROM messages WHERE session_id {where} ORDER BY id", (marks,)
            ).fetchall(),
            "usage": conn.execute(
                f"SELECT * FROM session_model_usage WHERE session_id {where} "
                "ORDER BY session_id, model",
                (marks,),
            ).fetchall(),
        }
    finally:
        conn.close()
