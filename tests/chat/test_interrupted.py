"""Closing the terminal mid-reply loses nothing already received.

A separate process streams a reply into the store (as the TUI does, from a worker thread)
and is then killed: with SIGHUP after its handler flushed (a terminal closing), and with
SIGKILL (no chance to react at all).
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from hermes_tui.store import Store, get_messages

from ..fakemodel import FakeModel, text

CHILD = r"""
import os, signal, sys, threading
from pathlib import Path
from hermes_tui.chat import Conversation, TextDelta
from hermes_tui.config import parse_config
from hermes_tui.store import Store

store = Store.open(Path(sys.argv[1]))
config = parse_config({"model": {"default": "fake/m", "base_url": sys.argv[2]}})
conversation = Conversation(store, config, home=Path(sys.argv[3]), env={}, auto_title=False)

def leave(signum, frame):
    conversation.flush()
    os._exit(0)

signal.signal(signal.SIGHUP, leave)

def show(event):
    if isinstance(event, TextDelta):
        print(event.text.strip(), flush=True)

worker = threading.Thread(target=conversation.send, args=("tell me a story",),
                          kwargs={"on_event": show}, daemon=True)
worker.start()
while worker.is_alive():
    worker.join(0.05)
"""


def stream_then(sig: int, store: Store, home: Path, words: int, linger: float) -> list[str]:
    """Run the child until it printed *words* words, wait *linger*, send *sig*."""
    with FakeModel() as fake:
        fake.push(text(*[f"word{i} " for i in range(400)], delay=0.03))
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(store.path), fake.url, str(home)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert child.stdout is not None
        received: list[str] = []
        try:
            deadline = time.monotonic() + 20
            while len(received) < words and time.monotonic() < deadline:
                line = child.stdout.readline()
                if not line:
                    break
                received.append(line.strip())
            time.sleep(linger)
            child.send_signal(sig)
            child.wait(10)
            received += [line.strip() for line in child.stdout.read().splitlines()]
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
    return received


def stored_reply(store: Store) -> str:
    with store.read() as conn:
        sid = conn.execute("SELECT id FROM sessions").fetchone()[0]
    rows = get_messages(store, sid)
    assert [m.role for m in rows] == ["user", "assistant"]
    assert rows[0].content == "tell me a story"
    assert rows[1].finish_reason == "incomplete"  # cut off: visibly not a finished reply
    return rows[1].content or ""


def test_sighup_after_a_flush_loses_nothing_received(store: Store, home: Path) -> None:
    received = stream_then(signal.SIGHUP, store, home, words=25, linger=0.0)
    assert len(received) >= 25
    stored = stored_reply(store).split()
    # Every word the process had shown is stored (the signal may land between storing a
    # word and printing it, so one more may be stored than was printed).
    assert stored[: len(received)] == received
    assert len(stored) <= len(received) + 1


def test_sigkill_loses_at_most_the_last_quarter_second(store: Store, home: Path) -> None:
    received = stream_then(signal.SIGKILL, store, home, words=25, linger=0.5)
    stored = stored_reply(store).split()
    assert stored == received[: len(stored)]  # a prefix of what arrived, in order
    assert len(stored) >= 25  # everything from before the last half second is there
