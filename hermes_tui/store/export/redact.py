"""Masking secrets in exported text (``--redact``; on by default for traces).

The categories and the masking follow Hermes' redactor (HERMES_AGENT_BEHAVIOUR.md §6.3):
a credential keeps its first 6 and last 4 characters (``sk-tes...fXYZ``), one shorter than
18 characters becomes ``***``; a PEM private key block becomes ``[REDACTED PRIVATE KEY]``;
a Telegram bot token keeps its bot id; a phone number keeps its ends (``+123****5678``).

Covered: vendor key prefixes, ``NAME=value`` secrets (upper-case names anywhere; lower-case
and dotted config keys when underscore-joined, dotted or at a line start), JSON and YAML
secret fields, ``Authorization:`` and ``x-api-key``-style headers, Telegram bot tokens, PEM
private keys, database connection-string passwords, ``scheme://TOKEN@host``, JWTs, whole
``k=v&k=v`` form bodies and E.164 phone numbers. Like Hermes, a web URL's query string
(``?token=…``) and a ``user:pass@`` web URL pass through: those are links a reader follows.

Every pattern is linear (no nested unbounded repeats) and sits behind a substring gate, so
long tool outputs cost one scan per category.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from typing import Any

MASK = "***"
_FLOOR = 18  # shorter tokens are masked whole

# Vendor credential prefixes and their token bodies (~45 kinds, as Hermes recognises).
_VENDOR = (
    r"sk-[A-Za-z0-9_-]{10,}",  # OpenAI, Anthropic (sk-ant-…), OpenRouter (sk-or-…), DeepSeek
    r"sk_(?:live|test)_[A-Za-z0-9]{10,}",  # Stripe secret keys
    r"rk_live_[A-Za-z0-9]{10,}",  # Stripe restricted keys
    r"sk_[A-Za-z0-9_]{10,}",  # ElevenLabs
    r"gh[pousr]_[A-Za-z0-9]{10,}",  # GitHub tokens
    r"github_pat_[A-Za-z0-9_]{10,}",
    r"xox[baprs]-[A-Za-z0-9-]{10,}",  # Slack
    r"xapp-\d+-[A-Za-z0-9-]{10,}",
    r"AIza[A-Za-z0-9_-]{30,}",  # Google
    r"AKIA[A-Z0-9]{16}",  # AWS access key id
    r"hf_[A-Za-z0-9]{10,}",  # Hugging Face
    r"xai-[A-Za-z0-9]{30,}",  # xAI
    r"gsk_[A-Za-z0-9]{10,}",  # Groq
    r"pplx-[A-Za-z0-9]{10,}",  # Perplexity
    r"r8_[A-Za-z0-9]{10,}",  # Replicate
    r"npm_[A-Za-z0-9]{10,}",
    r"pypi-[A-Za-z0-9_-]{10,}",
    r"SG\.[A-Za-z0-9_-]{10,}",  # SendGrid
    r"do[op]_v1_[A-Za-z0-9]{10,}",  # DigitalOcean
    r"gl(?:pat|oas|dt|rt|rtr|cbt|ptt|ft|imt|agent|soat|ffct|wt)-[A-Za-z0-9_.-]{10,}",  # GitLab
    r"GR1348941[A-Za-z0-9_-]{10,}",
    r"tvly-[A-Za-z0-9]{10,}",  # Tavily
    r"exa_[A-Za-z0-9]{10,}",
    r"fal_[A-Za-z0-9_-]{10,}",
    r"fc-[A-Za-z0-9]{10,}",  # Firecrawl
    r"bb_live_[A-Za-z0-9_-]{10,}",  # Browserbase
    r"fw[-_][A-Za-z0-9]{30,}",  # Fireworks
    r"fpk_[A-Za-z0-9]{30,}",
    r"ntn_[A-Za-z0-9]{10,}",  # Notion
    r"syt_[A-Za-z0-9]{10,}",  # Matrix
    r"am_(?:org_)?[A-Za-z0-9]{20,}",  # AgentMail
    r"mem0_[A-Za-z0-9]{10,}",
    r"brv_[A-Za-z0-9]{10,}",
    r"hsk-[A-Za-z0-9]{10,}",
    r"retaindb_[A-Za-z0-9]{10,}",
    r"pk-lf-[A-Za-z0-9-]{8,}",  # Langfuse public key (sk-lf- is an sk- key)
    r"gAAAA[A-Za-z0-9_=-]{20,}",  # Fernet / Codex encrypted tokens
)
_VENDOR_RE = re.compile(r"(?<![A-Za-z0-9_-])(?:" + "|".join(_VENDOR) + r")(?![A-Za-z0-9_-])")
_VENDOR_GATE = re.compile(
    r"sk-|sk_|rk_|gh[pousr]_|github_pat_|xox|xapp-|AIza|AKIA|hf_|xai-|gsk_|pplx-|r8_|npm_"
    r"|pypi-|SG\.|do[op]_v1_|gl[a-z]+-|GR1348941|tvly-|exa_|fal_|fc-|bb_live_|fw[-_]|fpk_"
    r"|ntn_|syt_|am_|mem0_|brv_|hsk-|retaindb_|pk-lf-|gAAAA"
)

_PEM_RE = re.compile(
    r"-----BEGIN[A-Z ]{0,40}PRIVATE KEY-----[\s\S]*?-----END[A-Z ]{0,40}PRIVATE KEY-----"
)
_JWT_RE = re.compile(r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{10,}(?:\.[A-Za-z0-9_=-]{4,}){0,2}")
_AUTH_HEADER_RE = re.compile(
    r"((?:proxy-)?authorization\s*:\s*)(?:([A-Za-z][\w.+-]*)(\s+))?([^\s\"',;]+)", re.IGNORECASE
)
_KEY_HEADER_RE = re.compile(
    r"(?<![\w-])((?:x-api-key|x-goog-api-key|api-key|x-api-token|x-auth-token|x-access-token)"
    r"\s*:\s*)([^\s\"',;]+)",
    re.IGNORECASE,
)
_TELEGRAM_RE = re.compile(r"(?<!\d)(bot)?(\d{8,12}):([A-Za-z0-9_-]{30,})(?![A-Za-z0-9_-])")
_DB_URL_RE = re.compile(
    r"((?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?)://[^\s:/@]+:)"
    r"([^\s@/]+)(@)",
    re.IGNORECASE,
)
_URL_TOKEN_RE = re.compile(
    r"((?:https?|wss?|git|ssh|ftps?|sftp)://)([^\s:@/]{8,})(@[^\s/@]+)", re.IGNORECASE
)
_PHONE_RE = re.compile(r"(?<![\w+])\+[1-9]\d{6,14}(?![\w])")

# Assignments and fields: a key, then its value. The key decides (see _secret_key).
_KEY = r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,80}"
_VALUE = r"(?:\"([^\"\n]+)\"|'([^'\n]+)'|([^\s\"'&,;`]+))"
_ASSIGN_RE = re.compile(rf"(?<![\w.-])({_KEY})(\s*=\s*){_VALUE}")
_FIELD_RE = re.compile(
    r"(?P<bs>\\*)(?P<q>[\"'])(?P<key>[A-Za-z0-9_.-]{1,80})(?P=bs)(?P=q)(?P<sep>\s*:\s*)(?P=bs)"
    r"(?:\"(?P<dv>[^\"\\\n]+)(?P=bs)\"|'(?P<sv>[^'\\\n]+)(?P=bs)')"
)
_YAML_RE = re.compile(
    rf"^(?P<lead>[ \t]*(?:-[ \t]+)?)(?P<key>{_KEY})(?P<sep>:[ \t]+)"
    r"(?:\"(?P<dv>[^\"\n]+)\"|'(?P<sv>[^'\n]+)'|(?P<bare>[^\s#\"'|>][^\s#]*))",
    re.MULTILINE,
)
_FORM_RE = re.compile(r"[A-Za-z_][\w.-]*=[^&\s]*(?:&[A-Za-z_][\w.-]*=[^&\s]*)+")
_AUTH_GATE = re.compile("authorization", re.IGNORECASE)
_SECRET_WORD_GATE = re.compile(r"key|token|secret|passw|pwd|credential|auth", re.IGNORECASE)

_SECRET_WORDS = frozenset(
    {"token", "secret", "password", "passwd", "pwd", "pass", "credential", "credentials",
     "auth", "apikey", "authtoken", "secretkey", "accesskey", "privatekey"}
)  # fmt: skip
_KEY_QUALIFIERS = frozenset({"api", "access", "private", "secret", "client", "auth", "session"})
# A key that ends in one of these describes a secret (its size, lifetime, file…), not holds it.
_ABOUT_WORDS = frozenset(
    {"count", "type", "limit", "limits", "ttl", "expiry", "expires", "expiration", "url", "uri",
     "endpoint", "file", "path", "name", "id", "policy", "length", "len", "size", "max", "min",
     "header", "env", "var", "field", "prefix", "hint", "mode", "enabled", "required", "usage"}
)  # fmt: skip
_PASSWORD_WORDS = frozenset({"password", "passwd", "pwd", "pass"})
_PLAIN_VALUES = frozenset({"true", "false", "null", "none", "yes", "no", "on", "off", "~"})
_FORM_KEYS = frozenset(
    {"access_token", "refresh_token", "id_token", "token", "api_key", "apikey", "client_secret",
     "password", "passwd", "secret", "auth", "jwt", "session", "key", "code", "signature", "sig"}
)  # fmt: skip
_ENV_LOOKUP = re.compile(r"^(?:\$\{?[A-Za-z_]|os\.(?:getenv|environ)|process\.env|<[^>]*>$)")
_MASKED = re.compile(r"^(?:\*{3}|.{6}\.\.\..{4}|\[REDACTED[^\]]*\])$")


def mask(token: str) -> str:
    """Hermes' partial mask: first 6 + ``...`` + last 4; ``***`` below 18 characters."""
    if len(token) < _FLOOR or "\\" in token:  # never cut an escape sequence in half
        return MASK
    return f"{token[:6]}...{token[-4:]}"


