"""A generator of realistic stores for tests and benchmarks.

``generate_store(path, sessions=25_000, messages=1_000_000)`` writes a Hermes-compatible
state.db in one transaction with ``executemany`` (the FTS tables filled by Hermes' own
triggers): English prose and code, Chinese/Japanese/Korean, tool calls with long outputs,
several sources, compression lineages, branches, delegate children, archived/pinned/open
rows, system-prompt snapshots and a year of timestamps. Deterministic for a given seed.
"""

from __future__ import annotations

import json
import random
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from . import schema
from .db import create_store_file

WORDS = (
    "the of and to in is you that it for on with as are this be at have from or by not "
    "but what all were when we there can an your which their if do will each about how "
    "up out them then she many some so these would other into has more her two like him "
    "see time could no make than first been its who now people my made over did down "
    "only way find use may water long little very after words called just where most "
    "know"
).split()
TECH = (
    "docker kubernetes deploy database migration pytest refactor async await cache "
    "latency endpoint webhook gateway telegram discord cron scheduler token embedding "
    "vector index query planner sqlite postgres redis nginx certificate rollback branch "
    "commit rebase merge conflict pipeline artifact container volume secret config yaml "
    "json schema parser tokenizer lexer compiler runtime thread worker queue retry "
    "backoff timeout socket proxy firewall terraform ansible helm grafana prometheus "
    "alert metric dashboard flaky regression benchmark profile memory leak segfault "
    "traceback exception"
).split()
LITERALS = (
    "chat-send sp_new src/main.py P2.2 v2.1.3-beta alice@example.com #123 don't 50% $5 "
    "a:b ok? a,b NOTE: my-app.config.ts wrong-book"
).split()
RARE = ("xylophone", "quasar", "zeppelin", "mandragora", "obsidian", "kaleidoscope")
CJK_SENTENCES = (
    "帮我规划一下周末旅行，预算两千元。",
    "广西桂林的漓江风景非常美丽。",
    "记忆断裂的问题需要重新排查一下日志。",
    "修改youer服务端的配置文件，然后重启服务。",
    "昨晚的部署失败了，数据库迁移没有完成。",
    "中欧红利基金的表现怎么样？",
    "東京で美味しいラーメン屋を教えてください。",
    "明日の会議の資料を準備してください。",
    "서울에서 부산까지 기차로 얼마나 걸려요?",
    "오늘 회의 내용을 요약해 주세요.",
)
EMOJI = ("🚀", "🎉", "🗾", "🏔️", "🐛", "✅", "🔥", "👨‍💻")
TOOLS = ("terminal", "read_file", "write_file", "patch", "web_search", "session_search")
SOURCES = (
    ("cli", 0.46),
    ("tui", 0.08),
    ("telegram", 0.15),
    ("discord", 0.07),
    ("slack", 0.04),
    ("cron", 0.15),
    ("tool", 0.01),
)
MODELS = ("anthropic/claude-sonnet-4.6", "openai/gpt-5.1", "nousresearch/hermes-4-405b", "gpt-4.1")
SYSTEM_PROMPT = (
    "You are Hermes, an AI agent with tools. " + "Follow the user's instructions carefully. " * 40
)
DAY = 86_400.0


@dataclass
class GenStats:
    sessions: int = 0
    messages: int = 0
    lineages: int = 0
    seconds: float = 0.0
    extra: dict[str, int] = field(default_factory=dict)


