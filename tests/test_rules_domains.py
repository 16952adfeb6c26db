"""DOM-001..DOM-012, each with failing and passing fixtures written from rules.md (seed defaults
applied: a body without publicNetworkAccess is Enabled, autoCreate... null counts as true)."""

from __future__ import annotations

import pytest

from tests.test_rules_helpers import SUB, domain_body, one, run_plan, run_snapshot, statuses


def _plan(rule: str, **props: object) -> list[str]:
    return statuses(run_plan(rule, ("domain", domain_body(**props))))


def test_compliant_domain_passes_every_plan_rule() -> None:
    for rule in ("DOM-001", "DOM-002", "DOM-004", "DOM-005", "DOM-006", "DOM-009", "DOM-011"):
        assert _plan(rule) == ["pass"], rule


def test_dom001_missing_public_network_access_is_enabled_by_default() -> None:
    f = one(run_plan("DOM-001", ("domain", domain_body(publicNetworkAccess=...))))
    assert f.status == "fail"
    assert f.evidence["properties/publicNetworkAccess"] == "Enabled"
    assert f.evidence["seedDefaultsApplied"] == ["properties/publicNetworkAccess"]
    assert _plan("DOM-001", publicNetworkAccess=None) == ["fail"]
    assert _plan("DOM-001", publicNetworkAccess="Enabled") == ["fail"]
    assert _plan("DOM-001", publicNetworkAccess="Disabled") == ["pass"]


def test_dom002_open_to_every_address() -> None:
    assert _plan("DOM-002", publicNetworkAccess="Enabled") == ["fail"]
    assert _plan("DOM-002", publicNetworkAccess=...) == ["fail"]
    open_rules = [
        {"ipMask": "0.0.0.0/0", "action": "Allow"},
        {"ipMask": "bogus", "action": "Allow"},
    ]
    assert _plan("DOM-002", publicNetworkAccess="Enabled", inboundIpRules=open_rules) == ["fail"]
    narrow = [{"ipMask": "10.0.0.0/8", "action": "Allow"}]  # too wide for DOM-003, still narrows
    assert _plan("DOM-002", publicNetworkAccess="Enabled", inboundIpRules=narrow) == ["pass"]
    assert _plan("DOM-002", publicNetworkAccess="Disabled") == ["pass"]


@pytest.mark.parametrize(
    ("mask", "ok"),
    [
        ("0.0.0.0/0", False),
        ("::/0", False),
        ("10.0.0.0/8", False),  # wider than the /16 setting
        ("10.1.0.0/16", True),
        ("10.1.2.3/16", True),  # host bits tolerated
        ("203.0.113.7", True),  # bare address = /32
        ("2001:db8::/32", False),  # wider than /48
        ("2001:db8:1::/48", True),
        ("2001:db8::1", True),  # bare IPv6 = /128
        ("10.0.0.0/33", False),  # invalid CIDR
        ("not-an-ip", False),
        ("", False),
    ],
)
def test_dom003_masks(mask: str, ok: bool) -> None:
    rules = [{"ipMask": mask, "action": "Allow"}]
    findings = run_plan("DOM-003", ("domain", domain_body(inboundIpRules=rules)))
    assert statuses(findings) == (["pass"] if ok else ["fail"])


def test_dom003_action_setting_and_one_finding_per_bad_rule() -> None:
    rules = [
        {"ipMask": "10.1.0.0/16", "action": "Deny"},
        {"ipMask": "192.168.0.0/24"},  # no action: the service's default Allow
        {"ipMask": "10.0.0.0/12", "action": "Allow"},
    ]
    findings = run_plan("DOM-003", ("domain", domain_body(inboundIpRules=rules)))
    assert [(f.status, f.evidence["ipMask"]) for f in findings] == [
        ("fail", "10.1.0.0/16"),
        ("fail", "10.0.0.0/12"),
    ]
    assert findings[0].location == "requests[0].body.properties.inboundIpRules[0]"
    assert "action Deny" in findings[0].message
    assert len({f.fingerprint for f in findings}) == 2
    wider = run_plan(
        "DOM-003",
        ("domain", domain_body(inboundIpRules=[{"ipMask": "10.0.0.0/12", "action": "Allow"}])),
        settings={"ipv4MinPrefixLength": 8},
    )
    assert statuses(wider) == ["pass"]


def test_dom003_no_rules_is_not_judged() -> None:
    assert _plan("DOM-003") == []


def test_dom004_tls() -> None:
    assert _plan("DOM-004", minimumTlsVersionAllowed=...) == ["fail"]
    assert _plan("DOM-004", minimumTlsVersionAllowed="1.1") == ["fail"]
    assert _plan("DOM-004", minimumTlsVersionAllowed="1.0") == ["fail"]
    assert _plan("DOM-004", minimumTlsVersionAllowed="1.2") == ["pass"]


