"""Helpers for the rule tests: run one rule over a plan body or a small snapshot, with the seed's
defaults and the shipped packs (no configuration file)."""

from __future__ import annotations

import copy
import datetime as dt
import json
from typing import Any

from auditor.audit.engine import Engine
from auditor.audit.findings import Finding
from auditor.audit.packs import shipped_catalogue
from auditor.audit.runner import effective_settings
from auditor.estate.plan import loads_plan
from auditor.estate.sample import compliant_cluster_body, compliant_domain_body
from auditor.estate.snapshot import loads_snapshot

AS_OF = dt.date(2026, 11, 21)
SUB = "/subscriptions/00000000-0000-0000-0000-0000000000aa"
DOMAIN_URL = (
    f"{SUB}/resourceGroups/rg/providers/Cloud.EventRouting/domains/{{name}}?api-version=2025-02-15"
)
CLUSTER_URL = (
    f"{SUB}/resourceGroups/rg/providers/Cloud.AnalyticsCluster/clusters/{{name}}"
    "?api-version=2021-06-01"
)


def domain_body(**properties: Any) -> dict[str, Any]:
    """The sample's compliant domain body with ``properties`` replaced (a value ``...`` removes)."""
    body = compliant_domain_body()
    for key, value in properties.items():
        if value is ...:
            body["properties"].pop(key, None)
        else:
            body["properties"][key] = value
    return body


def cluster_body() -> dict[str, Any]:
    return copy.deepcopy(compliant_cluster_body("c1"))


def plan_doc(*bodies: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    requests = []
    for i, (kind, body) in enumerate(bodies):
        url = (DOMAIN_URL if kind == "domain" else CLUSTER_URL).format(name=f"{kind}{i}")
        requests.append({"method": "PUT", "url": url, "body": body})
    return {"planVersion": 1, "requests": requests}


def run_plan(
    rule_id: str, *bodies: tuple[str, dict[str, Any]], settings: dict[str, Any] | None = None
) -> list[Finding]:
    plan = loads_plan(json.dumps(plan_doc(*bodies)).encode(), source="plan.json")
    return _run(rule_id, settings, plan=plan)


def run_snapshot(
    rule_id: str,
    doc: dict[str, Any],
    settings: dict[str, Any] | None = None,
    as_of: dt.date = AS_OF,
) -> list[Finding]:
    doc = {"snapshotVersion": 1, **doc}
    snapshot = loads_snapshot(json.dumps(doc).encode(), source="snapshot.json")
    return _run(rule_id, settings, snapshot=snapshot, as_of=as_of)


def _run(
    rule_id: str, settings: dict[str, Any] | None, as_of: dt.date = AS_OF, **source: Any
) -> list[Finding]:
    catalogue = shipped_catalogue()
    rule = catalogue.by_id()[rule_id]
    engine = Engine(settings=effective_settings(catalogue, settings or {}), as_of=as_of, **source)
    return engine.run([rule]).findings


def statuses(findings: list[Finding]) -> list[str]:
    return [f.status for f in findings]


def one(findings: list[Finding]) -> Finding:
    assert len(findings) == 1, [(f.status, f.message) for f in findings]
    return findings[0]
