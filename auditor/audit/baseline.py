"""Baselines: accept today's failures, gate on new ones.

``--create-baseline FILE`` writes the fingerprints of the run's failing findings (JSON, below).
``--baseline FILE`` marks failing findings whose fingerprint is in the file ``baselined`` (they do not
fail the gate) and reports the baseline's entries that no longer fail: *fixed* when the rule ran and
judged the resource again (it passes now), *stale* when the rule ran but the resource was not judged
any more (it is gone). Entries of rules that did not run are left alone.

File format::

    {"baselineVersion": 1, "createdAt": "...", "tool": {"name": "auditor", "version": "..."},
     "findings": [{"fingerprint": "...", "ruleId": "DOM-001", "resourceId": "...",
                   "severity": "high"}, ...]}
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from auditor import __version__
from auditor.audit.findings import Finding
from auditor.errors import InputError
from auditor.estate import decode_json, read_input_bytes, write_atomic

BASELINE_VERSION = 1


@dataclass(frozen=True)
class BaselineEntry:
    fingerprint: str
    ruleId: str
    resourceId: str
    severity: str = ""


def baseline_document(findings: Iterable[Finding], created_at: str) -> dict[str, Any]:
    entries = sorted(
        {
            f.fingerprint: {
                "fingerprint": f.fingerprint,
                "ruleId": f.ruleId,
                "resourceId": f.resourceId,
                "severity": f.severity,
            }
            for f in findings
            if f.status in ("fail", "unknown")
        }.values(),
        key=lambda e: (e["ruleId"], e["resourceId"].lower(), e["fingerprint"]),
    )
    return {
        "baselineVersion": BASELINE_VERSION,
        "createdAt": created_at,
        "tool": {"name": "auditor", "version": __version__},
        "findings": entries,
    }


def write_baseline(
    path: str | os.PathLike[str], findings: Iterable[Finding], created_at: str
) -> None:
    data = json.dumps(baseline_document(findings, created_at), indent=2) + "\n"
    write_atomic(path, data.encode(), overwrite=True, what="baseline file")


def load_baseline(path: str | os.PathLike[str]) -> list[BaselineEntry]:
    """Read a baseline file (a regular file of JSON, within the limits of every JSON input)."""
    name = os.fspath(path)
    document = decode_json(
        read_input_bytes(name, what="baseline file"), source=name, what="baseline file"
    )
    if not isinstance(document, dict) or document.get("baselineVersion") != BASELINE_VERSION:
        raise InputError(
            f"expected a baseline file (baselineVersion {BASELINE_VERSION})",
            source=name,
            location="baselineVersion",
        )
    items = document.get("findings")
    if not isinstance(items, list):
        raise InputError("expected a list", source=name, location="findings")
    out: list[BaselineEntry] = []
    for i, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("fingerprint"), str):
            raise InputError(
                "expected an object with a fingerprint", source=name, location=f"findings[{i}]"
            )
        out.append(
            BaselineEntry(
                fingerprint=item["fingerprint"],
                ruleId=str(item.get("ruleId", "")),
                resourceId=str(item.get("resourceId", "")),
                severity=str(item.get("severity", "")),
            )
        )
    return out


@dataclass
class BaselineOutcome:
    findings: list[Finding]
    fixed: list[str]
    stale: list[str]


def apply_baseline(
    findings: Sequence[Finding], baseline: Iterable[BaselineEntry], rules_run: Iterable[str]
) -> BaselineOutcome:
    entries = {e.fingerprint: e for e in baseline}
    out = [
        replace(f, status="baselined")
        if f.status in ("fail", "unknown") and f.fingerprint in entries
        else f
        for f in findings
    ]
    failing = {f.fingerprint for f in findings if f.status in ("fail", "unknown", "waived")}
    judged = {(f.ruleId, f.resourceId.rstrip("/").lower()) for f in findings}
    ran = set(rules_run)
    fixed: list[str] = []
    stale: list[str] = []
    for fp, e in entries.items():
        if fp in failing or e.ruleId not in ran:
            continue
        if (e.ruleId, e.resourceId.rstrip("/").lower()) in judged:
            fixed.append(fp)
        else:
            stale.append(fp)
    return BaselineOutcome(out, fixed, stale)
