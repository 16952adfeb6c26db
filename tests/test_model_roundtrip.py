"""Round trips of every wire model (seed 2, 7; contracts 2-3): JSON in, the same JSON out, unknown
fields and unknown enumeration values included."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import auditor.model as model
from auditor.model import WireModel
from tests.strategies import MODEL_STRATEGIES

MODELS = sorted(MODEL_STRATEGIES, key=lambda m: m.__name__)


def test_every_public_wire_model_has_a_strategy() -> None:
    public = {
        obj
        for name in model.__all__
        if isinstance(obj := getattr(model, name), type)
        and issubclass(obj, WireModel)
        and obj is not WireModel
    }
    assert public - set(MODEL_STRATEGIES) == set()


@pytest.mark.parametrize("cls", MODELS, ids=lambda m: m.__name__)
@settings(max_examples=20)
@given(data=st.data())
def test_round_trip(cls: type[WireModel], data: st.DataObject) -> None:
    wire: dict[str, Any] = data.draw(MODEL_STRATEGIES[cls])
    # from JSON text
    parsed = cls.model_validate_json(json.dumps(wire))
    assert parsed.to_wire(reveal_secrets=True) == wire
    # from Python objects
    assert cls.model_validate(wire).to_wire(reveal_secrets=True) == wire
    # and the dump of a parsed model parses to an equal model
    assert cls.model_validate_json(json.dumps(parsed.to_wire(reveal_secrets=True))) == parsed


def test_unknown_fields_are_kept_at_every_level() -> None:
    wire = {
        "location": "westeurope",
        "xTop": {"any": [1, "two", None]},
        "properties": {
            "xProp": True,
            "computeProfile": {
                "roles": [
                    {
                        "name": "headnode",
                        "xRole": 3,
                        "osProfile": {
                            "linuxOperatingSystemProfile": {"username": "u", "xLinux": "k"}
                        },
                    }
                ]
            },
        },
    }
    parsed = model.ClusterCreateRequest.model_validate_json(json.dumps(wire))
    assert parsed.model_extra == {"xTop": {"any": [1, "two", None]}}
    assert parsed.to_wire() == wire


@pytest.mark.parametrize(
    ("cls", "wire"),
    [
        (
            model.DomainCreateRequest,
            {"location": "l", "properties": {"publicNetworkAccess": "Odd"}},
        ),
        (model.DomainCreateRequest, {"location": "l", "identity": {"type": "Managed"}}),
        (model.DomainCreateRequest, {"location": "l", "properties": {"inputSchema": "Avro"}}),
        (model.RoleAssignment, {"properties": {"principalType": "Unknown"}}),
        (model.HealthEvent, {"properties": {"eventType": "Billing", "level": "Error"}}),
        (model.Cluster, {"properties": {"clusterState": "Deleting", "tier": "Gold"}}),
        (model.ApiToken, {"kind": "service", "accessType": "write"}),
        (model.DevToolingApp, {"ownerType": "team", "users": [{"role": "owner"}]}),
    ],
)
def test_unknown_enum_values_are_kept(cls: type[WireModel], wire: dict[str, Any]) -> None:
    assert cls.model_validate_json(json.dumps(wire)).to_wire() == wire
    assert cls.model_validate(wire).to_wire() == wire


def test_explicit_nulls_are_kept_and_absent_fields_stay_absent() -> None:
    wire = {
        "location": "l",
        "tags": None,
        "properties": {"autoCreateTopicWithFirstSubscription": None, "eventTypeInfo": None},
    }
    parsed = model.DomainCreateRequest.model_validate_json(json.dumps(wire))
    assert parsed.to_wire() == wire
    assert parsed.properties.publicNetworkAccess is None
    assert "publicNetworkAccess" not in parsed.to_wire()["properties"]


def test_lists_default_to_empty_and_objects_to_none() -> None:
    parsed = model.Cluster.model_validate({})
    assert parsed.zones == []
    assert parsed.properties.connectivityEndpoints == []
    assert parsed.properties.diskEncryptionProperties is None
    assert parsed.to_wire() == {}


def test_recursive_error_detail() -> None:
    wire = {
        "error": {
            "code": "BadRequest",
            "message": "outer",
            "details": [{"code": "Inner", "details": [{"code": "Innermost", "target": "x"}]}],
            "additionalInfo": [{"type": "PolicyViolation", "info": {"policy": "p"}}],
        }
    }
    parsed = model.ErrorResponse.model_validate_json(json.dumps(wire))
    assert parsed.error is not None
    assert parsed.error.details[0].details[0].code == "Innermost"
    assert parsed.to_wire() == wire
    flat = {"code": "NotFound", "message": "m", "details": "d"}
    assert model.HealthErrorResponse.model_validate(flat).to_wire() == flat


def test_storageaccounts_is_lower_case_on_the_wire() -> None:
    wire = {"storageaccounts": [{"name": "a", "isDefault": True, "container": "c"}]}
    parsed = model.StorageProfile.model_validate(wire)
    assert parsed.storageaccounts[0].isDefault is True
    assert model.StorageProfile.model_validate({"storageAccounts": []}).storageaccounts == []


def test_seed_example_cluster_response() -> None:
    wire = {
        "id": "/subscriptions/s/resourceGroups/rg/providers/Cloud.AnalyticsCluster/clusters/c1",
        "name": "c1",
        "type": "Cloud.AnalyticsCluster/clusters",
        "location": "West Europe",
        "etag": "e",
        "tags": None,
        "properties": {
            "clusterVersion": "5.1.3000.0",
            "osType": "Linux",
            "clusterDefinition": {
                "blueprint": "https://blueprints.example/hadoop",
                "kind": "hadoop",
                "componentVersion": {"Hadoop": "3.3"},
            },
            "computeProfile": {
                "roles": [
                    {
                        "name": "headnode",
                        "targetInstanceCount": 2,
                        "hardwareProfile": {"vmSize": "standard_d3_v2"},
                        "osProfile": {"linuxOperatingSystemProfile": {"username": "sshuser"}},
                    }
                ]
            },
            "provisioningState": "Succeeded",
            "clusterState": "Running",
            "createdDate": "2026-11-21T10:00:00",
            "quotaInfo": {"coresUsed": 16},
            "connectivityEndpoints": [
                {"name": "SSH", "protocol": "TCP", "location": "c1-ssh.example", "port": 22}
            ],
            "tier": "Standard",
            "computeIsolationProperties": {"enableComputeIsolation": False, "hostSku": None},
            "diskEncryptionProperties": {
                "encryptionAtHost": True,
                "vaultUri": None,
                "keyName": None,
                "keyVersion": None,
                "encryptionAlgorithm": None,
                "msiResourceId": None,
            },
        },
    }
    parsed = model.Cluster.model_validate_json(json.dumps(wire))
    assert parsed.properties.quotaInfo is not None
    assert parsed.properties.quotaInfo.coresUsed == 16
    assert parsed.properties.connectivityEndpoints[0].port == 22
    assert parsed.to_wire() == wire


def test_snapshot_and_plan_shapes() -> None:
    plan = {
        "planVersion": 1,
        "requests": [
            {
                "method": "PUT",
                "url": "/subscriptions/s/resourceGroups/rg/providers/Cloud.EventRouting/domains/d"
                "?api-version=2025-02-15",
                "body": {"location": "westeurope", "properties": {"xNew": 1}},
            }
        ],
        "xComment": "kept",
    }
    parsed = model.PlanFile.model_validate_json(json.dumps(plan))
    assert parsed.requests[0].body["location"] == "westeurope"
    assert parsed.to_wire(reveal_secrets=True) == plan
    entry = {"id": "/subscriptions/s", "parent": "/providers/Cloud.Management/managementGroups/m"}
    assert model.HierarchyEntry.model_validate(entry).to_wire() == entry
    who = {"id": "u1", "userType": "Guest", "accountEnabled": False, "memberOf": ["g1"], "x": 1}
    assert model.DirectoryPrincipal.model_validate(who).to_wire() == who
