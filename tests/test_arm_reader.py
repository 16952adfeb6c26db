"""The ARM template reader (auditor.sources.arm): real templates written by others, and fixtures for
parameters, loops, conditions, nested deployments, role assignments, suppressions and bad input.

The real files are copies (byte for byte, licences beside them) of ../shared/testdata/real/ under
tests/data/real/. For each, the requests are asserted with the fields the rules read: what a
reviewer would read off the template and its parameters file by hand.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from auditor.errors import IncompleteError, InputError
from auditor.expr.arm import ArmSyntaxError, Deployment, Unknown, UnknownKind
from auditor.sources.arm import (
    find_parameters_file,
    is_arm_template,
    is_parameters_file,
    parse_parameter_override,
    read_arm_template,
    read_jsonc,
    read_parameters_file,
)
from auditor.sources.arm._jsonc import decode_jsonc, format_path
from auditor.sources.deployment import DeploymentRequest

DATA = Path(__file__).parent / "data"
REAL = DATA / "real"
ARM = DATA / "arm"
QUICKSTART = REAL / "fathym-it__azure-quickstart-templates"
BICEP = REAL / "Azure__bicep/src/Bicep.Core.Samples/Files/user_submitted/101/hdinsight-spark-linux"
AVM = REAL / "Azure__bicep-registry-modules/avm/res/event-grid/domain/main.json"

SUB_RG = "/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}"
CLUSTERS = SUB_RG + "/providers/Cloud.AnalyticsCluster/clusters/"
DOMAINS = SUB_RG + "/providers/Cloud.EventRouting/domains/"
DEPLOYMENT = UnknownKind.DEPLOYMENT
SECRET_REF = UnknownKind.SECRET_REFERENCE


def get(value: Any, *path: str | int) -> Any:
    for key in path:
        value = value[key]
    return value


def kind_of(value: Any) -> UnknownKind | None:
    return value.kind if isinstance(value, Unknown) else None


def shape(value: Any) -> Any:
    """A body with each unknown replaced by its kind (unknowns' texts differ between layouts)."""
    if isinstance(value, Unknown):
        return ("unknown", value.kind)
    if isinstance(value, dict):
        return {key: shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [shape(item) for item in value]
    return value


def texts(result: Any) -> str:
    """Everything a reader hands on that a user may see: warnings, URLs, sources, unknowns."""
    parts = list(result.warnings)
    for request in result.requests:
        parts.extend((request.url, repr(request.source), repr(request.suppressions)))
        stack = [request.body]
        while stack:
            node = stack.pop()
            if isinstance(node, Unknown):
                parts.append(repr(node))
            elif isinstance(node, dict):
                stack.extend(node.values())
            elif isinstance(node, list):
                stack.extend(node)
    return "\n".join(parts)


def write(tmp_path: Path, name: str, document: Any) -> Path:
    path = tmp_path / name
    path.write_text(document if isinstance(document, str) else json.dumps(document), "utf-8")
    return path


def template(*resources: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
        "contentVersion": "1.0.0.0",
        **extra,
        "resources": list(resources),
    }


def domain(name: Any = "d", **extra: Any) -> dict[str, Any]:
    return {
        "type": "Microsoft.EventGrid/domains",
        "apiVersion": "2025-02-15",
        "name": name,
        "location": "westeurope",
        "properties": {},
        **extra,
    }


# --- real templates: the eight quickstart HDInsight templates with their parameters files -----------

# folder: (line of the cluster resource, kind, clusterVersion, roles and counts, tier,
#          virtual network resource group or None, minSupportedTlsVersion)
QUICKSTARTS: dict[str, tuple[int, str, str, list[tuple[str, int]], str | None, str | None, Any]] = {
    "101-hdinsight-autoscale-schedulebased": (
        62, "spark", "3.6", [("headnode", 2), ("workernode", 3)], "Standard", None, None,
    ),
    "101-hdinsight-custom-ambari-db": (
        178, "hadoop", "4.0", [("headnode", 2), ("workernode", 4)], None,
        "GET-PREREQ-existingVirtualNetworkResourceGroup", None,
    ),
    "101-hdinsight-hbase-linux": (
        118, "hbase", "4.0", [("headnode", 2), ("workernode", 2), ("zookeepernode", 3)], None,
        None, None,
    ),
    "101-hdinsight-kafka": (
        118, "kafka", "4.0", [("headnode", 2), ("workernode", 4), ("zookeepernode", 3)], None,
        None, None,
    ),
    "101-hdinsight-linux-ssh-password": (
        113, "hadoop", "4.0", [("headnode", 2), ("workernode", 2)], None, None, None,
    ),
    "101-hdinsight-minimum-tls": (
        111, "hadoop", "4.0", [("headnode", 2), ("workernode", 4)], None,
        "GET-PREREQ-existingVirtualNetworkResourceGroup", "1.2",
    ),
    "101-hdinsight-secure-vnet": (
        138, "hadoop", "4.0", [("headnode", 2), ("workernode", 2)], None, "{resourceGroupName}",
        None,
    ),
    "101-hdinsight-spark-linux": (
        100, "spark", "4.0", [("headnode", 2), ("workernode", 2)], "Standard", None, None,
    ),
}  # fmt: skip


@pytest.mark.parametrize("folder", sorted(QUICKSTARTS))
def test_quickstart_templates_with_their_parameters_files(folder: str) -> None:
    line, kind, version, roles, tier, vnet_group, tls = QUICKSTARTS[folder]
    path = QUICKSTART / folder / "azuredeploy.json"
    parameters_file = find_parameters_file(path)
    assert parameters_file == QUICKSTART / folder / "azuredeploy.parameters.json"
    result = read_arm_template(path, parameter_files=[parameters_file])
    assert result.inputs == [str(path), str(parameters_file)]
    assert len(result.requests) == 1  # one cluster; storage accounts, networks, databases ignored
    (request,) = result.requests
    name = json.loads(parameters_file.read_text())["parameters"]["clusterName"]["value"]
    assert request.method == "PUT"
    assert request.url == f"{CLUSTERS}{name}?api-version=2018-06-01-preview"  # PLAN-001: not 2021
    assert request.unknown_url is None
    assert request.source.file == str(path)
    assert request.source.line == line
    assert request.source.address == "[parameters('clusterName')]"
    assert request.suppressions == {}
    body = request.body
    assert body is not None
    # the location defaults to resourceGroup().location: known only at deployment
    assert kind_of(body["location"]) is DEPLOYMENT
    properties = body["properties"]
    assert properties["clusterVersion"] == version  # CLU-011: 3.6 and 4.0 are below 5.1
    assert properties["osType"] == "Linux"
    assert properties.get("tier") == tier
    assert properties["clusterDefinition"]["kind"] == kind
    assert properties.get("minSupportedTlsVersion") == tls
    gateway = properties["clusterDefinition"]["configurations"]["gateway"]
    assert gateway["restAuthCredential.isEnabled"] is True  # CLU-007 passes
    # the parameters file gives the password as a literal (the quickstart's placeholder text):
    # a literal secret for CLU-008
    assert gateway["restAuthCredential.password"] == "GEN-PASSWORD"
    (account,) = properties["storageProfile"]["storageaccounts"]
    assert account["isDefault"] is True  # CLU-013: exactly one default
    assert kind_of(account["key"]) is SECRET_REF  # listKeys(...): a reference, not a literal
    assert [
        (r["name"], r["targetInstanceCount"]) for r in properties["computeProfile"]["roles"]
    ] == roles
    for role in properties["computeProfile"]["roles"]:
        login = role["osProfile"]["linuxOperatingSystemProfile"]
        assert login["password"] == "GEN-PASSWORD"  # CLU-009: password login, no SSH keys
        assert "sshProfile" not in login
        if vnet_group is None:
            assert "virtualNetworkProfile" not in role  # CLU-004 fails
        else:
            network = role["virtualNetworkProfile"]
            assert network["id"].startswith(
                f"/subscriptions/{{subscriptionId}}/resourceGroups/{vnet_group}/"
            )
            assert "/providers/Cloud.Network/virtualNetworks/" in network["id"]
            assert network["subnet"].startswith(network["id"] + "/subnets/")
    # none of them sets encryption in transit, encryption at host or private link (CLU-001/2/5/6)
    for missing in (
        "encryptionInTransitProperties",
        "diskEncryptionProperties",
        "networkProperties",
    ):
        assert missing not in properties
    assert any("resources of types auditor does not check" in w for w in result.warnings) == (
        folder != "101-hdinsight-minimum-tls"
    )


def test_quickstart_metastore_password_is_a_key_vault_reference() -> None:
    # the parameters file gives existingSQLServerPassword as {"reference": ...}: a reference
    folder = QUICKSTART / "101-hdinsight-custom-ambari-db"
    result = read_arm_template(
        folder / "azuredeploy.json", parameter_files=[folder / "azuredeploy.parameters.json"]
    )
    configurations = get(
        result.requests[0].body, "properties", "clusterDefinition", "configurations"
    )
    assert kind_of(configurations["hive-site"]["javax.jdo.option.ConnectionPassword"]) is SECRET_REF
    assert kind_of(configurations["ambari-conf"]["database-user-password"]) is SECRET_REF
    # the JDBC URL is built with reference(): known only at deployment (CLU-012 unknown)
    assert kind_of(configurations["hive-site"]["javax.jdo.option.ConnectionURL"]) is DEPLOYMENT
    assert configurations["hive-env"]["hive_database_type"] == "mssql"
    assert "Sql/servers/databases ×1" in result.warnings[-1]  # the nested deployment's database


def test_quickstart_without_its_parameters_file() -> None:
    # securestring parameters without a value are references; the cluster's name defaults to
    # concat('hdi-', uniqueString(resourceGroup().id)): unknown, and the URL says so
    path = QUICKSTART / "101-hdinsight-minimum-tls" / "azuredeploy.json"
    result = read_arm_template(path)
    (request,) = result.requests
    assert request.unknown_url is not None
    assert request.unknown_url.kind is DEPLOYMENT
    assert request.url.startswith(CLUSTERS + "{")
    gateway = get(request.body, "properties", "clusterDefinition", "configurations", "gateway")
    assert kind_of(gateway["restAuthCredential.password"]) is SECRET_REF
    assert kind_of(gateway["restAuthCredential.username"]) is UnknownKind.UNRESOLVED
    assert any("without a value or default" in w and "sshUserName" in w for w in result.warnings)


# --- real templates: Bicep-compiled JSON in both layouts ---------------------------------------------


@pytest.mark.parametrize(
    ("file", "line", "address"),
    [
        ("main.json", 103, "[parameters('clusterName')]"),
        ("main.symbolicnames.json", 104, "cluster"),
    ],
)
def test_bicep_hdinsight_spark(file: str, line: int, address: str) -> None:
    result = read_arm_template(BICEP / file, parameters={"clusterName": "spark1"})
    assert find_parameters_file(BICEP / file) is None
    (request,) = result.requests
    assert request.url == CLUSTERS + "spark1?api-version=2018-06-01-preview"
    assert (request.source.line, request.source.address) == (line, address)
    properties = get(request.body, "properties")
    assert properties["clusterDefinition"]["kind"] == "spark"
    gateway = properties["clusterDefinition"]["configurations"]["gateway"]
    assert gateway["restAuthCredential.isEnabled"] is True
    # securestring parameters without a value: references (CLU-008 passes)
    assert kind_of(gateway["restAuthCredential.password"]) is SECRET_REF
    assert gateway["restAuthCredential.username"].kind is UnknownKind.UNRESOLVED
    for role in properties["computeProfile"]["roles"]:
        assert kind_of(role["osProfile"]["linuxOperatingSystemProfile"]["password"]) is SECRET_REF
        assert role["hardwareProfile"]["vmSize"] == "Standard_E8_v3"  # the default
    (account,) = properties["storageProfile"]["storageaccounts"]
    assert kind_of(account["name"]) is DEPLOYMENT  # reference(...).primaryEndpoints.blob
    assert kind_of(account["key"]) is SECRET_REF
    assert account["container"] == "spark1"
    assert "Microsoft.Storage/storageAccounts ×1" in result.warnings[-1]


def test_bicep_layouts_give_the_same_requests() -> None:
    array = read_arm_template(BICEP / "main.json")
    symbolic = read_arm_template(BICEP / "main.symbolicnames.json")
    assert len(array.requests) == len(symbolic.requests) == 1
    left, right = array.requests[0], symbolic.requests[0]
    assert left.url == right.url
    assert left.url == CLUSTERS + "{parameters('clusterName')}?api-version=2018-06-01-preview"
    assert left.unknown_url is not None and right.unknown_url is not None
    assert shape(left.body) == shape(right.body)
    assert left.source != right.source


# --- real templates: the verified-module event-routing domain ----------------------------------------


def test_avm_domain_defaults() -> None:
    result = read_arm_template(AVM)
    (request,) = result.requests  # telemetry deployment: an empty nested template
    assert request.url == DOMAINS + "{parameters('name')}?api-version=2023-06-01-preview"
    assert request.unknown_url is not None and request.unknown_url.kind is UnknownKind.UNRESOLVED
    assert (request.source.line, request.source.address) == (890, "domain")
    body = request.body
    assert body is not None
    assert kind_of(body["location"]) is DEPLOYMENT
    assert body["identity"] is None  # no managed identity (DOM-006 fails)
    assert body["tags"] is None
    properties = body["properties"]
    # publicNetworkAccess: '' by default and no private endpoints -> null: the seed's default,
    # Enabled (DOM-001 fails); the module's secure defaults for TLS and local auth
    assert properties["publicNetworkAccess"] is None
    assert properties["inboundIpRules"] is None
    assert properties["minimumTlsVersionAllowed"] == "1.2"
    assert properties["disableLocalAuth"] is True
    assert properties["autoCreateTopicWithFirstSubscription"] is True
    assert any("without a value or default" in w and ": name" in w for w in result.warnings)


def test_avm_domain_with_role_assignments_identities_and_topics() -> None:
    parameters = {
        "name": "dom1",
        "location": "westeurope",
        "publicNetworkAccess": "Disabled",
        "enableTelemetry": False,
        "topics": ["orders"],
        "managedIdentities": {
            "systemAssigned": True,
            "userAssignedResourceIds": [
                "/subscriptions/s1/resourceGroups/rg/providers/Microsoft.ManagedIdentity/userAssignedIdentities/u1"
            ],
        },
        "roleAssignments": [
            {"principalId": "p1", "roleDefinitionIdOrName": "Owner"},
            {
                "principalId": "p2",
                "roleDefinitionIdOrName": "/providers/Microsoft.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7",
                "condition": "@Resource[Microsoft.EventGrid/domains/topics:name] StringEquals 'orders'",
            },
        ],
    }
    result = read_arm_template(AVM, parameters=parameters)
    domain_request, first, second = result.requests
    assert domain_request.url == DOMAINS + "dom1?api-version=2023-06-01-preview"
    assert domain_request.unknown_url is None
    body = domain_request.body
    assert body is not None
    assert body["location"] == "westeurope"
    assert body["identity"] == {
        "type": "SystemAssigned,UserAssigned",
        "userAssignedIdentities": {
            "/subscriptions/s1/resourceGroups/rg/providers/Cloud.ManagedIdentity/userAssignedIdentities/u1": {}
        },
    }
    assert body["properties"]["publicNetworkAccess"] == "Disabled"
    scope = DOMAINS + "dom1/providers/Cloud.Authorization/roleAssignments/"
    for request, index in ((first, 0), (second, 1)):
        assert request.url.startswith(scope + "{")  # its name is a guid() of the scope: unknown
        assert request.url.endswith("?api-version=2022-04-01")
        assert request.unknown_url is not None
        assert request.source.address == f"domain_roleAssignments[{index}]"
        assert request.source.line == 961
    assert first.body == {
        "properties": {
            # subscriptionResourceId() through a variable loop with tryGet(): unknown
            "roleDefinitionId": first.body["properties"]["roleDefinitionId"],  # type: ignore[index]
            "principalId": "p1",
            "description": None,
            "principalType": None,
            "condition": None,
            "conditionVersion": None,
            "delegatedManagedIdentityResourceId": None,
        }
    }
    assert kind_of(get(first.body, "properties", "roleDefinitionId")) is DEPLOYMENT
    second_properties = get(second.body, "properties")
    assert second_properties["roleDefinitionId"] == (
        "/providers/Cloud.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7"
    )
    assert second_properties["condition"] == (
        "@Resource[Cloud.EventRouting/domains/topics:name] StringEquals 'orders'"
    )
    assert second_properties["conditionVersion"] == "2.0"
    # the topics module is an inner-scope nested deployment: its topic is counted, not checked
    assert "Microsoft.EventGrid/domains/topics ×1" in result.warnings[-1]


def test_real_files_keep_their_licences() -> None:
    for owner in (
        "fathym-it__azure-quickstart-templates",
        "Azure__bicep",
        "Azure__bicep-registry-modules",
    ):
        licence = (REAL / owner / "LICENSE").read_text("utf-8")
        assert "MIT License" in licence or "Permission is hereby granted" in licence


# --- parameters ----------------------------------------------------------------------------------------


def _domains(**kwargs: Any) -> list[DeploymentRequest]:
    return read_arm_template(ARM / "domains.jsonc", **kwargs).requests


def test_parameter_defaults_apply_when_nothing_is_given() -> None:
    requests = _domains()
    assert [r.url.split("/")[-1] for r in requests] == [
        "dom-0?api-version=2025-02-15",
        "dom-1?api-version=2025-02-15",
        "dom-2?api-version=2025-02-15",
        "twin?api-version=2025-02-15",
        "twin?api-version=2025-02-15",
    ]
    properties = get(requests[0].body, "properties")
    assert properties["publicNetworkAccess"] == "Enabled"
    assert properties["minimumTlsVersionAllowed"] == "1.0"


def test_parameter_precedence_overrides_beat_later_files_beat_earlier_files_beat_defaults() -> None:
    first, second = ARM / "domains.parameters.json", ARM / "domains.parameters.tls.json"
    one = _domains(parameter_files=[first])[0]
    assert one.url.endswith("/prod-0?api-version=2025-02-15")
    assert get(one.body, "properties", "minimumTlsVersionAllowed") == "1.1"
    assert get(one.body, "properties", "publicNetworkAccess") == "Disabled"
    result = read_arm_template(ARM / "domains.jsonc", parameter_files=[first, second])
    # the later file wins, and parameter names ignore case (TLSVERSION)
    assert get(result.requests[0].body, "properties", "minimumTlsVersionAllowed") == "1.2"
    assert any("does not declare" in w and "unused" in w for w in result.warnings)
    # -p beats both files; typed by the declaration: tlsVersion is a string, count an int
    both = _domains(
        parameter_files=[first, second],
        parameters={"prefix": "mapping", "count": 1},
        overrides=["tlsVersion=1.1", "count=2"],
    )
    assert len(both) == 4  # two from the loop, the two twins
    assert get(both[0].body, "properties", "minimumTlsVersionAllowed") == "1.1"
    assert both[0].url.endswith("/mapping-0?api-version=2025-02-15")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("count=3", ("count", 3)),
        ("name=foo", ("name", "foo")),
        ('names=["a", "b"]', ("names", ["a", "b"])),
        ("flag=true", ("flag", True)),
        ('quoted="1"', ("quoted", "1")),
        ("url=https://x/y?a=b", ("url", "https://x/y?a=b")),
        ("empty=", ("empty", "")),
    ],
)
def test_parameter_overrides_are_json_when_they_parse(text: str, expected: tuple[str, Any]) -> None:
    assert parse_parameter_override(text) == expected
    assert parse_parameter_override(text, declared_type="object") == expected


