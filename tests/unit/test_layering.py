"""The store layer and the chat engine import neither Textual nor Rich (they run in thread
workers and the CLI)."""

from __future__ import annotations

import subprocess
import sys


def test_store_imports_no_ui_libraries() -> None:
    code = (
        "import sys, hermes_tui.store, hermes_tui.store.generate, hermes_tui.config, "
        "hermes_tui.paths, hermes_tui.demo, hermes_tui.chat, hermes_tui.chat.commands\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich'))\n"
        "print(bad)\n"
        "sys.exit(1 if bad else 0)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
