"""HLT-001..HLT-005 with failing and passing fixtures."""

from __future__ import annotations

from typing import Any

from tests.test_rules_helpers import SUB, run_snapshot, statuses

EV = f"{SUB}/providers/Cloud.ResourceHealth/events"


def event(name: str, **props: Any) -> dict[str, Any]:
    return {"id": f"{EV}/{name}", "name": name, "properties": {"title": name, **props}}


def region(name: str, status: str = "Active", subs: list[str] | None = None) -> dict[str, Any]:
    return {"impactedRegion": name, "status": status, "impactedSubscriptions": subs or []}


def cluster(location: str) -> dict[str, Any]:
    return {
        "id": f"{SUB}/resourceGroups/rg/providers/Cloud.AnalyticsCluster/clusters/c-{location}",
        "name": f"c-{location}",
        "location": location,
    }


def test_hlt001_security_advisory_and_critical_severity() -> None:
    events = [
        event("a", eventType="SecurityAdvisory", status="Active", eventLevel="Critical"),
        event("b", eventType="SecurityAdvisory", status="Active", eventLevel="Warning"),
        event("c", eventType="SecurityAdvisory", status="Resolved", eventLevel="Critical"),
        event("d", eventType="ServiceIssue", status="Active"),
    ]
    findings = run_snapshot("HLT-001", {"healthEvents": events})
    assert [(f.resourceId.rsplit("/", 1)[-1], f.status, f.severity) for f in findings] == [
        ("a", "fail", "critical"),
        ("b", "fail", "high"),
        ("c", "pass", "critical"),
    ]


def test_hlt002_region_match_ignores_case_and_spaces() -> None:
    events = [
        event(
            "si",
            eventType="ServiceIssue",
            status="Active",
            impact=[{"impactedService": "x", "impactedRegions": [region("West Europe")]}],
        ),
        event(
            "old",
            eventType="ServiceIssue",
            status="Resolved",
            impact=[{"impactedRegions": [region("East US")]}],
        ),
    ]
    findings = run_snapshot(
        "HLT-002", {"healthEvents": events, "clusters": [cluster("westeurope"), cluster("eastus")]}
    )
    assert [(f.resourceId.rsplit("/", 1)[-1], f.status) for f in findings] == [
        ("c-westeurope", "fail"),
        ("c-eastus", "pass"),
    ]
    assert findings[0].evidence["impactedRegion"] == "West Europe"


def test_hlt003_affecting_audited_subscription() -> None:
    events = [
        event("pm", eventType="PlannedMaintenance", status="Active"),
        event("ha", eventType="HealthAdvisory", status="Resolved"),
        event("sa", eventType="SecurityAdvisory", status="Active"),
    ]
    findings = run_snapshot("HLT-003", {"healthEvents": events})
    assert [(f.resourceId.rsplit("/", 1)[-1], f.status) for f in findings] == [
        ("pm", "fail"),
        ("ha", "pass"),
    ]


def test_hlt004_hir() -> None:
    events = [event("h", isHIR=True), event("n", isHIR=False), event("m")]
    assert statuses(run_snapshot("HLT-004", {"healthEvents": events})) == ["fail", "pass", "pass"]


def test_hlt005_priority() -> None:
    events = [
        # ServiceIssue(0) Critical(0) Active(0) -> 0
        event("ok", eventType="ServiceIssue", eventLevel="Critical", status="Active", priority=0),
        # PlannedMaintenance(1) Warning(2) Active(0) -> 12
        event(
            "bad", eventType="PlannedMaintenance", eventLevel="Warning", status="Active", priority=3
        ),
        event("range", eventType="RCA", eventLevel="Informational", status="Resolved", priority=24),
        event("rca", eventType="RCA", eventLevel="Informational", status="Resolved", priority=5),
        event("none", eventType="ServiceIssue"),
    ]
    findings = run_snapshot("HLT-005", {"healthEvents": events})
    assert [(f.resourceId.rsplit("/", 1)[-1], f.status) for f in findings] == [
        ("ok", "pass"),
        ("bad", "fail"),
        ("range", "fail"),
        ("rca", "pass"),
    ]
    assert findings[1].evidence["expectedPriority"] == 12
