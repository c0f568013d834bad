"""JSONL (restorable), Markdown/QMD with manifest, logical lineages, user prompts and
``--delete-after-verified`` on a store with tool calls, CJK, hostile text and secrets."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from hermes_tui.store import NewMessage, NewSession, Store, append_message, create_session
from hermes_tui.store.export import (
    ExportError,
    ExportRequest,
    VerificationFailed,
    export_sessions,
    plan_export,
)
from hermes_tui.store.export.delete import delete_exported
from hermes_tui.store.export.markdown import WrittenFile, verify_file
from hermes_tui.store.filters import build_filter
from hermes_tui.store.generate import generate_store
from hermes_tui.store.restore import restore_file
from hermes_tui.store.sessions import delete_conversation
from tests.conftest import NOW
from tests.exporting import FAKE_VERIFY, MASKED, SECRET, ExportStore, build, table_rows


@pytest.fixture
def ex(store: Store) -> ExportStore:
    return build(store)


def _ids(store: Store) -> set[str]:
    with store.read() as conn:
        return {r[0] for r in conn.execute("SELECT id FROM sessions")}


def _front(path: Path) -> dict:
    lines = path.read_text(encoding="utf-8").split("\n")
    assert lines[0] == "---"
    end = lines.index("---", 1)
    return {k: json.loads(v) for k, v in (line.split(": ", 1) for line in lines[1:end])}


# -- JSONL ---------------------------------------------------------------------------


def test_jsonl_round_trip_is_exact(ex: ExportStore, home: Path) -> None:
    store = ex.store
    everything = _ids(store)
    before = table_rows(store.path, everything)
    out = home / "backup.jsonl"
    result = export_sessions(store, ExportRequest(format="jsonl", everything=True, output=out))
    assert result.paths == (out,) and result.sessions == len(everything)
    assert out.stat().st_mode & 0o777 == 0o600
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    rich = next(r for r in records if r["id"] == ex.rich)
    # Tool calls decoded (ours and Hermes' ASCII-escaped ones), inactive rows kept.
    assert isinstance(rich["messages"][2]["tool_calls"], list)
    hermes = next(r for r in records if r["id"] == ex.ascii_calls)
    assert hermes["messages"][0]["tool_calls"][0]["function"]["name"] == "write_file"
    assert any(m["active"] == 0 for m in rich["messages"])
    assert rich["_hermes_tui"]["unit"] == ex.rich
    assert next(r for r in records if r["id"] == ex.delegate)["_hermes_tui"]["unit"] == ex.rich
    for sid in [ex.rich, ex.lineage[0], ex.open, ex.cjk, ex.ascii_calls]:
        delete_conversation(store, sid, allow_open=True)
    assert _ids(store) == set()
    restored = restore_file(store, out)
    assert set(restored.restored) == everything and not restored.skipped
    assert table_rows(store.path, everything) == before


def test_jsonl_round_trip_on_a_generated_store(home: Path) -> None:
    generate_store(home / "state.db", 200, 4_000, now=NOW, seed=5)
    store = Store.open(home / "state.db")
    f = build_filter({"older_than": "60d"}, NOW)
    out = home / "old.jsonl"
    result = export_sessions(store, ExportRequest(format="jsonl", filter=f, output=out))
    plan = plan_export(store, ExportRequest(format="jsonl", filter=f, output=out, force=True))
    exported = set(plan.session_ids)
    assert result.sessions == len(exported) > 20
    before = table_rows(store.path, exported)
    with store.read() as conn:
        roots = [item.unit for item in plan.items]
        assert all(
            conn.execute("SELECT 1 FROM sessions WHERE id = ?", (r,)).fetchone() for r in roots
        )
    for root in dict.fromkeys(roots):
        delete_conversation(store, root, allow_open=True)
    assert table_rows(store.path, exported)["sessions"] == []
    restored = restore_file(store, out)
    assert set(restored.restored) == exported and not restored.skipped
    assert table_rows(store.path, exported) == before


def test_jsonl_redacted_masks_messages_not_metadata(ex: ExportStore, home: Path) -> None:
    out = home / "r.jsonl"
    export_sessions(
        ex.store, ExportRequest(format="jsonl", session_ids=(ex.rich,), output=out, redact=True)
    )
    text = out.read_text(encoding="utf-8")
    assert SECRET not in text and MASKED in text
    record = json.loads(text)
    assert record["title"] == "Fix the parser <b>now</b> / 修复"
    assert record["_hermes_tui"]["redacted"] is True


def test_jsonl_to_a_stream(ex: ExportStore) -> None:
    import io

    sink = io.BytesIO()
    result = export_sessions(
        ex.store, ExportRequest(format="jsonl", session_ids=(ex.cjk,)), stream=sink
    )
    assert result.to_stream and result.paths == ()
    assert json.loads(sink.getvalue())["title"] == "桂林周末旅行 🏞️"


# -- Markdown / QMD ------------------------------------------------------------------


def test_markdown_files_front_matter_and_manifest(ex: ExportStore, home: Path) -> None:
    f = build_filter({"older_than": "1d"}, NOW)
    req = ExportRequest(format="md", filter=f)
    plan = plan_export(ex.store, req)
    assert ex.open in plan.spared_open and ex.open not in plan.session_ids
    result = export_sessions(ex.store, req, plan=plan)
    folder = home / "session-exports"
    assert result.folder == folder and result.manifest == folder / "manifest.jsonl"
    names = {p.name for p in result.paths}
    assert f"{ex.rich}-fix-the-parser-b-now-b.md" in names
    assert f"{ex.cjk}-session.md" in names  # a CJK title slugs to nothing: "session"
    assert f"{ex.lineage[1]}-my-lineage-2.md" in names
    assert f"{ex.delegate}-session.md" in names  # subagent runs go with their conversation
    manifest = [json.loads(line) for line in (folder / "manifest.jsonl").read_text().splitlines()]
    assert len(manifest) == len(result.paths) == result.sessions
    for entry in manifest:
        assert (
            list(entry)
            == sorted(entry)
            == [
                "exported_at",
                "format",
                "lineage_session_ids",
                "message_count",
                "path",
                "session_id",
                "sha256",
            ]
        )
        path = Path(entry["path"])
        assert hashlib.sha256(path.read_bytes()).hexdigest() == entry["sha256"]
        assert verify_file(path, entry["session_id"], entry["message_count"]) is None
        assert path.stat().st_mode & 0o777 == 0o600
    front = _front(folder / f"{ex.rich}-fix-the-parser-b-now-b.md")
    assert list(front) == [
        "session_id",
        "title",
        "source",
        "created_at",
        "updated_at",
        "ended_at",
        "model",
        "provider",
        "cwd",
        "archived",
        "message_count",
        "tool_call_count",
        "format",
        "exported_at",
        "exporter",
    ]
    assert front["session_id"] == ex.rich and front["title"] == "Fix the parser <b>now</b> / 修复"
    assert front["message_count"] == 8 and front["tool_call_count"] == 3  # the live transcript
    assert front["created_at"].endswith("Z") and front["archived"] is False
    assert front["exporter"] == "hermes sessions export (md/qmd) v1"


def test_markdown_body_messages_and_verification(ex: ExportStore, home: Path) -> None:
    result = export_sessions(ex.store, ExportRequest(format="qmd", session_ids=(ex.rich,)))
    (path,) = result.paths
    assert path.name.endswith(".qmd") and _front(path)["format"] == "qmd"
    body = path.read_text(encoding="utf-8")
    assert "\n### System — " in body and "\n### User — " in body
    assert "\n### Tool — read_file — " in body and "\n## Tool calls\n" in body
    assert "文件.txt" in body and SECRET in body  # not redacted unless asked
    assert "rewound answer" not in body  # inactive rows are not the transcript
    assert body.rstrip().endswith("`") and "- Exported messages: `8`" in body
    # The message quoting a verification section does not fool the check.
    assert FAKE_VERIFY in body
    assert verify_file(path, ex.rich, 8) is None
    assert verify_file(path, "nope", 1) is not None
    path.write_text(body.replace("你好", "你好!"), encoding="utf-8")
    assert "SHA-256 does not match" in (verify_file(path, ex.rich, 8) or "")


def test_markdown_redacted(ex: ExportStore) -> None:
    req = ExportRequest(format="md", session_ids=(ex.rich,), redact=True)
    (path,) = export_sessions(ex.store, req).paths
    body = path.read_text(encoding="utf-8")
    assert SECRET not in body and MASKED in body


def test_existing_file_needs_force(ex: ExportStore) -> None:
    req = ExportRequest(format="md", session_ids=(ex.cjk,))
    (path,) = export_sessions(ex.store, req).paths
    path.write_text("mine")
    with pytest.raises(ExportError, match=r"Export already exists: .*Pass --force"):
        export_sessions(ex.store, req)
    assert path.read_text() == "mine"
    export_sessions(ex.store, ExportRequest(format="md", session_ids=(ex.cjk,), force=True))
    assert path.read_text().startswith("---\n")


def test_logical_lineage_is_one_document_in_order(ex: ExportStore) -> None:
    root, two, three = ex.lineage
    req = ExportRequest(format="md", session_ids=(two,), lineage="logical")
    (path,) = export_sessions(ex.store, req).paths
    assert path.name == f"{three}-my-lineage-3.md"  # named after the newest segment
    front = _front(path)
    assert front["lineage_session_ids"] == [root, two, three]
    assert front["message_count"] == 6 and front["session_id"] == three
    body = path.read_text(encoding="utf-8")
    headers = [body.index(f"## Compression segment: {s}") for s in (root, two, three)]
    answers = [body.index(f"segment {n} answer") for n in (1, 2, 3)]
    assert headers == sorted(headers) and answers == sorted(answers)
    assert headers[0] < answers[0] < headers[1] < answers[1] < headers[2] < answers[2]
    entry = json.loads((path.parent / "manifest.jsonl").read_text().splitlines()[-1])
    assert entry["lineage_session_ids"] == [root, two, three] and entry["message_count"] == 6


def test_user_prompts_jsonl_and_markdown(ex: ExportStore, home: Path) -> None:
    out = home / "p.jsonl"
    req = ExportRequest(format="jsonl", session_ids=(ex.rich,), output=out, only_user_prompts=True)
    result = export_sessions(ex.store, req)
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert result.prompts == 2 == len(records)
    assert [r["index"] for r in records] == [1, 2]
    assert set(records[0]) == {"session_id", "index", "created_at", "role", "text", "message_id"}
    assert records[0]["created_at"].endswith("Z") and len(records[0]["created_at"]) == 20
    assert records[0]["text"].startswith("<script>")
    md = home / "p.md"
    req = ExportRequest(format="md", session_ids=(ex.rich,), output=md, only_user_prompts=True)
    export_sessions(ex.store, req)
    text = md.read_text(encoding="utf-8")
    assert text.startswith(f"# User prompts for session {ex.rich}\n- Session ID: `{ex.rich}`")
    assert "\n## 1. " in text and "\n## 2. " in text and "Let me look." not in text
    with pytest.raises(ExportError, match="--only user-prompts supports --format jsonl or md"):
        plan_export(
            ex.store, ExportRequest(format="html", session_ids=(ex.rich,), only_user_prompts=True)
        )


# -- delete after verified -----------------------------------------------------------


def _delete_request(sid: str, folder: Path) -> ExportRequest:
    return ExportRequest(format="md", session_ids=(sid,), output=folder, delete_after_verified=True)


def test_delete_after_verified_exports_every_session_it_deletes(
    ex: ExportStore, home: Path
) -> None:
    store = ex.store
    store.write(lambda c: c.execute("DELETE FROM messages WHERE active = 0"))  # see next test
    result = export_sessions(store, _delete_request(ex.rich, home / "out"))
    assert set(result.deleted) == {ex.rich, ex.delegate}
    assert {p.name.split("-")[0] for p in result.paths} == {ex.rich, ex.delegate}
    assert not ({ex.rich, ex.delegate} & _ids(store))
    for path in result.paths:
        assert path.is_file()
    assert ex.cjk in _ids(store)


def test_delete_refused_when_rows_are_left_out(ex: ExportStore, home: Path) -> None:
    with pytest.raises(VerificationFailed, match=r"inactive .* message") as info:
        export_sessions(ex.store, _delete_request(ex.rich, home / "out"))
    assert ex.rich in _ids(ex.store) and info.value.result is not None
    assert len(info.value.result.paths) == 2  # the export stays


def test_delete_refused_after_a_tampered_file(ex: ExportStore, home: Path) -> None:
    def tamper(done: int, total: int) -> None:
        if done == total:
            for path in (home / "out").glob("*.md"):
                path.write_text(path.read_text(encoding="utf-8") + "\nedited", encoding="utf-8")

    req = _delete_request(ex.cjk, home / "out")
    with pytest.raises(VerificationFailed, match=r"SHA-256|last line"):
        export_sessions(ex.store, req, progress=tamper)
    assert ex.cjk in _ids(ex.store)
    export_sessions(ex.store, ExportRequest(**{**req.__dict__, "force": True}))
    assert ex.cjk not in _ids(ex.store)


def test_delete_refused_when_the_conversation_changes(ex: ExportStore, home: Path) -> None:
    store = ex.store
    written = export_sessions(store, ExportRequest(format="md", session_ids=(ex.cjk,))).paths
    files = [WrittenFile(written[0], ex.cjk, ((ex.cjk, 2),))]
    append_message(store, ex.cjk, NewMessage("user", "one more", timestamp=NOW))
    with pytest.raises(VerificationFailed, match="has 3 message"):
        delete_exported(store, ex.cjk, files)
    store.write(lambda c: c.execute("DELETE FROM messages WHERE content = 'one more'"))
    config = json.dumps({"_delegate_from": ex.cjk})
    child = create_session(
        store, NewSession("subagent", parent_session_id=ex.cjk, model_config=config)
    )
    with pytest.raises(VerificationFailed, match=f"{child} is not in a verified file"):
        delete_exported(store, ex.cjk, files)
    assert {ex.cjk, child} <= _ids(store)


def test_delete_needs_md_and_one_session(ex: ExportStore) -> None:
    for req in (
        ExportRequest(format="jsonl", session_ids=(ex.cjk,), delete_after_verified=True),
        ExportRequest(
            format="md", filter=build_filter({"source": "cli"}, NOW), delete_after_verified=True
        ),
    ):
        with pytest.raises(ExportError, match="--delete-after-verified works only"):
            plan_export(ex.store, req)


def test_bulk_without_filter_is_refused(ex: ExportStore) -> None:
    for fmt in ("md", "qmd", "html", "trace"):
        with pytest.raises(ExportError, match="Refusing bulk export without a filter"):
            plan_export(ex.store, ExportRequest(format=fmt))  # type: ignore[arg-type]


def test_cancelled_per_file_export_keeps_finished_files(ex: ExportStore, home: Path) -> None:
    calls = iter(range(100))
    req = ExportRequest(format="md", filter=build_filter({"older_than": "1d"}, NOW))
    result = export_sessions(ex.store, req, cancelled=lambda: next(calls) >= 2)
    assert result.cancelled and len(result.paths) == 2
    assert len((home / "session-exports" / "manifest.jsonl").read_text().splitlines()) == 2
    out = home / "all.jsonl"
    stopped = export_sessions(
        ex.store,
        ExportRequest(format="jsonl", everything=True, output=out),
        cancelled=lambda: True,
    )
    assert stopped.cancelled and not out.exists()
    assert not list(home.glob(".all.jsonl.*"))


def test_store_text_is_not_changed_by_an_export(ex: ExportStore, home: Path) -> None:
    before = table_rows(ex.store.path, _ids(ex.store))
    for fmt in ("jsonl", "md", "html", "trace"):
        out = home / f"x.{fmt}" if fmt in ("jsonl", "html") else home / fmt
        req = ExportRequest(
            format=fmt,
            filter=build_filter({"older_than": "1d"}, NOW),  # type: ignore[arg-type]
            output=out,
            redact=True,
        )
        export_sessions(ex.store, req)
    assert table_rows(ex.store.path, _ids(ex.store)) == before
    with sqlite3.connect(ex.store.path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_conversations_take_every_segment_and_subagent_run(ex: ExportStore) -> None:
    root, two, three = ex.lineage
    plan = plan_export(ex.store, ExportRequest(format="md", conversations=(three, ex.rich)))
    assert [item.session_ids for item in plan.items] == [
        (root,),
        (two,),
        (three,),
        (ex.rich,),
        (ex.delegate,),
    ]
    logical = ExportRequest(format="html", conversations=(two,), lineage="logical")
    plan = plan_export(ex.store, logical)
    assert [item.session_ids for item in plan.items] == [(root, two, three)]
    assert plan.output is not None and plan.output.name == f"{three}.html"


def test_file_names_never_leave_the_folder(store: Store, home: Path) -> None:
    evil = "../../escape/..\\x id"
    create_session(store, NewSession("cli", id=evil, title="../../etc/passwd"))
    folder = home / "out"
    for fmt in ("md", "trace"):
        req = ExportRequest(format=fmt, session_ids=(evil,), output=folder)  # type: ignore[arg-type]
        if fmt == "trace":
            req = ExportRequest(format="trace", conversations=(evil,), output=folder)
        (path,) = export_sessions(store, req).paths
        assert path.parent == folder and path.resolve().parent == folder.resolve()
        assert "/" not in path.name and not path.name.startswith(".")
    assert sorted(p.name for p in folder.iterdir() if p.name != "manifest.jsonl") == [
        "__.._escape_.._x_id-etc-passwd.md",
        "__.._escape_.._x_id.trace.jsonl",
    ]
