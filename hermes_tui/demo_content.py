"""The transcripts of the demo store (data only; see ``demo.py``)."""

from __future__ import annotations

from .demo import A, T, Turn, U

QUICK_PORTS = [
    U("quick question: how do I list open ports on linux?"),
    A(
        "Use `ss`:\n\n```bash\nss -tulpn\n```\n\n`-t` TCP, `-u` UDP, `-l` listening, "
        "`-p` the owning process, `-n` numeric ports. Add `sudo` to see every process."
    ),
]

DIGEST = [
    U("Summarise my unread email and today's calendar. Keep it under 10 lines."),
    A(
        "**Inbox** — 4 unread: the CI bill (due Friday), two PR reviews requested on "
        "`webapp`, and a reminder about the quarterly planning doc.\n\n"
        "**Calendar** — 10:00 stand-up, 14:00 design review (API latency), 16:30 1:1."
    ),
]

FLAKY_CI = [
    U("The CI job test_upload is flaky. Can you find out why?"),
    A(
        "",
        ("terminal", {"command": "pytest tests/test_upload.py -x --count 20"}),
        ("read_file", {"path": "tests/test_upload.py"}),
    ),
    T(
        "terminal",
        "============ 17 passed, 3 failed in 41.2s ============\n"
        "FAILED tests/test_upload.py::test_upload_large - AssertionError: worker not done",
    ),
    T(
        "read_file",
        "def test_upload_large(client):\n    start_upload(client)\n"
        "    time.sleep(0.5)\n    assert worker.done\n",
    ),
    A(
        "The test races the background worker: it sleeps 0.5 s and hopes the upload finished. "
        "I'll wait on the worker's event instead of sleeping.",
        (
            "patch",
            {
                "path": "tests/test_upload.py",
                "diff": "-    time.sleep(0.5)\n+    worker.done_event.wait(timeout=10)",
            },
        ),
    ),
    T("patch", "Applied 1 hunk to tests/test_upload.py"),
    U("Nice. My token is sk-test1234567890abcdefXYZ, can you push?"),
    A(
        "Please don't share tokens in chat; I pushed using the configured remote.\n"
        "CI is green now.\nDetails: 3 runs passed."
    ),
]

FLAKY_BRANCH = [
    U("Let's try the other approach: mock the worker entirely in test_upload."),
    A(
        "Here's a fixture that replaces the worker with a synchronous fake:\n\n"
        "```python\n@pytest.fixture\ndef sync_worker(monkeypatch):\n"
        "    monkeypatch.setattr(upload, 'Worker', FakeWorker)\n```"
    ),
]

SUBAGENT = [
    U("Search the repository for other tests that sleep instead of waiting on events."),
    A("", ("terminal", {"command": "grep -rn 'time.sleep' tests/"})),
    T(
        "terminal",
        "tests/test_upload.py:14:    time.sleep(0.5)\ntests/test_sync.py:22:    time.sleep(1)",
    ),
    A("Two tests sleep: test_upload.py (fixed) and test_sync.py line 22."),
]

PROJECT_1 = [
    U("Let's start my project: a CLI that syncs notes between machines over SSH."),
    A("Good plan. We'll need: a config file, an rsync wrapper, and conflict detection."),
    U("Use Python and keep dependencies minimal."),
    A("Then: argparse, pathlib, subprocess for rsync, and a small JSON state file."),
]
PROJECT_2 = [
    U("[CONTEXT COMPACTION] Earlier: planned a Python note-sync CLI over SSH with rsync."),
    U("Now add conflict detection when both sides changed a note."),
    A("Compare mtimes and content hashes; keep both copies as note.conflict-<host>.md."),
]
PROJECT_3 = [
    U("[CONTEXT COMPACTION] Earlier: note-sync CLI; conflict detection with hashes."),
    U("Write the README section about conflicts."),
    A(
        "## Conflicts\n\nWhen both machines changed a note since the last sync, neither is "
        "overwritten: the remote copy is saved beside it as `note.conflict-<host>.md`."
    ),
]


def long_refactor() -> list[Turn]:
    """A 300-message session, for scrolling and windowed loading."""
    turns: list[Turn] = [U("Let's refactor the storage layer of myproject, module by module.")]
    modules = ["config", "paths", "sync", "state", "hashing", "conflicts", "cli", "logging"]
    for n in range(1, 150):
        module = modules[n % len(modules)]
        turns.append(
            A(
                f"Step {n}: moved `{module}` helpers into `{module}.py` and ran the tests — all green."
            )
        )
        if len(turns) < 300:
            turns.append(U(f"Next step {n + 1}, please. Keep `{module}` imports sorted."))
    return turns[:300]


