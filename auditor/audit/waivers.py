"""Waivers (contracts section 7): YAML, exact id or glob for rule and resource (case-insensitive),
justification and expiry required.

A waiver applies to failing findings only. An expired waiver (the audit's clock is past its
``expires`` date; a waiver is valid through that day) turns its findings back into failures, is named
in the output, and fails the gate. A waiver that is not expired and matched no failing finding is
stale. A bad waivers file is an input error (exit 2) naming the entry.
"""

from __future__ import annotations

import datetime as dt
import fnmatch
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import yaml

from auditor.audit.findings import Finding, WaiverInfo
from auditor.errors import InputError

WAIVERS_VERSION = 1
_REQUIRED = ("id", "rule", "resource", "justification", "expires")


@dataclass(frozen=True)
class Waiver:
    id: str
    rule: str
    resource: str
    justification: str
    expires: dt.date

    def info(self, *, expired: bool = False) -> WaiverInfo:
        return WaiverInfo(
            id=self.id,
            rule=self.rule,
            resource=self.resource,
            justification=self.justification,
            expires=self.expires.isoformat(),
            expired=expired,
        )

    def expired_at(self, as_of: dt.date) -> bool:
        return as_of > self.expires

    def matches(self, rule_id: str, resource_id: str) -> bool:
        """Exact or glob match of rule and resource, case-insensitive; a trailing ``/`` of a
        resource id is ignored."""
        return _glob(self.rule, rule_id) and _glob(
            self.resource.rstrip("/") or "/", resource_id.rstrip("/") or "/"
        )


def _glob(pattern: str, value: str) -> bool:
    p, v = pattern.strip().lower(), value.strip().lower()
    return p == v or fnmatch.fnmatchcase(v, p)


def _entry_name(index: int, entry: Any) -> str:
    if isinstance(entry, dict) and isinstance(entry.get("id"), str):
        return f"waivers[{index}] ({entry['id']})"
    return f"waivers[{index}]"


def parse_waivers(document: Any, source: str) -> list[Waiver]:
    """Validate a waivers document (already parsed YAML)."""
    if not isinstance(document, dict):
        raise InputError("expected a mapping with version and waivers", source=source)
    unknown = set(document) - {"version", "waivers"}
    if unknown:
        raise InputError(f"unknown key {sorted(unknown)[0]!r}", source=source)
    if document.get("version") != WAIVERS_VERSION:
        raise InputError(
            f"expected version {WAIVERS_VERSION}, found {document.get('version')!r}",
            source=source,
            location="version",
        )
    items = document.get("waivers")
    if items is None:
        items = []
    if not isinstance(items, list):
        raise InputError("expected a list of waivers", source=source, location="waivers")
    out: list[Waiver] = []
    seen: set[str] = set()
    for index, entry in enumerate(items):
        where = _entry_name(index, entry)
        if not isinstance(entry, dict):
            raise InputError("expected a mapping", source=source, location=where)
        extra = set(entry) - set(_REQUIRED)
        if extra:
            raise InputError(
                f"unknown field {sorted(extra)[0]!r}; expected {', '.join(_REQUIRED)}",
                source=source,
                location=where,
            )
        for key in _REQUIRED:
            value = entry.get(key)
            if value is None or (isinstance(value, str) and not value.strip()):
                raise InputError(f"{key} is required", source=source, location=where)
        for key in ("id", "rule", "resource", "justification"):
            if not isinstance(entry[key], str):
                raise InputError(
                    f"{key} must be a string, found {entry[key]!r}", source=source, location=where
                )
        expires = entry["expires"]
        if isinstance(expires, dt.datetime):
            expires = expires.date()
        elif isinstance(expires, str):
            try:
                expires = dt.date.fromisoformat(expires.strip())
            except ValueError:
                raise InputError(
                    f"expires must be a date (YYYY-MM-DD), found {entry['expires']!r}",
                    source=source,
                    location=where,
                ) from None
        elif not isinstance(expires, dt.date):
            raise InputError(
                f"expires must be a date (YYYY-MM-DD), found {expires!r}",
                source=source,
                location=where,
            )
        key = entry["id"].strip().lower()
        if key in seen:
            raise InputError(
                f"waiver id {entry['id']!r} is used twice", source=source, location=where
            )
        seen.add(key)
        out.append(
            Waiver(
                id=entry["id"].strip(),
                rule=entry["rule"].strip(),
                resource=entry["resource"].strip(),
                justification=entry["justification"].strip(),
                expires=expires,
            )
        )
    return out


def load_waivers(path: str | os.PathLike[str]) -> list[Waiver]:
    name = os.fspath(path)
    try:
        with open(name, encoding="utf-8") as fh:
            text = fh.read()
    except FileNotFoundError:
        raise InputError("no such waivers file", source=name) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the waivers file: {exc}", source=name) from None
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        loc = f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else None
        raise InputError("the waivers file is not valid YAML", source=name, location=loc) from None
    return parse_waivers(document, name)


@dataclass
class WaiverOutcome:
    findings: list[Finding]
    applied: list[WaiverInfo]
    expired: list[WaiverInfo]
    stale: list[WaiverInfo]


def apply_waivers(
    findings: Sequence[Finding], waivers: Iterable[Waiver], as_of: dt.date
) -> WaiverOutcome:
    """Mark failing findings that a waiver matches: ``waived`` (valid waiver) or still ``fail`` with
    the expired waiver attached. The first matching waiver (file order) wins."""
    waivers = list(waivers)
    if not waivers:
        return WaiverOutcome(list(findings), [], [], [])
    expired_flags = [w.expired_at(as_of) for w in waivers]
    infos = [w.info(expired=e) for w, e in zip(waivers, expired_flags, strict=True)]
    used = [False] * len(waivers)
    out: list[Finding] = []
    for f in findings:
        if f.status != "fail":
            out.append(f)
            continue
        for i, w in enumerate(waivers):
            if w.matches(f.ruleId, f.resourceId):
                used[i] = True
                if expired_flags[i]:
                    out.append(replace(f, waiver=infos[i]))
                else:
                    out.append(replace(f, status="waived", waiver=infos[i]))
                break
        else:
            out.append(f)
    applied = [infos[i] for i in range(len(waivers)) if used[i] and not expired_flags[i]]
    expired = [infos[i] for i in range(len(waivers)) if expired_flags[i]]
    stale = [infos[i] for i in range(len(waivers)) if not used[i] and not expired_flags[i]]
    return WaiverOutcome(out, applied, expired, stale)
