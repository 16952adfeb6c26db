"""Plan request checks: the api-version of seed section 9 (PLAN-001, an addition to rules.md)."""

from __future__ import annotations

from collections.abc import Iterator

from auditor.audit.checks._registry import CheckContext, Outcome, resource_check
from auditor.audit.resources import Resource


@resource_check("plan-api-version")
def plan_api_version(resource: Resource, ctx: CheckContext) -> Iterator[Outcome]:
    """PLAN-001: the request's api-version is the one seed section 9 gives its operation."""
    req = resource.request
    assert req is not None
    yield Outcome(
        req.api_version_ok,
        {"apiVersion": req.api_version, "expectedApiVersion": req.expected_api_version},
        location=f"{req.json_path}.url",
        fields={
            "method": req.method.upper(),
            "apiVersion": req.api_version if req.api_version is not None else "(missing)",
            "expected": req.expected_api_version,
        },
    )