def test_parameter_overrides_of_string_parameters_stay_text() -> None:
    assert parse_parameter_override("v=1.10", declared_type="string") == ("v", "1.10")
    assert parse_parameter_override("v=true", declared_type="secureString") == ("v", "true")
    assert parse_parameter_override("v=1.10") == ("v", 1.1)


@pytest.mark.parametrize("text", ["novalue", "=3", "bad name=1"])
def test_parameter_override_without_a_name_is_an_input_error(text: str) -> None:
    with pytest.raises(InputError, match="NAME=VALUE"):
        parse_parameter_override(text)


def test_key_vault_reference_and_literal_secrets() -> None:
    result = read_arm_template(
        ARM / "cluster-secrets.json", parameter_files=[ARM / "keyvault.parameters.json"]
    )
    (request,) = result.requests
    configurations = get(request.body, "properties", "clusterDefinition", "configurations")
    reference = configurations["ambari-conf"]["database-user-password"]
    assert kind_of(reference) is SECRET_REF
    assert "metastore-password" in reference.reason  # the secret's name, never a value
    # a value in a parameters file and a default are literals (CLU-008 fails)
    assert configurations["gateway"]["restAuthCredential.password"] == "Literal-Gatew4y!"
    role = get(request.body, "properties", "computeProfile", "roles", 0)
    assert role["osProfile"]["linuxOperatingSystemProfile"]["password"] == "Default-Pa55word!"
    assert configurations["hive-site"]["javax.jdo.option.ConnectionPassword"] == "Pr3fix!abc"
    shown = texts(result)
    for secret in ("Literal-Gatew4y!", "Default-Pa55word!", "Pr3fix!"):
        assert secret not in shown