def test_dom005_local_auth_default_false() -> None:
    assert _plan("DOM-005", disableLocalAuth=...) == ["fail"]
    assert _plan("DOM-005", disableLocalAuth=False) == ["fail"]
    assert _plan("DOM-005", disableLocalAuth=True) == ["pass"]


def test_dom006_identity() -> None:
    body = domain_body()
    del body["identity"]
    assert statuses(run_plan("DOM-006", ("domain", body))) == ["fail"]
    body["identity"] = {"type": "None"}
    assert statuses(run_plan("DOM-006", ("domain", body))) == ["fail"]
    body["identity"] = {"type": "SystemAssigned, UserAssigned"}
    assert statuses(run_plan("DOM-006", ("domain", body))) == ["pass"]


def _estate_domain(**props: object) -> dict[str, object]:
    body = domain_body(**props)
    return {
        "id": f"{SUB}/resourceGroups/rg/providers/Cloud.EventRouting/domains/d1",
        "name": "d1",
        "type": "Cloud.EventRouting/domains",
        **body,
    }


def _pec(status: str) -> dict[str, object]:
    return {"properties": {"privateLinkServiceConnectionState": {"status": status}}}


def test_dom007_and_dom012_private_endpoints_estate_only() -> None:
    approved = _estate_domain(
        privateEndpointConnections=[_pec("Approved")], provisioningState="Succeeded"
    )
    pending = _estate_domain(
        privateEndpointConnections=[_pec("Pending")], provisioningState="Succeeded"
    )
    none = _estate_domain(provisioningState="Failed")
    pending["id"] = f"{pending['id']}-2"  # one entry per id (entries sharing one are merged)
    none["id"] = f"{none['id']}-3"
    assert statuses(run_snapshot("DOM-007", {"domains": [approved, pending, none]})) == [
        "pass",
        "fail",
        "fail",
    ]
    assert statuses(run_snapshot("DOM-012", {"domains": [approved, pending, none]})) == [
        "pass",
        "fail",
        "fail",
    ]
    assert run_plan("DOM-007", ("domain", domain_body())) == []  # estate only


def test_dom008_setting_default_off() -> None:
    assert _plan("DOM-008", dataResidencyBoundary="WithinGeopair") == []
    on = {"requireWithinRegion": True}
    body = domain_body(dataResidencyBoundary="WithinGeopair")
    assert statuses(run_plan("DOM-008", ("domain", body), settings=on)) == ["fail"]
    body = domain_body(dataResidencyBoundary="WithinRegion")
    assert statuses(run_plan("DOM-008", ("domain", body), settings=on)) == ["pass"]


def test_dom009_custom_schema_mapping() -> None:
    assert _plan("DOM-009", inputSchema="CustomEventSchema") == ["fail"]
    mapping = {
        "inputSchemaMappingType": "Json",
        "properties": {
            "id": {"sourceField": "myId"},
            "subject": {"sourceField": "s"},
            "eventType": {"defaultValue": "x"},
            "dataVersion": {},
        },
    }
    findings = run_plan(
        "DOM-009",
        ("domain", domain_body(inputSchema="CustomEventSchema", inputSchemaMapping=mapping)),
    )
    assert statuses(findings) == ["fail"]
    assert "dataVersion" in findings[0].message
    mapping["properties"]["dataVersion"] = {"sourceField": "v"}
    ok = run_plan(
        "DOM-009",
        ("domain", domain_body(inputSchema="CustomEventSchema", inputSchemaMapping=mapping)),
    )
    assert statuses(ok) == ["pass"]


def test_dom010_rules_ignored_when_public_access_disabled() -> None:
    rules = [{"ipMask": "10.1.0.0/16", "action": "Allow"}]
    assert _plan("DOM-010", publicNetworkAccess="Disabled", inboundIpRules=rules) == ["fail"]
    assert _plan("DOM-010", publicNetworkAccess=..., inboundIpRules=rules) == ["pass"]
    assert _plan("DOM-010", publicNetworkAccess="Disabled") == []


def test_dom011_user_assigned_identities() -> None:
    body = domain_body()
    body["identity"] = {"type": "UserAssigned", "userAssignedIdentities": {"/x": {}}}
    assert statuses(run_plan("DOM-011", ("domain", body))) == ["fail"]
    assert _plan("DOM-011") == ["pass"]


def test_auto_create_null_counts_as_true() -> None:
    from auditor.model.defaults import domain_with_defaults

    body = domain_body(autoCreateTopicWithFirstSubscription=None)
    assert domain_with_defaults(body)["properties"]["autoCreateTopicWithFirstSubscription"] is True
