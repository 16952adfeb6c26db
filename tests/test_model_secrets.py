"""Secret hygiene of the wire models (seed 2.B, 2.E, 5.2; contracts 3): passwords, storage keys, SSH
key material, secret configuration settings and API token values never show in a repr, a str, a
dump or a validation error; only ``to_wire(reveal_secrets=True)`` gives them back."""

from __future__ import annotations

import copy
import json
import pickle
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

import auditor.model as model
from auditor.model import MASK, Secret, WireModel


def new_secret() -> str:
    return f"S3cr3t-{uuid.uuid4().hex}"


def cluster_request(sec: Callable[[], str]) -> tuple[dict[str, Any], list[str]]:
    """A full cluster create body with a distinct secret in every secret field."""
    values = [sec() for _ in range(7)]
    storage_key, node_password, cert, gateway, ambari, hive, oozie = values
    body = {
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
                        "restAuthCredential.password": gateway,
                    },
                    "ambari-conf": {
                        "database-server": "db.example",
                        "database-user-name": "ambari",
                        "database-user-password": ambari,
                    },
                    "hive-site": {
                        "javax.jdo.option.ConnectionURL": "jdbc:sqlserver://db;encrypt=true",
                        "javax.jdo.option.ConnectionPassword": hive,
                    },
                    "oozie-site": {"oozie.service.JPAService.jdbc.password": oozie},
                },
            },
            "storageProfile": {
                "storageaccounts": [
                    {"name": "sa", "isDefault": True, "container": "c", "key": storage_key}
                ]
            },
            "computeProfile": {
                "roles": [
                    {
                        "name": "headnode",
                        "targetInstanceCount": 2,
                        "hardwareProfile": {"vmSize": "Large"},
                        "osProfile": {
                            "linuxOperatingSystemProfile": {
                                "username": "sshuser",
                                "password": node_password,
                                "sshProfile": {"publicKeys": [{"certificateData": cert}]},
                            }
                        },
                    }
                ]
            },
        },
    }
    return body, values


def _cases() -> list[tuple[str, type[WireModel], dict[str, Any], list[str]]]:
    body, values = cluster_request(new_secret)
    props = body["properties"]
    role = props["computeProfile"]["roles"][0]
    linux = role["osProfile"]["linuxOperatingSystemProfile"]
    storage = props["storageProfile"]
    response: dict[str, Any] = {"id": "c1", "properties": {**props, "clusterState": "Running"}}
    token = new_secret()
    token_json = {"id": "t1", "kind": "app", "app": "o/a", "accessType": "full", "value": token}
    plan_request = {"method": "PUT", "url": "/subscriptions/s/...", "body": body}
    return [
        ("cluster request", model.ClusterCreateRequest, body, values),
        ("cluster create properties", model.ClusterCreateProperties, props, values),
        ("cluster response", model.Cluster, response, values),
        ("cluster response properties", model.ClusterProperties, response["properties"], values),
        ("cluster definition", model.ClusterDefinition, props["clusterDefinition"], values[3:]),
        ("storage profile", model.StorageProfile, storage, values[:1]),
        ("storage account", model.StorageAccount, storage["storageaccounts"][0], values[:1]),
        ("compute profile", model.ComputeProfile, props["computeProfile"], values[1:3]),
        ("role", model.ClusterRole, role, values[1:3]),
        ("os profile", model.OsProfile, role["osProfile"], values[1:3]),
        ("linux profile", model.LinuxOperatingSystemProfile, linux, values[1:3]),
        ("ssh profile", model.SshProfile, linux["sshProfile"], values[2:3]),
        ("ssh key", model.SshPublicKey, linux["sshProfile"]["publicKeys"][0], values[2:3]),
        ("api token", model.ApiToken, token_json, [token]),
        ("dev tooling", model.DevTooling, {"tokens": [token_json]}, [token]),
        ("plan request", model.PlanRequest, plan_request, values),
        ("plan file", model.PlanFile, {"planVersion": 1, "requests": [plan_request]}, values),
    ]


CASES = _cases()


def renderings(m: WireModel) -> dict[str, str]:
    """Every everyday way a model turns into text."""
    out = {
        "repr": repr(m),
        "str": str(m),
        "format": f"{m}",
        "model_dump_json": m.model_dump_json(),
        "model_dump_json indent": m.model_dump_json(indent=2),
        "to_wire": json.dumps(m.to_wire()),
        "model_dump repr": repr(m.model_dump()),
        "model_dump json-mode repr": repr(m.model_dump(mode="json")),
        "deep copy repr": repr(m.model_copy(deep=True)),
    }
    if not isinstance(m, model.PlanRequest | model.PlanFile):
        # a plan body is raw in memory by design (the loader validates it); elsewhere the field
        # values themselves are Secrets
        out["field values repr"] = repr(dict(m))
    return out


