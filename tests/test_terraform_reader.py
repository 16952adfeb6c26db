"""Terraform readers (issue 17): HCL source and plan JSON turned into the requests the providers would
send, in the seed's names, with unknown markers, sources and inline suppressions.

The fixtures in tests/data/terraform/ are written after the azurerm provider's documentation; the
bodies expected here follow the provider's expand functions (see that folder's README)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.errors import InputError
from auditor.expr.arm.values import Unknown, UnknownKind
from auditor.sources.deployment import DeploymentRequest, DeploymentSet
from auditor.sources.terraform import (
    SUPPORTED_TYPES,
    _expr,
    is_terraform_plan,
    looks_like_terraform,
    read_terraform,
    read_terraform_plan,
)

DATA = Path(__file__).parent / "data" / "terraform"
SUB_UNKNOWN = "/subscriptions/{subscription}"


def _by_address(ds: DeploymentSet) -> dict[str, DeploymentRequest]:
    out = {str(r.source.address): r for r in ds.requests}
    assert len(out) == len(ds.requests), "addresses are unique"
    return out


def _read(path: Path, **kwargs: Any) -> dict[str, DeploymentRequest]:
    return _by_address(read_terraform(path, **kwargs))


def _write(tmp_path: Path, text: str, name: str = "main.tf") -> Path:
    (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


def _unknowns(value: Any) -> list[Unknown]:
    if isinstance(value, Unknown):
        return [value]
    if isinstance(value, dict):
        return [u for v in value.values() for u in _unknowns(v)]
    if isinstance(value, list):
        return [u for v in value for u in _unknowns(v)]
    return []


def _domain_body(rg_location: str = "westeurope", **props: Any) -> dict[str, Any]:
    base = {
        "autoCreateTopicWithFirstSubscription": True,
        "autoDeleteTopicWithLastSubscription": True,
        "disableLocalAuth": False,
        "inputSchema": "EventRoutingSchema",
        "publicNetworkAccess": "Enabled",
    }
    base.update(props)
    return {"location": rg_location, "properties": base}


# --- event-routing domains ---------------------------------------------------------------------------


def test_domain_defaults_of_the_provider_apply_and_resource_group_resolves() -> None:
    requests = _read(DATA / "domain")
    fail = requests["azurerm_eventgrid_domain.fail"]
    assert fail.method == "PUT"
    # resource_group_name and location refer to azurerm_resource_group.example, whose arguments
    # are literals (location through var.location's default): resolved statically.
    assert fail.url == (
        f"{SUB_UNKNOWN}/resourceGroups/example-resources/providers/Cloud.EventRouting/domains/"
        "my-eventgrid-domain?api-version=2025-02-15"
    )
    expected = _domain_body()
    assert fail.body == {
        "location": "westeurope",  # "West Europe", normalised as the provider sends it
        "tags": {"environment": "Production"},
        "properties": expected["properties"],
    }
    assert (fail.source.file, fail.source.line) == (str(DATA / "domain" / "main.tf"), 8)
    # The subscription is the provider's: an unknown segment, said so.
    assert fail.unknown_url is not None and fail.unknown_url.kind is UnknownKind.DEPLOYMENT


def test_domain_that_passes_maps_every_argument() -> None:
    passing = _read(DATA / "domain")["azurerm_eventgrid_domain.pass"]
    assert passing.source.line == 18
    assert passing.body == {
        "location": "westeurope",
        "identity": {"type": "SystemAssigned"},
        "properties": {
            "autoCreateTopicWithFirstSubscription": False,
            "autoDeleteTopicWithLastSubscription": False,
            "disableLocalAuth": True,  # local_auth_enabled = false
            "inputSchema": "CloudEventSchemaV1_0",
            "publicNetworkAccess": "Disabled",
        },
    }


def test_domain_input_mapping_rules_and_user_identity() -> None:
    mapped = _read(DATA / "domain")["azurerm_eventgrid_domain.mapped"]
    assert mapped.body is not None
    props = mapped.body["properties"]
    assert props["inputSchema"] == "CustomEventSchema"
    assert props["inputSchemaMapping"] == {
        "inputSchemaMappingType": "Json",
        "properties": {
            "id": {"sourceField": "eventId"},
            "topic": {"sourceField": "topicName"},
            "eventTime": {"sourceField": "occurredAt"},
            "subject": {"sourceField": "subjectField"},
            "eventType": {"defaultValue": "Example.Event"},
            "dataVersion": {"defaultValue": "1.0"},
        },
    }
    assert props["inboundIpRules"] == [
        {"ipMask": "10.0.0.0/16", "action": "Allow"},  # the provider's default action
        {"ipMask": "0.0.0.0/0", "action": "Allow"},
    ]
    # Identity ids in the seed's names (Microsoft.ManagedIdentity -> Cloud.ManagedIdentity).
    assert mapped.body["identity"] == {
        "type": "UserAssigned",
        "userAssignedIdentities": {
            "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-events/"
            "providers/Cloud.ManagedIdentity/userAssignedIdentities/events-id": {}
        },
    }


# --- analytics clusters ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("address", "kind", "component", "name"),
    [
        ("azurerm_hdinsight_hadoop_cluster.example", "HADOOP", {"Hadoop": "2.7"}, "example-hadoop"),
        (
            "azurerm_hdinsight_spark_cluster.example",
            "SPARK",
            {"Spark": "3.3"},
            "example-hdicluster",
        ),
        ("azurerm_hdinsight_hbase_cluster.example", "HBASE", {"HBase": "2.1"}, "example-hbase"),
        ("azurerm_hdinsight_kafka_cluster.example", "KAFKA", {"Kafka": "2.1"}, "example-kafka"),
        (
            "azurerm_hdinsight_interactive_query_cluster.example",
            "INTERACTIVEHIVE",
            {"InteractiveHive": "3.1"},
            "example-llap",
        ),
    ],
)
def test_every_cluster_kind(address: str, kind: str, component: dict[str, str], name: str) -> None:
    request = _read(DATA / "clusters")[address]
    assert request.url == (
        f"{SUB_UNKNOWN}/resourceGroups/example-resources/providers/Cloud.AnalyticsCluster/clusters/"
        f"{name}?api-version=2021-06-01"
    )
    assert request.body is not None
    props = request.body["properties"]
    assert props["osType"] == "Linux" and props["tier"] == "Standard"
    assert props["clusterDefinition"]["kind"] == kind
    assert props["clusterDefinition"]["componentVersion"] == component
    gateway = props["clusterDefinition"]["configurations"]["gateway"]
    assert gateway["restAuthCredential.isEnabled"] is True
    assert gateway["restAuthCredential.username"] == "acctestusrgw"
    roles = {r["name"]: r for r in props["computeProfile"]["roles"]}
    assert roles["headnode"]["targetInstanceCount"] == 2
    assert roles["workernode"]["targetInstanceCount"] == 3
    assert roles["zookeepernode"]["targetInstanceCount"] == 3
    # Encryption in transit is sent as the provider's default (false) unless set.
    expected_transit = address.endswith("spark_cluster.example")
    assert props["encryptionInTransitProperties"] == {
        "isEncryptionInTransitEnabled": expected_transit
    }
    assert request.source.file.endswith(
        address.split(".")[0].removeprefix("azurerm_hdinsight_").removesuffix("_cluster") + ".tf"
    )


def test_spark_cluster_network_encryption_isolation_and_metastore() -> None:
    request = _read(DATA / "clusters")["azurerm_hdinsight_spark_cluster.example"]
    assert request.body is not None
    props = request.body["properties"]
    assert props["clusterVersion"] == "5.1"
    assert props["minSupportedTlsVersion"] == "1.2"
    assert props["networkProperties"] == {
        "resourceProviderConnection": "Outbound",
        "privateLink": "Enabled",
    }
    assert props["computeIsolationProperties"] == {
        "enableComputeIsolation": True,
        "hostSku": "ESv3-Type2",
    }
    assert props["diskEncryptionProperties"] == {
        "encryptionAtHost": True,
        "encryptionAlgorithm": "RSA-OAEP",
        "msiResourceId": "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/"
        "example-resources/providers/Cloud.ManagedIdentity/userAssignedIdentities/hdi",
        "vaultUri": "https://hdi-vault.vault.azure.net/",
        "keyName": "hdi-key",
        "keyVersion": "0123456789abcdef",
    }
    configurations = props["clusterDefinition"]["configurations"]
    site = configurations["hive-site"]
    # The provider builds this URL (schema.go, ExpandHDInsightsHiveMetastore): it trusts any
    # server certificate, which CLU-012 reports.
    assert site["javax.jdo.option.ConnectionURL"] == (
        "jdbc:sqlserver://metastore.database.windows.net;database=hive;encrypt=true;"
        "trustServerCertificate=true;create=false;loginTimeout=300"
    )
    password = site["javax.jdo.option.ConnectionPassword"]
    assert isinstance(password, Unknown) and password.kind is UnknownKind.SECRET_REFERENCE
    assert password.expression == "var.metastore_password"
    assert (
        configurations["hive-env"]["hive_existing_mssql_server_host"]
        == "metastore.database.windows.net"
    )
    # Node networks come from a variable's object default, in the seed's names.
    for role in props["computeProfile"]["roles"]:
        assert role["virtualNetworkProfile"]["id"].endswith(
            "/providers/Cloud.Network/virtualNetworks/hdi"
        )
        assert role["virtualNetworkProfile"]["subnet"].endswith(
            "/virtualNetworks/hdi/subnets/default"
        )
        assert role["osProfile"]["linuxOperatingSystemProfile"]["password"] == "AccTestvdSC4daf986!"
    # The storage container and key are attributes of other resources known only after apply;
    # the key is a reference, not a literal.
    (account,) = props["storageProfile"]["storageaccounts"]
    assert isinstance(account["name"], Unknown) and account["name"].kind is UnknownKind.DEPLOYMENT
    assert account["isDefault"] is True
    assert account["key"].kind is UnknownKind.SECRET_REFERENCE
    assert account["key"].expression == "azurerm_storage_account.example.primary_access_key"


def test_hadoop_ssh_keys_oozie_ambari_and_literal_secrets() -> None:
    request = _read(DATA / "clusters")["azurerm_hdinsight_hadoop_cluster.example"]
    assert request.body is not None
    props = request.body["properties"]
    for role in props["computeProfile"]["roles"]:
        linux = role["osProfile"]["linuxOperatingSystemProfile"]
        assert "password" not in linux
        assert linux["sshProfile"]["publicKeys"][0]["certificateData"].startswith("ssh-rsa AAAA")
    configurations = props["clusterDefinition"]["configurations"]
    assert configurations["gateway"]["restAuthCredential.password"] == "short"  # a literal, kept
    assert (
        configurations["oozie-site"]["oozie.service.JPAService.jdbc.password"] == "Oozie-Pass-123!"
    )
    assert configurations["oozie-site"]["oozie.service.JPAService.jdbc.url"].startswith(
        "jdbc:sqlserver://oozie.database.windows.net;database=oozie;"
    )
    assert configurations["oozie-env"]["oozie_hostname"] == "oozie.database.windows.net"
    assert configurations["ambari-conf"] == {
        "database-server": "ambari.database.windows.net",
        "database-name": "ambari",
        "database-user-name": "sqladmin",
        "database-user-password": "Ambari-Pass-123!",
    }
    assert props["storageProfile"]["storageaccounts"] == [
        {
            "name": "hadoopstor.blob.core.windows.net",
            "container": "hadoop",
            "isDefault": True,
            "key": "c3RvcmFnZS1rZXktZm9yLXRlc3RzLW9ubHk=",
        }
    ]
    assert "networkProperties" not in props and "diskEncryptionProperties" not in props


def test_kafka_disks_management_node_gen2_storage_and_identity() -> None:
    request = _read(DATA / "clusters")["azurerm_hdinsight_kafka_cluster.example"]
    assert request.body is not None
    props = request.body["properties"]
    assert props["minSupportedTlsVersion"] == "1.2"  # the older argument name min_tls_version
    roles = {r["name"]: r for r in props["computeProfile"]["roles"]}
    assert roles["workernode"]["dataDisksGroups"] == [{"disksPerNode": 3}]
    management = roles["kafkamanagementnode"]
    assert management["targetInstanceCount"] == 2
    assert management["osProfile"]["linuxOperatingSystemProfile"]["username"] == "sshadmin"
    identity_id = (
        "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/example-resources/"
        "providers/Cloud.ManagedIdentity/userAssignedIdentities/kafka"
    )
    assert props["storageProfile"]["storageaccounts"] == [
        {
            "name": "kafkastor.dfs.core.windows.net",
            "fileSystem": "kafka",
            "isDefault": True,
            "resourceId": "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/"
            "example-resources/providers/Cloud.Storage/storageAccounts/kafkastor",
            "msiResourceId": identity_id,
        }
    ]
    assert request.body["identity"] == {
        "type": "UserAssigned",
        "userAssignedIdentities": {identity_id: {}},
    }


def test_interactive_query_keeps_every_storage_account() -> None:
    request = _read(DATA / "clusters")["azurerm_hdinsight_interactive_query_cluster.example"]
    assert request.body is not None
    accounts = request.body["properties"]["storageProfile"]["storageaccounts"]
    assert [(a["name"], a["isDefault"], a["key"]) for a in accounts] == [
        ("llapstor.blob.core.windows.net", True, "<STORAGE_KEY>"),
        ("llapextra.blob.core.windows.net", False, "<STORAGE_KEY_2>"),
    ]


def test_unchecked_resource_types_are_counted_in_one_warning() -> None:
    ds = read_terraform(DATA / "clusters")
    assert ds.warnings == [
        "3 resources of types auditor does not check: azurerm_resource_group ×1, "
        "azurerm_storage_account ×1, azurerm_storage_container ×1"
    ]
    assert sorted(Path(p).name for p in ds.inputs) == [
        "hadoop.tf",
        "hbase.tf",
        "interactive_query.tf",
        "kafka.tf",
        "spark.tf",
        "variables.tf",
    ]


# --- azapi_resource and role assignments -------------------------------------------------------------


def test_azapi_domains_from_jsonencode_and_object_bodies() -> None:
    ds = read_terraform(DATA / "azapi")
    requests = _by_address(ds)
    encoded = requests["azapi_resource.domain_json"]
    assert encoded.url == (
        "/subscriptions/11111111-1111-1111-1111-111111111111/resourceGroups/rg-events/providers/"
        "Cloud.EventRouting/domains/azapi-domain?api-version=2025-02-15"
    )
    assert encoded.unknown_url is None
    assert encoded.body == {
        "properties": {
            "publicNetworkAccess": "Disabled",
            "disableLocalAuth": True,
            "inputSchema": "EventRoutingSchema",  # the vendor's EventGridSchema, in the seed's name
            "minimumTlsVersionAllowed": "1.2",
        },
        "location": "westeurope",
    }
    other = requests["azapi_resource.domain_object"]
    assert other.url.endswith("/domains/azapi-domain-2?api-version=2023-12-15-preview")  # kept
    assert other.body == {
        "properties": {
            "publicNetworkAccess": "Enabled",
            "inboundIpRules": [{"ipMask": "203.0.113.0/24", "action": "Allow"}],
        },
        "location": "westeurope",
        "tags": {"team": "events"},
        "identity": {"type": "SystemAssigned"},
    }
    assert ds.warnings == [
        "1 resource of types auditor does not check: azapi_resource (Cloud.Storage/storageAccounts) ×1"
    ]


def test_role_assignments_by_id_by_builtin_name_and_by_unknown_name() -> None:
    requests = _read(DATA / "role_assignment")
    scope = "/subscriptions/33333333-3333-3333-3333-333333333333/resourceGroups/rg-data"
    by_id = requests["azurerm_role_assignment.by_id"]
    assert by_id.url == (
        f"{scope}/providers/Cloud.Authorization/roleAssignments/44444444-4444-4444-4444-444444444444"
        "?api-version=2022-04-01"
    )
    assert by_id.body == {
        "properties": {
            "roleDefinitionId": "/subscriptions/33333333-3333-3333-3333-333333333333/providers/"
            "Cloud.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7",
            "principalId": "22222222-2222-2222-2222-222222222222",
            "principalType": "User",
            "description": "Readers of the data resource group",
        }
    }
    by_name = requests["azurerm_role_assignment.by_name"]
    # No name: a GUID the provider chooses when it applies.
    assert by_name.unknown_url is not None and by_name.unknown_url.kind is UnknownKind.DEPLOYMENT
    assert "/roleAssignments/{azurerm_role_assignment.by_name.name}?" in by_name.url
    assert by_name.body is not None
    props = by_name.body["properties"]
    # "Storage Blob Data Reader" is a shipped built-in role.
    assert props["roleDefinitionId"].endswith(
        "/roleDefinitions/2a2b9908-6ea1-4ae2-8e65-a410df84e7d1"
    )
    assert props["principalType"] == "ServicePrincipal"  # skip_service_principal_aad_check
    assert props["conditionVersion"] == "2.0"  # the provider's default with a condition
    assert props["condition"].startswith("(\n (\n  !(ActionMatches{")  # <<- heredoc, indent trimmed
    assert props["condition"].endswith(")\n")
    custom = requests["azurerm_role_assignment.custom_role"].body
    assert custom is not None
    role = custom["properties"]["roleDefinitionId"]
    assert isinstance(role, Unknown) and role.kind is UnknownKind.DEPLOYMENT


# --- variables, locals, loops --------------------------------------------------------------------------


def test_variable_precedence_as_terraform() -> None:
    folder = DATA / "variables"
    ds = read_terraform(
        folder,
        var_files=[folder / "extra.tfvars", folder / "extra.tfvars.json"],
        variables={"from_cli": "cli", "count_of": "2"},
    )
    names = [r.url.split("/domains/")[1].split("?")[0] for r in ds.requests]
    # default < terraform.tfvars < a.auto.tfvars < b.auto.tfvars.json < --var-file < -var
    assert names == ["default.tfvars.auto-b.var-file.cli.0", "default.tfvars.auto-b.var-file.cli.1"]
    body = ds.requests[0].body
    assert body is not None
    assert body["properties"]["publicNetworkAccess"] == "Disabled"  # "false" for a bool variable
    assert body["properties"]["inboundIpRules"] == [
        {"ipMask": "10.1.0.0/16", "action": "Allow"},
        {"ipMask": "10.2.0.0/16", "action": "Allow"},
    ]  # a dynamic block over a list from a .tfvars.json file
    assert [Path(p).name for p in ds.inputs] == [
        "main.tf",
        "variables.tf",
        "terraform.tfvars",
        "a.auto.tfvars",
        "b.auto.tfvars.json",
        "extra.tfvars",
        "extra.tfvars.json",
    ]
    assert ds.warnings == [
        f"{folder / 'terraform.tfvars'}: a value for 'undeclared' is ignored: no such variable is declared"
    ]


def test_cli_value_of_a_collection_variable_is_hcl() -> None:
    ds = read_terraform(DATA / "variables", variables={"rules": '["10.9.0.0/16"]'})
    body = ds.requests[0].body
    assert body is not None
    assert body["properties"]["inboundIpRules"] == [{"ipMask": "10.9.0.0/16", "action": "Allow"}]
    with pytest.raises(InputError) as err:
        read_terraform(DATA / "variables", variables={"rules": '["Secret-Value-77!"'})
    assert err.value.source == "-var rules"
    assert "Secret-Value-77" not in str(err.value)
    with pytest.raises(InputError) as err:
        read_terraform(DATA / "variables", variables={"count_of": "many"})
    assert "count_of" in str(err.value) and "not a number" in str(err.value)


def test_locals_count_for_each_dynamic_and_for_expressions() -> None:
    requests = _read(DATA / "loops")
    assert list(requests) == [
        "azurerm_eventgrid_domain.regional[0]",
        "azurerm_eventgrid_domain.regional[1]",
        'azurerm_eventgrid_domain.team["alpha"]',
        'azurerm_eventgrid_domain.team["beta"]',
        'azurerm_eventgrid_domain.set["a"]',
        'azurerm_eventgrid_domain.set["b"]',
    ]  # count = 0 makes none; toset drops the duplicate
    second = requests["azurerm_eventgrid_domain.regional[1]"]
    assert second.url.endswith(
        "/resourceGroups/rg-evt-prod/providers/Cloud.EventRouting/domains/evt-prod-northeurope-1"
        "?api-version=2025-02-15"
    )
    assert second.source.line == 18
    assert second.body is not None
    assert second.body["location"] == "northeurope"
    props = second.body["properties"]
    assert props["disableLocalAuth"] is True  # local.is_prod ? false : true
    assert props["inboundIpRules"] == [
        {"ipMask": "198.51.100.0/24", "action": "Allow"},  # office, vpn: keys in lexical order
        {"ipMask": "192.0.2.0/24", "action": "Allow"},
    ]
    alpha = requests['azurerm_eventgrid_domain.team["alpha"]'].body
    beta = requests['azurerm_eventgrid_domain.team["beta"]'].body
    assert alpha is not None and beta is not None
    assert alpha["properties"]["publicNetworkAccess"] == "Disabled"
    assert beta["properties"]["publicNetworkAccess"] == "Enabled"


def test_single_file_is_read_with_its_folders_variables() -> None:
    ds = read_terraform(DATA / "domain" / "main.tf")
    assert {r.source.address for r in ds.requests} == {
        "azurerm_eventgrid_domain.fail",
        "azurerm_eventgrid_domain.pass",
        "azurerm_eventgrid_domain.mapped",
    }
    assert ds.requests[0].body is not None and ds.requests[0].body["location"] == "westeurope"
    assert Path(ds.inputs[1]).name == "variables.tf"
    # A file of only variables has no resources (and does not read its sibling's).
    assert read_terraform(DATA / "domain" / "variables.tf").requests == []


# --- unknown values ------------------------------------------------------------------------------------


def test_unknown_values_say_why() -> None:
    ds = read_terraform(DATA / "unknowns")
    requests = _by_address(ds)
    domain = requests["azurerm_eventgrid_domain.unknown"]
    assert domain.url == (
        f"{SUB_UNKNOWN}/resourceGroups/{{data.azurerm_client_config.current.tenant_id}}/providers/"
        "Cloud.EventRouting/domains/{var.domain_name}?api-version=2025-02-15"
    )
    assert domain.unknown_url is not None
    assert (
        domain.unknown_url.kind is UnknownKind.UNRESOLVED
        and "domain_name" in domain.unknown_url.reason
    )
    assert domain.body is not None
    props = domain.body["properties"]
    public = props["publicNetworkAccess"]
    assert isinstance(public, Unknown) and public.expression == "var.replicas > 2"
    assert public.origin == "var.replicas" and public.kind is UnknownKind.UNRESOLVED
    schema = props["inputSchema"]
    assert isinstance(schema, Unknown) and schema.kind is UnknownKind.NOT_IMPLEMENTED
    # count = var.replicas without a value: one resource, flagged.
    counted = requests["azurerm_eventgrid_domain.counted"]
    assert "{count.index}" in counted.url
    assert any("count of azurerm_eventgrid_domain.counted is not known" in w for w in ds.warnings)


def test_secrets_not_known_are_references_and_literals_never_leak() -> None:
    ds = read_terraform(DATA / "unknowns")
    cluster = _by_address(ds)["azurerm_hdinsight_hadoop_cluster.secrets"].body
    assert cluster is not None
    configurations = cluster["properties"]["clusterDefinition"]["configurations"]
    gateway = configurations["gateway"]["restAuthCredential.password"]
    assert gateway.kind is UnknownKind.SECRET_REFERENCE
    assert gateway.expression == "random_password.gateway.result"
    key = cluster["properties"]["storageProfile"]["storageaccounts"][0]["key"]
    assert key.kind is UnknownKind.SECRET_REFERENCE  # a data source's attribute
    roles = {r["name"]: r for r in cluster["properties"]["computeProfile"]["roles"]}
    worker = roles["workernode"]
    suffixed = worker["osProfile"]["linuxOperatingSystemProfile"]["password"]
    # "${var.admin_password}-suffix": a reference; its texts name only the reference.
    assert suffixed.kind is UnknownKind.SECRET_REFERENCE
    assert suffixed.expression == suffixed.origin == "var.admin_password"
    assert isinstance(worker["targetInstanceCount"], Unknown)
    url = configurations["hive-site"]["javax.jdo.option.ConnectionURL"]
    # The server is not known; the URL's TLS settings are the provider's constants all the same.
    assert url == (
        "jdbc:sqlserver://{var.domain_name};database=hive;encrypt=true;"
        "trustServerCertificate=true;create=false;loginTimeout=300"
    )


def test_no_literal_secret_appears_in_unknowns_or_warnings(tmp_path: Path) -> None:
    secret = "Literal-Secret-99!"
    _write(
        tmp_path,
        f"""
