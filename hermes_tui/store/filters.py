"""One filter engine for prune, archive and export (SPEC §7).

A filter selects **logical conversations** — the rows lists show: a root, branch, reset or
orphan session standing for its whole compression lineage — never single segments, so a
conversation is judged by what the user sees:

* time: ``older_than``/``newer_than`` on the conversation's last activity (its newest
  message in any segment; for an empty conversation its start), ``before``/``after`` on
  its start; all four hold epoch seconds (see :mod:`.timevalues`);
* text: ``title``/``model``/``branch`` substring and ``provider`` exact, case-insensitive
  (Unicode case folding); ``source``, ``end_reason``, ``user``, ``chat_id``, ``chat_type``
  exact; ``cwd`` the directory or anything under it. A text filter matches when **any
  segment** of the lineage matches (``--title "my project"`` finds ``my project #3``);
* numbers: messages, tokens (input + output), cost (actual, else estimated, USD) and tool
  calls are **totals over the lineage**.

Delegate/subagent children are never matched on their own: they go with their parent
(:mod:`.units`). Open, pinned and archived conversations are not filtered here; the caller
reports them as spared.

Older schemas: a filter whose column the store lacks raises :class:`FilterError` naming
the flag and the column (it never silently matches nothing). Time, source and size
filters use columns every Hermes store has.
"""

from __future__ import annotations

import dataclasses
import sqlite3
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from . import lineage
from .db import Capabilities
from .timevalues import FilterError, invalid, parse_time_value

DAY = 86_400.0
DEFAULT_PRUNE_DAYS = 90.0
TIME_FIELDS = ("older_than", "newer_than", "before", "after")
TEXT_FIELDS = (
    "source",
    "title",
    "model",
    "provider",
    "cwd",
    "branch",
    "end_reason",
    "user",
    "chat_id",
    "chat_type",
)
COUNT_FIELDS = (
    "min_messages",
    "max_messages",
    "min_tokens",
    "max_tokens",
    "min_tool_calls",
    "max_tool_calls",
)
COST_FIELDS = ("min_cost", "max_cost")


@dataclass(frozen=True, slots=True)
class SessionFilter:
    """Conditions that all hold (AND). ``None`` = not filtered. Times are epoch seconds."""

    older_than: float | None = None
    newer_than: float | None = None
    before: float | None = None
    after: float | None = None
    source: str | None = None
    title: str | None = None
    model: str | None = None
    provider: str | None = None
    cwd: str | None = None
    branch: str | None = None
    end_reason: str | None = None
    user: str | None = None
    chat_id: str | None = None
    chat_type: str | None = None
    min_messages: int | None = None
    max_messages: int | None = None
    min_tokens: int | None = None
    max_tokens: int | None = None
    min_cost: float | None = None
    max_cost: float | None = None
    min_tool_calls: int | None = None
    max_tool_calls: int | None = None
    implicit_default: bool = False  # older_than came from a bare prune's 90-day default

    def is_empty(self) -> bool:
        return all(
            getattr(self, f.name) is None
            for f in dataclasses.fields(self)
            if f.name != "implicit_default"
        )

    def given(self) -> dict[str, Any]:
        """The conditions set, by field name."""
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if f.name != "implicit_default" and getattr(self, f.name) is not None
        }


def flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def build_filter(values: Mapping[str, Any], now: float) -> SessionFilter:
    """A validated filter from what a user typed (CLI flags, wizard fields), by field name.

    Time fields take the forms of :mod:`.timevalues`; counts take whole numbers ≥ 0; costs
    numbers ≥ 0. Empty strings mean "not given". Raises FilterError (one line, naming the
    flag) for a bad value, an empty or inverted window, or an impossible range."""
    known = {f.name for f in dataclasses.fields(SessionFilter)} - {"implicit_default"}
    unknown = sorted(set(values) - known)
    if unknown:
        raise FilterError(f"Unknown filter: {', '.join(unknown)}")
    fields: dict[str, Any] = {}
    for name, raw in values.items():
        if raw is None or (isinstance(raw, str) and not raw.strip()):
            continue
        if name in TIME_FIELDS:
            fields[name] = parse_time_value(flag(name), raw, now)
        elif name in COUNT_FIELDS:
            fields[name] = _number(name, raw, whole=True)
        elif name in COST_FIELDS:
            fields[name] = _number(name, raw, whole=False)
        else:
            fields[name] = str(raw).strip()
    result = SessionFilter(**fields)
    check_filter(result, now)
    return result


def _number(name: str, raw: Any, *, whole: bool) -> int | float:
    forms = "Use a whole number, 0 or more." if whole else "Use a number of US dollars, 0 or more."
    try:
        value = float(str(raw).strip())
    except ValueError:
        raise invalid(flag(name), raw, forms) from None
    if not value >= 0 or value == float("inf") or (whole and value != int(value)):
        raise invalid(flag(name), raw, forms)
    return int(value) if whole else value