def _words(key: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", key)  # camelCase → camel Case
    return [w for w in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if w]


def _secret_key(key: str) -> bool:
    """Does a key hold a credential? ``API_KEY``, ``db.password``, ``clientSecret`` do;
    ``KEYBOARD``, ``max_tokens``, ``author``, ``token_count`` do not."""
    words = _words(key)
    if not words or words[-1] in _ABOUT_WORDS:
        return False
    if any(w in _SECRET_WORDS for w in words):
        return True
    return any(a in _KEY_QUALIFIERS and b in ("key", "token") for a, b in itertools.pairwise(words))


def _secret_value(key: str, value: str) -> bool:
    """Is *value* worth masking under the secret *key*? Not a variable reference, not a mask,
    not a boolean; a short number only under a password-like key."""
    if _ENV_LOOKUP.match(value) or _MASKED.match(value) or value.lower() in _PLAIN_VALUES:
        return False
    if value.isdigit() and len(value) < 8:
        return any(w in _PASSWORD_WORDS for w in _words(key))
    return True


def _assignment(m: re.Match[str]) -> str:
    key, sep = m.group(1), m.group(2)
    value = m.group(3) or m.group(4) or m.group(5) or ""
    if not _secret_key(key) or not _secret_value(key, value):
        return m.group(0)
    text = m.string
    start = m.start()
    if start and text[start - 1] in "?&":  # a URL query parameter: passes through
        return m.group(0)
    upper = key.upper() == key and any(c.isalpha() for c in key)
    line_start = text[text.rfind("\n", 0, start) + 1 : start].strip() in ("", "export")
    if not (upper or line_start or "." in key or "_" in key):
        return m.group(0)  # "my password=x" in prose is not a config line
    quote = '"' if m.group(3) is not None else "'" if m.group(4) is not None else ""
    return f"{key}{sep}{quote}{mask(value)}{quote}"


def _quoted(m: re.Match[str], value: str) -> str:
    """The match with *value*'s span (a dv/sv/bare group) replaced by its mask."""
    group = next(g for g in ("dv", "sv", "bare") if g in m.re.groupindex and m.group(g))
    start, end = m.span(group)
    return m.string[m.start() : start] + mask(value) + m.string[end : m.end()]


def _field(m: re.Match[str]) -> str:
    key, value = m.group("key"), m.group("dv") or m.group("sv")
    if not _secret_key(key) or not _secret_value(key, value):
        return m.group(0)
    return _quoted(m, value)


def _yaml(m: re.Match[str]) -> str:
    key = m.group("key")
    value = m.group("dv") or m.group("sv") or m.group("bare")
    if not _secret_key(key) or not _secret_value(key, value) or "://" in value:
        return m.group(0)
    return _quoted(m, value)


def _auth_header(m: re.Match[str]) -> str:
    """``Authorization: Bearer <mask>`` (scheme kept) and ``x-api-key: <mask>``."""
    credential = m.group(m.lastindex or 0)
    if _MASKED.match(credential):
        return m.group(0)
    start = m.start(m.lastindex or 0) - m.start()
    return m.group(0)[:start] + mask(credential)


def _url_token(m: re.Match[str]) -> str:
    if _MASKED.match(m.group(2)):
        return m.group(0)
    return m.group(1) + mask(m.group(2)) + m.group(3)


def _form_body(text: str) -> str:
    body = text.strip()
    if "\n" in body or not _FORM_RE.fullmatch(body):
        return text
    pairs = []
    for pair in body.split("&"):
        key, _, _ = pair.partition("=")
        pairs.append(f"{key}={MASK}" if key.lower() in _FORM_KEYS else pair)
    return text.replace(body, "&".join(pairs))


def _phone(m: re.Match[str]) -> str:
    phone = m.group(0)
    keep = 2 if len(phone) <= 8 else 4
    return phone[:keep] + "****" + phone[-keep:]


_Pass = tuple[Callable[[str], bool], Callable[[str], str]]
_PASSES: tuple[_Pass, ...] = (
    (lambda t: "PRIVATE KEY" in t, lambda t: _PEM_RE.sub("[REDACTED PRIVATE KEY]", t)),
    (
        lambda t: _VENDOR_GATE.search(t) is not None,
        lambda t: _VENDOR_RE.sub(lambda m: mask(m.group(0)), t),
    ),
    (lambda t: "eyJ" in t, lambda t: _JWT_RE.sub(lambda m: mask(m.group(0)), t)),
    (lambda t: "://" in t, lambda t: _DB_URL_RE.sub(rf"\1{MASK}\3", t)),
    (
        lambda t: "://" in t,
        lambda t: _URL_TOKEN_RE.sub(_url_token, t),
    ),
    (lambda t: "=" in t and "&" in t, _form_body),
    (
        lambda t: "=" in t and _SECRET_WORD_GATE.search(t) is not None,
        lambda t: _ASSIGN_RE.sub(_assignment, t),
    ),
    (
        lambda t: ":" in t and _AUTH_GATE.search(t) is not None,
        lambda t: _AUTH_HEADER_RE.sub(_auth_header, t),
    ),
    (
        lambda t: ":" in t and "-" in t,
        lambda t: _KEY_HEADER_RE.sub(_auth_header, t),
    ),
    (
        lambda t: ":" in t and _SECRET_WORD_GATE.search(t) is not None,
        lambda t: _YAML_RE.sub(_yaml, _FIELD_RE.sub(_field, t)),
    ),
    (lambda t: ":" in t, lambda t: _TELEGRAM_RE.sub(lambda m: f"{m[1] or ''}{m[2]}:{MASK}", t)),
    (lambda t: "+" in t, lambda t: _PHONE_RE.sub(_phone, t)),
)


def redact_text(text: str) -> str:
    """*text* with every secret the patterns recognise masked (other text unchanged)."""
    if not text:
        return text
    for gate, apply in _PASSES:
        if gate(text):
            text = apply(text)
    return text


def redact_value(value: Any) -> Any:
    """A copy of *value* (JSON-like: dicts, lists, strings) with every string redacted."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        return {k: redact_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_value(v) for v in value]
    return value
