"""Hostile inputs: values, structural mutations of a valid document, and mutated bytes.

Documents are plain JSON-shaped Python values plus two markers the writer understands: :class:`Raw`
(JSON text spliced in as it is: ``1e999``, ``NaN``, a 10,000-digit number, 100,000 levels of
nesting) and :class:`DupKeys` (an object whose keys repeat). :func:`to_json` writes them.
"""

from __future__ import annotations

import copy
import datetime as dt
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from auditor.model.secrets import is_secret_key
from tests.fuzz._secrets import MARKERS, SECRET_KEYS, SECRETS

Path = tuple[str | int, ...]


@dataclass(frozen=True)
class Raw:
    """JSON text written as it is."""

    text: str


@dataclass(frozen=True)
class DupKeys:
    """An object whose keys may repeat (``{"id": "a", "id": "b"}``)."""

    pairs: tuple[tuple[str, Any], ...]


# --- writing ------------------------------------------------------------------------------------


def _dump_str(text: str, ascii_only: bool) -> str:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: only an escape can carry them
        ascii_only = True
    return json.dumps(text, ensure_ascii=ascii_only)


def _write(value: Any, out: list[str], ascii_only: bool, bare_dates: bool = False) -> None:
    if isinstance(value, Raw):
        out.append(value.text)
    elif isinstance(value, str):
        out.append(_dump_str(value, ascii_only))
    elif isinstance(value, dt.date):
        out.append(value.isoformat() if bare_dates else f'"{value.isoformat()}"')
    elif isinstance(value, dict | DupKeys):
        pairs = value.pairs if isinstance(value, DupKeys) else tuple(value.items())
        out.append("{")
        for i, (key, item) in enumerate(pairs):
            if i:
                out.append(",")
            out.append(_dump_str(str(key), ascii_only))
            out.append(": " if bare_dates else ":")
            _write(item, out, ascii_only, bare_dates)
        out.append("}")
    elif isinstance(value, list | tuple):
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(",")
            _write(item, out, ascii_only, bare_dates)
        out.append("]")
    else:  # None, bool, int, float (NaN and infinities as Python's json writes them)
        out.append(json.dumps(value))


def to_json(value: Any, *, ascii_only: bool = False) -> bytes:
    """The document as JSON bytes (UTF-8); ``Raw`` parts verbatim, ``DupKeys`` with repeats."""
    out: list[str] = []
    _write(value, out, ascii_only)
    return "".join(out).encode("utf-8")


def to_yaml_flow(value: Any) -> bytes:
    """The document as YAML in flow style (JSON-like, dates bare so YAML reads them as dates;
    ``Raw`` parts are YAML text: tags, anchors, aliases)."""
    out: list[str] = []
    _write(value, out, False, bare_dates=True)
    return "".join(out).encode("utf-8")


# --- hostile values -----------------------------------------------------------------------------

HOSTILE_STRINGS: tuple[str, ...] = (
    "",
    " ",
    "\x00",
    "a\x00b",
    "\x1b[31mred\x1b[0m",
    "\x1b]0;pwned\x07",
    "\x1b[2J\x1b[H",
    "\x9b31m",
    "over\rwrite",
    "line\nbreak\n",
    "\u202egnp.exe",
    "admin\u2066\u202e\u2069x",
    "\u200f\u200e\u200b",
    "\ufeffbom",
    "\ud800",
    "*",
    "**",
    "*" * 30 + "z",
    "*a" * 20 + "b",
    "?" * 60,
    "[!a]" * 12,
    "Cloud.*/" * 20 + "read",
    "*/*" * 40,
    "2027-02-30",
    "2027-13-01",
    "2027-01-01T25:00:00Z",
    "0000-00-00",
    "9999-12-31T23:59:60Z",
    "-0001-01-01",
    "notadate",
    "/",
    "//",
    "/subscriptions/",
    "/subscriptions//resourceGroups/",
    "/subscriptions/../../etc/passwd",
    "/providers/Cloud.Management/managementGroups/",
    "http://[::1/x",
    "http://127.0.0.1:99999/",
    "file:///etc/passwd",
    "javascript:alert(1)",
    "<script>alert(1)</script>",
    "{{7*7}}",
    "${jndi:ldap://x/a}",
    "%s%n%x",
    "'; DROP TABLE x; --",
    "\\",
    '"',
    "'",
    "00000000-0000-0000-0000-000000000000",
    "{8e3af657-a8ff-443c-a75c-2fe8c4bcb635}",
    "\U0001d518\U0001d52b\U0001d526",
    "\uff21\uff44\uff4d\uff49\uff4e",
    "\u0130",
    "<PASSWORD>",
    "${X}",
    "<>",
)

