"""``--delete-after-verified``: delete a session only once every session the delete removes
is in a Markdown/QMD file that reads back as written.

Deleting a session deletes its whole conversation (:func:`.sessions.delete_conversation`:
every compression segment and every delegate/subagent run), so each of those must be in a
verified file first. Then, inside the delete's own write transaction, the store must still
be what was exported: the same set of sessions (none added or removed meanwhile), each
with exactly the messages exported (none added since), and no message rows the export
left out (rewound or compacted rows, which a Markdown export does not show). Any mismatch
refuses the delete and changes nothing; the export files stay.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from ..db import Store
from ..errors import SessionIsOpen, SessionNotFound
from ..sessions import DeleteResult, delete_conversation
from .markdown import WrittenFile, verify_file
from .model import VerificationFailed


def _counts(
    conn: sqlite3.Connection, ids: list[str], has_active: bool
) -> dict[str, tuple[int, int]]:
    live = "SUM(CASE WHEN active = 1 THEN 1 ELSE 0 END)" if has_active else "COUNT(*)"
    found: dict[str, tuple[int, int]] = {sid: (0, 0) for sid in ids}
    marks = ", ".join("?" for _ in ids)
    sql = (
        f"SELECT session_id, {live}, COUNT(*) FROM messages WHERE session_id IN ({marks}) "
        "GROUP BY session_id"
    )
    for sid, active, total in conn.execute(sql, ids):
        found[sid] = (int(active or 0), int(total))
    return found


def delete_exported(store: Store, session_id: str, files: Sequence[WrittenFile]) -> DeleteResult:
    """Re-read and check *files*, then delete *session_id*'s conversation if — in the same
    transaction — it is still exactly what they hold. Raises VerificationFailed (one line,
    the reason) otherwise; nothing is deleted then."""
    if not files:
        raise VerificationFailed("nothing was exported")
    for written in files:
        why = verify_file(written.path, written.session_id, written.message_count)
        if why is not None:
            raise VerificationFailed(why)
    exported = {sid: n for written in files for sid, n in written.counts}
    has_active = "active" in store.capabilities.message_columns

    def check(conn: sqlite3.Connection, ids: list[str]) -> None:
        missing = sorted(set(ids) - set(exported))
        if missing:
            raise VerificationFailed(
                f"the conversation changed during the export: {missing[0]} is not in a "
                "verified file"
            )
        gone = sorted(set(exported) - set(ids))
        if gone:
            raise VerificationFailed(
                f"the conversation changed during the export: {gone[0]} is no longer part of it"
            )
        for sid, (active, total) in _counts(conn, ids, has_active).items():
            if active != exported[sid]:
                raise VerificationFailed(
                    f"session {sid} has {active} message(s) now; {exported[sid]} were exported"
                )
            if total != active:
                raise VerificationFailed(
                    f"session {sid} also holds {total - active} inactive (rewound or "
                    "compacted) message(s) a Markdown export leaves out; export it with "
                    "--format jsonl to keep everything"
                )

    try:
        return delete_conversation(store, session_id, check=check)
    except SessionIsOpen as exc:
        raise VerificationFailed(str(exc)) from None
    except SessionNotFound:
        raise VerificationFailed(f"session {session_id} no longer exists") from None
