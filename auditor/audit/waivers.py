"""Waivers (contracts section 7): YAML, exact id or glob for rule and resource (case-insensitive),
justification and expiry required.

A waiver applies to failing findings only. An expired waiver (the audit's clock is past its
``expires`` date; a waiver is valid through that day) turns its findings back into failures, is named
in the output, and fails the gate. A waiver that is not expired and matched no failing finding is
stale. A bad waivers file is an input error (exit 2) naming the entry.

The file is read by the tool's one YAML loader (:mod:`auditor.audit._yaml`): aliases within a budget,
no implicit dates (``expires`` is validated here, so ``2027-02-30`` is a message, not a crash).

Inline suppressions in templates (``# auditor:skip=RULE <reason>`` in Terraform, ``metadata.auditor.skip``
in ARM) are waivers too (:func:`inline_waivers`): id ``inline:<file>:<line>``, the rule id or glob,
the resource's id, the reason as justification, no expiry (:data:`NEVER`), and matching only the
findings of the resource defined there (two same-named resources are told apart by their source).
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from auditor.audit._yaml import read_yaml_file
from auditor.audit.findings import Finding, SourcePath, WaiverInfo
from auditor.errors import InputError, describe_value, shown_name
from auditor.expr.glob import Dialect, glob_match

if TYPE_CHECKING:  # a plan's modules (pydantic wire models) load only when a plan is read
    from auditor.estate.plan import Plan

WAIVERS_VERSION = 1
_REQUIRED = ("id", "rule", "resource", "justification", "expires")
NEVER = dt.date.max
"""The expiry of an inline suppression: it lasts as long as the comment in the source."""


@dataclass(frozen=True)
class Waiver:
    id: str
    rule: str
    resource: str
    justification: str
    expires: dt.date
    origin: tuple[str, int | None, str | None] | None = None
    """An inline suppression's resource definition (file, line, address): it then waives only
    findings whose source is that definition (or that name no line and address)."""

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

    def covers(self, finding: Finding) -> bool:
        """The waiver applies to ``finding``: rule and resource match and, for an inline
        suppression, the finding's resource is the one defined where the suppression is."""
        if not self.matches(finding.ruleId, finding.resourceId):
            return False
        if self.origin is None:
            return True
        source = finding.source
        if not isinstance(source, SourcePath) or (source.line is None and source.address is None):
            return True
        return (str(source), source.line, source.address) == self.origin


def inline_waivers(plan: Plan) -> list[Waiver]:
    """The inline suppressions of a plan's requests (read from templates) as waivers."""
    out: list[Waiver] = []
    for request in plan.requests:
        if not request.suppressions:
            continue
        src = request.source
        origin = (src.file, src.line, src.address) if src is not None else None
        where = (
            f"{src.file}:{src.line if src.line is not None else src.address}"
            if src is not None
            else request.json_path
        )
        for rule, reason in request.suppressions.items():
            out.append(
                Waiver(
                    id=f"inline:{where}",
                    rule=rule.strip(),
                    resource=request.resource_id,
                    justification=reason.strip(),
                    expires=NEVER,
                    origin=origin,
                )
            )
    return out


def _glob(pattern: str, value: str) -> bool:
    p, v = pattern.strip().lower(), value.strip().lower()
    return p == v or glob_match(p, v, Dialect.SHELL)


def _entry_name(index: int, entry: Any) -> str:
    if isinstance(entry, dict) and isinstance(entry.get("id"), str):
        return f"waivers[{index}] ({shown_name(entry['id'])})"
    return f"waivers[{index}]"


def _expiry(value: Any, source: str, where: str) -> dt.date:
    """``expires`` as a date: ``YYYY-MM-DD`` (or an ISO timestamp, its date), a real calendar day."""
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str):
        text = value.strip()
        try:
            return dt.date.fromisoformat(text)
        except ValueError:
            pass
        try:
            return dt.datetime.fromisoformat(text.replace("Z", "+00:00")).date()
        except ValueError:
            pass
    raise InputError(
        "expires must be a date (YYYY-MM-DD, a day of the calendar), "
        f"found {describe_value(value)}",
        source=source,
        location=where,
    )


def parse_waivers(document: Any, source: str) -> list[Waiver]:
    """Validate a waivers document (already parsed YAML)."""
    if not isinstance(document, dict):
        raise InputError("expected a mapping with version and waivers", source=source)
    unknown = [key for key in document if key not in ("version", "waivers")]
    if unknown:
        raise InputError(
            f"unknown key {shown_name(str(unknown[0]))!r}; expected version and waivers",
            source=source,
        )
    version = document.get("version")
    if isinstance(version, bool) or version != WAIVERS_VERSION:
        raise InputError(
            f"expected version {WAIVERS_VERSION}, found {describe_value(version)}",
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
        extra = [key for key in entry if key not in _REQUIRED]
        if extra:
            raise InputError(
                f"unknown field {shown_name(str(extra[0]))!r}; expected {', '.join(_REQUIRED)}",
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
                    f"{key} must be a string, found {describe_value(entry[key])}",
                    source=source,
                    location=where,
                )
        expires = _expiry(entry["expires"], source, where)
        key = entry["id"].strip().lower()
        if key in seen:
            raise InputError(
                f"waiver id {shown_name(entry['id'])!r} is used twice",
                source=source,
                location=where,
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
    """Read and validate a waivers file (a regular file of YAML; see :mod:`auditor.audit._yaml`)."""
    name = os.fspath(path)
    return parse_waivers(read_yaml_file(name, what="waivers file"), name)


@dataclass
class WaiverOutcome:
    findings: list[Finding]
    applied: list[WaiverInfo]
    expired: list[WaiverInfo]
    stale: list[WaiverInfo]


def apply_waivers(
    findings: Sequence[Finding], waivers: Iterable[Waiver], as_of: dt.date
) -> WaiverOutcome:
    """Mark failing and unknown findings that a waiver matches: ``waived`` (valid waiver) or
    unchanged with the expired waiver attached. The first matching waiver (file order) wins."""
    waivers = list(waivers)
    if not waivers:
        return WaiverOutcome(list(findings), [], [], [])
    expired_flags = [w.expired_at(as_of) for w in waivers]
    infos = [w.info(expired=e) for w, e in zip(waivers, expired_flags, strict=True)]
    used = [False] * len(waivers)
    out: list[Finding] = []
    for f in findings:
        if f.status != "fail" and f.status != "unknown":
            out.append(f)
            continue
        for i, w in enumerate(waivers):
            if w.covers(f):
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
