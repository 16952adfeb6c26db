"""The findings model (contracts section 6): what the audit produces and every renderer reads.

Renderers depend on this module only (plus the optional access summary); nothing here knows about
rules' predicates, sources or output formats.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Literal

from auditor import __version__

Severity = Literal["critical", "high", "medium", "low", "info"]
Status = Literal["fail", "pass", "waived", "baselined"]
RunsOn = Literal["plan", "estate"]

SEVERITIES: tuple[Severity, ...] = ("critical", "high", "medium", "low", "info")
"""Most severe first."""

SEVERITY_RANK: dict[str, int] = {s: i for i, s in enumerate(reversed(SEVERITIES))}
"""info 0 ... critical 4: ``SEVERITY_RANK[a] >= SEVERITY_RANK[b]`` means a is at least as severe."""

SCHEMA_VERSION = 1


def at_least(severity: str, threshold: str) -> bool:
    """True when ``severity`` is ``threshold`` or more severe."""
    return SEVERITY_RANK[severity] >= SEVERITY_RANK[threshold]


@dataclass(frozen=True)
class RuleInfo:
    """What a renderer needs to know about a rule (the catalogue entry, without its predicate)."""

    id: str
    title: str
    severity: Severity
    resourceType: str
    runsOn: tuple[RunsOn, ...]
    description: str = ""
    remediation: str = ""
    references: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "severity": self.severity,
            "resourceType": self.resourceType,
            "runsOn": list(self.runsOn),
            "description": self.description,
            "remediation": self.remediation,
            "references": list(self.references),
        }


@dataclass(frozen=True)
class WaiverInfo:
    """A waiver of contracts section 7 as the findings carry it."""

    id: str
    rule: str
    resource: str
    justification: str
    expires: str
    """ISO date."""
    expired: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "rule": self.rule,
            "resource": self.resource,
            "justification": self.justification,
            "expires": self.expires,
            "expired": self.expired,
        }


@dataclass(frozen=True, slots=True)
class Finding:
    """One rule evaluated on one resource (contracts section 6).

    ``evidence`` holds the values that decided, never a secret (a secret is described, e.g.
    ``"a literal value"``, or given as its fingerprint). ``source`` is the file the resource came from
    (snapshot or plan) and ``location`` the JSON path inside it, so SARIF can anchor a result.
    """

    ruleId: str
    severity: Severity
    status: Status
    resourceId: str
    title: str
    message: str
    evidence: dict[str, Any] = field(default_factory=dict)
    remediation: str = ""
    references: tuple[str, ...] = ()
    fingerprint: str = ""
    resourceType: str = ""
    source: str | None = None
    location: str | None = None
    waiver: WaiverInfo | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "ruleId": self.ruleId,
            "severity": self.severity,
            "status": self.status,
            "resourceId": self.resourceId,
            "resourceType": self.resourceType,
            "title": self.title,
            "message": self.message,
            "evidence": self.evidence,
            "remediation": self.remediation,
            "references": list(self.references),
            "fingerprint": self.fingerprint,
        }
        if self.source is not None:
            out["source"] = self.source
        if self.location is not None:
            out["location"] = self.location
        if self.waiver is not None:
            out["waiver"] = self.waiver.to_json()
        return out


def fingerprint(rule_id: str, resource_id: str, source_kind: str, detail: str = "") -> str:
    """A stable fingerprint: rule, normalised resource id (case-insensitive, no trailing ``/``),
    source kind (``plan`` or ``estate``) and an optional detail that tells apart several findings of
    one rule on one resource (e.g. the offending field)."""
    norm = resource_id.strip().rstrip("/").lower() or "/"
    text = "\x1f".join((rule_id.upper(), norm, source_kind, detail))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


class DeferredFingerprint:
    """What a bulk pass finding holds in place of its fingerprint: the fingerprint is computed
    when read, from the finding's rule and resource id (:func:`fingerprint` with no detail), so a
    million passes do not each keep a 32-character string. Reading ``Finding.fingerprint`` always
    gives the string; nothing else sees this placeholder."""

    __slots__ = ("source_kind",)

    def __init__(self, source_kind: str) -> None:
        self.source_kind = source_kind


class _FingerprintSlot:
    """``Finding.fingerprint``: the slot, resolving a :class:`DeferredFingerprint` when read."""

    __slots__ = ("slot",)

    def __init__(self, slot: Any) -> None:
        self.slot = slot

    def __get__(self, obj: Any, owner: Any = None) -> Any:
        if obj is None:
            return self
        value = self.slot.__get__(obj, owner)
        if type(value) is DeferredFingerprint:
            return fingerprint(obj.ruleId, obj.resourceId, value.source_kind)
        return value

    def __set__(self, obj: Any, value: Any) -> None:
        self.slot.__set__(obj, value)

    def __delete__(self, obj: Any) -> None:
        self.slot.__delete__(obj)


setattr(Finding, "fingerprint", _FingerprintSlot(Finding.__dict__["fingerprint"]))  # noqa: B010


@dataclass(frozen=True)
class Privileged:
    """A principal holding a privileged role at a subscription (for the access section of reports)."""

    subscription: str
    principalId: str
    displayName: str
    principalType: str
    role: str
    via: tuple[str, ...] = ()
    """Group path (group ids or names) through which the role is held; empty when direct."""


@dataclass(frozen=True)
class EscalationPath:
    """A shadow admin's path: principal -> groups -> assignment -> role -> permission (RBAC-010)."""

    principalId: str
    displayName: str
    scope: str
    steps: tuple[tuple[str, str], ...]
    """(kind, label) pairs in order: ("principal", ...), ("group", ...), ("assignment", ...),
    ("role", ...), ("permission", ...)."""


