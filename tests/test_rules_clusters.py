"""CLU-001..CLU-015 with failing and passing fixtures written from rules.md; secrets are references
or literals, never echoed."""

from __future__ import annotations

from typing import Any

import pytest

from tests.test_rules_helpers import SUB, cluster_body, one, run_plan, run_snapshot, statuses

CONFIG = ("properties", "clusterDefinition", "configurations")


def _configs(body: dict[str, Any]) -> dict[str, Any]:
    return body["properties"]["clusterDefinition"]["configurations"]


def _roles(body: dict[str, Any]) -> list[dict[str, Any]]:
    return body["properties"]["computeProfile"]["roles"]


def _plan(rule: str, body: dict[str, Any], **kw: Any) -> list[str]:
    return statuses(run_plan(rule, ("cluster", body), **kw))


@pytest.mark.parametrize(
    "rule",
    [f"CLU-{n:03d}" for n in (1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13)],
)
def test_compliant_cluster_passes(rule: str) -> None:
    assert _plan(rule, cluster_body()) == ["pass"]


def test_clu001_002_defaults_are_false() -> None:
    body = cluster_body()
    del body["properties"]["encryptionInTransitProperties"]
    del body["properties"]["diskEncryptionProperties"]
    assert _plan("CLU-001", body) == ["fail"]
    assert _plan("CLU-002", body) == ["fail"]


def _estate_cluster(**props: Any) -> dict[str, Any]:
    return {
        "id": f"{SUB}/resourceGroups/rg/providers/Cloud.AnalyticsCluster/clusters/c1",
        "name": "c1",
        "location": "westeurope",
        "properties": {"provisioningState": "Succeeded", "clusterState": "Running", **props},
    }


def test_clu003_customer_managed_key_estate() -> None:
    good = _estate_cluster(diskEncryptionProperties={"keyName": "k", "vaultUri": "https://v"})
    bad = _estate_cluster(diskEncryptionProperties={"keyName": "k", "vaultUri": None})
    bad["id"] += "-2"  # one entry per id (entries sharing an id are merged, or refused)
    assert statuses(run_snapshot("CLU-003", {"clusters": [good, bad]})) == ["pass", "fail"]


def test_clu004_roles_in_vnet() -> None:
    body = cluster_body()
    del _roles(body)[1]["virtualNetworkProfile"]["subnet"]
    findings = run_plan("CLU-004", ("cluster", body))
    f = one(findings)
    assert f.status == "fail" and f.evidence["role"] == "workernode"
    assert f.location == "requests[0].body.properties.computeProfile.roles[1]"


def test_clu005_006_network() -> None:
    body = cluster_body()
    body["properties"]["networkProperties"] = {
        "resourceProviderConnection": "Inbound",
        "privateLink": "Enabled",
    }
    assert _plan("CLU-005", body) == ["fail"]
    assert _plan("CLU-006", body) == ["fail"]  # private link without Outbound
    body["properties"]["networkProperties"] = {
        "resourceProviderConnection": "Outbound",
        "privateLink": "Disabled",
    }
    assert _plan("CLU-005", body) == ["pass"]
    assert _plan("CLU-006", body) == ["fail"]
    del body["properties"]["networkProperties"]
    assert _plan("CLU-005", body) == ["fail"]


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        (True, True),
        ("true", True),
        ("True", True),
        (False, False),
        ("false", False),
        ("yes", False),
        (None, False),
    ],
)
def test_clu007_gateway_flag(value: Any, ok: bool) -> None:
    body = cluster_body()
    _configs(body)["gateway"]["restAuthCredential.isEnabled"] = value
    assert _plan("CLU-007", body) == (["pass"] if ok else ["fail"])


def test_clu007_missing_gateway_group() -> None:
    body = cluster_body()
    del _configs(body)["gateway"]
    assert _plan("CLU-007", body) == ["fail"]


def test_clu008_literals_vs_references() -> None:
    body = cluster_body()
    _configs(body)["gateway"]["restAuthCredential.password"] = "Sup3r-Secret!"
    body["properties"]["storageProfile"]["storageaccounts"][0]["key"] = "AAAAkeyvalue=="
    _roles(body)[0]["osProfile"]["linuxOperatingSystemProfile"]["password"] = "${NODE_PASSWORD}"
    _configs(body)["hive-site"]["javax.jdo.option.ConnectionPassword"] = "<HIVE_PASSWORD>"
    findings = run_plan("CLU-008", ("cluster", body))
    assert statuses(findings) == ["fail", "fail"]
    fields = {f.evidence["field"] for f in findings}
    assert fields == {
        "configurations.gateway[restAuthCredential.password]",
        "storageaccounts[stc1.blob.example.net].key",
    }
    text = repr([f.to_json() for f in findings])
    assert "Sup3r-Secret!" not in text and "AAAAkeyvalue==" not in text
    assert "a literal value of 13 characters" in text


def test_clu008_metastore_passwords_and_ssh_key_not_a_literal() -> None:
    body = cluster_body()
    _configs(body)["ambari-conf"]["database-user-password"] = "literal-pw"
    _configs(body)["oozie-site"]["oozie.service.JPAService.jdbc.password"] = "another"
    findings = run_plan("CLU-008", ("cluster", body))
    assert len(findings) == 2 and statuses(findings) == ["fail", "fail"]


