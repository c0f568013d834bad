"""Writing export files so they are never half-written: a hidden temporary file in the
target folder (mode 0600, created exclusively, no symlink followed), flushed to disk, read
back and compared with what was written, then moved into place in one rename. Without
``overwrite`` an existing file is never replaced, even one that appears meanwhile."""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
from pathlib import Path
from types import TracebackType
from typing import BinaryIO

from .model import ExportError

CHUNK = 1 << 20


def ensure_folder(folder: Path) -> Path:
    """Create *folder* (0700) if needed; refuse a path that is a file."""
    if folder.exists() and not folder.is_dir():
        raise ExportError(f"Not a folder: {folder}")
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    return folder


def exists_message(path: Path) -> str:
    return f"Export already exists: {path}. Pass --force to overwrite."


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(CHUNK):
            digest.update(block)
    return digest.hexdigest()


def _fsync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class AtomicFile:
    """``with AtomicFile(path) as f: f.write(b"…")`` — the file appears only when the block
    ends without an error (then :attr:`sha256` is its digest); otherwise nothing changes."""

    def __init__(self, path: Path, *, overwrite: bool = False) -> None:
        self.path = path
        self.overwrite = overwrite
        if path.exists() and not overwrite:
            raise ExportError(exists_message(path))
        ensure_folder(path.parent)
        self.temp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.partial")
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        self._file: BinaryIO = os.fdopen(os.open(self.temp, flags, 0o600), "wb")
        self._hash = hashlib.sha256()
        self.size = 0
        self.sha256 = ""

    def write(self, data: bytes) -> None:
        self._file.write(data)
        self._hash.update(data)
        self.size += len(data)

    def commit(self) -> str:
        """Flush, check the bytes on disk, move into place; returns the SHA-256."""
        self._file.flush()
        os.fsync(self._file.fileno())
        self._file.close()
        digest = self._hash.hexdigest()
        if self.temp.stat().st_size != self.size or sha256_file(self.temp) != digest:
            raise ExportError(f"The export did not read back as written: {self.path}")
        if self.overwrite:
            self.temp.replace(self.path)
        else:
            try:
                os.link(self.temp, self.path)  # fails if the name exists: never clobbers
            except FileExistsError:
                raise ExportError(exists_message(self.path)) from None
            self.temp.unlink()
        _fsync_folder(self.path.parent)
        self.sha256 = digest
        return digest

    def abort(self) -> None:
        if not self._file.closed:
            self._file.close()
        with contextlib.suppress(FileNotFoundError):
            self.temp.unlink()

    def __enter__(self) -> AtomicFile:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if kind is None:
            try:
                self.commit()
            except BaseException:
                self.abort()
                raise
        else:
            self.abort()


class StreamSink:
    """The same interface over an open binary stream (``-``: standard output)."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream
        self.size = 0

    def write(self, data: bytes) -> None:
        self.stream.write(data)
        self.size += len(data)


Sink = AtomicFile | StreamSink
