"""The HTML page is self-contained and shows stored text only as text; traces form one
unbroken parentUuid chain per session with a tool_result for every tool_use."""

from __future__ import annotations

import io
import itertools
import json
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from hermes_tui.store import Store
from hermes_tui.store.export import ExportRequest, export_sessions
from hermes_tui.store.export.htmlassets import CSS, SCRIPT
from hermes_tui.store.export.htmltext import markdown
from hermes_tui.store.export.trace import NO_RESULT
from hermes_tui.store.filters import build_filter
from hermes_tui.store.generate import generate_store
from tests.conftest import NOW
from tests.exporting import HOSTILE, MASKED, SECRET, ExportStore, build


@pytest.fixture
def ex(store: Store) -> ExportStore:
    return build(store)


class Page(HTMLParser):
    """Every start tag with its attributes, the text, and what script/style elements hold."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.inside: list[str] = []
        self.raw: dict[str, list[str]] = {"script": [], "style": []}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag in self.raw:
            self.inside.append(tag)
            self.raw[tag].append("")

    def handle_endtag(self, tag: str) -> None:
        if self.inside and self.inside[-1] == tag:
            self.inside.pop()

    def handle_data(self, data: str) -> None:
        if self.inside:
            self.raw[self.inside[-1]][-1] += data
        else:
            self.text.append(data)


def _parse(path: Path) -> Page:
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    page.close()
    return page


def _no_remote(page: Page, source: str) -> None:
    for tag, attrs in page.tags:
        for name, value in attrs.items():
            if name in ("src", "href", "action", "srcset", "poster", "data", "background"):
                assert not re.match(r"\s*(https?:)?//", value or "", re.I), (tag, name, value)
    assert "@import" not in source and not re.search(r"url\(\s*['\"]?\s*(https?:)?//", source)


def test_html_several_sessions_is_self_contained_and_inert(ex: ExportStore, home: Path) -> None:
    out = home / "all.html"
    req = ExportRequest(format="html", filter=build_filter({"older_than": "1d"}, NOW), output=out)
    result = export_sessions(ex.store, req)
    assert result.paths == (out,) and result.sessions >= 6
    source = out.read_text(encoding="utf-8")
    page = _parse(out)
    tags = [t for t, _ in page.tags]
    assert "img" not in tags and "iframe" not in tags and "object" not in tags
    assert tags.count("script") == 1 and page.raw["script"] == [SCRIPT]
    assert tags.count("style") == 1 and page.raw["style"] == [CSS]
    assert tags.count("a") == result.sessions  # the sidebar's links, and nothing from messages
    assert all(a.get("href", "").startswith("#s") for t, a in page.tags if t == "a")
    _no_remote(page, source)
    csp = next(a for t, a in page.tags if t == "meta" and a.get("http-equiv"))
    assert "default-src 'none'" in (csp["content"] or "")
    text = "".join(page.text)
    assert HOSTILE in text  # shown as text, every character of it
    assert "return '</pre><script>alert(3)</script>'" in text
    assert "你好，世界 🚀" in text and "桂林周末旅行 🏞️" in text
    assert SECRET in text  # not redacted unless asked
    ids = [a["id"] for t, a in page.tags if t == "section"]
    assert ids == [f"s{n}" for n in range(result.sessions)]
    assert len([a for t, a in page.tags if t == "input" and a.get("id") == "q"]) == 1


def test_html_single_session_has_no_script_and_collapses_tools(ex: ExportStore, home: Path) -> None:
    out = home / "one.html"
    req = ExportRequest(format="html", session_ids=(ex.rich,), output=out, redact=True)
    export_sessions(ex.store, req)
    source = out.read_text(encoding="utf-8")
    page = _parse(out)
    tags = [t for t, _ in page.tags]
    assert "script" not in tags and "nav" not in tags
    classes = [a.get("class") for t, a in page.tags if t == "details"]
    assert classes.count("call") == 3 and classes.count("result") == 2
    assert classes.count("reasoning") == 1 and classes.count("system") == 1
    assert "span" in tags and 'style="color' in source  # Pygments colours the code
    text = "".join(page.text)
    assert SECRET not in source and MASKED in text
    _no_remote(page, source)


def test_markdown_renderer_escapes_before_adding_tags() -> None:
    html = markdown("**bold** `<b>` <i>x</i>\n\n# Title\n\n```js\n</pre><script>x()</script>\n```")
    assert "<strong>bold</strong>" in html and "<code>&lt;b&gt;</code>" in html
    assert "&lt;i&gt;x&lt;/i&gt;" in html and '<p class="h">Title</p>' in html
    assert "<script>" not in html and "&lt;/" in html
    assert markdown('"><img src=x onerror=alert(1)>') == (
        "<p>&quot;&gt;&lt;img src=x onerror=alert(1)&gt;</p>"
    )


# -- trace ---------------------------------------------------------------------------


def _check_chain(lines: list[dict]) -> None:
    assert lines, "an empty trace"
    assert lines[0]["parentUuid"] is None
    for prev, line in itertools.pairwise(lines):
        assert line["parentUuid"] == prev["uuid"]
    assert len({line["uuid"] for line in lines}) == len(lines)
    assert len({line["sessionId"] for line in lines}) == 1
    for line in lines:
        assert line["type"] in ("user", "assistant")
        assert line["message"]["role"] == line["type"]
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", line["timestamp"])
    uses = [
        b["id"]
        for line in lines
        if line["type"] == "assistant"
        for b in line["message"]["content"]
        if b["type"] == "tool_use"
    ]
    results = [
        b["tool_use_id"]
        for line in lines
        if isinstance(line["message"]["content"], list) and line["type"] == "user"
        for b in line["message"]["content"]
        if b["type"] == "tool_result"
    ]
    assert sorted(uses) == sorted(results) and len(set(uses)) == len(uses)


def test_trace_of_one_session(ex: ExportStore) -> None:
    sink = io.BytesIO()
    result = export_sessions(
        ex.store, ExportRequest(format="trace", session_ids=(ex.rich,)), stream=sink
    )
    assert result.redacted
    lines = [json.loads(line) for line in sink.getvalue().decode().splitlines()]
    _check_chain(lines)
    assert [line["type"] for line in lines] == [
        "user",
        "assistant",
        "user",
        "user",
        "user",
        "assistant",
        "assistant",
        "user",
    ]
    assert lines[0]["cwd"] == "/home/me/proj" and lines[0]["gitBranch"] == "main"
    call = lines[1]["message"]["content"]
    assert call[0] == {"type": "text", "text": "Let me look."}
    assert call[1]["input"] == {"path": "文件.txt"} and call[1]["id"] == "call_1"
    assert MASKED in call[2]["input"]["command"] and SECRET not in sink.getvalue().decode()
    assert lines[3]["message"]["content"][0]["tool_use_id"] == call[2]["id"]  # matched by name
    dangling = lines[-1]["message"]["content"][0]
    assert dangling["content"] == NO_RESULT and dangling["is_error"] is True
    assert lines[-2]["message"]["content"][0]["input"] == {"_raw": "not json"}
    again = io.BytesIO()
    export_sessions(ex.store, ExportRequest(format="trace", session_ids=(ex.rich,)), stream=again)
    assert again.getvalue() == sink.getvalue()  # deterministic


def test_trace_no_redact_keeps_secrets(ex: ExportStore) -> None:
    sink = io.BytesIO()
    req = ExportRequest(format="trace", session_ids=(ex.rich,), redact=False)
    export_sessions(ex.store, req, stream=sink)
    assert SECRET in sink.getvalue().decode()


def test_bulk_trace_writes_one_chain_per_session(home: Path) -> None:
    generate_store(home / "state.db", 120, 3_000, now=NOW, seed=11)
    store = Store.open(home / "state.db")
    req = ExportRequest(format="trace", filter=build_filter({"min_tool_calls": "1"}, NOW))
    result = export_sessions(store, req)
    assert result.folder == home / "session-exports" and len(result.paths) > 10
    for path in result.paths:
        assert path.name.endswith(".trace.jsonl")
        lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        if lines:
            _check_chain(lines)
            assert lines[0]["sessionId"] == path.name.removesuffix(".trace.jsonl")


def test_export_package_imports_no_ui_library() -> None:
    code = (
        "import sys, hermes_tui.store.export, hermes_tui.store.export.api\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich'))\n"
        "sys.exit(1 if bad else 0)\n"
    )
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0
