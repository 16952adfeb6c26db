"""Fuzzing plan files (contracts 3) through ``auditor gate``: literal secrets in the plan's secret
fields must never be echoed, whatever else the plan holds."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz._bases import AS_OF, plans
from tests.fuzz._harness import budget, run_and_check
from tests.fuzz._hostile import mutated_bytes, mutated_documents, one_of_bases, to_json

FILE = "plan.json"
OUTPUTS = ("text", "json", "sarif", "junit", "csv", "markdown", "html")

_BASES = plans()
_BASE_BYTES = [to_json(p) for p in _BASES]

URLS = st.sampled_from(
    [
        "http://[::1/x",
        "/subscriptions/s/resourceGroups/rg/providers/Cloud.EventRouting/domains/d?api-version=",
        "/subscriptions/s/resourceGroups/rg/providers/Cloud.EventRouting/domains/d?api-version=2025-02-15&api-version=2021-12-01",
        "/subscriptions//providers/Cloud.Authorization/roleAssignments/?api-version=2022-04-01",
        "https://user@example.com:99999/subscriptions/s?api-version=x",
        "/" + "a/" * 5_000,
        "%zz%00%ff",
        "",
    ]
)


@st.composite
def plans_with_odd_urls(draw: st.DrawFn) -> dict[str, Any]:
    plan = plans()[draw(st.integers(0, len(_BASES) - 1))]
    for request in plan["requests"]:
        if draw(st.booleans()):
            request["url"] = draw(URLS)
        if draw(st.integers(0, 4)) == 0:
            request["method"] = draw(st.sampled_from(["GET", "put", "PATCH", "", "DELETE", "\x00"]))
    return plan


def _gate(fmt: str) -> list[str]:
    return ["gate", FILE, "--as-of", AS_OF, "-o", f"{fmt}=report.{fmt}", "-o", "text"]


@budget(quick=40)
@given(
    plan=one_of_bases(_BASES, mutated_documents),
    fmt=st.sampled_from(OUTPUTS),
    ascii_only=st.booleans(),
)
def test_structured_plans(plan: Any, fmt: str, ascii_only: bool) -> None:
    data = to_json(plan, ascii_only=ascii_only)
    run_and_check(_gate(fmt), inputs={FILE: data}, input_name=FILE)


@budget(quick=12)
@given(plan=plans_with_odd_urls(), fmt=st.sampled_from(OUTPUTS))
def test_plans_with_odd_urls_and_methods(plan: Any, fmt: str) -> None:
    run_and_check(_gate(fmt), inputs={FILE: to_json(plan)}, input_name=FILE)


@budget(quick=30)
@given(data=st.sampled_from(_BASE_BYTES).flatmap(mutated_bytes), fmt=st.sampled_from(OUTPUTS))
def test_damaged_plan_bytes(data: bytes, fmt: str) -> None:
    run_and_check(_gate(fmt), inputs={FILE: data}, input_name=FILE, secrets_in="messages")
