"""Plan files: requests recognised by endpoint, bodies validated, wrong api-versions kept for the
audit, round trips, and errors with JSON paths (secrets never echoed)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from auditor.errors import InputError
from auditor.estate.plan import dumps_plan, loads_plan
from auditor.model.secrets import Secret

DOMAIN_URL = (
    "/subscriptions/s1/resourceGroups/rg1/providers/Cloud.EventRouting/domains/d1"
    "?api-version=2025-02-15"
)
CLUSTER_URL = (
    "https://management.example.net/subscriptions/s1/resourceGroups/rg1/providers/"
    "Cloud.AnalyticsCluster/clusters/c1?api-version=2021-06-01"
)
SECRET = "Plan-Secret-Value-42!"


def _plan(*requests: dict[str, Any]) -> bytes:
    return json.dumps({"planVersion": 1, "requests": list(requests)}).encode()


def _cluster_body() -> dict[str, Any]:
    return {
        "location": "westeurope",
        "properties": {
            "clusterVersion": "5.1",
            "osType": "Linux",
            "clusterDefinition": {
                "kind": "hadoop",
                "configurations": {
                    "gateway": {
                        "restAuthCredential.isEnabled": True,
                        "restAuthCredential.username": "admin",
                        "restAuthCredential.password": SECRET,
                    }
                },
            },
            "computeProfile": {"roles": [{"name": "headnode", "targetInstanceCount": 2}]},
        },
    }


def test_requests_are_recognised_and_validated() -> None:
    plan = loads_plan(
        _plan(
            {"method": "PUT", "url": DOMAIN_URL, "body": {"location": "westeurope"}},
            {"method": "put", "url": CLUSTER_URL, "body": _cluster_body()},
        )
    )
    domain, cluster = plan.requests
    assert (domain.kind, domain.name, domain.resource_group) == ("domain", "d1", "rg1")
    assert domain.api_version_ok
    assert cluster.kind == "cluster"
    assert cluster.resource_id.endswith("/clusters/c1")
    gateway = cluster.body.properties.clusterDefinition.configurations["gateway"]
    assert isinstance(gateway["restAuthCredential.password"], Secret)
    assert SECRET not in repr(plan)


def test_wrong_api_version_is_kept_not_refused() -> None:
    url = DOMAIN_URL.replace("2025-02-15", "2020-01-01")
    plan = loads_plan(_plan({"method": "PUT", "url": url, "body": {"location": "x"}}))
    request = plan.requests[0]
    assert request.api_version == "2020-01-01"
    assert request.expected_api_version == "2025-02-15"
    assert not request.api_version_ok


def test_round_trip_keeps_bodies_exactly() -> None:
    data = _plan({"method": "PUT", "url": CLUSTER_URL, "body": _cluster_body()})
    plan = loads_plan(data)
    again = json.loads(dumps_plan(plan))
    assert again == json.loads(data)
    assert loads_plan(dumps_plan(plan)).requests[0].body == plan.requests[0].body


@pytest.mark.parametrize(
    ("requests", "location", "words"),
    [
        ([{"method": "GET", "url": DOMAIN_URL, "body": {}}], "requests[0].url", "PUT"),
        (
            [
                {
                    "method": "PUT",
                    "url": "/subscriptions/s/providers/Cloud.Compute/vms/x",
                    "body": {},
                }
            ],
            "requests[0].url",
            "Cloud.EventRouting/domains",
        ),
        ([{"method": "PUT", "url": DOMAIN_URL}], "requests[0].body", "required"),
        (
            [{"method": "PUT", "url": DOMAIN_URL, "body": {}}],
            "requests[0].body.location",
            "required",
        ),
        (
            [
                {
                    "method": "PUT",
                    "url": DOMAIN_URL,
                    "body": {"location": "x", "properties": {"disableLocalAuth": "true"}},
                }
            ],
            "requests[0].body.properties.disableLocalAuth",
            'found a string ("true")',
        ),
        ([42], "requests[0]", "expected an object"),
    ],
)
def test_bad_requests_name_the_json_path(requests: list[Any], location: str, words: str) -> None:
    with pytest.raises(InputError) as info:
        loads_plan(_plan(*requests), source="plan.json")
    assert info.value.location == location
    assert words in str(info.value)
    assert str(info.value).startswith("plan.json: ")


def test_a_secret_of_the_wrong_type_is_not_echoed() -> None:
    body = _cluster_body()
    body["properties"]["clusterDefinition"]["configurations"] = {"gateway": "not-an-object"}
    body["properties"]["computeProfile"]["roles"][0]["osProfile"] = {
        "linuxOperatingSystemProfile": {"password": 98765432}
    }
    with pytest.raises(InputError) as info:
        loads_plan(_plan({"method": "PUT", "url": CLUSTER_URL, "body": body}))
    assert "98765432" not in str(info.value)


def test_plan_version_is_required() -> None:
    with pytest.raises(InputError, match="planVersion"):
        loads_plan(b'{"requests": []}')
    with pytest.raises(InputError, match="expected 1"):
        loads_plan(b'{"planVersion": 2, "requests": []}')
