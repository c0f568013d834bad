"""A store we create has exactly the schema Hermes Agent 0.19 creates (its Appendix A)."""

from __future__ import annotations

import sqlite3
import stat
from pathlib import Path

from hermes_tui.store import NewMessage, NewSession, Store, append_message, create_session

# Transcribed from HERMES_AGENT_BEHAVIOUR.md Appendix A: (name, type, notnull, default, pk).
DOCUMENTED_COLUMNS = {
    "sessions": """id TEXT 0 - 1|source TEXT 1 - 0|user_id TEXT 0 - 0|session_key TEXT 0 - 0|
        chat_id TEXT 0 - 0|chat_type TEXT 0 - 0|thread_id TEXT 0 - 0|display_name TEXT 0 - 0|
        origin_json TEXT 0 - 0|expiry_finalized INTEGER 0 0 0|model TEXT 0 - 0|
        model_config TEXT 0 - 0|system_prompt TEXT 0 - 0|parent_session_id TEXT 0 - 0|
        started_at REAL 1 - 0|ended_at REAL 0 - 0|end_reason TEXT 0 - 0|
        message_count INTEGER 0 0 0|tool_call_count INTEGER 0 0 0|input_tokens INTEGER 0 0 0|
        output_tokens INTEGER 0 0 0|cache_read_tokens INTEGER 0 0 0|
        cache_write_tokens INTEGER 0 0 0|reasoning_tokens INTEGER 0 0 0|cwd TEXT 0 - 0|
        git_branch TEXT 0 - 0|git_repo_root TEXT 0 - 0|billing_provider TEXT 0 - 0|
        billing_base_url TEXT 0 - 0|billing_mode TEXT 0 - 0|estimated_cost_usd REAL 0 - 0|
        actual_cost_usd REAL 0 - 0|cost_status TEXT 0 - 0|cost_source TEXT 0 - 0|
        pricing_version TEXT 0 - 0|title TEXT 0 - 0|api_call_count INTEGER 0 0 0|
        handoff_state TEXT 0 - 0|handoff_platform TEXT 0 - 0|handoff_error TEXT 0 - 0|
        compression_failure_cooldown_until REAL 0 - 0|compression_failure_error TEXT 0 - 0|
        compression_fallback_streak INTEGER 1 0 0|profile_name TEXT 0 - 0|
        rewind_count INTEGER 1 0 0|archived INTEGER 1 0 0""",
    "messages": """id INTEGER 0 - 1|session_id TEXT 1 - 0|role TEXT 1 - 0|content TEXT 0 - 0|
        tool_call_id TEXT 0 - 0|tool_calls TEXT 0 - 0|tool_name TEXT 0 - 0|
        effect_disposition TEXT 0 - 0|timestamp REAL 1 - 0|token_count INTEGER 0 - 0|
        finish_reason TEXT 0 - 0|reasoning TEXT 0 - 0|reasoning_content TEXT 0 - 0|
        reasoning_details TEXT 0 - 0|codex_reasoning_items TEXT 0 - 0|
        codex_message_items TEXT 0 - 0|platform_message_id TEXT 0 - 0|observed INTEGER 0 0 0|
        active INTEGER 1 1 0|compacted INTEGER 1 0 0|api_content TEXT 0 - 0""",
    "session_model_usage": """session_id TEXT 1 - 1|model TEXT 1 - 2|
        billing_provider TEXT 1 '' 3|billing_base_url TEXT 1 '' 4|billing_mode TEXT 1 '' 5|
        task TEXT 1 '' 6|api_call_count INTEGER 1 0 0|input_tokens INTEGER 1 0 0|
        output_tokens INTEGER 1 0 0|cache_read_tokens INTEGER 1 0 0|
        cache_write_tokens INTEGER 1 0 0|reasoning_tokens INTEGER 1 0 0|
        estimated_cost_usd REAL 1 0 0|actual_cost_usd REAL 1 0 0|cost_status TEXT 0 - 0|
        cost_source TEXT 0 - 0|first_seen REAL 0 - 0|last_seen REAL 0 - 0""",
    "state_meta": "key TEXT 0 - 1|value TEXT 0 - 0",
    "schema_version": "version INTEGER 1 - 0",
    "gateway_routing": """scope TEXT 1 '' 1|session_key TEXT 1 - 2|entry_json TEXT 1 - 0|
        updated_at REAL 1 - 0""",
    "compression_locks": """session_id TEXT 0 - 1|holder TEXT 1 - 0|acquired_at REAL 1 - 0|
        expires_at REAL 1 - 0""",
    "async_delegations": """delegation_id TEXT 0 - 1|origin_session TEXT 1 - 0|
        origin_ui_session_id TEXT 1 '' 0|parent_session_id TEXT 0 - 0|state TEXT 1 - 0|
        dispatched_at REAL 1 - 0|completed_at REAL 0 - 0|updated_at REAL 1 - 0|
        event_json TEXT 0 - 0|result_json TEXT 0 - 0|delivery_state TEXT 1 'pending' 0|
        delivery_attempts INTEGER 1 0 0|delivered_at REAL 0 - 0|owner_pid INTEGER 0 - 0|
        owner_started_at INTEGER 0 - 0|task_json TEXT 0 - 0|delivery_claim TEXT 0 - 0|
        delivery_claimed_at REAL 0 - 0""",
}