def test_clu009_password_login() -> None:
    body = cluster_body()
    _roles(body)[0]["osProfile"]["linuxOperatingSystemProfile"]["password"] = "<PASSWORD>"
    _roles(body)[2]["osProfile"]["linuxOperatingSystemProfile"]["sshProfile"]["publicKeys"] = []
    findings = run_plan("CLU-009", ("cluster", body))
    assert [(f.status, f.evidence["role"]) for f in findings] == [
        ("fail", "headnode"),
        ("fail", "zookeepernode"),
    ]


@pytest.mark.parametrize(
    ("password", "ok"),
    [
        ("Sample-Pa55word!", True),
        ("Sample1!", False),  # 8 characters
        ("samplepass", False),  # no upper, digit, symbol
        ("SAMPLEPASS1!", False),  # no lower
        ("Samplepass12", False),  # no symbol
        ("Sample pass 1", True),  # a space is a symbol
    ],
)
def test_clu010_weak_passwords(password: str, ok: bool) -> None:
    body = cluster_body()
    _configs(body)["gateway"]["restAuthCredential.password"] = password
    findings = run_plan("CLU-010", ("cluster", body))
    assert statuses(findings) == (["pass"] if ok else ["fail"])
    assert password not in repr([f.to_json() for f in findings])


def test_clu010_storage_keys_are_not_passwords() -> None:
    body = cluster_body()
    body["properties"]["storageProfile"]["storageaccounts"][0]["key"] = "short"
    assert _plan("CLU-010", body) == ["pass"]
    assert _plan("CLU-010", body, settings={"minPasswordLength": 20}) == ["pass"]


@pytest.mark.parametrize(
    ("version", "ok"),
    [
        ("5.1", True),
        ("5.0", False),
        ("4.0", False),
        ("5.1.3000.0", True),
        ("10.0", True),
        ("abc", False),
    ],
)
def test_clu011_versions(version: str, ok: bool) -> None:
    body = cluster_body()
    body["properties"]["clusterVersion"] = version
    assert _plan("CLU-011", body) == (["pass"] if ok else ["fail"])


def test_clu011_setting() -> None:
    body = cluster_body()
    body["properties"]["clusterVersion"] = "5.1"
    assert _plan("CLU-011", body, settings={"minimumClusterVersion": "5.2"}) == ["fail"]


@pytest.mark.parametrize(
    ("url", "ok"),
    [
        ("jdbc:sqlserver://h:1433;database=x;encrypt=true", True),
        ("jdbc:sqlserver://h:1433;DATABASE=x;Encrypt=STRICT", True),
        ("jdbc:sqlserver://h:1433;database=x;loginTimeout=30", False),
        ("jdbc:sqlserver://h;encrypt=true;trustServerCertificate=true", False),
        ("jdbc:sqlserver://h;encrypt=true;TrustServerCertificate=False", True),
        ("jdbc:postgresql://h/db?sslmode=require", True),
        ("jdbc:postgresql://h/db?sslmode=verify-full&x=1", True),
        ("jdbc:postgresql://h/db?sslmode=disable", False),
        ("jdbc:postgresql://h/db", False),
        ("jdbc:mysql://h/db?sslMode=REQUIRED", True),
        ("jdbc:mysql://h/db?SSLMODE=verify_identity", True),
        ("jdbc:mysql://h/db?sslMode=PREFERRED", False),
        ("jdbc:mariadb://h/db?sslMode=VERIFY_CA", True),
        ("jdbc:mariadb://h/db?useUnicode=true", False),
        ("jdbc:oracle:thin:@//h:1521/X", False),
        ("<METASTORE_URL>", False),
    ],
)
def test_clu012_jdbc(url: str, ok: bool) -> None:
    body = cluster_body()
    _configs(body)["hive-site"]["javax.jdo.option.ConnectionURL"] = url
    findings = run_plan("CLU-012", ("cluster", body))
    assert statuses(findings) == (["pass"] if ok else ["fail"])
    if not ok:
        assert url not in findings[0].message and url not in repr(findings[0].evidence)


@pytest.mark.parametrize(
    ("defaults", "ok"), [((True, False), True), ((True, True), False), ((False, False), False)]
)
def test_clu013_default_storage(defaults: tuple[bool, bool], ok: bool) -> None:
    body = cluster_body()
    for account, flag in zip(
        body["properties"]["storageProfile"]["storageaccounts"], defaults, strict=True
    ):
        account["isDefault"] = flag
    assert _plan("CLU-013", body) == (["pass"] if ok else ["fail"])


def test_clu014_setting_default_off() -> None:
    body = cluster_body()
    body["properties"]["computeIsolationProperties"] = {"enableComputeIsolation": False}
    assert _plan("CLU-014", body) == []
    assert _plan("CLU-014", body, settings={"requireComputeIsolation": True}) == ["fail"]
    assert _plan("CLU-014", cluster_body(), settings={"requireComputeIsolation": True}) == ["pass"]


def test_clu015_state_estate_only() -> None:
    good = _estate_cluster()
    bad = _estate_cluster(clusterState="Error")
    bad["id"] += "-2"
    assert statuses(run_snapshot("CLU-015", {"clusters": [good, bad]})) == ["pass", "fail"]
    assert _plan("CLU-015", cluster_body()) == []