variable "suffix" {{
  type = string
}}
resource "azurerm_hdinsight_spark_cluster" "c" {{
  name                = "c"
  resource_group_name = "rg"
  location            = "westeurope"
  cluster_version     = "5.1"
  tier                = "Standard"
  gateway {{
    username = "admin"
    password = "{secret}${{var.suffix}}"
  }}
  roles {{
    head_node {{
      vm_size  = "Standard_D3_V2"
      username = "admin"
      password = format("%s%s", "{secret}", var.suffix)
    }}
  }}
}}
""",
    )
    ds = read_terraform(tmp_path)
    (request,) = ds.requests
    assert request.body is not None
    props = request.body["properties"]
    gateway = props["clusterDefinition"]["configurations"]["gateway"]["restAuthCredential.password"]
    head = props["computeProfile"]["roles"][0]["osProfile"]["linuxOperatingSystemProfile"]
    for value in (gateway, head["password"]):
        assert isinstance(value, Unknown) and value.kind is UnknownKind.SECRET_REFERENCE
        assert value.expression == "var.suffix"
    texts = list(ds.warnings)
    for u in _unknowns(request.body):
        texts += [u.expression, u.reason, u.origin]
    assert len(texts) >= 6 and not any(secret in t for t in texts)
    # Outside a secret field too, an Unknown does not quote text that looks like a secret.
    _write(
        tmp_path,
        f'resource "azurerm_eventgrid_domain" "d" {{\n  name = "{secret}${{var.x}}"\n}}\n'
        'variable "x" {}\n',
    )
    (request,) = read_terraform(tmp_path).requests
    assert request.unknown_url is not None
    assert secret not in request.url and secret not in request.unknown_url.expression


# --- suppressions and errors -------------------------------------------------------------------------


def test_inline_suppressions_inside_the_resource_block() -> None:
    requests = _read(DATA / "suppress")
    assert requests["azurerm_eventgrid_domain.suppressed"].suppressions == {
        "DOM-001": "Public endpoint required by the partner integration (ticket SEC-42)",
        "DOM-005": "Local auth kept until the publisher moves to tokens",
        "DOM-006": "Local auth kept until the publisher moves to tokens",
        "DOM-00*": "legacy domain, replaced in Q3",
    }
    # A comment above the block and text inside a string are not suppressions.
    assert requests["azurerm_eventgrid_domain.plain"].suppressions == {}


def test_a_suppression_before_an_operator_keeps_its_line(tmp_path: Path) -> None:
    # python-hcl2 folds a comment at a line break into the operator after it.
    _write(
        tmp_path,
        'resource "azurerm_eventgrid_domain" "d" {\n  name = "d"\n'
        "  local_auth_enabled = (true # auditor:skip=DOM-005\n    && false)\n}\n",
    )
    with pytest.raises(InputError) as err:
        read_terraform(tmp_path)
    assert err.value.location == "line 3"


def test_a_suppression_without_a_reason_is_an_input_error() -> None:
    with pytest.raises(InputError) as err:
        read_terraform(DATA / "suppress_no_reason")
    assert err.value.source == str(DATA / "suppress_no_reason" / "main.tf")
    assert err.value.location == "line 6"
    assert "DOM-001" in str(err.value) and "no reason" in str(err.value)


def test_syntax_error_names_file_line_and_column_never_the_text() -> None:
    with pytest.raises(InputError) as err:
        read_terraform(DATA / "syntax")
    assert err.value.exit_code == 2
    assert err.value.source == str(DATA / "syntax" / "broken.tf")
    assert err.value.location == "line 4, column 30"
    assert "expected" in str(err.value)
    assert "trailing" not in str(err.value) and "S3cret" not in str(err.value)


def test_errors_for_folders_without_terraform_and_missing_files(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"no Terraform files"):
        read_terraform(tmp_path)
    with pytest.raises(InputError) as err:
        read_terraform(tmp_path / "absent.tf")
    assert err.value.source == str(tmp_path / "absent.tf")


def test_hostile_configurations_stay_within_bounds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    deep = "(" * 400 + "1" + ")" * 400
    _write(tmp_path, f'resource "azurerm_eventgrid_domain" "d" {{\n  name = {deep}\n}}\n')
    with pytest.raises(InputError, match="nests too deeply"):
        read_terraform(tmp_path)
    _write(
        tmp_path,
        'resource "azurerm_eventgrid_domain" "d" {\n  count = 100000\n  name = "d"\n'
        '  resource_group_name = "rg"\n}\n',
    )
    ds = read_terraform(tmp_path)
    assert len(ds.requests) == 1 and "count" in ds.warnings[0]
    monkeypatch.setattr(_expr, "MAX_STEPS", 5_000)
    _write(
        tmp_path,
        "locals {\n  xs = [for i in [1,2,3,4,5,6,7,8,9,10]: [for j in [1,2,3,4,5,6,7,8,9,10]:"
        " [for k in [1,2,3,4,5,6,7,8,9,10]: i * j * k]]]\n}\n"
        'resource "azurerm_eventgrid_domain" "d" {\n  name = length(local.xs)\n}\n',
    )
    with pytest.raises(InputError, match="more than 5,000 steps"):
        read_terraform(tmp_path)


# --- expressions ---------------------------------------------------------------------------------------


def _name_of(tmp_path: Path, expression: str, prelude: str = "") -> Any:
    """The value of ``expression``, as the tags argument of a domain carries it."""
    _write(
        tmp_path,
        f'{prelude}\nresource "azurerm_eventgrid_domain" "d" {{\n  name = "n"\n'
        f'  resource_group_name = "rg"\n  tags = {expression}\n}}\n',
    )
    body = read_terraform(tmp_path).requests[0].body
    assert body is not None
    return body.get("tags")


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        ('"a-${1 + 2 * 3}"', "a-7"),
        ("10 / 4", 2.5),
        ('upper("x") == "X" && !false', True),
        ("true || var.missing", True),  # a known true decides ||
        ('join(",", concat(["a"], ["b", "c"]))', "a,b,c"),
        ('lookup({a = 1}, "b", 2)', 2),
        ('coalesce(null, "", "x")', "x"),
        ('format("%s=%d %q %%", "k", 5, "v")', 'k=5 "v" %'),
        ("jsonencode({a = [1, true, null]})", '{"a":[1,true,null]}'),
        ('{for k, v in {b = 2, a = 1} : v => k}["1"]', "a"),
        ('[for s in ["x", "y"] : upper(s) if s != "y"]', ["X"]),
        ("[{id = 1}, {id = 2}][*].id", [1, 2]),
        ('"$${literal} %%{x}"', "${literal} %{x}"),
        ('"tab\\tquote\\" \\u00e9"', 'tab\tquote" é'),
        ('<<EOT\nhello ${upper("x")}\nEOT', "hello X\n"),
        ("-3 % 2", -1),
    ],
)
def test_expressions(tmp_path: Path, expression: str, value: Any) -> None:
    assert _name_of(tmp_path, expression, 'variable "missing" {}') == value


def test_unknown_aware_expressions(tmp_path: Path) -> None:
    prelude = 'variable "missing" {}'
    value = _name_of(tmp_path, "var.missing ? 1 : 2", prelude)
    assert isinstance(value, Unknown) and value.origin == "var.missing"
    assert _name_of(tmp_path, 'var.missing ? "same" : "same"', prelude) == "same"
    value = _name_of(tmp_path, "timestamp()", prelude)
    assert isinstance(value, Unknown) and value.kind is UnknownKind.NOT_IMPLEMENTED
    value = _name_of(tmp_path, '"%{ if true }x%{ endif }"', prelude)
    assert isinstance(value, Unknown) and value.kind is UnknownKind.NOT_IMPLEMENTED
    value = _name_of(tmp_path, "local.loop", "locals {\n  loop = local.loop\n}")
    assert isinstance(value, Unknown) and "refers to itself" in value.reason
    value = _name_of(tmp_path, "[1][5]", prelude)
    assert isinstance(value, Unknown) and value.kind is UnknownKind.ERROR


def _hcl_quote(text: str) -> str:
    out = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
    out = out.replace("\t", "\\t")
    return out.replace("${", "$${").replace("%{", "%%{")


@settings(max_examples=40, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=30))
def test_quoted_strings_evaluate_to_their_text(text: str) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        assert _name_of(Path(folder), f'"{_hcl_quote(text)}"') == text


def test_url_segments_are_escaped(tmp_path: Path) -> None:
    _write(
        tmp_path,
        'resource "azurerm_eventgrid_domain" "d" {\n  name = "a/b?c"\n  resource_group_name = "rg"\n}\n',
    )
    (request,) = read_terraform(tmp_path, subscription_id="s1").requests
    assert request.url == (
        "/subscriptions/s1/resourceGroups/rg/providers/Cloud.EventRouting/domains/a%2Fb%3Fc"
        "?api-version=2025-02-15"
    )
    assert request.unknown_url is None


def test_provider_block_names_the_subscription(tmp_path: Path) -> None:
    _write(
        tmp_path,
        'provider "azurerm" {\n  features {}\n  subscription_id = "sub-default"\n}\n'
        'provider "azurerm" {\n  alias = "other"\n  features {}\n  subscription_id = "sub-other"\n}\n'
        'resource "azurerm_eventgrid_domain" "a" {\n  name = "a"\n  resource_group_name = "rg"\n}\n'
        'resource "azurerm_eventgrid_domain" "b" {\n  provider = azurerm.other\n  name = "b"\n'
        '  resource_group_name = "rg"\n}\n',
    )
    requests = _read(tmp_path)
    assert requests["azurerm_eventgrid_domain.a"].url.startswith("/subscriptions/sub-default/")
    assert requests["azurerm_eventgrid_domain.b"].url.startswith("/subscriptions/sub-other/")
    assert requests["azurerm_eventgrid_domain.a"].unknown_url is None


# --- plans -------------------------------------------------------------------------------------------------


def test_plan_json_creates_updates_deletes_and_skips() -> None:
    path = DATA / "plan" / "plan.json"
    ds = read_terraform_plan(path)
    requests = _by_address(ds)
    assert sorted(requests) == [
        "azurerm_eventgrid_domain.changed",
        "azurerm_eventgrid_domain.fail",
        "azurerm_eventgrid_domain.gone",
        "azurerm_hdinsight_spark_cluster.c",
        "azurerm_role_assignment.ra[0]",
        "module.events.azurerm_eventgrid_domain.inner",  # replaced: the new one is a PUT
    ]  # no-op, read and data sources are passed over
    fail = requests["azurerm_eventgrid_domain.fail"]
    assert (fail.source.file, fail.source.line) == (str(path), None)
    assert fail.body == _domain_body()
    changed = requests["azurerm_eventgrid_domain.changed"]
    assert changed.url == (
        "/subscriptions/55555555-5555-5555-5555-555555555555/resourceGroups/rg-plan/providers/"
        "Cloud.EventRouting/domains/plan-changed?api-version=2025-02-15"
    )  # the subscription from the resource's id
    assert changed.body == _domain_body(
        disableLocalAuth=True,
        publicNetworkAccess="Disabled",
        inboundIpRules=[{"ipMask": "10.0.0.0/16", "action": "Allow"}],
    )
    gone = requests["azurerm_eventgrid_domain.gone"]
    assert (gone.method, gone.body) == ("DELETE", None)
    assert requests["module.events.azurerm_eventgrid_domain.inner"].method == "PUT"
    assert ds.warnings == ["1 resource of types auditor does not check: azurerm_resource_group ×1"]
    assert ds.inputs == [str(path)]


def test_plan_after_unknown_and_configured_references() -> None:
    requests = _by_address(read_terraform_plan(DATA / "plan" / "plan.json"))
    cluster = requests["azurerm_hdinsight_spark_cluster.c"].body
    assert cluster is not None
    configurations = cluster["properties"]["clusterDefinition"]["configurations"]
    gateway = configurations["gateway"]["restAuthCredential.password"]
    # The plan holds the value, but the configuration sets it from var.gateway_password.
    assert isinstance(gateway, Unknown) and gateway.kind is UnknownKind.SECRET_REFERENCE
    assert gateway.expression == "var.gateway_password"
    (account,) = cluster["properties"]["storageProfile"]["storageaccounts"]
    assert account["name"].kind is UnknownKind.DEPLOYMENT
    assert (
        account["name"].expression
        == "azurerm_hdinsight_spark_cluster.c.storage_account[0].storage_container_id"
    )
    assert account["key"].kind is UnknownKind.SECRET_REFERENCE
    head = cluster["properties"]["computeProfile"]["roles"][0]
    assert head["osProfile"]["linuxOperatingSystemProfile"]["password"] == "AccTestvdSC4daf986!"
    assignment = requests["azurerm_role_assignment.ra[0]"]
    assert (
        assignment.unknown_url is not None and assignment.unknown_url.kind is UnknownKind.DEPLOYMENT
    )
    assert assignment.body == {
        "properties": {
            "roleDefinitionId": "/subscriptions/55555555-5555-5555-5555-555555555555/providers/"
            "Cloud.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7",
            "principalId": "22222222-2222-2222-2222-222222222222",
        }
    }


def test_plan_recognition_and_errors(tmp_path: Path) -> None:
    plan = json.loads((DATA / "plan" / "plan.json").read_text())
    assert is_terraform_plan(plan)
    assert not is_terraform_plan({"planVersion": 1, "requests": []})
    assert looks_like_terraform(DATA / "plan" / "plan.json")
    assert looks_like_terraform(DATA / "domain" / "main.tf")
    assert looks_like_terraform(DATA / "domain")
    assert not looks_like_terraform(DATA / "variables" / "terraform.tfvars")
    assert not looks_like_terraform(DATA / "variables" / "extra.tfvars.json")
    arm = tmp_path / "azuredeploy.json"
    arm.write_text('{"$schema": "x", "contentVersion": "1.0.0.0", "resources": []}')
    assert not looks_like_terraform(arm)
    with pytest.raises(InputError, match="not the JSON of a Terraform plan"):
        read_terraform_plan(arm)
    bad = dict(plan, resource_changes=[{"address": "x"}])
    with pytest.raises(InputError) as err:
        read_terraform_plan(tmp_path / "p.json", data=bad)
    assert err.value.location == "resource_changes[0]"


def test_supported_types_are_the_contracts() -> None:
    assert {
        "azurerm_eventgrid_domain",
        "azurerm_role_assignment",
        "azapi_resource",
        "azurerm_hdinsight_hadoop_cluster",
        "azurerm_hdinsight_spark_cluster",
        "azurerm_hdinsight_hbase_cluster",
        "azurerm_hdinsight_kafka_cluster",
        "azurerm_hdinsight_interactive_query_cluster",
    } == SUPPORTED_TYPES


def test_plan_resource_wholly_unknown_and_count_given_as_text(tmp_path: Path) -> None:
    change = {
        "address": "azurerm_eventgrid_domain.d",
        "mode": "managed",
        "type": "azurerm_eventgrid_domain",
        "name": "d",
        "change": {"actions": ["create"], "before": None, "after": {}, "after_unknown": True},
    }
    plan = {"format_version": "1.2", "resource_changes": [change]}
    (request,) = read_terraform_plan(tmp_path / "plan.json", data=plan).requests
    assert request.unknown_url is not None and request.unknown_url.kind is UnknownKind.DEPLOYMENT
    assert request.body is not None
    assert isinstance(request.body["location"], Unknown)
    _write(
        tmp_path,
        'variable "n" {}\nresource "azurerm_eventgrid_domain" "d" {\n  count = var.n\n'
        '  name = "d${count.index}"\n  resource_group_name = "rg"\n}\n',
    )
    ds = read_terraform(
        tmp_path, variables={"n": "2"}
    )  # untyped: text, converted as Terraform does
    assert [r.source.address for r in ds.requests] == [
        "azurerm_eventgrid_domain.d[0]",
        "azurerm_eventgrid_domain.d[1]",
    ]
    ds = read_terraform(tmp_path, variables={"n": "two"})
    assert len(ds.requests) == 1
    assert ds.warnings == [
        f"{tmp_path / 'main.tf'}:2: the count of azurerm_eventgrid_domain.d is not a usable number "
        "or collection; read as one resource whose values are as written"
    ]


def test_override_and_json_files_are_listed_as_skipped(tmp_path: Path) -> None:
    domain = (
        'resource "azurerm_eventgrid_domain" "d" {\n  name = "d"\n  resource_group_name = "rg"\n}\n'
    )
    _write(tmp_path, domain)
    _write(tmp_path, domain, "main_override.tf")  # would declare the resource twice if read
    _write(tmp_path, "{}", "extra.tf.json")
    ds = read_terraform(tmp_path)
    assert [r.source.address for r in ds.requests] == ["azurerm_eventgrid_domain.d"]
    assert ds.skipped == [
        (str(tmp_path / "extra.tf.json"), "Terraform's JSON syntax (.tf.json) is not read"),
        (str(tmp_path / "main_override.tf"), "Terraform override files are not merged"),
    ]


_HCL_PIECES = st.sampled_from(
    [
        'resource "azurerm_eventgrid_domain" "d" {',
        'resource "azurerm_hdinsight_spark_cluster" "c" {',
        "}",
        "{",
        "\n",
        "name = ",
        "count = ",
        "for_each = ",
        "roles {",
        "head_node {",
        'dynamic "inbound_ip_rule" {',
        "content {",
        "var.x",
        "local.y",
        "locals {",
        "y = ",
        'variable "x" {',
        "default = ",
        "[",
        "]",
        "(",
        ")",
        '"',
        "${",
        "%{",
        "<<EOT\n",
        "EOT\n",
        "# auditor:skip=DOM-001 why\n",
        "1",
        "-",
        "/",
        "? 1 : 2",
        "[for a in [1, 2] : a]",
        'format("%s", 1)',
        "each.key",
        "count.index",
        "azurerm_x.y.z",
        "null",
        "true",
        "==",
        "&&",
    ]
)


@settings(max_examples=60, deadline=None)
@given(st.lists(_HCL_PIECES, max_size=25))
def test_any_text_reads_or_is_an_input_error(pieces: list[str]) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        _write(Path(folder), " ".join(pieces))
        try:
            read_terraform(folder)
        except InputError as err:
            assert err.exit_code == 2 and err.source is not None


def test_the_parser_tables_are_cached_in_the_users_own_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from auditor.sources.terraform._hcl import _cache_file

    monkeypatch.delenv("AUDITOR_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = _cache_file()
    assert isinstance(path, str) and path.startswith(str(tmp_path / "cache" / "auditor"))
    assert (tmp_path / "cache" / "auditor").stat().st_mode & 0o077 == 0  # private
    # a folder that is not the user's own is not used (the tables are a pickle)
    monkeypatch.setenv("XDG_CACHE_HOME", "/")
    monkeypatch.setattr("os.getuid", lambda: 12345)
    assert _cache_file() is False
