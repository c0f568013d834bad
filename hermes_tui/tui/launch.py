"""From `hermes [--tui] [-r REF | -c [NAME]] [--in DIR]` to a running app."""

from __future__ import annotations

import argparse

from ..cli.common import Context
from ..store import Store, resolve_reference
from .app import Start, build_app


def start_for(ctx: Context, args: argparse.Namespace) -> Start:
    """Resolve what to open before the UI starts, so a bad reference is a CLI error."""
    reference = args.resume
    if args.continue_ is not None:
        reference = " ".join(args.continue_) or "latest"
    if not reference:
        return Start()
    store = Store.open(ctx.db_path)
    session_id = resolve_reference(store, reference, follow_tip=True)
    return Start(session_id=session_id)


def launch(ctx: Context, args: argparse.Namespace) -> int:
    start = start_for(ctx, args)
    app = build_app(ctx.db_path, ctx.config, start=start)
    try:
        app.run()
    finally:
        app.end_reopened()
    return int(app.return_code or 0)
