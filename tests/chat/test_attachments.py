"""Attachments: text into the turn, images once to a vision model, other files by path."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from hermes_tui.chat import AttachmentError, Conversation, from_paste, load_attachment
from hermes_tui.chat.attachments import stored_block
from hermes_tui.store import Store, get_messages

from ..fakemodel import FakeModel, text
from .conftest import MakeConversation, model_config

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def test_a_text_document_goes_into_that_turn_and_later_turns_carry_it_shortened(
    conversation: Conversation, fake: FakeModel, store: Store, tmp_path: Path
) -> None:
    body = "\n".join(f"{i}: config value {i}" for i in range(400))
    (tmp_path / "settings.ini").write_text(body, encoding="utf-8")
    conversation.attach(tmp_path / "settings.ini")
    conversation.send("Check these settings")
    fake.push(text("ok"))
    conversation.send("And now?")

    stored = get_messages(store, conversation.session_id)[0].content
    assert stored.startswith("Check these settings\n\n[Attached text file: settings.ini — ")
    assert str(tmp_path / "settings.ini") in stored and body in stored
    first_turn = fake.requests[0]["messages"][-1]["content"]
    assert body in first_turn
    later = fake.requests[-1]["messages"][1]["content"]
    assert "settings.ini" in later and "characters omitted here" in later
    assert len(later) < len(body) // 2


def test_an_image_is_sent_once_to_a_vision_model(
    store: Store, fake: FakeModel, make_conversation: MakeConversation, tmp_path: Path
) -> None:
    (tmp_path / "cat.png").write_bytes(PNG)
    conversation = make_conversation(model_config(fake.url, vision=True))
    conversation.attach("cat.png")
    conversation.send("Make a meme of this")
    conversation.send("Make it funnier")

    parts = fake.requests[0]["messages"][-1]["content"]
    assert parts[0]["type"] == "text" and parts[0]["text"].startswith("Make a meme of this")
    assert parts[1] == {
        "type": "image_url",
        "image_url": {"url": "data:image/png;base64," + base64.b64encode(PNG).decode()},
    }
    later = fake.requests[1]["messages"]
    assert all(isinstance(m["content"], str | None) for m in later)  # no image any more
    assert "[Attached image: cat.png" in later[1]["content"]
    stored = get_messages(store, conversation.session_id)[0].content
    assert "shown to the model with this message only" in stored
    assert base64.b64encode(PNG).decode() not in stored  # never the bytes


def test_a_model_without_vision_gets_the_note_only(
    store: Store, fake: FakeModel, make_conversation: MakeConversation, tmp_path: Path
) -> None:
    (tmp_path / "cat.png").write_bytes(PNG)
    conversation = make_conversation(model_config(fake.url, vision=False))
    conversation.send("What is this?", attachments=[load_attachment(tmp_path / "cat.png")])
    sent = fake.requests[0]["messages"][-1]["content"]
    assert isinstance(sent, str) and "not shown" in sent and "model.vision" in sent


def test_other_files_are_recorded_by_path(tmp_path: Path) -> None:
    (tmp_path / "report.pdf").write_bytes(b"%PDF-1.7\n\xe2\xe3\xcf\xd3 binary \x00 stuff")
    attachment = load_attachment(tmp_path / "report.pdf")
    assert attachment.kind == "file" and attachment.text is None
    block = stored_block(attachment, image_sent=False)
    assert block.startswith("[Attached file: report.pdf — ")
    assert "application/pdf" in block and "only its path" in block


def test_big_text_is_cut_with_a_note(tmp_path: Path) -> None:
    (tmp_path / "huge.log").write_text("x" * 300_000, encoding="utf-8")
    attachment = load_attachment(tmp_path / "huge.log")
    assert attachment.truncated and len(attachment.text or "") == 256 * 1024


def test_bad_paths_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(AttachmentError, match="No such file"):
        load_attachment(tmp_path / "missing.txt")
    with pytest.raises(AttachmentError, match="Not a file"):
        load_attachment(tmp_path)


def test_a_pasted_path_is_recognised(tmp_path: Path) -> None:
    target = tmp_path / "my notes.txt"
    target.write_text("hi", encoding="utf-8")
    assert from_paste(f"'{target}'") == target
    assert from_paste(str(target).replace(" ", "\\ ")) == target
    assert from_paste(target.as_uri()) == target
    assert from_paste("my notes.txt") is None  # plain words are a message
    assert from_paste("./my notes.txt", base=tmp_path) == target
    assert from_paste(f"look at {target}") is None
    assert from_paste(str(tmp_path)) is None  # a folder is not an attachment