class _Writer:
    def __init__(self, rng: random.Random, now: float) -> None:
        self.rng = rng
        self.now = now
        self.session_rows: list[tuple] = []
        self.message_rows: list[tuple] = []
        self.next_message_id = 1
        self.titles: set[str] = set()

    def prose(self, words: int, cjk: bool = False) -> str:
        rng = self.rng
        if cjk:
            return "".join(rng.choice(CJK_SENTENCES) for _ in range(max(1, words // 12)))
        out = []
        for i in range(words):
            roll = rng.random()
            if roll < 0.55:
                out.append(rng.choice(WORDS))
            elif roll < 0.93:
                out.append(rng.choice(TECH))
            elif roll < 0.985:
                out.append(rng.choice(LITERALS))
            elif roll < 0.9995:
                out.append(rng.choice(EMOJI))
            else:
                out.append(rng.choice(RARE))
            if i and i % 14 == 0:
                out[-1] += "."
        return " ".join(out).capitalize() + "."

    def code(self) -> str:
        name = self.rng.choice(TECH)
        return (
            f"```python\ndef handle_{name}(request):\n    # src/{name}/main.py\n"
            f"    return {name}_client.retry(request, timeout=30)\n```"
        )

    def tool_output(self) -> str:
        lines = self.rng.randint(3, 120 if self.rng.random() < 0.1 else 25)
        return "\n".join(
            f"{self.rng.choice(TECH)}.py:{n} {self.prose(8)}" for n in range(1, lines + 1)
        )

    def unique_title(self, base: str) -> str:
        title, n = base[:90], 2
        while title in self.titles:
            title, n = f"{base[:80]} ({n})", n + 1
        self.titles.add(title)
        return title

    def add_messages(self, sid: str, count: int, start: float, cjk: bool) -> tuple[float, int]:
        """Append *count* messages; returns (last timestamp, tool calls made)."""
        rng, ts, calls, i = self.rng, start, 0, 0
        while i < count:
            ts += rng.uniform(5, 120)
            self.message_rows.append(
                (
                    self.next_message_id,
                    sid,
                    "user",
                    self.prose(rng.randint(6, 40), cjk),
                    None,
                    None,
                    ts,
                )
            )
            self.next_message_id += 1
            i += 1
            if i < count and rng.random() < 0.35 and count - i >= 3:
                n = rng.choice((1, 1, 2, 3))
                tool_calls = [
                    {
                        "id": f"call_{self.next_message_id}_{k}",
                        "type": "function",
                        "function": {
                            "name": rng.choice(TOOLS),
                            "arguments": json.dumps({"query": rng.choice(TECH)}),
                        },
                    }
                    for k in range(n)
                ]
                ts += rng.uniform(1, 20)
                self.message_rows.append(
                    (self.next_message_id, sid, "assistant", "", json.dumps(tool_calls), None, ts)
                )
                self.next_message_id += 1
                calls += n
                i += 1
                for call in tool_calls[: max(0, count - i - 1)]:
                    ts += rng.uniform(1, 30)
                    self.message_rows.append(
                        (
                            self.next_message_id,
                            sid,
                            "tool",
                            self.tool_output(),
                            None,
                            call["function"]["name"],
                            ts,
                        )
                    )
                    self.next_message_id += 1
                    i += 1
            if i < count:
                ts += rng.uniform(2, 60)
                body = self.prose(rng.randint(15, 90), cjk)
                if rng.random() < 0.15:
                    body += "\n\n" + self.code()
                self.message_rows.append(
                    (self.next_message_id, sid, "assistant", body, None, None, ts)
                )
                self.next_message_id += 1
                i += 1
        return ts, calls


def _lengths(rng: random.Random, sessions: int, messages: int) -> list[int]:
    """Heavy-tailed session lengths summing to *messages* (≥ 2 each where possible)."""
    weights = [rng.paretovariate(1.3) for _ in range(sessions)]
    total = sum(weights)
    lengths = [max(2, int(w / total * messages)) for w in weights]
    drift = messages - sum(lengths)
    i = 0
    while drift != 0 and sessions:
        j = i % sessions
        if drift > 0:
            lengths[j] += 1
            drift -= 1
        elif lengths[j] > 2:
            lengths[j] -= 1
            drift += 1
        i += 1
        if i > sessions * 50:
            break
    return lengths


def generate_store(
    path: Path,
    sessions: int = 1_000,
    messages: int = 40_000,
    *,
    seed: int = 7,
    now: float | None = None,
    span_days: float = 365.0,
    progress: Callable[[str], None] | None = None,
) -> GenStats:
    """Create *path* (must not exist) holding about *sessions* × *messages* of history."""
    t0 = time.perf_counter()
    now = time.time() if now is None else now
    rng = random.Random(seed)
    create_store_file(Path(path))
    writer = _Writer(rng, now)
    stats = GenStats()
    lengths = _lengths(rng, sessions, messages)
    source_names = [s for s, _ in SOURCES]
    source_weights = [w for _, w in SOURCES]
    previous_cli: str | None = None
    for index, length in enumerate(lengths):
        source = rng.choices(source_names, source_weights)[0]
        age = span_days * DAY * (rng.random() ** 1.6)
        started = now - age
        stamp = time.strftime("%Y%m%d_%H%M%S", time.localtime(started))
        sid = f"{stamp}_{index:06x}" if source in ("cli", "tui", "tool") else f"{stamp}_{index:08x}"
        if source == "cron":
            sid = f"cron_job{index % 7}_{stamp}_{index}"
        cjk = source in ("telegram", "discord") and rng.random() < 0.3
        last, calls = writer.add_messages(sid, length, started, cjk)
        parent, end_reason, config = None, "cli_close", None
        if source == "cron":
            end_reason = "cron_complete"
        if previous_cli and source == "cli" and rng.random() < 0.03:
            parent, config = previous_cli, json.dumps({"_delegate_from": previous_cli})
            source = "subagent"
        title = None
        if source != "cron" and rng.random() < 0.6:
            base = writer.prose(rng.randint(2, 5), cjk).rstrip(".").replace(".", "")
            title = writer.unique_title(
                base + (" " + rng.choice(EMOJI) if rng.random() < 0.05 else "")
            )
        elif source == "cron":
            title = writer.unique_title(f"Daily digest · {stamp}")
        ended = None if rng.random() < 0.02 else last + rng.uniform(1, 600)
        cwd = f"/home/user/projects/{rng.choice(TECH)}" if source in ("cli", "tui") else None
        row = (
            sid,
            source,
            rng.choice(MODELS),
            config,
            SYSTEM_PROMPT if source in ("cli", "tui") else None,
            parent,
            started,
            ended,
            end_reason if ended else None,
            length,
            calls,
            length * rng.randint(200, 900),
            length * rng.randint(50, 300),
            cwd,
            title,
            int(rng.random() < 0.03),
            round(length * 0.0004, 4),
        )
        writer.session_rows.append(row)
        if source == "cli" and parent is None:
            previous_cli = sid
        stats.sessions += 1
        if progress and index % 5000 == 4999:
            progress(f"generated {index + 1:,} sessions")
    _add_lineages(writer, rng, stats)
    stats.messages = len(writer.message_rows)
    _write(Path(path), writer, progress)
    stats.seconds = time.perf_counter() - t0
    return stats


def _add_lineages(writer: _Writer, rng: random.Random, stats: GenStats) -> None:
    """Turn a few titled CLI sessions into compression lineages (``X``, ``X #2`` …)."""
    rows = writer.session_rows
    candidates = [i for i, r in enumerate(rows) if r[1] == "cli" and r[14] and r[7]]
    for i in rng.sample(candidates, k=min(len(candidates), max(1, len(rows) // 200))):
        base = list(rows[i])
        base[8] = "compression"
        rows[i] = tuple(base)
        parent_id, started = base[0], base[7]
        for n in range(2, rng.randint(3, 4) + 1):
            started += rng.uniform(60, 600)
            stamp = time.strftime("%Y%m%d_%H%M%S", time.localtime(started))
            sid = f"{stamp}_{0xC00000 + len(rows):06x}"
            last, calls = writer.add_messages(sid, rng.randint(4, 30), started, False)
            final = n == 4 or rng.random() < 0.5
            ended = None if final and rng.random() < 0.5 else last + 30
            reason = ("cli_close" if ended else None) if final else "compression"
            rows.append(
                (
                    sid,
                    "cli",
                    base[2],
                    None,
                    SYSTEM_PROMPT,
                    parent_id,
                    started,
                    ended,
                    reason,
                    0,
                    calls,
                    0,
                    0,
                    base[13],
                    f"{base[14][:80]} #{n}",
                    base[15],
                    0.0,
                )
            )
            stats.sessions += 1
            parent_id = sid
            if reason != "compression":
                break
        stats.lineages += 1


def _write(path: Path, writer: _Writer, progress: Callable[[str], None] | None) -> None:
    """Load everything in one transaction. The per-row FTS insert triggers are dropped for
    the load and the indexes filled with one INSERT … SELECT each (about 4× faster), then the
    triggers are recreated exactly as Hermes defines them."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA synchronous = OFF")
        conn.execute("PRAGMA cache_size = -262144")
        conn.execute("BEGIN IMMEDIATE")
        present = {
            r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        }
        tables = [t for t in schema.FTS_TABLES if t[0] in present]
        for table, _ in tables:
            conn.execute(f"DROP TRIGGER IF EXISTS {table}_insert")
        conn.executemany(
            "INSERT INTO sessions (id, source, model, model_config, system_prompt, "
            "parent_session_id, started_at, ended_at, end_reason, message_count, "
            "tool_call_count, input_tokens, output_tokens, cwd, title, archived, "
            "estimated_cost_usd) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            writer.session_rows,
        )
        if progress:
            progress(f"writing {len(writer.message_rows):,} messages")
        conn.executemany(
            "INSERT INTO messages (id, session_id, role, content, tool_calls, tool_name, "
            "timestamp) VALUES (?, ?, ?, ?, ?, ?, ?)",
            writer.message_rows,
        )
        for table, _ in tables:
            if progress:
                progress(f"indexing messages into {table}")
            conn.execute(
                f"INSERT INTO {table}(rowid, content) "
                f"SELECT m.id, {schema.INDEXED_TEXT.format(m='m')} FROM messages m"
            )
            conn.execute(schema.fts_trigger_sql(table)[0])
        conn.execute(
            "UPDATE sessions SET message_count = (SELECT COUNT(*) FROM messages m "
            "WHERE m.session_id = sessions.id)"
        )
        conn.execute("COMMIT")
    finally:
        conn.close()