TRIP = [
    U("帮我规划一下大别山项目的周末旅行，预算两千元 🏔️"),
    A(
        "好的！周六早上出发，住山脚民宿（约300元/晚），周日登主峰。预算：交通600，住宿600，餐饮500，门票300。"
    ),
    U("广西桂林也可以考虑吗？"),
    A("可以，桂林漓江风景更好，但路程更远，两千元需要坐高铁并提前订票。"),
    U("那就大别山吧，谢谢 🙏"),
    A("不客气，祝旅途愉快！记得带雨衣。"),
]
WIFI = [
    U("remind me what the wifi password format was for the office"),
    A("You said it's the building code followed by the floor number, e.g. B12-4."),
]
RELEASE_PARTY = [
    U("🎉 release party ideas for v2.0? 🚀🚀"),
    A("Ideas: a changelog quiz 🧠, stickers with the new logo, and a demo of the plugin API."),
]
RAMEN = [
    U("東京で美味しいラーメン屋を教えてください。"),
    A("新宿の「風雲児」や池袋の「無敵家」が人気です。平日の昼なら並びも短めです。"),
]
SEOUL = [
    U("서울에서 부산까지 기차로 얼마나 걸려요?"),
    A("KTX로 약 2시간 30분 걸립니다. 주말에는 미리 예매하세요."),
]
HOSTILE = [
    U("/plan refactor the markup renderer"),
    A(
        "Plan mode on. Titles like [/plan — plan mode] and text like [bold or a [/] b must show literally."
    ),
    U(
        "Check these: [@click=app.quit]click me[/] and \x1b[2J\x1b]0;pwn\x07 and \u202eevil and [OOHCS-1234]."
    ),
    A(
        "All of those should render as plain text, with the escape sequences and the override removed."
    ),
]
SEARCH_TORTURE = [
    U("Notes: chat-send broke in sp_new; see src/main.py and P2.2 of the spec (v2.1.3-beta)."),
    A("Contact alice@example.com about issue #123. Don't forget: 50% off costs $5, ratio a:b."),
    U("ok? a,b NOTE: check my-app.config.ts and the wrong-book entry."),
    A("Noted."),
]
EMBEDDINGS = [
    U("Compare cosine similarity vs dot product for our embedding search."),
    A("For normalised vectors they rank identically; dot product is cheaper."),
]
RUNBOOK = [
    U("Write a deployment runbook for webapp."),
    A(
        "1. `git pull` on the deploy host\n2. `make migrate`\n3. `systemctl restart webapp`\n"
        "4. Check `/healthz` and the error dashboard for 10 minutes.\n"
        "Rollback: `git checkout <previous tag> && make migrate-down && systemctl restart webapp`."
    ),
]
LAPTOP = [
    U("What should I install first on the new laptop?"),
    A("Your dotfiles, then git, a terminal you like, pyenv and docker."),
]
TOOL_ROW = [U("integration ping"), A("pong")]
INCIDENT = [
    U("Summarise the API latency incident from the thread."),
    A(
        "p99 latency rose from 180 ms to 2.4 s at 14:02 after the cache node was replaced; "
        "fixed at 14:40 by warming the cache. Action item: pre-warm on replacement."
    ),
]
TUI_CHAT = [
    U("Explain WAL checkpoints in SQLite in two paragraphs."),
    A(
        "In WAL mode, writes append to the `-wal` file; readers see a consistent snapshot. "
        "A **checkpoint** copies committed pages back into the main database.\n\n"
        "A checkpoint cannot pass a page that a reader still needs, so long read transactions "
        "make the WAL grow. Keep reads short."
    ),
]
MIGRATION_OLD = [
    U("Plan the migration from SQLite to Postgres for the reporting service."),
    A("Steps: dual-write, backfill, verify counts, switch reads, then stop SQLite writes."),
    U("How long will the backfill take for 40 million rows?"),
    A("At ~20k rows/s with COPY, about 35 minutes; batch by primary key ranges."),
]
MIGRATION_SUMMARY = [
    U(
        "[CONTEXT COMPACTION] Migration plan: dual-write, backfill with COPY (~35 min), verify, switch."
    ),
    U("Now write the verification query."),
    A("```sql\nSELECT count(*), sum(hashtext(id::text)) FROM reports;\n```\nRun it on both sides."),
]