def test_unknown_values_at_secret_paths_are_redacted() -> None:
    result = read_arm_template(ARM / "cluster-secrets.json")
    configurations = get(
        result.requests[0].body, "properties", "clusterDefinition", "configurations"
    )
    partial = configurations["hive-site"]["javax.jdo.option.ConnectionPassword"]
    assert kind_of(partial) is UnknownKind.UNRESOLVED  # concat('Pr3fix!', parameters('suffix'))
    assert "Pr3fix" not in partial.expression and "'***'" in partial.expression
    assert "parameters('suffix')" in partial.expression
    assert kind_of(configurations["gateway"]["restAuthCredential.password"]) is SECRET_REF
    assert "Pr3fix" not in texts(result)


def test_parameters_file_shapes(tmp_path: Path) -> None:
    flat = write(tmp_path, "flat.json", {"a": {"value": 1}, "b": {"reference": "kv"}})
    values = read_parameters_file(flat)
    assert values["a"] == 1 and kind_of(values["b"]) is SECRET_REF
    wrapped = write(tmp_path, "w.json", {"parameters": {"a": {"value": None}}})
    assert read_parameters_file(wrapped) == {"a": None}
    bad = write(tmp_path, "bad.json", {"parameters": {"a": {"valeu": 1}}})
    with pytest.raises(InputError, match=r"bad\.json: line 1, parameters\.a: expected"):
        read_parameters_file(bad)
    both = write(tmp_path, "both.json", {"parameters": {"a": {"value": 1, "reference": {}}}})
    with pytest.raises(InputError, match="not both"):
        read_parameters_file(both)
    other = write(tmp_path, "other.json", {"name": "x"})
    with pytest.raises(InputError, match="not a deploymentParameters file"):
        read_parameters_file(other)


