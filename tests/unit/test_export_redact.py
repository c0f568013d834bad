"""Redaction: every pattern of Hermes' redactor is masked, and a look-alike that is not a
secret (the control) comes through unchanged."""

from __future__ import annotations

import pytest

from hermes_tui.store.export.redact import mask, redact_text, redact_value

JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
PEM = (
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nAAAABG5vbmU=\n"
    "-----END OPENSSH PRIVATE KEY-----"
)

# (pattern, secret text, what must replace it, control text that must stay as it is)
CASES = [
    ("vendor sk-", "use sk-test1234567890abcdefXYZ now", "use sk-tes...fXYZ now",
     "the sk-learn docs"),
    ("vendor short token", "key sk-abc1234567 x", "key *** x", "risk-abc is a word"),
    ("github pat", "ghp_abcdefghijklmnopqrstuvwxyz0123", "ghp_ab...0123", "ghp_short"),
    ("slack", "xoxb-1234567890-abcdefghij", "xoxb-1...ghij", "xoxo hugs"),
    ("google", "AIzaSyA1234567890abcdefghijklmnopqrstuv", "AIzaSy...stuv", "AIza is a prefix"),
    ("aws", "id AKIAIOSFODNN7EXAMPLE ok", "id AKIAIO...MPLE ok", "AKIA lowercase akiaxyz"),
    ("hugging face", "hf_abcdefghijklmnopqrstu", "hf_abc...rstu", "hf_ab"),
    ("env NAME=value", "OPENAI_API_KEY=abcdef1234567890abcdef", "OPENAI_API_KEY=abcdef...cdef",
     "MAX_TOKENS=4096 KEYBOARD=us"),
    ("env quoted", "export GH_TOKEN='xyzzy12345'", "export GH_TOKEN='***'", "GH_TOKEN_TTL=3600"),
    ("dotted config key", "spring.datasource.password=hunter2", "spring.datasource.password=***",
     "spring.datasource.url=jdbc:x"),
    ("line-start config key", "password=secret123", "password=***",
     "I typed password=foo in prose"),
    ("lower-case env name", "db_password=foo", "db_password=***", "db_name=foo"),
    ("json field", '{"apiKey": "abcd1234abcd1234abcd"}', '{"apiKey": "abcd12...abcd"}',
     '{"token_count": "12", "name": "x"}'),
    ("escaped json field", '{"out": "{\\"api_key\\": \\"zzzzzzzzzzzzzzzzzzzzzz\\"}"}',
     '{"out": "{\\"api_key\\": \\"zzzzzz...zzzz\\"}"}', '{"out": "{\\"api\\": \\"z\\"}"}'),
    ("yaml field", "db:\n  password: hunter2\n", "db:\n  password: ***\n",
     "db:\n  tokenizer: cl100k\n  author: me\n  auth: true\n"),
    ("authorization header", "Authorization: Bearer abcdefghijklmnopqrstuvwxyz123",
     "Authorization: Bearer abcdef...z123", "No authorization needed."),
    ("authorization basic", "authorization: Basic dXNlcjpwYXNz", "authorization: Basic ***",
     "authorization header missing; Authorization: ***"),
    ("x-api-key header", "-H 'x-api-key: abcdefghijklmnop12345678'",
     "-H 'x-api-key: abcdef...5678'", "-H 'x-request-id: abcdefghijklmnop12345678'"),
    ("telegram bot token", "bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw",
     "bot123456789:***", "at 12:30:45 the 123456789:short"),
    ("pem private key", f"key:\n{PEM}\nend", "key:\n[REDACTED PRIVATE KEY]\nend",
     "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----"),
    ("db connection string", "postgres://admin:s3cr3t@db.example.com:5432/app",
     "postgres://admin:***@db.example.com:5432/app", "postgres://db.example.com:5432/app"),
    ("scheme://TOKEN@host", "git clone https://ghtokenabcdef123456@github.com/x/y",
     "git clone https://ghtoke...3456@github.com/x/y", "https://alice:pw@example.com/"),
    ("jwt", f"jwt {JWT}", "jwt eyJhbG...sR8U", "eyJ alone"),
    ("form body", "grant_type=password&username=bob&password=hunter2&client_secret=abc",
     "grant_type=password&username=bob&password=***&client_secret=***",
     "a=1&b=2 and c=3"),
    ("phone number", "call +14155552671 today", "call +141****2671 today",
     "version 1.2.3+45678901, +12 3456"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "secret", "masked", "control"), CASES, ids=[c[0] for c in CASES])
def test_pattern_is_masked_and_its_control_is_not(
    name: str, secret: str, masked: str, control: str
) -> None:
    assert redact_text(secret) == masked
    assert redact_text(control) == control


def test_hermes_partial_mask() -> None:
    assert mask("sk-test1234567890abcdefXYZ") == "sk-tes...fXYZ"
    assert mask("short") == "***"
    assert redact_text("sk-test1234567890abcdefXYZ") == "sk-tes...fXYZ"


def test_redaction_is_stable_when_applied_twice() -> None:
    text = "\n".join(c[1] for c in CASES)
    once = redact_text(text)
    assert redact_text(once) == once


def test_query_string_tokens_pass_through_as_in_hermes() -> None:
    url = "https://example.com/cb?token=abc123&state=x"
    assert redact_text(url) == url


def test_redact_value_walks_nested_structures() -> None:
    value = {"a": ["OPENAI_API_KEY=abcdef1234567890abcdef", 3, None], "b": {"c": "plain"}}
    assert redact_value(value) == {
        "a": ["OPENAI_API_KEY=abcdef...cdef", 3, None],
        "b": {"c": "plain"},
    }


def test_long_runs_without_secrets_come_through_unchanged() -> None:
    # Long runs of key-like and digit characters are where a careless pattern backtracks.
    blob = ("a" * 5000 + "=" + "b" * 5000 + " ") * 20 + "1" * 20_000 + ":" + "x" * 5000
    assert redact_text(blob) == blob
