"""Attachments (SPEC §4): what a file becomes in the turn it is attached to, and afterwards.

* a **text document**: its text goes into the user message, in an ``<attachment>`` block
  (stored, so the conversation can be resumed; later turns send it shortened);
* an **image**: sent once, as a data-URL part, to a model that accepts images; the stored
  message keeps only a note with its path — the bytes never reach the store;
* **anything else**: recorded by its local path with a short note.
"""

from __future__ import annotations

import base64
import mimetypes
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import unquote, urlsplit

Kind = Literal["text", "image", "file"]

MAX_TEXT_BYTES = 256 * 1024
MAX_IMAGE_BYTES = 8 * 1024 * 1024
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
TEXT_SUFFIXES = frozenset(
    ".txt .md .markdown .rst .log .csv .tsv .json .jsonl .yaml .yml .toml .ini .cfg .conf "
    ".py .js .ts .tsx .jsx .rs .go .java .kt .c .h .cpp .hpp .cs .rb .php .sh .bash .zsh "
    ".fish .sql .html .htm .css .scss .xml .svg .tex .diff .patch .env .gitignore".split()
)
ATTACHMENT_BLOCK = re.compile(r'(<attachment name="[^"]*">\n)(.*?)(\n</attachment>)', re.DOTALL)


class AttachmentError(ValueError):
    """A path that cannot be attached (missing, a folder, unreadable)."""


@dataclass(frozen=True)
class Attachment:
    path: Path
    kind: Kind
    size: int
    mime: str
    text: str | None = None
    truncated: bool = False
    data: bytes | None = field(default=None, repr=False)

    @property
    def name(self) -> str:
        return self.path.name

    def describe(self) -> str:
        """``notes.md (text, 2.3 KB)`` — for notices."""
        return f"{self.name} ({self.kind}, {human_size(self.size)})"


def human_size(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"


def _is_text(path: Path, head: bytes) -> bool:
    if b"\x00" in head:
        return False
    mime = mimetypes.guess_type(path.name)[0] or ""
    if path.suffix.lower() in TEXT_SUFFIXES or mime.startswith("text/"):
        return True
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start >= len(head) - 4  # only a character cut at the sniff boundary
    return True


def load_attachment(raw: str | Path, base: Path | None = None) -> Attachment:
    """Read *raw* (a path, relative to *base*) into an :class:`Attachment`."""
    path = Path(str(raw)).expanduser()
    if not path.is_absolute():
        path = (base or Path.cwd()) / path
    path = path.absolute()
    if not path.exists():
        raise AttachmentError(f"No such file: {path}")
    if not path.is_file():
        raise AttachmentError(f"Not a file: {path}")
    try:
        size = path.stat().st_size
        mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        if mime in IMAGE_TYPES and size <= MAX_IMAGE_BYTES:
            return Attachment(path, "image", size, mime, data=path.read_bytes())
        with path.open("rb") as handle:
            head = handle.read(MAX_TEXT_BYTES + 1)
    except OSError as exc:
        raise AttachmentError(f"Cannot read {path}: {exc.strerror or exc}") from None
    if mime not in IMAGE_TYPES and _is_text(path, head[:8192]):
        truncated = len(head) > MAX_TEXT_BYTES
        text = head[:MAX_TEXT_BYTES].decode("utf-8", "replace")
        return Attachment(path, "text", size, mime, text=text, truncated=truncated)
    return Attachment(path, "file", size, mime)


def from_paste(text: str, base: Path | None = None) -> Path | None:
    """The file a pasted line names (a dropped file: quoted, ``file://``, escaped spaces)."""
    candidate = text.strip()
    if not candidate or "\n" in candidate or len(candidate) > 4096:
        return None
    if len(candidate) >= 2 and candidate[0] == candidate[-1] and candidate[0] in "'\"":
        candidate = candidate[1:-1]
    if candidate.startswith("file://"):
        candidate = unquote(urlsplit(candidate).path)
    candidate = candidate.replace("\\ ", " ")
    if not (candidate.startswith(("/", "~", "./", "../")) or re.match(r"[A-Za-z]:\\", candidate)):
        return None
    path = Path(candidate).expanduser()
    if not path.is_absolute():
        path = (base or Path.cwd()) / path
    try:
        return path.absolute() if path.is_file() else None
    except OSError:
        return None


def stored_block(attachment: Attachment, image_sent: bool) -> str:
    """What the stored user message says about *attachment* (never raw image bytes)."""
    where = f"{attachment.name} — {attachment.path}"
    if attachment.kind == "text":
        cut = f"; first {human_size(MAX_TEXT_BYTES)} only" if attachment.truncated else ""
        head = f"[Attached text file: {where} ({human_size(attachment.size)}{cut})]"
        return f'{head}\n<attachment name="{attachment.name}">\n{attachment.text}\n</attachment>'
    if attachment.kind == "image":
        how = (
            "shown to the model with this message only"
            if image_sent
            else "not shown: the configured model does not accept images (model.vision)"
        )
        return (
            f"[Attached image: {where} ({attachment.mime}, {human_size(attachment.size)}); {how}]"
        )
    return (
        f"[Attached file: {where} ({attachment.mime}, {human_size(attachment.size)}); "
        "its contents are not included, only its path]"
    )


def image_part(attachment: Attachment) -> dict[str, Any]:
    """The OpenAI content part that carries an image for one request."""
    encoded = base64.b64encode(attachment.data or b"").decode("ascii")
    return {"type": "image_url", "image_url": {"url": f"data:{attachment.mime};base64,{encoded}"}}


def compose_user_text(typed: str, attachments: list[Attachment], vision: bool) -> str:
    """The stored user message: what was typed, then one block per attachment."""
    blocks = [stored_block(a, image_sent=vision) for a in attachments]
    return "\n\n".join(part for part in (typed.strip(), *blocks) if part)