@dataclass
class AccessSummary:
    privileged: list[Privileged] = field(default_factory=list)
    escalations: list[EscalationPath] = field(default_factory=list)


@dataclass
class AuditResult:
    """Everything one audit or gate run produced, in the order renderers show it."""

    findings: list[Finding]
    rules: list[RuleInfo]
    startedAt: str
    finishedAt: str
    target: str
    """What was audited: the snapshot or plan path, or the API base URL."""
    targetKind: Literal["snapshot", "plan", "api"] = "snapshot"
    failOn: Severity = "high"
    waivers: list[WaiverInfo] = field(default_factory=list)
    staleWaivers: list[WaiverInfo] = field(default_factory=list)
    expiredWaivers: list[WaiverInfo] = field(default_factory=list)
    baselineFixed: list[str] = field(default_factory=list)
    """Fingerprints in the baseline that no longer fail (fixed)."""
    baselineStale: list[str] = field(default_factory=list)
    """Fingerprints in the baseline whose resource was not judged any more (gone)."""
    incomplete: list[str] = field(default_factory=list)
    """Sources that could not be read in full, or the run's budget exhausted (exit code 3)."""
    warnings: list[str] = field(default_factory=list)
    """What the reader should know about the run (duplicates merged, secret-looking unknown fields
    dropped, findings not listed, rules not run): contracts 6 ``warnings``."""
    unlisted: dict[str, dict[str, int]] = field(default_factory=dict)
    """Failing findings counted but not listed (rule id -> severity -> count; see
    :func:`auditor.audit.limits.cap_failures`): in the summary and the gate's verdict."""
    access: AccessSummary | None = None
    toolVersion: str = __version__

    def summary(self) -> dict[str, int]:
        """Counts per severity of failing findings, plus passed and waived (contracts section 6)."""
        out: dict[str, int] = {s: 0 for s in SEVERITIES}
        out["passed"] = 0
        out["waived"] = 0
        out["baselined"] = 0
        for f in self.findings:
            if f.status == "fail":
                out[f.severity] += 1
            elif f.status == "pass":
                out["passed"] += 1
            elif f.status == "waived":
                out["waived"] += 1
            else:
                out["baselined"] += 1
        for by_severity in self.unlisted.values():
            for severity, n in by_severity.items():
                out[severity] += n
        return out

    @property
    def failures(self) -> list[Finding]:
        return [f for f in self.findings if f.status == "fail"]

    @property
    def gate_failed(self) -> bool:
        """Exit code 1: a failing finding at or above ``failOn``, or an expired waiver."""
        return (
            bool(self.expiredWaivers)
            or any(at_least(f.severity, self.failOn) for f in self.failures)
            or any(
                at_least(severity, self.failOn)
                for by_severity in self.unlisted.values()
                for severity, n in by_severity.items()
                if n
            )
        )

    @property
    def exit_code(self) -> int:
        if self.incomplete:
            return 3
        return 1 if self.gate_failed else 0

    def to_json(self) -> dict[str, Any]:
        """The findings document of contracts section 6 (``schemaVersion`` 1)."""
        return {
            "schemaVersion": SCHEMA_VERSION,
            "tool": {"name": "auditor", "version": self.toolVersion},
            "startedAt": self.startedAt,
            "finishedAt": self.finishedAt,
            "target": {"kind": self.targetKind, "name": self.target},
            "failOn": self.failOn,
            "summary": self.summary(),
            "findings": [f.to_json() for f in self.findings],
            "waivers": {
                "applied": [w.to_json() for w in self.waivers],
                "expired": [w.to_json() for w in self.expiredWaivers],
                "stale": [w.to_json() for w in self.staleWaivers],
            },
            "baseline": {"fixed": list(self.baselineFixed), "stale": list(self.baselineStale)},
            "incomplete": list(self.incomplete),
            "unlisted": {rule: dict(by) for rule, by in self.unlisted.items()},
            "warnings": list(self.warnings),
        }