DOCUMENTED_INDEXES = {
    "idx_async_delegations_delivery": ("async_delegations", ["delivery_state", "completed_at"]),
    "idx_compression_locks_expires": ("compression_locks", ["expires_at"]),
    "idx_messages_active_null": ("messages", ["active"]),
    "idx_messages_platform_msg_id": ("messages", ["session_id", "platform_message_id"]),
    "idx_messages_session": ("messages", ["session_id", "timestamp"]),
    "idx_messages_session_active": ("messages", ["session_id", "active", "timestamp"]),
    "idx_session_model_usage_model": ("session_model_usage", ["model"]),
    "idx_session_model_usage_session": ("session_model_usage", ["session_id"]),
    "idx_sessions_gateway_peer": (
        "sessions",
        ["source", "user_id", "chat_id", "chat_type", "thread_id", "started_at"],
    ),
    "idx_sessions_handoff_state": ("sessions", ["handoff_state", "started_at"]),
    "idx_sessions_parent": ("sessions", ["parent_session_id"]),
    "idx_sessions_session_key": ("sessions", ["session_key", "started_at"]),
    "idx_sessions_source": ("sessions", ["source"]),
    "idx_sessions_source_id": ("sessions", ["source", "id"]),
    "idx_sessions_started": ("sessions", ["started_at"]),
    "idx_sessions_title_unique": ("sessions", ["title"]),
}

DOCUMENTED_TRIGGERS = {
    "messages_fts_delete",
    "messages_fts_insert",
    "messages_fts_trigram_delete",
    "messages_fts_trigram_insert",
    "messages_fts_trigram_update",
    "messages_fts_update",
}


def _parse(spec: str) -> list[tuple[str, str, int, str | None, int]]:
    out = []
    for item in spec.replace("\n", "").split("|"):
        name, ctype, notnull, default, pk = item.split()
        out.append((name, ctype, int(notnull), None if default == "-" else default, int(pk)))
    return out


def _conn(store: Store) -> sqlite3.Connection:
    return sqlite3.connect(store.path)


def test_tables_and_columns_match_documented_schema(store: Store) -> None:
    conn = _conn(store)
    for table, spec in DOCUMENTED_COLUMNS.items():
        actual = [
            (r[1], r[2], r[3], r[4], r[5]) for r in conn.execute(f"PRAGMA table_info({table})")
        ]
        assert actual == _parse(spec), table
    fks = {(r[2], r[3], r[4]) for r in conn.execute("PRAGMA foreign_key_list(sessions)")}
    assert fks == {("sessions", "parent_session_id", "id")}
    fks = {(r[2], r[3], r[4], r[6]) for r in conn.execute("PRAGMA foreign_key_list(messages)")}
    assert fks == {("sessions", "session_id", "id", "NO ACTION")}
    usage_fk = conn.execute("PRAGMA foreign_key_list(session_model_usage)").fetchone()
    assert (usage_fk[2], usage_fk[3], usage_fk[6]) == ("sessions", "session_id", "CASCADE")
    assert conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_sequence'").fetchone(), (
        "messages.id must be AUTOINCREMENT"
    )


