"""Making untrusted text safe for each output format.

Everything a finding carries comes from the audited estate (names, descriptions, health-event
messages written by a third party) and is treated as untrusted: made inert (control characters,
escape sequences and invisible bidi and format characters shown as ``\\x1b`` or ``<U+202E>``, see
:mod:`auditor.inert`), escaped for Markdown and HTML, defused for spreadsheets, clipped to the sizes
consumers accept. Objects the renderers do not know (a :class:`~auditor.model.secrets.Secret` among
them) are shown through ``str()``, which for a secret is its mask, never its value.
"""

from __future__ import annotations

import json
import re
from typing import Any

from auditor.inert import ELLIPSIS as ELLIPSIS  # the renderers' names since before auditor.inert
from auditor.inert import clip as clip
from auditor.inert import inert

_DOCUMENT_WHITESPACE = "\t\n\r"
"""Controls a document (XML, HTML, CSV) may hold as they are."""


def xml_text(value: object) -> str:
    """``value`` as inert text XML 1.0 can carry: every character XML cannot hold (C0 controls
    but tab, LF and CR; lone surrogates; U+FFFE, U+FFFF) and every other control or invisible
    format character (DEL, C1, bidi overrides and isolates, zero-width space, ...) shown visibly,
    as ``\\x1b`` or ``<U+202E>``."""
    if value.__class__ is str and value.isprintable():
        return value  # the common case, decided in C
    return inert(value, keep=_DOCUMENT_WHITESPACE)


def one_line(text: str) -> str:
    """Whitespace runs (newlines included) folded into single spaces."""
    return " ".join(text.split())


def _json_default(value: object) -> str:
    return str(value)


def evidence_json(evidence: Any, *, indent: int | None = 2) -> str:
    """Evidence as JSON text; objects JSON does not know are shown by ``str()`` (a secret: its
    mask)."""
    separators = (",", ": ") if indent is not None else (",", ":")
    return json.dumps(
        evidence,
        indent=indent,
        ensure_ascii=False,
        sort_keys=False,
        default=_json_default,
        separators=separators,
    )


def scalar_text(value: Any) -> str:
    """A JSON scalar as people read it (strings bare, everything else as JSON)."""
    if isinstance(value, str):
        return value
    return evidence_json(value, indent=None)


# --- spreadsheets -----------------------------------------------------------------------------

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n", "|", "%")


def csv_cell(value: Any) -> str:
    """A cell a spreadsheet will not run: text starting with ``= + - @`` (or tab, CR, LF, ``|``,
    ``%``, which some programs also treat as formula or DDE starts) gets a leading apostrophe."""
    text = xml_text(value if isinstance(value, str) else scalar_text(value))
    if text.startswith(_FORMULA_START):
        return "'" + text
    return text


# --- Markdown ---------------------------------------------------------------------------------

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|~:])")


def md_text(value: Any, limit: int | None = None) -> str:
    """Untrusted text for Markdown: one line, HTML characters as entities, Markdown syntax
    backslash-escaped (so neither links, images, emphasis, mentions nor raw HTML come from the
    data)."""
    text = one_line(xml_text(value if isinstance(value, str) else scalar_text(value)))
    if limit is not None:
        text = clip(text, limit)
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = text.replace('"', "&quot;")
    # escaped punctuation also breaks autolinks; a word joiner after @ stops mentions
    return _MD_SPECIAL.sub(r"\\\1", text).replace("@", "@\u2060")


def md_code(value: Any, limit: int | None = None) -> str:
    """Untrusted text as inline code in a table cell (backticks and pipes cannot break out)."""
    text = one_line(xml_text(value if isinstance(value, str) else scalar_text(value)))
    if limit is not None:
        text = clip(text, limit)
    text = text.replace("`", "ˋ").replace("|", "¦")
    return f"`{text}`" if text else ""


# --- HTML -------------------------------------------------------------------------------------

SAFE_TAGS: frozenset[str] = frozenset(
    {
        "a", "abbr", "b", "blockquote", "br", "code", "em", "i", "li", "ol", "p", "pre", "s",
        "small", "strong", "sub", "sup", "u", "ul",
    }
)  # fmt: skip
"""The markup a health-event description may keep; everything else is removed (its text kept,
except for ``script`` and ``style``, whose content goes too)."""

_HTML_TAGS = (
    "a|abbr|article|audio|b|base|blockquote|body|br|button|center|code|div|em|embed|font|footer|"
    "form|h[1-6]|head|header|hr|html|i|iframe|img|input|li|link|meta|nav|object|ol|p|pre|s|"
    "script|section|small|source|span|strong|style|sub|sup|svg|table|tbody|td|th|thead|title|tr|"
    "u|ul|video"
)
_TAG = re.compile(
    rf"</?(?:{_HTML_TAGS})(?=[\s/>])[^>]*>|&(?:[a-zA-Z]{{2,8}}|#[0-9]{{1,7}}|#x[0-9a-fA-F]{{1,6}});",
    re.IGNORECASE,
)


def looks_like_html(text: str) -> bool:
    """True when ``text`` carries HTML elements or entities (so it is shown as cleaned HTML).
    ``<PASSWORD>``, a secret reference, or ``List<String>`` is not HTML and stays text."""
    return bool(_TAG.search(text))


def clean_html(fragment: str) -> str:
    """Untrusted HTML reduced to :data:`SAFE_TAGS` by nh3 (no script, no event handler, no style,
    no image, links only to http, https and mailto)."""
    import nh3

    return nh3.clean(
        xml_text(fragment),
        tags=set(SAFE_TAGS),
        attributes={"a": {"href", "title"}, "abbr": {"title"}},
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
        strip_comments=True,
    )


def escape_html(text: str) -> str:
    """Inert text (see :func:`xml_text`) for HTML element content or a quoted attribute."""
    return (
        xml_text(text)
        .replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&#39;")
    )


def is_url(text: str) -> bool:
    """True for an absolute http(s) URL without whitespace (shown as a link)."""
    return bool(re.fullmatch(r"https?://[^\s<>\"']+", text))