# --- resources: conditions, loops, nesting, same names, role assignments -------------------------------


def test_copy_loop_of_three_and_condition_false() -> None:
    requests = _domains()
    loop = requests[:3]
    assert [r.source.address for r in loop] == [
        "[format('{0}-{1}', parameters('prefix'), copyIndex())][0]",
        "[format('{0}-{1}', parameters('prefix'), copyIndex())][1]",
        "[format('{0}-{1}', parameters('prefix'), copyIndex())][2]",
    ]
    assert {r.source.line for r in loop} == {15}
    # the legacy domain's condition is false (deployLegacy defaults to false): not deployed
    assert not any("legacy" in r.url for r in requests)
    assert get(loop[0].body, "properties", "inputSchema") == "EventRoutingSchema"  # vendor value
    assert get(loop[0].body, "properties", "inboundIpRules") == [
        {"ipMask": "10.0.0.0/16", "action": "Allow"}
    ]


def test_condition_true_deploys(tmp_path: Path) -> None:
    requests = _domains(parameters={"deployLegacy": True})
    assert requests[3].url.endswith("/legacy?api-version=2020-06-01")  # kept as given (PLAN-001)
    assert requests[3].source.line == 34


def test_same_named_resources_stay_two_requests() -> None:
    twins = _domains()[3:]
    assert [r.url for r in twins] == [DOMAINS + "twin?api-version=2025-02-15"] * 2
    assert [r.source.line for r in twins] == [42, 49]
    assert get(twins[0].body, "properties", "disableLocalAuth") is True
    assert get(twins[1].body, "properties", "disableLocalAuth") is False
    assert twins[1].body is not None and twins[1].body["identity"] == {"type": "SystemAssigned"}