def assert_hidden(text_by_name: dict[str, str], secrets: list[str]) -> None:
    for name, text in text_by_name.items():
        for value in secrets:
            assert value not in text, f"secret leaked through {name}"


@pytest.mark.parametrize(("name", "cls", "wire", "secrets"), CASES, ids=[c[0] for c in CASES])
def test_secrets_never_show(
    name: str, cls: type[WireModel], wire: dict[str, Any], secrets: list[str]
) -> None:
    for m in (cls.model_validate(wire), cls.model_validate_json(json.dumps(wire))):
        assert_hidden(renderings(m), secrets)
        assert MASK in json.dumps(m.to_wire())


@pytest.mark.parametrize(("name", "cls", "wire", "secrets"), CASES, ids=[c[0] for c in CASES])
def test_reveal_gives_secrets_back(
    name: str, cls: type[WireModel], wire: dict[str, Any], secrets: list[str]
) -> None:
    m = cls.model_validate_json(json.dumps(wire))
    revealed = m.to_wire(reveal_secrets=True)
    assert revealed == wire
    text = json.dumps(revealed)
    for value in secrets:
        assert value in text
    assert m.model_copy(deep=True).to_wire(reveal_secrets=True) == wire


def _break(cls: type[WireModel], wire: dict[str, Any]) -> dict[str, Any]:
    """The same object with one field of the wrong type next to the secrets."""
    broken = copy.deepcopy(wire)
    if cls is model.ClusterCreateRequest:
        broken["zones"] = "1"
    elif cls in (model.ClusterCreateProperties, model.ClusterProperties):
        broken["clusterVersion"] = 5
    elif cls is model.Cluster:
        broken["properties"]["clusterId"] = 7
    elif cls is model.ClusterDefinition:
        broken["kind"] = 1
    elif cls is model.StorageProfile:
        broken["storageaccounts"].append({"isDefault": "yes"})
    elif cls is model.StorageAccount:
        broken["isDefault"] = "yes"
    elif cls is model.ComputeProfile:
        broken["roles"].append({"targetInstanceCount": "x"})
    elif cls is model.ClusterRole:
        broken["targetInstanceCount"] = "x"
    elif cls is model.OsProfile:
        broken["linuxOperatingSystemProfile"]["username"] = 1
    elif cls is model.LinuxOperatingSystemProfile:
        broken["username"] = 1
    elif cls is model.SshProfile:
        broken["publicKeys"].append({"certificateData": 1})
    elif cls is model.SshPublicKey:
        broken["certificateData"] = [broken["certificateData"]]
    elif cls is model.ApiToken:
        broken["kind"] = 1
    elif cls is model.DevTooling:
        broken["apps"] = {}
    elif cls is model.PlanRequest:
        broken["method"] = 1
    elif cls is model.PlanFile:
        broken["planVersion"] = "1"
    else:
        raise AssertionError(f"no breakage for {cls.__name__}")
    return broken


@pytest.mark.parametrize(("name", "cls", "wire", "secrets"), CASES, ids=[c[0] for c in CASES])
def test_validation_errors_do_not_echo_secrets(
    name: str, cls: type[WireModel], wire: dict[str, Any], secrets: list[str]
) -> None:
    broken = _break(cls, wire)
    for from_json in (False, True):
        with pytest.raises(ValidationError) as raised:
            if from_json:
                cls.model_validate_json(json.dumps(broken))
            else:
                cls.model_validate(broken)
        error = raised.value
        assert_hidden(
            {
                "str": str(error),
                "repr": repr(error),
                "json": error.json(include_input=False),
                "errors": repr(error.errors(include_input=False)),
            },
            secrets,
        )


def test_a_secret_given_where_another_type_belongs_is_not_echoed() -> None:
    value = new_secret()
    bad = {"properties": {"computeProfile": {"roles": [{"targetInstanceCount": value}]}}}
    wrong_shape = {"properties": {"storageProfile": {"storageaccounts": {"key": value}}}}
    for wire in (bad, wrong_shape):
        for validate in (model.ClusterCreateRequest.model_validate, _validate_json):
            with pytest.raises(ValidationError) as raised:
                validate(wire)
            assert value not in str(raised.value)
            assert value not in repr(raised.value)


