"""Strict types (seed 2; contracts 2: "a field of the wrong type is an error naming its JSON path"):
no coercion of strings to booleans or numbers, numbers to strings, and so on."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

import auditor.model as model
from auditor.model import WireModel


def _errors(cls: type[WireModel], wire: Any) -> list[tuple[tuple[str | int, ...], str]]:
    """(loc, type) of the errors, from JSON and from Python objects (which must agree)."""
    with pytest.raises(ValidationError) as from_json:
        cls.model_validate_json(json.dumps(wire))
    with pytest.raises(ValidationError) as from_python:
        cls.model_validate(wire)
    found_json = [(e["loc"], e["type"]) for e in from_json.value.errors()]
    found_python = [(e["loc"], e["type"]) for e in from_python.value.errors()]
    assert found_json == found_python
    return found_json


@pytest.mark.parametrize(
    ("cls", "wire", "loc", "kind"),
    [
        # a string where a boolean belongs
        (
            model.DenyAssignment,
            {"properties": {"doNotApplyToChildScopes": "true"}},
            ("properties", "doNotApplyToChildScopes"),
            "bool_type",
        ),
        (
            model.DenyAssignment,
            {"properties": {"isSystemProtected": "false"}},
            ("properties", "isSystemProtected"),
            "bool_type",
        ),
        (
            model.DomainCreateRequest,
            {"location": "l", "properties": {"disableLocalAuth": "true"}},
            ("properties", "disableLocalAuth"),
            "bool_type",
        ),
        (
            model.DomainCreateRequest,
            {"location": "l", "properties": {"autoCreateTopicWithFirstSubscription": "yes"}},
            ("properties", "autoCreateTopicWithFirstSubscription"),
            "bool_type",
        ),
        (
            model.ClusterCreateRequest,
            {"properties": {"encryptionInTransitProperties": {"isEncryptionInTransitEnabled": 1}}},
            ("properties", "encryptionInTransitProperties", "isEncryptionInTransitEnabled"),
            "bool_type",
        ),
        (
            model.StorageAccount,
            {"isDefault": "True"},
            ("isDefault",),
            "bool_type",
        ),
        (model.HealthEvent, {"properties": {"isHIR": 0}}, ("properties", "isHIR"), "bool_type"),
        (
            model.DirectoryPrincipal,
            {"id": "u", "accountEnabled": "false"},
            ("accountEnabled",),
            "bool_type",
        ),
        # an int where a string belongs
        (
            model.RoleAssignment,
            {"properties": {"principalId": 123}},
            ("properties", "principalId"),
            "string_type",
        ),
        (model.DomainCreateRequest, {"location": 5}, ("location",), "string_type"),
        (model.Principal, {"id": True}, ("id",), "string_type"),
        (model.InboundIpRule, {"ipMask": 10}, ("ipMask",), "string_type"),
        (model.ApiToken, {"accessType": 1}, ("accessType",), "string_type"),
        (model.HealthErrorResponse, {"details": ["a"]}, ("details",), "string_type"),
        (model.ErrorDetail, {"code": 400}, ("code",), "string_type"),
        # a string, a float or a boolean where an integer belongs
        (
            model.ClusterCreateRequest,
            {"properties": {"computeProfile": {"roles": [{}, {"targetInstanceCount": "3"}]}}},
            ("properties", "computeProfile", "roles", 1, "targetInstanceCount"),
            "int_type",
        ),
        (model.ClusterRole, {"targetInstanceCount": True}, ("targetInstanceCount",), "int_type"),
        (model.ConnectivityEndpoint, {"port": "22"}, ("port",), "int_type"),
        (
            model.HealthEvent,
            {"properties": {"priority": "1"}},
            ("properties", "priority"),
            "int_type",
        ),
        (model.HealthEventProperties, {"duration": 1.5}, ("duration",), "int_type"),
        (model.RecommendedAction, {"groupId": "2"}, ("groupId",), "int_type"),
        (model.PlanFile, {"planVersion": "1"}, ("planVersion",), "int_type"),
        # secrets are strings too
        (
            model.LinuxOperatingSystemProfile,
            {"password": 12345678},
            ("password",),
            "string_type",
        ),
        (model.StorageAccount, {"key": {"value": "k"}}, ("key",), "string_type"),
        # objects, lists and maps
        (model.DenyAssignment, {"properties": []}, ("properties",), "model_type"),
        (model.RoleAssignmentListResult, {"value": {}}, ("value",), "list_type"),
        (model.Cluster, {"zones": "1"}, ("zones",), "list_type"),
        (model.Cluster, {"tags": {"env": 1}}, ("tags", "env"), "string_type"),
        (model.Domain, {"tags": ["a"]}, ("tags",), "dict_type"),
        (
            model.ClusterDefinition,
            {"configurations": ["gateway"]},
            ("configurations",),
            "dict_type",
        ),
        (
            model.ClusterDefinition,
            {"componentVersion": {"Hadoop": 3}},
            ("componentVersion", "Hadoop"),
            "string_type",
        ),
        (model.PlanRequest, {"method": "PUT", "url": "/", "body": []}, ("body",), "dict_type"),
        # required fields
        (model.DomainCreateRequest, {}, ("location",), "missing"),
        (model.DomainCreateRequest, {"location": None}, ("location",), "string_type"),
        (model.HierarchyEntry, {"parent": "/"}, ("id",), "missing"),
        (model.PlanFile, {"requests": []}, ("planVersion",), "missing"),
    ],
)
def test_wrong_types_are_errors_naming_the_path(
    cls: type[WireModel], wire: Any, loc: tuple[str | int, ...], kind: str
) -> None:
    assert (loc, kind) in _errors(cls, wire)


def test_nulls_are_accepted_where_the_seed_allows_them() -> None:
    domain = model.DomainCreateRequest.model_validate_json(
        '{"location": "l", "properties": {"autoCreateTopicWithFirstSubscription": null,'
        ' "autoDeleteTopicWithLastSubscription": null}}'
    )
    assert domain.properties.autoCreateTopicWithFirstSubscription is None
    cluster = model.Cluster.model_validate_json(
        '{"tags": null, "properties": {"computeIsolationProperties": {"hostSku": null},'
        ' "diskEncryptionProperties": {"vaultUri": null, "keyName": null}}}'
    )
    assert cluster.tags is None
    token = model.ApiToken.model_validate_json('{"kind": "user", "app": null}')
    assert token.app is None


def test_json_field_with_default_may_have_neither_field() -> None:
    """Neither ``sourceField`` nor ``defaultValue`` is an audit finding (DOM-009), not an input
    error."""
    parsed = model.JsonInputSchemaMapping.model_validate(
        {"inputSchemaMappingType": "Json", "properties": {"subject": {}}}
    )
    assert parsed.properties.subject == model.JsonFieldWithDefault()


def test_enum_fields_accept_any_string_but_not_other_types() -> None:
    assert model.Domain.model_validate({"properties": {"minimumTlsVersionAllowed": "1.3"}})
    assert (("properties", "minimumTlsVersionAllowed"), "string_type") in _errors(
        model.Domain, {"properties": {"minimumTlsVersionAllowed": 1.2}}
    )


def test_error_messages_name_the_json_path() -> None:
    wire = {"properties": {"computeProfile": {"roles": [{"targetInstanceCount": "many"}]}}}
    with pytest.raises(ValidationError) as raised:
        model.ClusterCreateRequest.model_validate_json(json.dumps(wire))
    assert "properties.computeProfile.roles.0.targetInstanceCount" in str(raised.value)