HOSTILE_NUMBERS: tuple[str, ...] = (
    "1e999",
    "-1e999",
    "1E400",
    "1e-400",
    "NaN",
    "Infinity",
    "-Infinity",
    "-0",
    "0e0",
    "1" + "0" * 400,
    "9" * 10_000,
    "-9223372036854775809",
    "9223372036854775808",
    "18446744073709551616",
    "1.7976931348623157e309",
    "123456789.123456789e123456789",
    "0x10",
    "01",
    "+1",
    ".5",
)

WRONG_TYPES: tuple[Any, ...] = (
    None,
    True,
    False,
    0,
    -1,
    2**63,
    65536,
    1.5,
    "",
    [],
    {},
    [None],
    [[]],
    {"": None},
    {"a": {}},
)

_ODD_CHARS = st.characters(
    codec=None,
    categories=("L", "N", "P", "S", "Z", "Cc", "Cf", "Cs", "Co", "Cn"),
)


def nested(depth: int, kind: str) -> Raw:
    """``depth`` levels of arrays or objects."""
    if kind == "array":
        return Raw("[" * depth + "]" * depth)
    if kind == "object":
        return Raw('{"a":' * depth + "null" + "}" * depth)
    return Raw('[{"a":' * depth + "1" + "}]" * depth)


deep = st.builds(
    nested,
    st.sampled_from([64, 300, 1_000, 5_000, 100_000]),
    st.sampled_from(["array", "object", "mixed"]),
)
overlong = st.builds(
    lambda n, c: c * n,
    st.sampled_from([1_000, 10_000, 100_000, 300_000]),
    st.sampled_from("x*é\u202e"),
)
hostile_strings: st.SearchStrategy[str] = st.one_of(
    st.sampled_from(HOSTILE_STRINGS),
    st.text(_ODD_CHARS, max_size=40),
    overlong,
)
hostile_numbers: st.SearchStrategy[Any] = st.one_of(
    st.sampled_from(HOSTILE_NUMBERS).map(Raw),
    st.integers(),
    st.floats(),
)
hostile_values: st.SearchStrategy[Any] = st.one_of(
    hostile_strings,
    hostile_numbers,
    st.sampled_from(WRONG_TYPES),
    deep,
    st.recursive(
        st.none() | st.booleans() | st.integers() | hostile_strings,
        lambda inner: (
            st.lists(inner, max_size=3) | st.dictionaries(hostile_strings, inner, max_size=3)
        ),
        max_leaves=6,
    ),
)

secret_strings: st.SearchStrategy[str] = st.sampled_from(SECRETS)
secret_values: st.SearchStrategy[Any] = st.one_of(
    secret_strings,
    secret_strings.map(lambda s: [s]),
    secret_strings.map(lambda s: {"value": s}),
    st.tuples(st.sampled_from(SECRET_KEYS), secret_strings).map(
        lambda kv: {"inner": {kv[0]: kv[1]}}
    ),
)
"""A secret as the value of a secret-looking key, whatever its type (string, array, object)."""

secret_keys = st.sampled_from(SECRET_KEYS)


# --- document paths -----------------------------------------------------------------------------


def paths(doc: Any) -> list[Path]:
    """Every path in ``doc`` (the root excluded), parents before children."""
    out: list[Path] = []
    stack: list[tuple[Path, Any]] = [((), doc)]
    while stack:
        path, node = stack.pop()
        if path:
            out.append(path)
        if isinstance(node, dict):
            stack.extend(((*path, k), v) for k, v in reversed(list(node.items())))
        elif isinstance(node, list):
            stack.extend(((*path, i), v) for i, v in reversed(list(enumerate(node))))
    return out


def get_at(doc: Any, path: Path) -> Any:
    for part in path:
        doc = doc[part]
    return doc


def set_at(doc: Any, path: Path, value: Any) -> Any:
    """``doc`` with the value at ``path`` replaced (the root when ``path`` is empty)."""
    if not path:
        return value
    get_at(doc, path[:-1])[path[-1]] = value
    return doc