def _when(ts: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(ts))


def check_filter(f: SessionFilter, now: float) -> None:
    """Refuse windows and ranges that can match nothing (SPEC §7: an error, not 0 rows)."""
    windows = (
        ("newer_than", "older_than", "the last activity"),
        ("after", "before", "the start"),
        # A conversation's last activity is never before its start.
        ("after", "older_than", "the start and last activity"),
    )
    for low, high, what in windows:
        lo, hi = getattr(f, low), getattr(f, high)
        if lo is not None and hi is not None and lo >= hi:
            raise FilterError(
                f"Empty time window: the {flag(low)} bound ({_when(lo)}) is not earlier than "
                f"the {flag(high)} bound ({_when(hi)}) on {what}."
            )
    for low in ("newer_than", "after"):
        bound = getattr(f, low)
        if bound is not None and bound > now:
            raise FilterError(
                f"Empty time window: the {flag(low)} bound ({_when(bound)}) is in the future."
            )
    for kind in ("messages", "tokens", "cost", "tool_calls"):
        lo, hi = getattr(f, f"min_{kind}"), getattr(f, f"max_{kind}")
        if lo is not None and hi is not None and lo > hi:
            raise FilterError(
                f"Empty range: {flag('min_' + kind)} {lo} is more than {flag('max_' + kind)} {hi}."
            )


def with_prune_default(f: SessionFilter, now: float) -> SessionFilter:
    """A bare ``prune`` means ``--older-than 90``; any filter at all removes that default."""
    if not f.is_empty():
        return f
    return dataclasses.replace(f, older_than=now - DEFAULT_PRUNE_DAYS * DAY, implicit_default=True)


def describe(f: SessionFilter) -> str:
    """Hermes-style description: ``last active before 2026-09-01 02:52, source 'cli'``."""
    parts: list[str] = []
    texts = {
        "older_than": "last active before {}",
        "newer_than": "last active since {}",
        "before": "started before {}",
        "after": "started since {}",
    }
    for name, template in texts.items():
        value = getattr(f, name)
        if value is not None:
            parts.append(template.format(_when(value)))
    if f.implicit_default:
        parts[-1] += f" [the default: {DEFAULT_PRUNE_DAYS:g} days]"
    words = {
        "source": "source {!r}",
        "title": "title contains {!r}",
        "model": "model contains {!r}",
        "provider": "provider {!r}",
        "cwd": "cwd under {!r}",
        "branch": "branch contains {!r}",
        "end_reason": "end reason {!r}",
        "user": "user {!r}",
        "chat_id": "chat id {!r}",
        "chat_type": "chat type {!r}",
        "min_messages": "at least {} messages",
        "max_messages": "at most {} messages",
        "min_tokens": "at least {} tokens",
        "max_tokens": "at most {} tokens",
        "min_cost": "cost at least ${:g}",
        "max_cost": "cost at most ${:g}",
        "min_tool_calls": "at least {} tool calls",
        "max_tool_calls": "at most {} tool calls",
    }
    for name, template in words.items():
        value = getattr(f, name)
        if value is not None:
            parts.append(template.format(value))
    return ", ".join(parts) if parts else "no filters (all ended sessions)"


# -- SQL -----------------------------------------------------------------------------

Fragment = tuple[str, list[Any]]
_COLUMNS = {
    "title": ("title",),
    "model": ("model",),
    "provider": ("billing_provider",),
    "cwd": ("cwd",),
    "branch": ("git_branch",),
    "end_reason": ("end_reason",),
    "user": ("user_id",),
    "chat_id": ("chat_id",),
    "chat_type": ("chat_type",),
    "min_messages": ("message_count",),
    "max_messages": ("message_count",),
    "min_tokens": ("input_tokens", "output_tokens"),
    "max_tokens": ("input_tokens", "output_tokens"),
    "min_tool_calls": ("tool_call_count",),
    "max_tool_calls": ("tool_call_count",),
}


def register_functions(conn: sqlite3.Connection) -> None:
    """Unicode case-insensitive comparisons (SQLite's LIKE/LOWER fold ASCII only)."""
    conn.create_function("hermes_ci_contains", 2, _ci_contains, deterministic=True)
    conn.create_function("hermes_ci_equal", 2, _ci_equal, deterministic=True)


def _ci_contains(haystack: object, needle: object) -> int:
    return int(isinstance(haystack, str) and str(needle).casefold() in haystack.casefold())


def _ci_equal(value: object, other: object) -> int:
    return int(isinstance(value, str) and value.casefold() == str(other).casefold())