def test_indexes_match_documented_schema(store: Store) -> None:
    conn = _conn(store)
    rows = conn.execute(
        "SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
    ).fetchall()
    found = {name: (table, [r[2] for r in conn.execute(f"PRAGMA index_info({name})")], sql)
             for name, table, sql in rows}  # fmt: skip
    assert set(found) == set(DOCUMENTED_INDEXES)
    for name, (table, columns) in DOCUMENTED_INDEXES.items():
        assert found[name][:2] == (table, columns), name
    unique = found["idx_sessions_title_unique"][2]
    assert "UNIQUE" in unique and "WHERE title IS NOT NULL" in unique
    assert "WHERE active IS NULL" in found["idx_messages_active_null"][2]
    assert "WHERE platform_message_id IS NOT NULL" in found["idx_messages_platform_msg_id"][2]


def test_fts_tables_triggers_version_and_wal(store: Store) -> None:
    conn = _conn(store)
    triggers = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='trigger'")}
    assert triggers == DOCUMENTED_TRIGGERS
    fts = dict(conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE name IN ('messages_fts', 'messages_fts_trigram')"
    ).fetchall())  # fmt: skip
    assert "fts5" in fts["messages_fts"] and "tokenize" not in fts["messages_fts"]
    assert "tokenize='trigram'" in fts["messages_fts_trigram"]
    assert conn.execute("SELECT version FROM schema_version").fetchall() == [(22,)]
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.capabilities.has_fts and store.capabilities.has_trigram
    assert not store.read_only


def test_fts_rows_follow_inserts_updates_and_deletes(store: Store) -> None:
    sid = create_session(store, NewSession(source="cli"))
    mid = append_message(
        store,
        sid,
        NewMessage(
            "assistant",
            "checking the deploy",
            tool_calls=[
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "terminal", "arguments": '{"cmd": "uptime"}'},
                }
            ],
        ),
    )  # fmt: skip
    conn = _conn(store)
    for table in ("messages_fts", "messages_fts_trigram"):
        text = conn.execute(f"SELECT content FROM {table} WHERE rowid = ?", (mid,)).fetchone()[0]
        assert text.startswith("checking the deploy  ")  # content, tool name (empty), calls
        assert "uptime" in text and '"name": "terminal"' in text
    hits = conn.execute("SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'uptime'")
    assert hits.fetchall() == [(mid,)]
    conn.execute("UPDATE messages SET content = 'rolled back' WHERE id = ?", (mid,))
    conn.commit()
    assert conn.execute(
        "SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'rolled'"
    ).fetchall() == [(mid,)]
    assert (
        conn.execute("SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'deploy'").fetchall()
        == []
    )
    conn.execute("DELETE FROM messages WHERE id = ?", (mid,))
    conn.commit()
    for table in ("messages_fts", "messages_fts_trigram"):
        assert conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] == 0


def test_new_store_files_are_private(home: Path) -> None:
    store = Store.create(home / "state.db")
    sid = create_session(store, NewSession(source="tui"))
    append_message(store, sid, NewMessage("user", "hello"))
    holder = sqlite3.connect(store.path)  # keep the WAL and SHM files around to inspect them
    holder.execute("SELECT 1 FROM sessions").fetchall()
    try:
        for suffix in ("", "-wal", "-shm"):
            path = store.path.with_name(store.path.name + suffix)
            if path.exists():
                assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
        assert stat.S_IMODE(home.stat().st_mode) == 0o700
    finally:
        holder.close()


def test_create_does_not_touch_an_existing_store(store: Store) -> None:
    sid = create_session(store, NewSession(source="cli", title="keep me"))
    again = Store.create(store.path)
    conn = _conn(again)
    assert conn.execute("SELECT title FROM sessions WHERE id = ?", (sid,)).fetchone() == (
        "keep me",
    )
    assert conn.execute("SELECT COUNT(*) FROM schema_version").fetchone()[0] == 1