def delete_at(doc: Any, path: Path) -> None:
    parent = get_at(doc, path[:-1])
    if isinstance(parent, dict) or (isinstance(parent, list) and len(parent) > 0):
        del parent[path[-1]]


def is_secret_slot(path: Path) -> bool:
    """A field that holds a secret in the seed's models: storage keys, node passwords, SSH key
    material, secret-looking configuration keys, token values, secret-looking tag names."""
    if not path or not isinstance(path[-1], str):
        return False
    key = path[-1].lower()
    if key in ("password", "certificatedata"):
        return True
    if key == "key" and "storageaccounts" in path:
        return True
    if key == "value" and "tokens" in path:
        return True
    in_map = "configurations" in path or "tags" in path
    return in_map and is_secret_key(path[-1])


def _is_reference(value: Any) -> bool:
    return isinstance(value, str) and (
        (value.startswith("<") and value.endswith(">"))
        or (value.startswith("${") and value.endswith("}"))
    )


def seed_secrets(doc: Any) -> Any:
    """``doc`` with every literal value in a secret slot replaced by a seeded secret (references
    such as ``<PASSWORD>`` stay)."""
    doc = copy.deepcopy(doc)
    i = 0
    for path in paths(doc):
        if is_secret_slot(path) and not _is_reference(get_at(doc, path)):
            secret = SECRETS[i % len(SECRETS)]
            if path[-1] == "certificateData":
                secret = SSH_OR_PEM[i % 2]
            set_at(doc, path, secret)
            i += 1
    return doc


SSH_OR_PEM = (SECRETS[5], SECRETS[4])


# --- structural mutation ------------------------------------------------------------------------


def fresh(value: Any) -> Any:
    """A copy of a drawn value: strategies hand out shared objects (``sampled_from``), and a later
    mutation must not change them for the next example."""
    return copy.deepcopy(value)


FREE_FORM_MAPS = frozenset(
    {"tags", "componentVersion", "userAssignedIdentities", "inlineEventTypes", "parameters", "info"}
)
"""Model fields that are maps of the owner's keys (``dict[str, ...]`` in auditor/model)."""

OPS = (
    "replace",
    "wrong-type",
    "unknown-secret",
    "unknown-hostile",
    "secret-in-slot",
    "secret-for-object",
    "duplicate",
    "delete",
    "deep",
    "dup-keys",
)


@st.composite
def mutated_documents(
    draw: st.DrawFn,
    base: Any,
    *,
    max_ops: int = 4,
    root_ops: bool = True,
    extra: st.SearchStrategy[Any] | None = None,
) -> Any:
    """``base`` (a valid document) with 1 to ``max_ops`` hostile changes; ``extra`` adds hostile
    values of the format (YAML tags and aliases, TOML literals)."""
    doc = copy.deepcopy(base)
    hostile = hostile_values if extra is None else st.one_of(extra, hostile_values)
    if root_ops and draw(st.integers(0, 19)) == 0:  # now and then the whole document
        return fresh(draw(st.one_of(hostile, st.just([doc]))))
    for _ in range(draw(st.integers(1, max_ops))):
        all_paths = paths(doc)
        if not all_paths:
            break
        op = draw(st.sampled_from(OPS))
        path = draw(st.sampled_from(all_paths))
        node = get_at(doc, path)
        if op == "replace":
            set_at(doc, path, fresh(draw(hostile)))
        elif op == "wrong-type":
            set_at(doc, path, fresh(draw(st.sampled_from(WRONG_TYPES))))
        elif op in ("unknown-secret", "unknown-hostile"):
            # (not in a free-form map such as ``tags``: its keys are the owner's data, kept as
            # given whatever they are called; not a field with a secret-looking name)
            objects = [
                p
                for p in [(), *all_paths]
                if isinstance(get_at(doc, p), dict) and not FREE_FORM_MAPS.intersection(map(str, p))
            ]
            target = get_at(doc, draw(st.sampled_from(objects)))
            if op == "unknown-secret":
                target[draw(secret_keys)] = fresh(draw(secret_values))
            else:
                target[draw(hostile_strings)] = fresh(draw(hostile))
        elif op == "secret-in-slot":
            slots = [p for p in all_paths if is_secret_slot(p)]
            if slots:
                set_at(doc, draw(st.sampled_from(slots)), draw(secret_strings))
        elif op == "secret-for-object":
            # a secret where the object holding a secret field is expected (a typed object: inside
            # a free-form map such as ``configurations`` any value is ordinary data)
            slots = [
                p[:-1]
                for p in all_paths
                if is_secret_slot(p) and len(p) > 1 and "configurations" not in p[:-2]
            ]
            if slots:
                set_at(doc, draw(st.sampled_from(slots)), draw(secret_strings))
        elif op == "duplicate":
            lists = [p for p in all_paths if isinstance(get_at(doc, p), list) and get_at(doc, p)]
            if lists:
                items = get_at(doc, draw(st.sampled_from(lists)))
                item = items[draw(st.integers(0, len(items) - 1))]
                times = draw(st.sampled_from([1, 2, 10, 300]))
                copies = [copy.deepcopy(item) for _ in range(times)]
                if draw(st.booleans()) and isinstance(item, dict) and item:
                    # conflicting copies: same id, something else changed
                    key = draw(st.sampled_from(sorted(k for k in item if k != "id") or ["x"]))
                    copies[-1][key] = fresh(draw(hostile))
                items.extend(copies)
        elif op == "delete":
            delete_at(doc, path)
        elif op == "deep":
            set_at(doc, path, draw(deep))
        elif op == "dup-keys" and isinstance(node, dict) and node:
            key = draw(st.sampled_from(sorted(node)))
            set_at(doc, path, DupKeys((*node.items(), (key, fresh(draw(hostile))))))
    return doc


