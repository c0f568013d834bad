"""What `hermes [-r REF | -c [NAME]] [--in DIR] [--no-restore-cwd]` opens, decided before
the UI starts (so an unknown reference is a CLI error, and nothing is ever created).

* ``-r X``: an id, unique id prefix, title (a lineage name → its newest ``#N``) or
  ``latest``; then forward along compression to the tip.
* ``-c NAME`` is ``-r NAME``. Bare ``-c`` continues what *this terminal* last ran (its
  breadcrumb, projected to the tip), else the newest conversation; with ``--in`` the newest
  of that workspace; ``session.terminal_continue: false`` turns the breadcrumbs off.
* ``--in DIR``: work in DIR (its git root, else DIR, is the workspace); implies
  ``--no-restore-cwd``. Otherwise resuming moves into the session's recorded workspace.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from .config import Config
from .paths import workspace_key
from .store import SessionNotFound, Store, get_session, latest_session, resolve_reference
from .store import lineage as lin
from .store.terminals import read_breadcrumb, terminal_identity


class StartError(ValueError):
    """A bad ``--in`` directory (unknown references raise SessionNotFound)."""


@dataclass(frozen=True)
class StartPlan:
    session_id: str | None = None
    workspace: str | None = None
    chdir: Path | None = None
    notices: tuple[str, ...] = ()


def _from_breadcrumb(store: Store, home: Path, env: Mapping[str, str]) -> str | None:
    identity = terminal_identity(env)
    crumb = read_breadcrumb(home, identity) if identity else None
    if crumb is None or get_session(store, crumb.session_id) is None:
        return None
    with store.snapshot() as conn:
        return lin.compression_tip(conn, crumb.session_id)


def choose_session(
    store: Store,
    home: Path,
    config: Config,
    env: Mapping[str, str],
    *,
    resume: str | None,
    continue_: Sequence[str] | None,
    workspace: str | None,
) -> str:
    """The session to open; raises SessionNotFound (never falls back to a fresh one)."""
    name = " ".join(continue_).strip() if continue_ else ""
    if resume is None and continue_ is not None and not name:
        found = None
        if workspace is None and config.session.terminal_continue:
            found = _from_breadcrumb(store, home, env)
        found = found or latest_session(store, workspace)
        if found is None:
            raise SessionNotFound("latest" if workspace is None else f"latest in {workspace}")
        return found
    reference = resume if resume is not None else name
    return resolve_reference(store, reference, follow_tip=True, workspace=workspace)


def plan_start(
    store_path: Path,
    config: Config,
    env: Mapping[str, str],
    cwd: Path,
    *,
    resume: str | None = None,
    continue_: Sequence[str] | None = None,
    in_dir: str | None = None,
    no_restore_cwd: bool = False,
) -> StartPlan:
    notices: list[str] = []
    chdir: Path | None = None
    workspace: str | None = None
    if in_dir is not None:
        target = (cwd / Path(in_dir).expanduser()).resolve()
        if not target.is_dir():
            raise StartError(f"--in: {in_dir} is not a directory")
        chdir, workspace, no_restore_cwd = target, workspace_key(target), True
    if resume is None and continue_ is None:
        return StartPlan(workspace=workspace, chdir=chdir)
    store = Store.open(store_path)
    session_id = choose_session(
        store,
        store_path.parent,
        config,
        env,
        resume=resume,
        continue_=continue_,
        workspace=workspace,
    )
    session = get_session(store, session_id)
    recorded = session.workspace_key if session else None
    if recorded and not no_restore_cwd:
        path = Path(recorded)
        if path.is_dir():
            if path.resolve() != cwd.resolve():
                chdir = path
                notices.append(f"↪ restored workspace: {path}")
        else:
            notices.append(f"⚠ session's recorded workspace is gone ({path}); staying in {cwd}")
    return StartPlan(session_id, workspace, chdir, tuple(notices))
