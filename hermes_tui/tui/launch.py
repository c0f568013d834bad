"""From `hermes [--tui] [-r REF | -c [NAME]] [--in DIR] [--no-restore-cwd]` to a running app."""

from __future__ import annotations

import argparse
import os
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
    try:
        app.run()
    finally:
        app.end_reopened()
    return int(app.return_code or 0)
