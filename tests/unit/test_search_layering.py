"""The search engine is store layer: no Textual, no Rich (it runs in thread workers)."""

from __future__ import annotations

import subprocess
import sys


def test_search_imports_no_ui_libraries() -> None:
    code = (
        "import sys, hermes_tui.store.search\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich'))\n"
        "print(bad)\n"
        "sys.exit(1 if bad else 0)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