def _validate_json(wire: dict[str, Any]) -> WireModel:
    return model.ClusterCreateRequest.model_validate_json(json.dumps(wire))


def test_masked_values_and_references() -> None:
    body, values = cluster_request(new_secret)
    m = model.ClusterCreateRequest.model_validate(body)
    masked = m.to_wire()
    role = masked["properties"]["computeProfile"]["roles"][0]
    linux = role["osProfile"]["linuxOperatingSystemProfile"]
    assert linux["password"] == MASK
    assert linux["sshProfile"]["publicKeys"][0]["certificateData"] == MASK
    assert linux["username"] == "sshuser"
    gateway = masked["properties"]["clusterDefinition"]["configurations"]["gateway"]
    assert gateway["restAuthCredential.password"] == MASK
    assert gateway["restAuthCredential.username"] == "admin"
    assert gateway["restAuthCredential.isEnabled"] is True
    storage_key = m.properties.storageProfile.storageaccounts[0].key  # type: ignore[union-attr]
    assert isinstance(storage_key, Secret)
    assert storage_key.reveal() == values[0]
    assert not storage_key.is_reference
    ref = model.StorageAccount.model_validate({"key": "<STORAGE_KEY>"})
    assert ref.key is not None and ref.key.is_reference


def test_plan_body_is_raw_in_memory_and_masked_in_dumps() -> None:
    body, _ = cluster_request(new_secret)
    request = model.PlanRequest.model_validate({"method": "PUT", "url": "/x", "body": body})
    assert request.body == body  # the loader validates the raw body by endpoint
    parsed = model.ClusterCreateRequest.model_validate(request.body)
    assert parsed.to_wire(reveal_secrets=True) == body
    dumped = request.to_wire()["body"]
    assert dumped["properties"]["storageProfile"]["storageaccounts"][0]["key"] == MASK
    assert dumped["properties"]["storageProfile"]["storageaccounts"][0]["name"] == "sa"
    assert dumped["location"] == "westeurope"
    assert "body" not in repr(request)


def test_everything_below_a_secret_looking_key_is_hidden() -> None:
    # found by the fuzz suite: a configuration group called "password" holding a list
    body, _ = cluster_request(new_secret)
    hidden = [new_secret() for _ in range(4)]
    configurations = body["properties"]["clusterDefinition"]["configurations"]
    configurations["password"] = [hidden[0], {"nested": hidden[1]}]
    configurations["gateway"]["restAuthCredential.password"] = {"value": hidden[2]}
    configurations["core-site"] = {"fs.azure.account.key.x": [hidden[3]], "plain": "shown"}
    parsed = model.ClusterCreateRequest.model_validate(body)
    dumped = json.dumps(parsed.to_wire())
    assert not any(h in dumped for h in hidden) and "shown" in dumped
    assert json.dumps(parsed.to_wire(reveal_secrets=True)).count(hidden[0]) == 1
    request = model.PlanRequest.model_validate({"method": "PUT", "url": "/x", "body": body})
    plan_dump = json.dumps(request.to_wire())
    assert not any(h in plan_dump for h in hidden) and "shown" in plan_dump


def test_secret_cannot_be_pickled_but_can_be_copied() -> None:
    value = new_secret()
    m = model.ApiToken.model_validate({"value": value})
    with pytest.raises(TypeError):
        pickle.dumps(m)
    assert copy.deepcopy(m).value == Secret(value)
    assert copy.copy(m).to_wire(reveal_secrets=True) == {"value": value}


@settings(max_examples=30)
@given(
    secret_tail=st.text(alphabet="0123456789abcdef", min_size=12, max_size=24),
    wire=st.data(),
)
def test_generated_secrets_never_show(secret_tail: str, wire: st.DataObject) -> None:
    """Any generated cluster body, with distinctive secrets placed in every secret field."""
    counter = iter(range(100))
    body, values = cluster_request(lambda: f"S3cr3t-{next(counter)}-{secret_tail}")
    extra_role = wire.draw(_role_with_secret(values[1]))
    body["properties"]["computeProfile"]["roles"].append(extra_role)
    m = model.ClusterCreateRequest.model_validate_json(json.dumps(body))
    assert_hidden(renderings(m), values)
    assert m.to_wire(reveal_secrets=True) == body


def _role_with_secret(password: str) -> st.SearchStrategy[dict[str, Any]]:
    from tests.strategies import cluster_role

    return cluster_role.map(
        lambda role: {
            **role,
            "osProfile": {"linuxOperatingSystemProfile": {"password": password}},
        }
    )
