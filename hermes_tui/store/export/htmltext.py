"""Stored text as safe HTML: escaping, a minimal Markdown renderer and code highlighting.

Nothing from the store reaches the page unescaped. :func:`esc` is ``html.escape(…,
quote=True)`` (NUL and other C0 controls, which HTML forbids, become U+FFFD). The Markdown
renderer escapes **first** and only then adds a fixed set of tags of its own — paragraphs,
line breaks, ``inline code``, **bold**, headings as bold lines — so raw HTML in a message
always shows as text. Fenced code blocks go through Pygments (inline styles; it escapes
its tokens itself), with the lexer named by the fence or plain text; very large blocks are
shown escaped but not coloured, to keep the export fast.
"""

from __future__ import annotations

import functools
import html
import json
import re
from typing import Any

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import JsonLexer, TextLexer, get_lexer_by_name
from pygments.util import ClassNotFound

HIGHLIGHT_LIMIT = 100_000  # characters; bigger blocks are escaped but not coloured
_CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})[ \t]*([A-Za-z0-9_+#.-]*)[^\n]*$")
_INLINE_CODE = re.compile(r"`([^`\n]+)`")
_BOLD = re.compile(r"\*\*(?=\S)([^*\n]+?)(?<=\S)\*\*")
_HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t#]*$")
_FORMATTER = HtmlFormatter(noclasses=True, nowrap=True, style="default")


def esc(value: Any) -> str:
    """Any stored value as HTML text (quotes escaped too: safe inside attributes)."""
    raw = "" if value is None else str(value)
    return html.escape(_CONTROLS.sub("\ufffd", raw), quote=True)


@functools.lru_cache(maxsize=64)
def _lexer(language: str) -> Lexer:
    if not language:
        return TextLexer()
    try:
        return get_lexer_by_name(language.lower())
    except ClassNotFound:
        return TextLexer()


def code_block(code: str, language: str = "") -> str:
    """A ``<pre>`` of highlighted (or, when large, escaped) code."""
    code = _CONTROLS.sub("\ufffd", code)
    lexer = _lexer(language)
    if isinstance(lexer, TextLexer) or len(code) > HIGHLIGHT_LIMIT:
        body = esc(code)
    else:
        body = highlight(code, lexer, _FORMATTER).rstrip("\n")
    if not language:
        return f'<pre class="code">{body}</pre>'
    return (
        f'<div class="codebox"><div class="lang">{esc(language)}</div>'
        f'<pre class="code">{body}</pre></div>'
    )


def json_block(value: Any) -> str:
    """A JSON value, pretty-printed and highlighted."""
    code = json.dumps(value, ensure_ascii=False, indent=2)
    if len(code) > HIGHLIGHT_LIMIT:
        return f'<pre class="code">{esc(code)}</pre>'
    body = highlight(code, JsonLexer(), _FORMATTER).rstrip("\n")
    return f'<pre class="code">{body}</pre>'


def _inline(line: str) -> str:
    out = esc(line)
    out = _INLINE_CODE.sub(r"<code>\1</code>", out)
    return _BOLD.sub(r"<strong>\1</strong>", out)


def _paragraph(lines: list[str]) -> str:
    if len(lines) == 1 and (heading := _HEADING.match(lines[0])):
        return f'<p class="h">{_inline(heading.group(1))}</p>'
    return "<p>" + "<br>".join(_inline(line) for line in lines) + "</p>"


def markdown(source: str) -> str:
    """*source* (a message) as HTML: fenced code, paragraphs, inline code and bold."""
    out: list[str] = []
    para: list[str] = []
    lines = source.replace("\r\n", "\n").split("\n")
    i = 0
    while i < len(lines):
        fence = _FENCE.match(lines[i])
        if fence is None:
            if lines[i].strip():
                para.append(lines[i])
            elif para:
                out.append(_paragraph(para))
                para = []
            i += 1
            continue
        if para:
            out.append(_paragraph(para))
            para = []
        marks, language = fence.group(1), fence.group(2)
        body: list[str] = []
        i += 1
        while i < len(lines) and not re.match(
            rf"^ {{0,3}}{re.escape(marks[0])}{{{len(marks)},}}[ \t]*$", lines[i]
        ):
            body.append(lines[i])
            i += 1
        i += 1  # the closing fence (or the end of an unclosed block)
        out.append(code_block("\n".join(body), language))
    if para:
        out.append(_paragraph(para))
    return "\n".join(out)