def _require(caps: Capabilities, name: str) -> None:
    missing = [c for c in _COLUMNS.get(name, ()) if c not in caps.session_columns]
    if name in COST_FIELDS and not {"actual_cost_usd", "estimated_cost_usd"} & set(
        caps.session_columns
    ):
        missing = ["actual_cost_usd", "estimated_cost_usd"]
    if missing:
        raise FilterError(
            f"{flag(name)} needs the sessions.{missing[0]} column, which this store "
            "(an older Hermes schema) does not have."
        )


def _any_segment(pred: Callable[[str], Fragment]) -> Fragment:
    """*pred* holds for the conversation's row or, for a lineage, any of its segments."""
    own, own_params = pred("s")
    seg, seg_params = pred("x")
    sql = (
        f"({own} OR (s.end_reason = 'compression' AND EXISTS ({lineage.lineage_cte('s.id')} "
        f"SELECT 1 FROM lin JOIN sessions x ON x.id = lin.id WHERE {seg})))"
    )
    return sql, own_params + seg_params


def lineage_total(expr: Callable[[str], str]) -> str:
    """The sum of *expr* over the conversation's segments (its own value if it has one)."""
    return (
        f"(CASE WHEN s.end_reason = 'compression' THEN ({lineage.lineage_cte('s.id')} "
        f"SELECT SUM({expr('x')}) FROM lin JOIN sessions x ON x.id = lin.id) "
        f"ELSE {expr('s')} END)"
    )


def cost_sql(caps: Capabilities, a: str) -> str:
    actual = caps.session_col("actual_cost_usd", "NULL", a)
    estimated = caps.session_col("estimated_cost_usd", "NULL", a)
    return f"COALESCE({actual}, {estimated}, 0)"


def _totals(caps: Capabilities) -> dict[str, str]:
    def col(name: str) -> Callable[[str], str]:
        return lambda a: f"COALESCE({caps.session_col(name, '0', a)}, 0)"

    return {
        "messages": lineage_total(col("message_count")),
        "tokens": lineage_total(
            lambda a: f"({col('input_tokens')(a)} + {col('output_tokens')(a)})"
        ),
        "tool_calls": lineage_total(col("tool_call_count")),
        "cost": lineage_total(lambda a: cost_sql(caps, a)),
    }


def _text_predicate(name: str, value: str) -> Callable[[str], Fragment]:
    column = {"user": "user_id", "branch": "git_branch", "provider": "billing_provider"}.get(
        name, name
    )
    if name in ("title", "model", "branch"):
        return lambda a: (f"hermes_ci_contains({a}.{column}, ?)", [value])
    if name == "provider":
        return lambda a: (f"hermes_ci_equal({a}.{column}, ?)", [value])
    if name == "cwd":
        path = value.rstrip("/\\") or value[:1]
        if path in ("/", "\\"):
            return lambda a: (f"substr({a}.cwd, 1, 1) IN ('/', '\\')", [])
        n = len(path) + 1
        return lambda a: (
            f"({a}.cwd = ? OR substr({a}.cwd, 1, ?) IN (?, ?))",
            [path, n, path + "/", path + "\\"],
        )
    return lambda a: (f"{a}.{column} = ?", [value])


def where_sql(caps: Capabilities, f: SessionFilter, last_active: str) -> Fragment:
    """Conditions on ``sessions s`` (a listable row) for every condition of *f*.

    *last_active* is the SQL of the conversation's last activity (``listing.last_active_sql``),
    passed in so callers can select it once. Call :func:`register_functions` on the
    connection first. Raises FilterError when a needed column is missing."""
    where = [lineage.listable_sql("s")]
    params: list[Any] = []
    for name in f.given():
        _require(caps, name)
    bounds = (
        ("older_than", f"{last_active} < ?"),
        ("newer_than", f"{last_active} >= ?"),
        ("before", "s.started_at < ?"),
        ("after", "s.started_at >= ?"),
    )
    for name, sql in bounds:
        value = getattr(f, name)
        if value is not None:
            where.append(sql)
            params.append(value)
    if f.source is not None:
        where.append("s.source = ?")
        params.append(f.source)
    for name in TEXT_FIELDS[1:]:
        value = getattr(f, name)
        if value is not None:
            sql, args = _any_segment(_text_predicate(name, value))
            where.append(sql)
            params.extend(args)
    totals = _totals(caps)
    for kind in ("messages", "tokens", "cost", "tool_calls"):
        for side, op in (("min", ">="), ("max", "<=")):
            value = getattr(f, f"{side}_{kind}")
            if value is not None:
                where.append(f"{totals[kind]} {op} ?")
                params.append(value)
    return " AND ".join(where), params
