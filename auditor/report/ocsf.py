"""OCSF output (``-o ocsf``): one Detection Finding event (OCSF 1.3, class_uid 2004) per failing,
unknown, waived or baselined finding, as one JSON array (the shape security data lakes and
Prowler's ``.ocsf.json`` use); passes are not events. ``docs/decisions.md``, "OCSF output".

Mapping: the rule is ``finding_info.analytic`` (a Rule), the finding's fingerprint is
``finding_info.uid`` and ``metadata.uid``, the resource is ``resources[0]`` (with its source file,
line and JSON path in ``data``), the evidence is ``evidences[0].data``, the remediation and the
rule's references are ``remediation``; a failing or unknown finding is ``status_id`` 1 (New), a
waived or baselined one 3 (Suppressed); ``status_code`` is the finding's own status in capitals.
The compliance view (rule, status, references, waiver) is ``unmapped.compliance``, as Prowler
does, since the Detection Finding class has no compliance object."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from auditor.report.controls import keys_by_rule

if TYPE_CHECKING:
    from auditor.audit.findings import AuditResult, Finding
    from auditor.report import RenderOptions

OCSF_VERSION = "1.3.0"
CLASS_UID = 2004  # Detection Finding
CATEGORY_UID = 2  # Findings
ACTIVITY_CREATE = 1
SEVERITY_ID = {"info": 1, "low": 2, "medium": 3, "high": 4, "critical": 5}
SEVERITY_NAME = {1: "Informational", 2: "Low", 3: "Medium", 4: "High", 5: "Critical"}
STATUS_ID = {"fail": 1, "unknown": 1, "waived": 3, "baselined": 3}
STATUS_NAME = {1: "New", 3: "Suppressed"}
ANALYTIC_RULE = 1


def _epoch_ms(stamp: str) -> int:
    """``2026-11-21T10:00:00Z`` -> milliseconds since the epoch (now, when it does not parse)."""
    try:
        when = dt.datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        when = dt.datetime.now(dt.UTC)
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    return int(when.timestamp() * 1000)


def _iso(ms: int) -> str:
    return dt.datetime.fromtimestamp(ms / 1000, dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _subscription(resource_id: str) -> str | None:
    parts = resource_id.split("/")
    if len(parts) > 2 and parts[1].lower() == "subscriptions" and parts[2]:
        return parts[2]
    return None


def event(
    finding: Finding,
    result: AuditResult,
    time_ms: int,
    controls: Mapping[str, list[str]] | None = None,
) -> dict[str, Any]:
    """The Detection Finding event of one finding (``controls``: :func:`keys_by_rule` of the
    result, computed once by :func:`events`)."""
    from auditor.audit.rule_docs import rule_page_url

    severity_id = SEVERITY_ID.get(finding.severity, 0)
    status_id = STATUS_ID.get(finding.status, 99)
    references = [r for r in finding.references if r.strip()]
    resource: dict[str, Any] = {
        "uid": finding.resourceId,
        "name": finding.resourceId.rstrip("/").rsplit("/", 1)[-1] or finding.resourceId,
    }
    if finding.resourceType:
        resource["type"] = finding.resourceType
    data: dict[str, Any] = {}
    source = finding.source_json()
    if source is not None:
        data["source"] = source
    if finding.location:
        data["location"] = finding.location
    if data:
        resource["data"] = data
    analytic = {"uid": finding.ruleId, "name": finding.title, "type_id": ANALYTIC_RULE}
    analytic["type"] = "Rule"
    info: dict[str, Any] = {
        "uid": finding.fingerprint or f"{finding.ruleId}:{finding.resourceId}",
        "title": finding.title,
        "desc": finding.message,
        "analytic": analytic,
        "created_time": time_ms,
        "created_time_dt": _iso(time_ms),
        "types": [finding.ruleId.split("-", 1)[0]],
    }
    page = rule_page_url(finding.ruleId)
    if page:
        info["src_url"] = page
    compliance: dict[str, Any] = {
        "control": finding.ruleId,
        "status": finding.status.upper(),
        "standards": references,
    }
    requirements = (controls if controls is not None else keys_by_rule(result)).get(finding.ruleId)
    if requirements:  # the framework controls the rule answers (mcsb:PA-1)
        compliance["requirements"] = requirements
    if finding.waiver is not None:
        compliance["waiver"] = finding.waiver.to_json()
    out: dict[str, Any] = {
        "activity_id": ACTIVITY_CREATE,
        "activity_name": "Create",
        "category_uid": CATEGORY_UID,
        "category_name": "Findings",
        "class_uid": CLASS_UID,
        "class_name": "Detection Finding",
        "type_uid": CLASS_UID * 100 + ACTIVITY_CREATE,
        "type_name": "Detection Finding: Create",
        "time": time_ms,
        "time_dt": _iso(time_ms),
        "severity_id": severity_id,
        "severity": SEVERITY_NAME.get(severity_id, "Unknown"),
        "status_id": status_id,
        "status": STATUS_NAME.get(status_id, "Other"),
        "status_code": finding.status.upper(),
        "status_detail": finding.message,
        "message": finding.message,
        "metadata": {
            "version": OCSF_VERSION,
            "uid": info["uid"],
            "event_code": finding.ruleId,
            "profiles": ["cloud"],
            "product": {
                "name": "auditor",
                "uid": "auditor",
                "vendor_name": "auditor",
                "version": result.toolVersion,
            },
        },
        "cloud": {"provider": "Cloud"},
        "finding_info": info,
        "resources": [resource],
        "evidences": [{"name": "evidence", "data": dict(finding.evidence)}],
        "remediation": {
            "desc": finding.remediation or "See the rule's documentation.",
            "references": references + ([page] if page else []),
        },
        "unmapped": {"compliance": compliance},
    }
    subscription = _subscription(finding.resourceId)
    if subscription and "{" not in subscription:  # not a template's placeholder
        out["cloud"]["account"] = {"uid": subscription, "type_id": 99, "type": "Subscription"}
        out["cloud"]["account"]["name"] = subscription
    return out


def events(result: AuditResult) -> list[dict[str, Any]]:
    """Every event of the result, in the findings' order (passes are not events)."""
    time_ms = _epoch_ms(result.finishedAt or result.startedAt)
    controls = keys_by_rule(result)
    return [event(f, result, time_ms, controls) for f in result.judged if f.status in STATUS_ID]


def render(result: AuditResult, options: RenderOptions) -> bytes:
    """The events as one JSON array."""
    return (json.dumps(events(result), indent=1, ensure_ascii=False) + "\n").encode("utf-8")
