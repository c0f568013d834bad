"""The one entry point the CLI and the TUI share.

``plan_export(store, request)`` is the dry run: what would be written, where, and what is
in the way. ``export_sessions(store, request, progress=…, cancelled=…)`` writes it and
returns an :class:`~.model.ExportResult`. Both only read the store (each item in its own
short read transaction), except ``delete_after_verified``, which ends with one checked
delete (:mod:`.delete`). Safe to call from a worker thread; *progress* is called there.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import BinaryIO

from ...paths import exports_dir
from ..db import Store
from . import select
from .atomic import AtomicFile, StreamSink, ensure_folder, exists_message
from .delete import delete_exported
from .html import HtmlWriter
from .jsonl import JsonlWriter
from .markdown import MarkdownWriter, file_stem, safe_id
from .model import (
    FORMATS,
    Added,
    ExportError,
    ExportPlan,
    ExportRequest,
    ExportResult,
    Item,
    VerificationFailed,
)
from .prompts import PromptsWriter
from .trace import TraceFilesWriter, TraceWriter

REFUSE_BULK = (
    "Refusing bulk export without a filter. Pass --session-id or at least one filter "
    "(e.g. --older-than 90, --source telegram)."
)


def validate(request: ExportRequest, *, to_stream: bool = False) -> None:
    """Raise ExportError (one line) for a request that cannot run as asked."""
    fmt = request.format
    if fmt not in FORMATS:
        raise ExportError(f"Unknown export format '{fmt}'. Use one of: {', '.join(FORMATS)}.")
    has_filter = request.filter is not None and not request.filter.is_empty()
    chosen = [bool(request.session_ids), bool(request.conversations), has_filter]
    chosen.append(request.everything)
    if sum(chosen) > 1:
        raise ExportError("Choose sessions one way: by id, by conversation or by filter.")
    if request.only_user_prompts and fmt not in ("jsonl", "md"):
        raise ExportError("--only user-prompts supports --format jsonl or md.")
    if request.everything and fmt != "jsonl":
        raise ExportError(REFUSE_BULK)
    if not any(chosen):
        raise ExportError(REFUSE_BULK)
    if request.lineage == "logical" and (fmt not in ("md", "qmd", "html")):
        raise ExportError("--lineage logical supports --format md, qmd or html.")
    if request.delete_after_verified and (
        fmt not in ("md", "qmd") or not request.single or request.only_user_prompts
    ):
        raise ExportError(
            "--delete-after-verified works only with --format md or qmd and one --session-id."
        )
    if to_stream and request.per_file:
        if fmt == "trace":
            raise ExportError(
                "A trace export of several sessions writes one file per session: "
                "give a folder, not -."
            )
        raise ExportError(
            "Markdown/QMD export writes one file per session into a folder, so it cannot "
            "go to standard output (use --only user-prompts for a single stream)."
        )


def _stamp(now: float) -> str:
    return time.strftime("%Y%m%d_%H%M%S", time.localtime(now))


def _default_file(home: Path, request: ExportRequest, items: list[Item], now: float) -> Path:
    folder = exports_dir(home)
    one = items[0].id if len(items) == 1 else None
    if request.only_user_prompts:
        name = f"{safe_id(one)}-prompts" if one else f"prompts-{_stamp(now)}"
        return folder / f"{name}.{request.format}"
    if request.format == "trace":
        return folder / f"{safe_id(one or 'session')}.trace.jsonl"
    if request.format == "html" and one:
        return folder / f"{safe_id(one)}.html"
    return folder / f"sessions-{_stamp(now)}.{request.format}"


def _place(
    request: ExportRequest, items: list[Item], folder: Path, titles: dict[str, str | None]
) -> list[Item]:
    """Give each item of a per-file export its own path (unique within the export)."""
    placed: list[Item] = []
    used: set[Path] = set()
    for item in items:
        if request.format == "trace":
            stem, suffix = safe_id(item.id), ".trace.jsonl"
        else:
            stem, suffix = file_stem(item.id, titles.get(item.id)), f".{request.format}"
        path, n = folder / f"{stem}{suffix}", 2
        while path in used:  # two ids that differ only in characters a file name cannot hold
            path, n = folder / f"{stem}-{n}{suffix}", n + 1
        used.add(path)
        placed.append(Item(item.session_ids, item.unit, path))
    return placed


def plan_export(
    store: Store,
    request: ExportRequest,
    *,
    to_stream: bool = False,
    now: float | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> ExportPlan:
    """What *request* would write (changes nothing). Raises ExportError for a request that
    cannot run, SessionNotFound for an unknown id, FilterError for a filter the store
    cannot answer."""
    validate(request, to_stream=to_stream)
    now = time.time() if now is None else now
    caps = store.capabilities
    with store.snapshot(cancelled) as conn:
        items, spared, description = select.select(conn, caps, request, cancelled)
        ids = [sid for item in items for sid in item.session_ids]
        entries = select.entries(conn, caps, ids)
    output: Path | None = None
    existing: list[Path] = []
    if request.per_file:
        output = (request.output or exports_dir(store.home)).expanduser()
        if output.exists() and not output.is_dir():
            raise ExportError(f"This export writes one file per session into a folder: {output}")
        titles = {sid: e.title for sid, e in entries.items()}
        items = _place(request, items, output, titles)
        existing = [i.path for i in items if i.path is not None and i.path.exists()]
    elif not to_stream and items:
        output = (request.output or _default_file(store.home, request, items, now)).expanduser()
        if output.is_dir() and request.format == "trace":
            output = output / f"{safe_id(items[0].id)}.trace.jsonl"
        if output.is_dir():
            raise ExportError(f"This export writes one file, and {output} is a folder.")
        existing = [output] if output.exists() else []
    return ExportPlan(request, tuple(items), entries, output, description, spared, tuple(existing))


Writer = JsonlWriter | HtmlWriter | PromptsWriter | TraceWriter | MarkdownWriter | TraceFilesWriter


def _writer(plan: ExportPlan, sink: AtomicFile | StreamSink | None) -> Writer:
    request = plan.request
    redact = request.redacting
    if request.per_file:
        assert plan.output is not None
        ensure_folder(plan.output)
        if request.format == "trace":
            return TraceFilesWriter(redact=redact, force=request.force)
        return MarkdownWriter(plan.output, request.format, redact=redact, force=request.force)
    assert sink is not None
    if request.only_user_prompts:
        several = len(plan.items) > 1
        return PromptsWriter(sink, request.format, redact=redact, several=several)
    if request.format == "html":
        return HtmlWriter(sink, plan.items, plan.entries, redact=redact)
    if request.format == "trace":
        return TraceWriter(sink, redact=redact)
    return JsonlWriter(sink, redact=redact)


def export_sessions(
    store: Store,
    request: ExportRequest,
    *,
    stream: BinaryIO | None = None,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    plan: ExportPlan | None = None,
) -> ExportResult:
    """Write the export *request* asks for (to *stream* instead of a file when given) and,
    with ``delete_after_verified``, delete the session once every file checks out.

    *progress(done, total)* counts sessions. When *cancelled* turns true the export stops
    between sessions: per-file exports keep the files already finished (each complete,
    each in the manifest), a single-file export writes nothing. Raises ExportError for an
    impossible request or a file in the way (without ``force``), VerificationFailed when
    the delete is refused (the export files stay)."""
    plan = plan or plan_export(store, request, to_stream=stream is not None)
    if plan.existing and not request.force:
        raise ExportError(exists_message(plan.existing[0]))
    result = ExportResult(format=request.format, redacted=request.redacting)
    if not plan.items:
        return result
    sink: AtomicFile | StreamSink | None = None
    if not request.per_file:
        if stream is not None:
            sink = StreamSink(stream)
        else:
            assert plan.output is not None
            sink = AtomicFile(plan.output, overwrite=request.force)
    total = plan.session_count
    counts = Added(0, 0, 0)
    skipped: list[str] = []
    stopped = False
    try:
        writer = _writer(plan, sink)
        for item in plan.items:
            if cancelled is not None and cancelled():
                stopped = True
                break
            with store.snapshot() as conn:
                added = writer.add(conn, store.capabilities, item)
            if added is None:
                skipped += item.session_ids
            else:
                counts = Added(
                    counts.sessions + added.sessions,
                    counts.messages + added.messages,
                    counts.prompts + added.prompts,
                )
            if progress is not None:
                progress(counts.sessions + len(skipped), total)
        if isinstance(writer, HtmlWriter) and not stopped:
            writer.finish()
        if isinstance(sink, AtomicFile):
            if stopped:
                sink.abort()
            else:
                sink.commit()
    except BaseException:
        if isinstance(sink, AtomicFile):
            sink.abort()
        raise
    paths: tuple[Path, ...] = ()
    if isinstance(writer, MarkdownWriter):
        paths = tuple(w.path for w in writer.written)
    elif isinstance(writer, TraceFilesWriter):
        paths = tuple(writer.paths)
    elif isinstance(sink, AtomicFile) and not stopped:
        paths = (sink.path,)
    result = ExportResult(
        format=request.format,
        paths=paths,
        folder=plan.output if request.per_file else None,
        manifest=writer.manifest if isinstance(writer, MarkdownWriter) else None,
        sessions=counts.sessions,
        messages=counts.messages,
        prompts=counts.prompts,
        redacted=request.redacting,
        to_stream=stream is not None,
        cancelled=stopped,
        skipped=tuple(skipped),
    )
    if request.delete_after_verified and not stopped:
        if skipped:
            raise VerificationFailed(f"session {skipped[0]} vanished during the export", result)
        assert isinstance(writer, MarkdownWriter)  # validate() allows md/qmd only
        try:
            deleted = delete_exported(store, request.session_ids[0], writer.written)
        except VerificationFailed as exc:
            raise VerificationFailed(str(exc), result) from None
        result = replace(result, deleted=deleted.deleted)
    return result
