"""Finding Claude Code and Codex CLI transcript files, and where a cwd's git repo starts.

Default roots: ``$CLAUDE_CONFIG_DIR`` (else ``~/.claude``) + ``projects``, and
``$CODEX_HOME`` (else ``~/.codex``) + ``sessions``; a blank variable counts as unset.
A PATH may be a transcript file, a project folder, a ``projects``/``sessions`` folder or
a config root. Symlinks that lead outside the folder given are not followed.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from .codex_records import peek_meta, subagent_parent
from .transcript import CLAUDE

_PEEK_LIMIT = 4_000_000  # a session_meta line carries the base instructions


@dataclass(frozen=True, slots=True)
class Found:
    path: Path
    subagent: bool = False
    skip_reason: str | None = None
    thread_name: str | None = None

    @property
    def mtime(self) -> float:
        try:
            return self.path.stat().st_mtime
        except OSError:
            return 0.0


def _home(variable: str, default: str, env: Mapping[str, str] | None) -> Path:
    env = os.environ if env is None else env
    raw = env.get(variable, "").strip()
    return Path(raw).expanduser() if raw else Path.home() / default


def default_paths(tool: str, env: Mapping[str, str] | None = None) -> list[Path]:
    """Where the tool keeps its transcripts on this machine."""
    if tool == CLAUDE:
        return [_home("CLAUDE_CONFIG_DIR", ".claude", env) / "projects"]
    return [_home("CODEX_HOME", ".codex", env) / "sessions"]


def _files(root: Path, wanted: Callable[[Path], bool]) -> list[Path]:
    """Regular files under *root* accepted by *wanted(path)*, staying inside *root*."""
    base = root.resolve()
    found: list[Path] = []
    for folder, dirs, names in os.walk(root):
        dirs.sort()
        for name in sorted(names):
            path = Path(folder) / name
            if not wanted(path):
                continue
            try:
                real = path.resolve()
            except OSError:
                continue
            if real.is_file() and real.is_relative_to(base):
                found.append(path)
    return found


def _claude_found(path: Path) -> Found | None:
    name = path.name
    if name.startswith("agent-acompact"):
        return Found(path, True, "compaction agent (not a conversation)")
    if name.startswith("agent-"):
        return Found(path, True)
    if path.parent.name == "subagents" or name in ("journal.jsonl", "history.jsonl"):
        return None  # lifecycle bookkeeping / prompt history, not transcripts
    return Found(path)


def _claude(paths: Sequence[Path]) -> list[Found]:
    found: list[Found] = []
    for path in paths:
        if path.is_file():
            found.append(_claude_found(path) or Found(path))
            continue
        root = path / "projects" if (path / "projects").is_dir() else path
        for file in _files(root, lambda p: p.suffix == ".jsonl"):
            item = _claude_found(file)
            if item is not None:
                found.append(item)
    return found


def _thread_names(roots: Sequence[Path]) -> dict[str, str]:
    """User-visible Codex thread names from ``session_index.jsonl`` (newest wins)."""
    names: dict[str, tuple[str, str]] = {}
    for root in roots:
        for candidate in (root / "session_index.jsonl", root.parent / "session_index.jsonl"):
            if not candidate.is_file():
                continue
            for line in candidate.read_text("utf-8", errors="replace").splitlines():
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                if not isinstance(entry, dict) or not entry.get("id"):
                    continue
                name, when = entry.get("thread_name"), str(entry.get("updated_at") or "")
                key = str(entry["id"])
                if isinstance(name, str) and name.strip() and when >= names.get(key, ("", ""))[1]:
                    names[key] = (name, when)
            break
    return {key: name for key, (name, _) in names.items()}


def _codex_found(path: Path, names: Mapping[str, str]) -> Found:
    try:
        with path.open("rb") as handle:
            first = handle.readline(_PEEK_LIMIT)
    except OSError:
        return Found(path)
    meta = peek_meta(path, first)
    is_sub, _, _ = subagent_parent(meta)
    thread = str(meta.get("id") or meta.get("session_id") or "")
    return Found(path, is_sub, thread_name=names.get(thread))


def _codex(paths: Sequence[Path]) -> list[Found]:
    roots: list[Path] = []
    files: list[Path] = []
    for path in paths:
        if path.is_file():
            files.append(path)
            continue
        root = path / "sessions" if (path / "sessions").is_dir() else path
        roots.append(root)
        files += _files(
            root, lambda p: p.name.startswith("rollout-") and p.suffix in (".jsonl", ".json")
        )
    names = _thread_names(roots)
    return [_codex_found(file, names) for file in files]


def find_transcripts(tool: str, paths: Sequence[Path]) -> list[Found]:
    """Transcript files under *paths*: main sessions first (oldest first, so the older
    of two equal titles keeps the bare one), then sub-agents; duplicates removed."""
    found = _claude(paths) if tool == CLAUDE else _codex(paths)
    unique: dict[Path, Found] = {}
    for item in found:
        unique.setdefault(item.path.resolve(), item)
    return sorted(unique.values(), key=lambda f: (f.subagent, f.mtime, str(f.path)))


def repo_root(cwd: str | None) -> str | None:
    """The git work tree containing *cwd*, if that folder still exists here."""
    if not cwd or not Path(cwd).is_absolute():
        return None
    try:
        start = Path(cwd)
        if not start.is_dir():
            return None
        for folder in (start, *start.parents):
            if (folder / ".git").exists():
                return str(folder)
    except OSError:
        return None
    return None
