"""The ``hermes`` / ``hermes-tui`` command: the TUI, ``hermes sessions …`` and ``hermes demo``."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from . import __version__
from .cli import search_cmd, sessions_cmd
from .cli.common import CliError, Context, make_context
from .store import (
    AmbiguousReference,
    SessionIsOpen,
    SessionNotFound,
    StoreError,
    TitleError,
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hermes",
        description="Browse, search, resume and tidy Hermes Agent conversations.",
    )
    parser.add_argument("--version", action="version", version=f"hermes_tui {__version__}")
    parser.add_argument("--tui", action="store_true", help="open the full-screen app (default)")
    parser.add_argument(
        "-r", "--resume", metavar="SESSION", help="resume: id, unique id prefix, title or latest"
    )
    parser.add_argument(
        "-c",
        "--continue",
        dest="continue_",
        nargs="*",
        metavar="NAME",
        help="continue this terminal's last conversation, or the one named NAME",
    )
    parser.add_argument("--in", dest="in_dir", metavar="DIR", help="work in DIR (its workspace)")
    parser.add_argument(
        "--no-restore-cwd",
        action="store_true",
        help="stay in the current directory when resuming",
    )
    parser.add_argument("--search", metavar="QUERY", help="open the app on search results")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    sessions = sub.add_parser("sessions", help="manage sessions from the command line")
    verbs = sessions.add_subparsers(dest="verb", metavar="VERB", required=True)
    sessions_cmd.add_parsers(verbs)
    search_cmd.add_parser(verbs)

    demo = sub.add_parser("demo", help="create a demo store to try everything safely")
    demo.add_argument(
        "--home",
        type=Path,
        default=Path("~/.hermes-demo"),
        help="where to create it (default ~/.hermes-demo; never your real history)",
    )
    demo.add_argument("--sessions", type=int, default=0, help="add N generated sessions")
    demo.add_argument("--force", action="store_true", help="rebuild an existing demo")
    demo.add_argument("--launch", action="store_true", help="open the app on it afterwards")
    demo.set_defaults(handler=cmd_demo)
    return parser


def cmd_demo(ctx: Context, args: argparse.Namespace) -> int:
    from .demo import DemoError, DemoExists, create_demo
    from .store import Store

    if args.sessions < 0:
        raise CliError("--sessions must be zero or more")
    try:
        store = create_demo(args.home, sessions=args.sessions, force=args.force)
        print(f"Demo store ready: {store.path}")
    except DemoExists as exc:
        print(exc)
        store = Store.open(args.home.expanduser() / "state.db")
    except DemoError as exc:
        raise CliError(str(exc)) from None
    home = store.home
    print(f"Try it:  HERMES_HOME={home} hermes")
    print(f"         HERMES_HOME={home} hermes sessions list")
    if args.launch:
        os.environ["HERMES_HOME"] = str(home)
        return run_app(make_context(), argparse.Namespace(**{**vars(args), "command": None}))
    return 0


def run_app(ctx: Context, args: argparse.Namespace) -> int:
    from .tui.launch import launch

    return launch(ctx, args)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        ctx = make_context()
        if args.command is None:
            return run_app(ctx, args)
        return int(args.handler(ctx, args))
    except CliError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return exc.code
    except StoreError as exc:
        print(f"Error: {exc.one_line()}", file=sys.stderr)
        return 2
    except (SessionNotFound, AmbiguousReference, SessionIsOpen) as exc:
        print(exc.args[0] if isinstance(exc, SessionNotFound) else f"Error: {exc}", file=sys.stderr)
        return 1
    except (TitleError, ValueError) as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("Interrupted.", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # Output piped into `head` and friends: stop quietly.
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
