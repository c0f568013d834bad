"""From `hermes [--tui] [-r REF | -c [NAME]] [--in DIR] [--no-restore-cwd]` to a running app."""

from __future__ import annotations

import argparse
import os
import signal
from pathlib import Path

from ..cli.common import CliError, Context
from ..resume import StartError, plan_start
from .app import Start, build_app


def launch(ctx: Context, args: argparse.Namespace) -> int:
    try:
        plan = plan_start(
            ctx.db_path,
            ctx.config,
            os.environ,
            Path.cwd(),
            resume=args.resume,
            continue_=args.continue_,
            in_dir=args.in_dir,
            no_restore_cwd=args.no_restore_cwd,
        )
    except StartError as exc:
        raise CliError(str(exc)) from None
    if plan.chdir is not None:
        os.chdir(plan.chdir)
    start = Start(
        session_id=plan.session_id,
        workspace=plan.workspace,
        notices=plan.notices,
        search=args.search,
    )
    app = build_app(ctx.db_path, ctx.config, start=start, maintenance=True)

    def on_hangup(signum: int, _frame: object) -> None:
        # The terminal closed (or we were told to stop): keep every word that arrived,
        # end the sessions we opened, then go.
        app.flush_conversations()
        app.end_reopened()
        raise SystemExit(128 + signum)

    for name in ("SIGHUP", "SIGTERM"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), on_hangup)
    try:
        app.run()
    finally:
        app.flush_conversations()
        app.end_reopened()
    return int(app.return_code or 0)
