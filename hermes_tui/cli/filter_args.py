"""The filter flags prune, archive and export share (SPEC §7), and turning them into a
:class:`~hermes_tui.store.filters.SessionFilter`. Values are taken as text and checked by
the store's filter engine, so every bad value gets the same one-line error."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..store.filters import SessionFilter, build_filter, flag

TIME_HELP = "a duration (30m, 5h, 2d, 1w), a number of days (90, 0.5) or a date (2026-07-05 14:30)"
FLAGS: tuple[tuple[str, str, str], ...] = (
    ("older_than", "AGE", f"last activity before this: {TIME_HELP}"),
    ("newer_than", "AGE", "last activity at or after this (same forms)"),
    ("before", "TIME", "started before this (same forms)"),
    ("after", "TIME", "started at or after this (same forms)"),
    ("source", "SOURCE", "this source exactly (cli, tui, telegram, cron, ...)"),
    ("title", "TEXT", "title contains TEXT (any case)"),
    ("model", "TEXT", "model name contains TEXT (any case)"),
    ("provider", "NAME", "billing provider is NAME (any case)"),
    ("cwd", "DIR", "working directory is DIR or below it"),
    ("branch", "TEXT", "git branch contains TEXT (any case)"),
    ("end_reason", "REASON", "ended with this reason (cli_close, cron_complete, ...)"),
    ("user", "ID", "gateway user id"),
    ("chat_id", "ID", "gateway chat id"),
    ("chat_type", "TYPE", "gateway chat type (dm, group, ...)"),
    ("min_messages", "N", "at least N messages"),
    ("max_messages", "N", "at most N messages"),
    ("min_tokens", "N", "at least N tokens (input + output)"),
    ("max_tokens", "N", "at most N tokens (input + output)"),
    ("min_cost", "USD", "cost at least USD (actual, else estimated)"),
    ("max_cost", "USD", "cost at most USD (actual, else estimated)"),
    ("min_tool_calls", "N", "at least N tool calls"),
    ("max_tool_calls", "N", "at most N tool calls"),
)


def add_filter_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("filters (all must hold; a conversation counts as one)")
    for name, metavar, text in FLAGS:
        group.add_argument(flag(name), dest=name, metavar=metavar, help=text)


def filter_from_args(args: argparse.Namespace, now: float) -> SessionFilter:
    """The filter the flags describe; raises FilterError (one line) for a bad value."""
    values = {name: getattr(args, name, None) for name, _, _ in FLAGS}
    if values["cwd"]:
        values["cwd"] = str(Path(values["cwd"]).expanduser().resolve())
    return build_filter(values, now)