def test_unchecked_resource_types_are_counted(tmp_path: Path) -> None:
    storage = {"type": "Microsoft.Storage/storageAccounts", "apiVersion": "1", "name": "s"}
    path = write(tmp_path, "t.json", template(storage, dict(storage), domain()))
    result = read_arm_template(path)
    assert len(result.requests) == 1
    assert result.warnings == [
        f"{path}: resources of types auditor does not check: Microsoft.Storage/storageAccounts ×2"
    ]


def test_unknown_condition_and_count_are_checked_with_a_warning(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "t.json",
        template(
            domain("a", condition="[equals(reference('x').state, 'on')]"),
            domain("[concat('b', copyIndex())]", copy={"name": "l", "count": "[parameters('n')]"}),
            parameters={"n": {"type": "int"}},
        ),
    )
    result = read_arm_template(path)
    assert [r.url.split("/")[-1].split("?")[0] for r in result.requests] == ["a", "b0"]
    assert any(
        "a: its condition is unknown" in w and "checked as deployed" in w for w in result.warnings
    )
    assert any("copy loop 'l' is unknown" in w and "one instance" in w for w in result.warnings)


def test_copy_count_beyond_the_vendor_limit_is_an_input_error(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "t.json",
        template(domain("[string(copyIndex())]", copy={"name": "l", "count": 801})),
    )
    with pytest.raises(
        InputError, match=r"line 1, resources\[0\]\.copy\.count: a copy loop of 801"
    ):
        read_arm_template(path)


def test_nested_deployments_inner_outer_and_linked() -> None:
    result = read_arm_template(ARM / "nested.json")
    inner, outer = result.requests
    # inner scope: its own parameters (passed from outside), defaults and variables
    assert inner.url == DOMAINS + "outer-domain-inner?api-version=2025-02-15"
    assert get(inner.body, "properties") == {
        "minimumTlsVersionAllowed": "1.2",  # passed, beating the inner default 1.0
        "publicNetworkAccess": "Disabled",  # the inner default
        "inputSchema": "CustomEventSchema",  # the inner variable
    }
    assert (inner.source.line, inner.source.address) == (31, "innerScope > [parameters('name')]")
    # outer scope: the parent's parameters and variables; deployed to the named resource group
    assert outer.url == (
        "/subscriptions/{subscriptionId}/resourceGroups/other-rg/providers/"
        "Cloud.EventRouting/domains/outer-domain-outer?api-version=2025-02-15"
    )
    assert get(outer.body, "properties", "inputSchema") == "CloudEventSchemaV1_0"
    assert outer.source.line == 57
    (warning,) = result.warnings
    assert (
        "linked: a linked template (https://example.blob.core.windows.net/templates/domain.json?…)"
        in warning
    )
    assert "sig=" not in warning and "sv=" not in warning  # a SAS token is a secret


def test_role_assignments() -> None:
    result = read_arm_template(ARM / "role-assignments.json")
    at_group, extension, relative, legacy, child = result.requests
    owner = "/subscriptions/{subscriptionId}/providers/Cloud.Authorization/roleDefinitions/8e3af657-a8ff-443c-a75c-2fe8c4bcb635"
    assignments = "/providers/Cloud.Authorization/roleAssignments/"
    # no scope: the deployment's resource group
    assert (
        at_group.url
        == SUB_RG + assignments + "22222222-2222-2222-2222-222222222222?api-version=2022-04-01"
    )
    assert at_group.body == {
        "properties": {
            "roleDefinitionId": owner,
            "principalId": "11111111-1111-1111-1111-111111111111",
            "principalType": "ServicePrincipal",
        }
    }
    # an extension resource with a scope: the domain, by resourceId()
    assert (
        extension.url
        == DOMAINS
        + "events"
        + assignments
        + "33333333-3333-3333-3333-333333333333?api-version=2022-04-01"
    )
    assert (
        get(extension.body, "properties", "condition")
        == "@Resource[Cloud.EventRouting/domains:name] StringEquals 'events'"
    )
    # a relative scope; the name is a guid() of the resource group's id: unknown
    assert relative.url.startswith(DOMAINS + "events" + assignments + "{")
    assert relative.unknown_url is not None and relative.unknown_url.kind is DEPLOYMENT
    # the legacy form: Microsoft.Storage/storageAccounts/providers/roleAssignments
    storage = SUB_RG + "/providers/Cloud.Storage/storageAccounts/"
    assert (
        legacy.url
        == storage
        + "store1"
        + assignments
        + "44444444-4444-4444-4444-444444444444?api-version=2018-09-01-preview"
    )
    # a child resource: type and name joined to its parent's
    assert (
        child.url
        == storage
        + "store2"
        + assignments
        + "55555555-5555-5555-5555-555555555555?api-version=2018-09-01-preview"
    )
    assert (
        child.source.address
        == "store2/Microsoft.Authorization/55555555-5555-5555-5555-555555555555"
    )
    assert child.source.line == 61
    assert get(child.body, "properties", "roleDefinitionId") == owner