# --- mutated bytes ------------------------------------------------------------------------------

INVALID_UTF8: tuple[bytes, ...] = (
    b"\xff",
    b"\xfe\xff",
    b"\xc3\x28",
    b"\xc0\xaf",
    b"\xed\xa0\x80",
    b"\xf4\x90\x80\x80",
    b"\xe2\x82",
    b"\x80",
)


def _truncate(data: bytes, at: int) -> bytes:
    return data[: at % (len(data) + 1)]


@st.composite
def mutated_bytes(draw: st.DrawFn, data: bytes, *, max_ops: int = 3) -> bytes:
    """``data`` with byte-level damage: truncation, invalid UTF-8, flipped, deleted or repeated
    bytes, a BOM or another encoding; now and then random bytes instead."""
    choice = draw(st.integers(0, 9))
    if choice == 0:
        return draw(st.binary(max_size=2_000))
    if choice == 1:
        return _truncate(data, draw(st.integers(0, len(data))))
    if choice == 2:
        encoding = draw(st.sampled_from(["utf-16", "utf-16-le", "utf-32", "latin-1", "cp1252"]))
        return data.decode("utf-8", "replace").encode(encoding, "replace")
    out = bytearray(data)
    for _ in range(draw(st.integers(1, max_ops))):
        if not out:
            break
        pos = draw(st.integers(0, len(out)))
        kind = draw(st.integers(0, 6))
        if kind == 0:
            out[pos:pos] = draw(st.sampled_from(INVALID_UTF8))
        elif kind == 1 and pos < len(out):
            out[pos] = draw(st.integers(0, 255))
        elif kind == 2:
            end = pos + draw(st.integers(1, 64))
            del out[pos:end]
        elif kind == 3:
            end = pos + draw(st.integers(1, 64))
            out[pos:pos] = out[pos:end] * draw(st.integers(1, 50))
        elif kind == 4:
            out[pos:pos] = draw(
                st.sampled_from([b"\x00", b"\r", b"\r\n", b"\t", b"\x1b[2J", b"\\"])
            )
        elif kind == 5:
            out[0:0] = b"\xef\xbb\xbf"
        else:
            out[pos:pos] = draw(
                st.sampled_from([b"[" * 5_000, b"{" * 5_000, b'"', b",", b"}", b"]"])
            )
    return bytes(out)


def one_of_bases(
    bases: Sequence[Any], mutate: Callable[[Any], st.SearchStrategy[Any]]
) -> st.SearchStrategy[Any]:
    """A mutation of one of ``bases``."""
    return st.sampled_from(range(len(bases))).flatmap(lambda i: mutate(bases[i]))


assert all(any(m in s for m in MARKERS) for s in SSH_OR_PEM)
