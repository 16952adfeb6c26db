"""The seed defaults (seed 2.A, 2.C; contracts 3) and the effective configurations built from them."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings

import auditor.model as model
from auditor.model import (
    DOMAIN_PROPERTY_DEFAULTS,
    SEED_API_VERSIONS,
    cluster_with_defaults,
    deny_assignment_with_defaults,
    deny_do_not_apply_to_child_scopes,
    domain_with_defaults,
    role_assignment_principal_type,
    role_assignment_with_defaults,
)
from tests import strategies as s

EXPECTED_DOMAIN_DEFAULTS = {
    "autoCreateTopicWithFirstSubscription": True,
    "autoDeleteTopicWithLastSubscription": True,
    "disableLocalAuth": False,
    "inputSchema": "EventRoutingSchema",
    "publicNetworkAccess": "Enabled",
}


def test_domain_default_table_is_the_seed_one() -> None:
    assert dict(DOMAIN_PROPERTY_DEFAULTS) == EXPECTED_DOMAIN_DEFAULTS


def test_domain_without_public_network_access_is_enabled() -> None:
    body = {"location": "westeurope", "properties": {"disableLocalAuth": True}}
    effective = domain_with_defaults(body)
    assert effective["properties"]["publicNetworkAccess"] == "Enabled"
    assert effective["properties"]["disableLocalAuth"] is True


def test_domain_without_properties_gets_every_default() -> None:
    assert domain_with_defaults({"location": "l"}) == {
        "location": "l",
        "properties": EXPECTED_DOMAIN_DEFAULTS,
    }
    assert domain_with_defaults({"location": "l", "properties": None})["properties"] == (
        EXPECTED_DOMAIN_DEFAULTS
    )


@pytest.mark.parametrize(
    "flag", ["autoCreateTopicWithFirstSubscription", "autoDeleteTopicWithLastSubscription"]
)
def test_null_auto_flags_count_as_true(flag: str) -> None:
    effective = domain_with_defaults({"location": "l", "properties": {flag: None}})
    assert effective["properties"][flag] is True
    kept = domain_with_defaults({"location": "l", "properties": {flag: False}})
    assert kept["properties"][flag] is False


def test_given_values_win_over_defaults() -> None:
    given_values = {
        "autoCreateTopicWithFirstSubscription": False,
        "autoDeleteTopicWithLastSubscription": False,
        "disableLocalAuth": True,
        "inputSchema": "CustomEventSchema",
        "publicNetworkAccess": "Disabled",
        "inboundIpRules": [{"ipMask": "10.0.0.0/16", "action": "Allow"}],
    }
    effective = domain_with_defaults({"location": "l", "properties": given_values})
    assert effective["properties"] == given_values


def test_unknown_values_are_not_replaced() -> None:
    body = {"properties": {"publicNetworkAccess": "SecuredByPerimeter", "xNew": 1}}
    assert domain_with_defaults(body)["properties"]["publicNetworkAccess"] == "SecuredByPerimeter"
    assert domain_with_defaults(body)["properties"]["xNew"] == 1


def test_domain_response_json_gets_defaults() -> None:
    response = {
        "id": "/subscriptions/s/resourceGroups/rg/providers/Cloud.EventRouting/domains/d",
        "name": "d",
        "location": "westeurope",
        "properties": {"provisioningState": "Succeeded", "endpoint": "https://d.example/api"},
    }
    effective = domain_with_defaults(response)
    assert effective["properties"]["publicNetworkAccess"] == "Enabled"
    assert effective["properties"]["provisioningState"] == "Succeeded"
    assert effective["id"] == response["id"]
    assert model.Domain.model_validate(effective).properties.inputSchema == "EventRoutingSchema"


def test_defaults_never_mutate_the_input() -> None:
    body: dict[str, Any] = {
        "location": "l",
        "tags": {"env": "prod"},
        "properties": {"autoCreateTopicWithFirstSubscription": None, "inboundIpRules": []},
    }
    before = copy.deepcopy(body)
    effective = domain_with_defaults(body)
    assert body == before
    # the result shares no mutable container with the input
    effective["tags"]["env"] = "changed"
    effective["properties"]["inboundIpRules"].append({"ipMask": "1.2.3.4"})
    assert body == before


def test_a_properties_value_that_is_not_an_object_is_left_alone() -> None:
    assert domain_with_defaults({"properties": "odd"}) == {"properties": "odd"}
    assert cluster_with_defaults({"properties": [1]}) == {"properties": [1]}


@settings(max_examples=40)
@given(body=s.domain_create_request | s.domain)
def test_domain_with_defaults_properties(body: dict[str, Any]) -> None:
    before = json.dumps(body, sort_keys=True)
    effective = domain_with_defaults(body)
    assert json.dumps(body, sort_keys=True) == before  # not mutated
    assert domain_with_defaults(effective) == effective  # idempotent
    props = effective["properties"]
    given_props = body.get("properties") or {}
    for key, default in EXPECTED_DOMAIN_DEFAULTS.items():
        given_value = given_props.get(key)
        assert props[key] == (default if given_value is None else given_value)
    for key, value in given_props.items():
        if key not in EXPECTED_DOMAIN_DEFAULTS:
            assert props[key] == value
    assert {k: v for k, v in effective.items() if k != "properties"} == {
        k: v for k, v in body.items() if k != "properties"
    }
    # the effective form is still a valid wire object
    model.Domain.model_validate(effective)


def test_cluster_defaults() -> None:
    body = {"location": "westeurope", "properties": {"clusterVersion": "5.1", "osType": "Linux"}}
    effective = cluster_with_defaults(body)
    assert effective["properties"] == {
        "clusterVersion": "5.1",
        "osType": "Linux",
        "tier": "Standard",
        "computeIsolationProperties": {"enableComputeIsolation": False},
        "diskEncryptionProperties": {"encryptionAtHost": False},
        "encryptionInTransitProperties": {"isEncryptionInTransitEnabled": False},
    }
    assert body == {
        "location": "westeurope",
        "properties": {"clusterVersion": "5.1", "osType": "Linux"},
    }


def test_cluster_given_values_are_kept() -> None:
    props = {
        "tier": "Premium",
        "computeIsolationProperties": {"enableComputeIsolation": True, "hostSku": None},
        "diskEncryptionProperties": {"encryptionAtHost": True, "keyName": None},
        "encryptionInTransitProperties": {"isEncryptionInTransitEnabled": True},
        "networkProperties": {"resourceProviderConnection": "Outbound"},
    }
    assert cluster_with_defaults({"properties": props})["properties"] == props


@settings(max_examples=40)
@given(body=s.cluster_create_request | s.cluster)
def test_cluster_with_defaults_properties(body: dict[str, Any]) -> None:
    before = json.dumps(body, sort_keys=True)
    effective = cluster_with_defaults(body)
    assert json.dumps(body, sort_keys=True) == before
    assert cluster_with_defaults(effective) == effective
    assert effective["properties"]["tier"] is not None
    assert effective["properties"]["encryptionInTransitProperties"][
        "isEncryptionInTransitEnabled"
    ] in (True, False)
    model.Cluster.model_validate(effective)


def test_role_assignment_principal_type() -> None:
    assert role_assignment_principal_type(None) == "User"
    assert role_assignment_principal_type("Group") == "Group"
    assert role_assignment_principal_type("Unknown") == "Unknown"
    assert role_assignment_with_defaults({"properties": {"principalId": "p"}}) == {
        "properties": {"principalId": "p", "principalType": "User"}
    }


def test_deny_do_not_apply_to_child_scopes() -> None:
    assert deny_do_not_apply_to_child_scopes(None) is False
    assert deny_do_not_apply_to_child_scopes(True) is True
    assert deny_do_not_apply_to_child_scopes(False) is False
    assert deny_assignment_with_defaults({"id": "x"}) == {
        "id": "x",
        "properties": {"doNotApplyToChildScopes": False},
    }


def test_seed_api_versions() -> None:
    assert dict(SEED_API_VERSIONS) == {
        "denyAssignments.list": "2022-04-01",
        "roleAssignments.list": "2022-04-01",
        "clusters.create": "2021-06-01",
        "domains.createOrUpdate": "2025-02-15",
        "healthEvents.list": "2024-02-01",
    }


def test_default_tables_are_read_only() -> None:
    with pytest.raises(TypeError):
        DOMAIN_PROPERTY_DEFAULTS["publicNetworkAccess"] = "Disabled"  # type: ignore[index]
    with pytest.raises(TypeError):
        SEED_API_VERSIONS["clusters.create"] = "x"  # type: ignore[index]