def test_scope_placeholders_only_where_the_scope_is_used_as_text() -> None:
    result = read_arm_template(ARM / "cluster-secrets.json")
    properties = get(result.requests[0].body, "properties")
    network = properties["computeProfile"]["roles"][0]["virtualNetworkProfile"]
    assert network == {
        "id": SUB_RG + "/providers/Cloud.Network/virtualNetworks/vnet1",
        "subnet": SUB_RG + "/providers/Cloud.Network/virtualNetworks/vnet1/subnets/default",
    }
    assert get(result.requests[0].body, "identity", "userAssignedIdentities") == {
        SUB_RG + "/providers/Cloud.ManagedIdentity/userAssignedIdentities/hdi-msi": {}
    }
    # equals(resourceGroup().name, 'prod') compares the scope: never decided by a placeholder
    assert kind_of(properties["diskEncryptionProperties"]["encryptionAtHost"]) is DEPLOYMENT
    given = read_arm_template(
        ARM / "cluster-secrets.json",
        deployment=Deployment(subscription_id="s1", resource_group="prod", location="westeurope"),
    )
    request = given.requests[0]
    assert request.url.startswith("/subscriptions/s1/resourceGroups/prod/providers/")
    assert get(request.body, "properties", "diskEncryptionProperties", "encryptionAtHost") is True
    assert get(request.body, "location") == "westeurope"


# --- suppressions -----------------------------------------------------------------------------------


def test_suppressions_with_a_reason() -> None:
    loop = _domains()[:3]
    assert all(
        r.suppressions == {"DOM-006": "identities are assigned by the platform team"} for r in loop
    )
    assert _domains()[3].suppressions == {}


