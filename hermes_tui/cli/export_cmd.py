"""``hermes sessions export [OUT] --format jsonl|md|qmd|html|trace``.

Selection and wording follow Hermes (HERMES_AGENT_BEHAVIOUR.md §6.3): ``--session-id`` (id,
unique prefix or title) or the filters prune uses (ended conversations, archived
included, oldest first); without either, JSONL exports every session and a trace the most
recently active one, while the other formats refuse. ``-`` writes to standard output
where one stream makes sense. The work is :mod:`hermes_tui.store.export`'s.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

from ..store import Store
from ..store.export import (
    FORMATS,
    REFUSE_BULK,
    ExportPlan,
    ExportRequest,
    ExportResult,
    VerificationFailed,
    export_sessions,
    plan_export,
)
from ..store.resolve import latest_session, resolve_in
from ..textsafe import cell_width, clean, fit
from .common import CliError, Context
from .filter_args import add_filter_arguments, filter_from_args

DRY_RUN_ROWS = 100
NO_UPLOAD = (
    "hermes_tui never uploads anything (there is no network upload). Write the trace to a "
    "file, check it, then upload it yourself."
)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' * (n != 1)}"


def _check_flags(args: argparse.Namespace) -> str:
    fmt = str(args.format).strip().lower()
    if fmt not in FORMATS:
        raise CliError(f"Unknown export format '{args.format}'. Use one of: {', '.join(FORMATS)}.")
    if args.upload or args.public:
        raise CliError(NO_UPLOAD)
    if args.only is not None and args.only != "user-prompts":
        raise CliError(f"Unknown --only value '{args.only}'. Use --only user-prompts.")
    if args.lineage not in ("single", "logical"):
        raise CliError(f"Unknown --lineage value '{args.lineage}'. Use single or logical.")
    if args.redact and args.no_redact:
        raise CliError("Pass either --redact or --no-redact, not both.")
    if args.delete_after_verified and not args.yes:
        raise CliError(
            "--delete-after-verified needs --yes: it deletes the session once its export "
            "checks out."
        )
    return fmt


def _request(store: Store, args: argparse.Namespace, fmt: str) -> ExportRequest:
    now = time.time()
    given = filter_from_args(args, now)
    has_filter = not given.is_empty()
    only = args.only is not None
    if args.session_id and has_filter:
        raise CliError("Pass --session-id or filters, not both.")
    session_ids: tuple[str, ...] = ()
    if args.session_id:
        with store.snapshot() as conn:
            session_ids = (resolve_in(conn, args.session_id),)
    elif not has_filter and args.dry_run:
        raise CliError("--dry-run requires at least one filter.")
    elif not has_filter and fmt == "trace" and not only:
        latest = latest_session(store)
        if latest is None:
            raise CliError("No sessions to export.")
        session_ids = (latest,)
    elif not has_filter and fmt != "jsonl":
        raise CliError(REFUSE_BULK)
    out = args.output
    if out is None and not args.dry_run and (fmt == "jsonl" or only):
        kind = "User-prompt" if only else "JSONL"
        raise CliError(f"{kind} export requires an output path (use - for stdout).")
    if out is None and not args.dry_run and fmt == "html":
        raise CliError("HTML export requires an output file (use - for stdout).")
    redact = True if args.redact else False if args.no_redact else None
    return ExportRequest(
        format=fmt,  # type: ignore[arg-type]
        session_ids=session_ids,
        filter=given if has_filter else None,
        everything=not session_ids and not has_filter,
        output=None if out in (None, "-") else Path(out).expanduser(),
        redact=redact,
        only_user_prompts=only,
        lineage=args.lineage,
        force=args.force,
        delete_after_verified=args.delete_after_verified,
    )


def _spared(plan: ExportPlan, done: bool) -> None:
    if plan.spared_open:
        verb = "were NOT" if done else "will NOT be"
        print(
            f"  {len(plan.spared_open)} open session(s) also match and {verb} exported "
            "(still open: a running Hermes may be using them)."
        )


def _print_plan(plan: ExportPlan) -> None:
    ids = plan.session_ids
    print(f"Would export {len(ids)} session(s) ({plan.description}).")
    shown = ids[:DRY_RUN_ROWS]
    width = max((cell_width(i) for i in shown), default=0)
    for sid in shown:
        entry = plan.entries.get(sid)
        source = clean(entry.source if entry else "", keep_newlines=False)
        title = clean(entry.title if entry else "", keep_newlines=False)
        print(f"  {fit(sid, width)}  {fit(source, 10)} {fit(title, 40)}".rstrip())
    if len(ids) > len(shown):
        print(f"  ... {len(ids) - len(shown)} more")
    _spared(plan, done=False)
    if plan.output is not None and ids:
        print(f"To: {plan.output}")
    if plan.existing:
        print(f"  {len(plan.existing)} file(s) there already exist (pass --force to overwrite).")


def _progress() -> Callable[[int, int], None] | None:
    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int) -> None:
        end = "\r\033[K" if done >= total else ""
        print(f"\r\033[KExporting… {done}/{total}{end}", end="", file=sys.stderr, flush=True)

    return show


def _report(result: ExportResult, plan: ExportPlan) -> None:
    if result.to_stream:
        return
    fmt = result.format
    target = result.paths[0] if result.paths else plan.output
    n = result.sessions
    if plan.request.only_user_prompts:
        print(f"Exported {result.prompts} prompt(s) to {target}")
    elif fmt == "jsonl":
        print(f"Exported {_plural(n, 'session')} to {target}")
    elif fmt == "html":
        print(f"Exported {n} session(s) to {target} (HTML)")
    elif fmt in ("md", "qmd") and len(result.paths) == 1:
        print(f"Exported 1 session ({_plural(result.messages, 'message')}) to {target}")
    elif fmt in ("md", "qmd"):
        print(f"Exported {n} session(s) to {result.folder}")
    elif len(result.paths) == 1 and not plan.request.per_file:
        print(f"Exported the trace of session {plan.items[0].id} to {target}")
    else:
        print(f"Exported {len(result.paths)} trace(s) to {result.folder}")
    if result.manifest is not None and len(result.paths) > 1:
        print(f"Manifest: {result.manifest}")
    if result.redacted:
        print("Secrets were redacted" + (" (--no-redact keeps them)." if fmt == "trace" else "."))
    if result.skipped:
        print(f"  {len(result.skipped)} session(s) were deleted meanwhile and are not in it.")
    _spared(plan, done=True)


def cmd_export(ctx: Context, args: argparse.Namespace) -> int:
    fmt = _check_flags(args)
    store = ctx.open_store()
    request = _request(store, args, fmt)
    # A single trace without OUT goes to standard output, as Hermes does.
    to_stream = args.output == "-" or (
        fmt == "trace" and args.output is None and not request.per_file
    )
    plan = plan_export(store, request, to_stream=to_stream)
    if args.dry_run:
        _print_plan(plan)
        return 0
    if not plan.items:
        print(f"No sessions match ({plan.description}).")
        _spared(plan, done=True)
        return 0
    stream = sys.stdout.buffer if to_stream else None
    try:
        result = export_sessions(store, request, stream=stream, progress=_progress(), plan=plan)
    except VerificationFailed as exc:
        if exc.result is not None:
            _report(exc.result, plan)
        raise CliError(f"Export verification failed; not deleting: {exc}") from None
    except OSError as exc:
        raise CliError(f"Cannot write the export: {exc.strerror or exc}") from None
    if stream is not None:
        stream.flush()
    _report(result, plan)
    if result.deleted:
        print(f"Deleted exported session '{request.session_ids[0]}'.")
        others = len(result.deleted) - 1
        if others:
            print(
                f"  (with {_plural(others, 'related session')} of the same conversation, "
                "each in its own verified file)"
            )
    return 0


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """Register ``export``."""
    p = sub.add_parser(
        "export",
        help="export sessions: jsonl (restorable), md/qmd, html, trace",
        description="Without --session-id or filters: jsonl exports every session, trace "
        "the most recently active one; md, qmd and html need a filter. Filters select "
        "ended conversations (archived and pinned included), oldest first.",
    )
    p.add_argument("output", nargs="?", metavar="OUT", help="file or folder; - for stdout")
    p.add_argument("--format", "-f", default="jsonl", help=f"one of {', '.join(FORMATS)}")
    p.add_argument("--session-id", metavar="ID", help="one session: id, unique prefix or title")
    add_filter_arguments(p)
    p.add_argument("--dry-run", action="store_true", help="list what would be exported")
    p.add_argument("--yes", "-y", action="store_true", help="confirm --delete-after-verified")
    p.add_argument("--force", action="store_true", help="overwrite existing export files")
    p.add_argument("--redact", action="store_true", help="mask API keys, tokens, passwords")
    p.add_argument("--no-redact", action="store_true", help="keep secrets in traces")
    p.add_argument("--only", metavar="user-prompts", help="only what the user typed (jsonl, md)")
    p.add_argument("--lineage", default="single", help="single or logical (md, qmd, html)")
    p.add_argument(
        "--delete-after-verified",
        action="store_true",
        help="md/qmd, one --session-id: delete it after its export checks out (needs --yes)",
    )
    p.add_argument("--upload", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--public", action="store_true", help=argparse.SUPPRESS)
    p.set_defaults(handler=cmd_export)
