"""Unknown fields with secret-looking names (contracts 2 keeps unknown fields; these are dropped).

A snapshot keeps every field the seed does not define and writes it back. A field the seed does not
define but whose name says it holds a secret (``devTooling.user.apiToken``, ``adminPassword``,
``storageConnectionString``) is the exception: its value could be a live credential that nothing in
the tool knows to mask, so it would flow into exports, the sandbox's answers and re-collected
snapshots. Such fields are dropped when a snapshot is read, and their JSON paths (never their values)
are reported.

The name rule (:func:`is_secret_looking_name`) looks at the words of the name (split at camelCase,
``_``, ``-``, ``.``, spaces and digits), ignoring a trailing ``value``, ``data``, ``text``,
``string``, ``material``, ``hash``, ``pem``, ``base64``, ``b64`` or a number. The name is secret-looking when
its last remaining word is one of password(s), passwd, passphrase, pwd, secret(s), token(s),
credential(s), certificate(s), cert, key(s) (but not ``publicKey(s)``), or a compound such as
``apikey``, ``accesstoken`` or ``adminpassword`` (one lower-case word ending in password, passwd,
secret, token, credential(s) or certificate, or a known ``...key`` compound), or when the name ends
with the words ``connection string``. So ``keyName``, ``tokenLimit``, ``secretName``, ``vaultUri``,
``publicKeys`` and ``certificateThumbprint`` are kept. Only unknown fields are judged: the seed's own
fields (``tokens``, ``storageaccounts[].key``, node passwords) are typed, kept and masked as secrets.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_SECRET_WORDS = frozenset(
    {
        "password",
        "passwords",
        "passwd",
        "passphrase",
        "pwd",
        "secret",
        "secrets",
        "token",
        "tokens",
        "credential",
        "credentials",
        "certificate",
        "certificates",
        "cert",
        "key",
        "keys",
        "connectionstring",
        "connstr",
    }
)
_COMPOUND_ENDINGS = (
    "password",
    "passwords",
    "passwd",
    "secret",
    "secrets",
    "token",
    "tokens",
    "credential",
    "credentials",
    "certificate",
    "connectionstring",
)
_KEY_COMPOUNDS = frozenset(
    {
        "apikey",
        "accesskey",
        "secretkey",
        "privatekey",
        "accountkey",
        "storagekey",
        "sharedkey",
        "masterkey",
        "signingkey",
        "encryptionkey",
        "primarykey",
        "secondarykey",
        "subscriptionkey",
        "sshkey",
        "hmackey",
        "authkey",
    }
)
_TRAILING = frozenset(
    {"value", "values", "data", "text", "string", "material", "hash", "pem", "base64", "b64"}
)


def _words(name: str) -> list[str]:
    return [w.lower() for w in _WORDS.findall(name)]


def is_secret_looking_name(name: str) -> bool:
    """True when a field named ``name`` (not a seed field) probably holds a secret (module doc)."""
    words = _words(name)
    if len(words) >= 2 and words[-2:] == ["connection", "string"]:
        return True
    while len(words) > 1 and (words[-1] in _TRAILING or words[-1].isdigit()):
        words.pop()
    if not words:
        return False
    last = words[-1]
    if last in ("key", "keys") and len(words) > 1 and words[-2] == "public":
        return False
    if last in _SECRET_WORDS or last in _KEY_COMPOUNDS:
        return True
    return len(last) > 6 and last.endswith(_COMPOUND_ENDINGS)


_CANDIDATE = re.compile(
    rb'"[^"\\]{0,200}(?i:passw|passphrase|pwd|secret|token|credential|cert|key|connection|connstr)'
)


def may_hold_secret_looking_name(data: bytes) -> bool:
    """A cheap test on raw JSON: False means no key in ``data`` can be secret-looking (a string
    holding one of the words' stems is needed), so it need not be decoded and walked."""
    return _CANDIDATE.search(data) is not None


def drop_from_unknown(value: Any, path: str, found: list[str]) -> Any:
    """``value`` (plain JSON held by an unknown field) without the object keys whose names are
    secret-looking, at any depth; the paths of the dropped keys are appended to ``found``. Objects
    are changed in place."""
    if isinstance(value, dict):
        for key in list(value):
            where = f"{path}.{key}" if path else str(key)
            if is_secret_looking_name(str(key)):
                del value[key]
                found.append(where)
            else:
                drop_from_unknown(value[key], where, found)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            drop_from_unknown(item, f"{path}[{i}]", found)
    return value


def drop_secret_looking_extras(value: Any, path: str, found: list[str]) -> None:
    """Drop, in place, the unknown fields with secret-looking names from wire models in ``value`` (a
    model, or lists and maps of models) and from anything their unknown fields hold; append the JSON
    path of each dropped field to ``found``. Known fields are never dropped."""
    from auditor.model._base import WireModel  # pydantic: only when there are models to look at

    if isinstance(value, WireModel):
        extra = value.__pydantic_extra__
        if extra:
            for key in list(extra):
                where = f"{path}.{key}"
                if is_secret_looking_name(key):
                    del extra[key]
                    value.__pydantic_fields_set__.discard(key)
                    found.append(where)
                else:
                    drop_from_unknown(extra[key], where, found)
        for name in type(value).model_fields:
            inner = value.__dict__.get(name)
            if isinstance(inner, WireModel | list | dict):
                drop_secret_looking_extras(inner, f"{path}.{name}", found)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            if isinstance(item, WireModel | list | dict):
                drop_secret_looking_extras(item, f"{path}[{i}]", found)
    elif isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, WireModel | list | dict):
                drop_secret_looking_extras(item, f"{path}.{key}", found)


_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]")


def _printable(path: str, limit: int = 200) -> str:
    """A path as it may be shown: control and bidi characters as ``\\uXXXX``, at most ``limit``
    characters."""
    path = _UNPRINTABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", path)
    return path if len(path) <= limit else path[:limit] + "…"


def dropped_fields_warning(paths: Iterable[str], *, listed: int = 10) -> str:
    """The warning that names dropped fields (paths only, never values)."""
    paths = list(paths)
    shown = ", ".join(_printable(p) for p in paths[:listed])
    more = f" and {len(paths) - listed:,} more" if len(paths) > listed else ""
    return (
        f"dropped {len(paths):,} unknown field(s) with secret-looking names: {shown}{more} "
        "(their values are not kept, shown or written back)"
    )