@pytest.mark.parametrize(
    ("skip", "found"),
    [
        ({"DOM-001": ""}, "a blank string"),
        ({"DOM-001": "  "}, "a blank string"),
        ({"DOM-001": 3}, "an integer"),
        ({"DOM-001": None}, "null"),
    ],
)
def test_a_suppression_without_a_reason_is_an_input_error(
    tmp_path: Path, skip: dict[str, Any], found: str
) -> None:
    text = json.dumps(template(domain(metadata={"auditor": {"skip": skip}})), indent=2)
    path = write(tmp_path, "t.json", text)
    line = next(i for i, row in enumerate(text.splitlines(), 1) if '"DOM-001"' in row)
    with pytest.raises(InputError) as caught:
        read_arm_template(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: line {line}, resources[0].metadata.auditor.skip.DOM-001: ")
    assert f"a suppression needs a reason: expected a non-empty string, found {found}" in message


def test_a_malformed_suppression_block_is_an_input_error(tmp_path: Path) -> None:
    path = write(tmp_path, "t.json", template(domain(metadata={"auditor": {"skip": ["DOM-001"]}})))
    with pytest.raises(InputError, match=r"resources\[0\]\.metadata\.auditor\.skip: expected"):
        read_arm_template(path)


# --- JSON with comments ------------------------------------------------------------------------------


def test_jsonc_comments_trailing_commas_and_slashes_in_strings() -> None:
    text = (
        '// head\n{\n  "a": "http://x/*y*/", /* note */\n  "b": [1, 2,],\n  "c": {"d": {},},\n}\n'
    )
    document = decode_jsonc(text, source="x.jsonc")
    assert document.value == {"a": "http://x/*y*/", "b": [1, 2], "c": {"d": {}}}
    assert document.line(()) == 2
    assert document.line(("b",)) == 4
    assert document.line(("c", "d")) == 5
    assert document.line(("a",)) == 3  # a scalar: found by scanning again
    assert document.line(("nope",)) is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{\n  "resources": [ /* open\n', "line 2, column 18: a /* comment is not closed"),
        ('// c\n{\n  "resources": [ 1 2 ]\n}\n', "line 3, column 20: invalid JSON"),
        ("  \n", "empty"),
    ],
)
def test_jsonc_errors_name_line_and_column(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, "t.jsonc", text)
    with pytest.raises(InputError) as caught:
        read_arm_template(path)
    assert str(caught.value).startswith(f"{path}: ")
    assert message in str(caught.value)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)


@given(_JSON)
def test_jsonc_reads_any_json_with_comments_between_lines(value: Any) -> None:
    text = json.dumps({"v": value}, indent=1)
    commented = "\n".join(
        f"{row} // c */ " if i % 2 else f"/* c // */ {row}"
        for i, row in enumerate(text.split("\n"))
    )
    document = decode_jsonc(commented, source="x.jsonc")
    assert document.value == {"v": value}
    for path, offset in document.starts.items():
        assert commented[offset] in "{[", format_path(path)


def test_format_path() -> None:
    assert format_path(("resources", 3, "properties", "a.b")) == "resources[3].properties.a.b"
    assert format_path(()) == ""


# --- bad input -----------------------------------------------------------------------------------------


def test_valid_json_that_is_not_a_template(tmp_path: Path) -> None:
    path = write(tmp_path, "t.json", {"name": "x", "version": 2})
    with pytest.raises(InputError) as caught:
        read_arm_template(path)
    assert str(caught.value) == (
        f'{path}: not an ARM template: expected "$schema": ".../deploymentTemplate.json#" and '
        '"resources", found an object with name, version'
    )
    array = write(tmp_path, "a.json", [1])
    with pytest.raises(InputError, match=r"expected an ARM template .* found an array"):
        read_arm_template(array)


def test_parameters_file_and_template_given_the_wrong_way_round() -> None:
    with pytest.raises(InputError, match="this is a deploymentParameters file, not a template"):
        read_arm_template(ARM / "domains.parameters.json")
    with pytest.raises(InputError, match="this is an ARM template, not a parameters file"):
        read_arm_template(ARM / "domains.jsonc", parameter_files=[ARM / "domains.jsonc"])


def test_expression_syntax_error_names_file_line_path_and_column(tmp_path: Path) -> None:
    text = json.dumps(
        template(domain(properties={"minimumTlsVersionAllowed": "[concat('1.', ]"})), indent=2
    )
    path = write(tmp_path, "t.json", text)
    line = next(i for i, row in enumerate(text.splitlines(), 1) if "concat" in row)
    with pytest.raises(ArmSyntaxError) as caught:
        read_arm_template(path)
    message = str(caught.value)
    assert message.startswith(
        f"{path}: line {line}, resources[0].properties.minimumTlsVersionAllowed: "
    )
    assert "column 15" in message and "[concat('1.', ]" in message


def test_syntax_errors_anywhere_evaluated_are_found_but_not_in_metadata(tmp_path: Path) -> None:
    storage = {"type": "Microsoft.Storage/storageAccounts", "name": "[toLower(]"}
    path = write(tmp_path, "t.json", template(domain(), storage))
    with pytest.raises(ArmSyntaxError, match=r"resources\[1\]\.name"):
        read_arm_template(path)
    fine = write(
        tmp_path,
        "m.json",
        template(domain(metadata={"note": "[free text]"}), metadata={"x": "[y z]"}),
    )
    assert len(read_arm_template(fine).requests) == 1


def test_syntax_error_at_a_secret_path_hides_the_text(tmp_path: Path) -> None:
    cluster = {
        "type": "Microsoft.HDInsight/clusters",
        "name": "c",
        "properties": {"gateway": {"restAuthCredential.password": "[concat('Sup3rS3cret!', ]"}},
    }
    path = write(tmp_path, "t.json", template(cluster))
    with pytest.raises(ArmSyntaxError) as caught:
        read_arm_template(path)
    assert "Sup3rS3cret" not in str(caught.value)
    assert "restAuthCredential.password" in str(caught.value)


@pytest.mark.parametrize(
    ("resource", "message"),
    [
        ({"name": "x"}, r"resources\[0\]: expected the resource's type"),
        ({"type": "Microsoft.EventGrid/domains"}, r"resources\[0\]: expected the resource's name"),
        (
            {"type": "Microsoft.EventGrid/domains", "name": 3},
            r"resources\[0\]\.name: expected the resource's name \(a string\), found an integer",
        ),
        (
            {"type": "Microsoft.EventGrid/domains", "name": "d", "copy": 3},
            r"resources\[0\]\.copy: expected a copy loop",
        ),
        ("text", r"resources\[0\]: expected a resource \(an object\), found a string"),
    ],
)
def test_malformed_resources_are_input_errors(tmp_path: Path, resource: Any, message: str) -> None:
    path = write(tmp_path, "t.json", template(resource))
    with pytest.raises(InputError, match=message):
        read_arm_template(path)


def test_recognising_documents() -> None:
    quickstart = json.loads((QUICKSTART / "101-hdinsight-kafka" / "azuredeploy.json").read_text())
    parameters = json.loads(
        (QUICKSTART / "101-hdinsight-kafka" / "azuredeploy.parameters.json").read_text()
    )
    symbolic = json.loads((BICEP / "main.symbolicnames.json").read_text())
    assert is_arm_template(quickstart) and is_arm_template(symbolic)
    assert not is_arm_template(parameters) and is_parameters_file(parameters)
    assert not is_parameters_file(quickstart)
    assert is_arm_template({"contentVersion": "1.0.0.0", "resources": []})
    assert not is_arm_template({"resources": [], "terraform_version": "1.5.0"})
    assert is_arm_template(
        {
            "$schema": "https://schema.management.azure.com/schemas/2018-05-01/subscriptionDeploymentTemplate.json#"
        }
    )
    assert is_parameters_file({"parameters": {"a": {"value": 1}}})
    assert not is_parameters_file({"parameters": {"a": {"type": "string"}}})
    assert not is_parameters_file([])


def test_find_parameters_file(tmp_path: Path) -> None:
    assert find_parameters_file(ARM / "domains.jsonc") == ARM / "domains.parameters.json"
    assert find_parameters_file(ARM / "domains.parameters.json") is None
    main = write(tmp_path, "main.json", "{}")
    assert find_parameters_file(main) is None
    write(tmp_path, "main.parameters.json", "{}")
    assert find_parameters_file(main) == tmp_path / "main.parameters.json"
    assert find_parameters_file(tmp_path / "main.bicep") is None


# --- deployment levels and bounds ----------------------------------------------------------------------


def test_subscription_level_template(tmp_path: Path) -> None:
    assignment = {
        "type": "Microsoft.Authorization/roleAssignments",
        "apiVersion": "2022-04-01",
        "name": "66666666-6666-6666-6666-666666666666",
        "properties": {"roleDefinitionId": "x", "principalId": "p"},
    }
    nested = {
        "type": "Microsoft.Resources/deployments",
        "apiVersion": "2022-09-01",
        "name": "toGroup",
        "resourceGroup": "rg-events",
        "properties": {"template": template(domain("d1"))},
    }
    document = template(assignment, nested)
    document["$schema"] = (
        "https://schema.management.azure.com/schemas/2018-05-01/subscriptionDeploymentTemplate.json#"
    )
    result = read_arm_template(write(tmp_path, "sub.json", document))
    at_subscription, in_group = result.requests
    assert at_subscription.url == (
        "/subscriptions/{subscriptionId}/providers/Cloud.Authorization/roleAssignments/"
        "66666666-6666-6666-6666-666666666666?api-version=2022-04-01"
    )
    assert in_group.url == (
        "/subscriptions/{subscriptionId}/resourceGroups/rg-events/providers/"
        "Cloud.EventRouting/domains/d1?api-version=2025-02-15"
    )
    assert in_group.source.address == "toGroup > d1"


def test_expansion_beyond_the_resource_bound_is_an_input_error(tmp_path: Path) -> None:
    inner = template(
        {
            "type": "Microsoft.Storage/storageAccounts",
            "name": "[string(copyIndex())]",
            "copy": {"name": "c", "count": 800},
        }
    )
    outer = {
        "type": "Microsoft.Resources/deployments",
        "name": "[string(copyIndex())]",
        "copy": {"name": "m", "count": 800},
        "properties": {"template": inner},
    }
    with pytest.raises(InputError, match="expands to more than 10,000 resources"):
        read_arm_template(write(tmp_path, "t.json", template(outer)))


def test_time_limit_makes_the_read_incomplete(tmp_path: Path) -> None:
    path = write(tmp_path, "t.json", template(domain()))
    with pytest.raises(IncompleteError, match=r"t\.json: the template was not read in full"):
        read_arm_template(path, time_limit=0)
    assert len(read_arm_template(path, time_limit=None).requests) == 1


def test_long_chains_of_variables_stay_bounded(tmp_path: Path) -> None:
    variables = {f"v{i}": f"[variables('v{i + 1}')]" for i in range(600)}
    variables["v600"] = "[resourceGroup().id]"
    document = template(domain(properties={"x": "[variables('v0')]"}), variables=variables)
    (request,) = read_arm_template(write(tmp_path, "t.json", document)).requests
    assert isinstance(get(request.body, "properties", "x"), Unknown)


def test_symbolic_names_existing_resources_and_a_decoded_document(tmp_path: Path) -> None:
    document = template(**{"languageVersion": "2.0"})
    document["resources"] = {
        "vnet": {
            "type": "Microsoft.Network/virtualNetworks",
            "apiVersion": "1",
            "name": "v",
            "existing": True,
        },
        "events": domain(
            "[format('{0}-d', 'x')]",
            properties={"publicNetworkAccess": "[reference('vnet').state]"},
        ),
    }
    text = json.dumps(document, indent=2)
    path = write(tmp_path, "main.json", text)
    line = next(i for i, row in enumerate(text.splitlines(), 1) if '"events": {' in row)
    loaded = read_jsonc(path)
    result = read_arm_template(loaded)
    (request,) = result.requests
    assert result.warnings == []  # an existing resource is neither deployed nor counted
    assert request.url == DOMAINS + "x-d?api-version=2025-02-15"
    assert (request.source.address, request.source.line) == ("events", line)
    assert kind_of(get(request.body, "properties", "publicNetworkAccess")) is DEPLOYMENT


# --- hostile templates: only the contract's errors ------------------------------------------------------

_EXPRESSIONS = st.sampled_from(
    [
        "[parameters('p')]",
        "[variables('v')]",
        "[copyIndex()]",
        "[resourceGroup().id]",
        "[reference('x').y]",
        "[listKeys('a', 'b').keys[0].value]",
        "[if(equals(parameters('p'), 'a'), 1, 'x')]",
        "[resourceId('Microsoft.Network/virtualNetworks', 'v')]",
        "[x(]",
        "[[literal]",
    ]
)
_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 900) | st.text(max_size=6) | _EXPRESSIONS,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                ["a", "id", "password", "[parameters('p')]", "copy", "name", "count", "input"]
            ),
            inner,
            max_size=3,
        )
    ),
    max_leaves=10,
)
_TYPES = st.sampled_from(
    [
        "Microsoft.EventGrid/domains",
        "Microsoft.HDInsight/clusters",
        "Microsoft.Authorization/roleAssignments",
        "Microsoft.Resources/deployments",
        "Microsoft.Storage/storageAccounts/providers/roleAssignments",
        "providers/roleAssignments",
    ]
)
_MEMBERS = [
    "name",
    "apiVersion",
    "properties",
    "copy",
    "condition",
    "scope",
    "metadata",
    "resourceGroup",
]
_RESOURCES = st.fixed_dictionaries(
    {"type": _TYPES},
    optional={
        **dict.fromkeys(_MEMBERS, _VALUES),
        "resources": st.lists(st.fixed_dictionaries({"type": _TYPES, "name": _VALUES}), max_size=2),
    },
)


@given(
    st.lists(_RESOURCES, max_size=4),
    st.dictionaries(st.sampled_from(["p", "P"]), _VALUES, max_size=1),
)
def test_hostile_templates_give_requests_or_the_contracts_errors(
    resources: list[dict[str, Any]], parameters: dict[str, Any]
) -> None:
    document = template(*resources, parameters={"p": {"type": "string", "defaultValue": "a"}})
    document["variables"] = {"v": "[parameters('p')]"}
    decoded = decode_jsonc(json.dumps(document), source="t.json")
    try:
        result = read_arm_template(decoded, parameters=parameters, time_limit=10)
    except (InputError, IncompleteError) as error:
        assert str(error).startswith("t.json")
        return
    for request in result.requests:
        assert request.url.startswith("/") and request.url.count("?") <= 1  # names are quoted
        assert request.source.file == "t.json"
