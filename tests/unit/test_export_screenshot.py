"""The README picture of an HTML export: the demo store, redacted, opened on a session with
tool calls, rendered by headless Chromium (Debian package ``chromium``).

Run: ``pytest -m screenshots tests/unit/test_export_screenshot.py`` (as root Chromium needs
``--no-sandbox``). Writes ``screenshots/export-html.png``.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from hermes_tui.demo import create_demo
from hermes_tui.store.export import ExportRequest, export_sessions, plan_export
from hermes_tui.store.filters import build_filter
from tests.conftest import NOW

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.screenshots
def test_export_html_screenshot(home: Path, tmp_path: Path) -> None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.fail("headless Chromium is needed: apt-get install -y chromium")
    store = create_demo(home, now=NOW)
    # The picture shows a user's paths, not the test's temporary folder.
    store.write(
        lambda c: c.execute(
            "UPDATE sessions SET cwd = replace(cwd, ?, '/home/me'), "
            "git_repo_root = replace(git_repo_root, ?, '/home/me')",
            (str(home), str(home)),
        )
    )
    out = tmp_path / "export.html"
    request = ExportRequest(
        format="html", filter=build_filter({"older_than": "1h"}, NOW), output=out, redact=True
    )
    plan = plan_export(store, request, now=NOW)
    title = "Fix flaky CI tests"
    index = next(n for n, item in enumerate(plan.items) if plan.entries[item.id].title == title)
    export_sessions(store, request, plan=plan)
    target = ROOT / "screenshots" / "export-html.png"
    target.parent.mkdir(exist_ok=True)
    subprocess.run(
        [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--no-first-run",
            "--hide-scrollbars",
            f"--screenshot={target}",
            "--window-size=1400,900",
            f"{out.as_uri()}#s{index}",
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    assert target.stat().st_size > 10_000
