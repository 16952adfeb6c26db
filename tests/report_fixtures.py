"""A realistic audit result for the renderer tests, built without the audit engine.

It mirrors what an audit of a small estate plus a deployment plan produces: findings of every
severity and status (waived with a justification, baselined, passing), a health event whose
description carries HTML (and an injection attempt), an access summary with a shadow admin's
escalation path, waivers applied, expired and stale. The source files it points at are written
for real, so SARIF can anchor results to lines; the plan holds literal secrets, as a careless plan
would, and no report may ever show them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from auditor.audit.findings import (
    AccessSummary,
    AuditResult,
    EscalationPath,
    Finding,
    Privileged,
    RuleInfo,
    Severity,
    Status,
    WaiverInfo,
    fingerprint,
)

SECRETS: tuple[str, ...] = (
    "Sup3r-Secret-Pa55!",
    "gw-P@ssw0rd-2026",
    "c3RvcmFnZS1rZXktdGhhdC1tdXN0LW5ldmVyLWxlYWs=",
    "devtool_pat_9f8e7d6c5b4a39281706",
)
"""Literal secrets in the sample plan and snapshot: no output of any format may contain them."""

SCRIPT_INJECTION = "<script>alert(1)</script><img src=x onerror=alert(1)>"
BOLD = "<b>bold</b>"
EVENT_DESCRIPTION = (
    f"<p>Customers may see errors publishing events. {BOLD} update follows.</p>{SCRIPT_INJECTION}"
    '<a href="javascript:alert(2)">details</a>'
)
FORMULA = '=HYPERLINK("http://attacker.invalid","click")'

SUB_PROD = "/subscriptions/11111111-1111-1111-1111-111111111111"
SUB_DEV = "/subscriptions/22222222-2222-2222-2222-222222222222"
RG_PROD = f"{SUB_PROD}/resourceGroups/rg-prod"
RG_DEV = f"{SUB_DEV}/resourceGroups/rg-dev"


def _dom(rg: str, name: str) -> str:
    return f"{rg}/providers/Cloud.EventRouting/domains/{name}"


def _clu(rg: str, name: str) -> str:
    return f"{rg}/providers/Cloud.AnalyticsCluster/clusters/{name}"


DOMAINS = [_dom(RG_PROD, "orders"), _dom(RG_PROD, "billing"), _dom(RG_DEV, "sandbox-events")]
CLUSTERS = [_clu(RG_PROD, "analytics-prod"), _clu(RG_DEV, "spark-dev")]
PLAN_DOMAIN = _dom(RG_DEV, "new-domain")
PLAN_CLUSTER = _clu(RG_DEV, "new-cluster")
EVENT_ID = f"{SUB_PROD}/providers/Cloud.ResourceHealth/events/ABC1-23D"


RULES: list[RuleInfo] = [
    RuleInfo("DOM-001", "Public network access is disabled", "high", "Cloud.EventRouting/domains",
             ("plan", "estate"), "`publicNetworkAccess` is `Enabled` (the default when missing).",
             "Set properties.publicNetworkAccess to Disabled and publish through a private endpoint.",
             ("AP f8f774be-6aee-492a-9e29-486ef81f3a68", "CK CKV_AZURE_106",
              "PS Azure.EventGrid.TopicPublicAccess", "MCSB NS-2")),
    RuleInfo("DOM-002", "Public access is narrowed by inbound IP rules", "high",
             "Cloud.EventRouting/domains", ("plan", "estate"),
             "Public access is enabled and no inbound IP rule narrows it: open to every address.",
             "Disable public network access, or add inbound IP rules for the narrowest ranges.",
             ("MCSB NS-2",)),
    RuleInfo("DOM-004", "Minimum TLS version is 1.2", "high", "Cloud.EventRouting/domains",
             ("plan", "estate"), "`minimumTlsVersionAllowed` is missing or below `1.2`.",
             "Set properties.minimumTlsVersionAllowed to 1.2.", ("PS Azure.EventGrid.DomainTLS",)),
    RuleInfo("DOM-005", "Local authentication is disabled", "high", "Cloud.EventRouting/domains",
             ("plan", "estate"), "`disableLocalAuth` is not `true`.",
             "Set properties.disableLocalAuth to true; publish with identity-provider tokens.",
             ("AP 8bfadddb-ee1c-4639-8911-a38cb8e0b3bd", "CK CKV_AZURE_195")),
    RuleInfo("DOM-006", "A managed identity is configured", "low", "Cloud.EventRouting/domains",
             ("plan", "estate"), "No managed identity.", "Add a system-assigned identity.",
             ("CK CKV_AZURE_194",)),
    RuleInfo("DOM-007", "A private endpoint is approved", "medium", "Cloud.EventRouting/domains",
             ("estate",), "No private endpoint connection with status `Approved`.",
             "Create and approve a private endpoint connection.",
             ("AP 9830b652-8523-49cc-b1b3-e17dce1127ca",)),
    RuleInfo("CLU-001", "Encryption in transit is enabled", "high",
             "Cloud.AnalyticsCluster/clusters", ("plan", "estate"),
             "`isEncryptionInTransitEnabled` is not `true`.",
             "Set encryptionInTransitProperties.isEncryptionInTransitEnabled to true.",
             ("AP d9da03a1-f3c3-412a-9709-947156872263",)),
    RuleInfo("CLU-002", "Encryption at host is enabled", "medium",
             "Cloud.AnalyticsCluster/clusters", ("plan", "estate"),
             "`encryptionAtHost` is not `true`.", "Set diskEncryptionProperties.encryptionAtHost.",
             ("AP 1fd32ebd-e4c3-4e13-a54a-d7422d4d95f6",)),
    RuleInfo("CLU-008", "No literal secrets in the plan", "critical",
             "Cloud.AnalyticsCluster/clusters", ("plan",),
             "A secret field holds a literal rather than a reference.",
             "Replace the literal with a reference such as ${GATEWAY_PASSWORD} and rotate it.",
             ("PS Azure.Deployment.SecureValue",)),
    RuleInfo("CLU-010", "Literal passwords are strong", "high", "Cloud.AnalyticsCluster/clusters",
             ("plan",), "A literal password is weak.", "Use references; never literal passwords.",
             ()),
    RuleInfo("CLU-011", "Cluster version is supported", "high", "Cloud.AnalyticsCluster/clusters",
             ("plan", "estate"), "`clusterVersion` is below the supported minimum.",
             "Upgrade the cluster to version 5.1 or later.", ()),
    RuleInfo("RBAC-001", "At most 3 owners per subscription", "high", "Cloud.Authorization",
             ("estate",), "A subscription has more than 3 owners.",
             "Remove standing Owner assignments; use just-in-time elevation.",
             ("AP 4f11b553-d42e-4e3a-89be-32ca364cad4c", "CIS 5.27", "PS Azure.RBAC.LimitOwner")),
    RuleInfo("RBAC-003", "No guest holds a privileged role", "high", "Cloud.Authorization",
             ("estate",), "A guest user holds a privileged role.",
             "Remove the guest's privileged assignments.",
             ("AP 339353f6-2387-4a45-abe4-7f529d121046",)),
    RuleInfo("RBAC-010", "No shadow admins", "critical", "Cloud.Authorization", ("estate",),
             "A principal can create role assignments without holding an admin role.",
             "Remove the permission from the custom role or the principal from the group.",
             ("https://example.invalid/docs/privilege-escalation",)),
    RuleInfo("RBAC-014", "Groups rather than direct user assignments", "low",
             "Cloud.Authorization", ("estate",), "More than 5 direct user assignments.",
             "Assign roles to groups.", ("PS Azure.RBAC.UseGroups",)),
    RuleInfo("DENY-001", "Deny assignments are reviewed", "info", "Cloud.Authorization",
             ("estate",), "A deny assignment that is not system protected.", "Review it.",
             ("docs",)),
    RuleInfo("HLT-001", "No active security advisory", "high", "Cloud.ResourceHealth/events",
             ("estate",), "An active SecurityAdvisory event.", "Follow the advisory's actions.",
             ("docs",)),
    RuleInfo("HLT-004", "No high-incident-rate event", "medium", "Cloud.ResourceHealth/events",
             ("estate",), "`isHIR` is true.", "Watch the incident and its report.", ("docs",)),
    RuleInfo("TOK-001", "No tokens after the service's retirement", "high",
             "DevTooling/tokens", ("estate",), "An API token exists after 2025-03-31.",
             "Revoke every token and move to the successor service.", ("seed 9",)),
    RuleInfo("TOK-004", "Tokens are described", "low", "DevTooling/tokens", ("estate",),
             "A token's description is empty or generic.", "Describe each token's purpose.",
             ("seed 5.2",)),
]  # fmt: skip

RULE_BY_ID = {r.id: r for r in RULES}

WAIVER_ORDERS = WaiverInfo(
    "W-0007", "DOM-001", _dom(RG_PROD, "orders"),
    "Partner webhooks publish from the internet; reviewed quarterly by <i>security</i>",
    "2027-03-31",
)  # fmt: skip
WAIVER_TOKENS = WaiverInfo(
    "W-0009", "TOK-*", "*", "Migration to the successor service planned", "2026-01-31", True
)
WAIVER_STALE = WaiverInfo(
    "W-0012", "CLU-003", "/subscriptions/*/resourceGroups/legacy-*", "Legacy clusters", "2027-06-30"
)


def snapshot_document() -> dict[str, Any]:
    """The snapshot the findings point into (secrets included in the dev tooling area)."""
    return {
        "snapshotVersion": 1,
        "collectedAt": "2026-11-21T10:00:00Z",
        "tenantId": "tenant-1",
        "principals": [
            {"id": "u-alice", "type": "User", "displayName": "Alice Admin", "userType": "Member"},
            {"id": "u-guest", "type": "User", "displayName": "Gus Guest", "userType": "Guest"},
        ],
        "roleAssignments": [
            {
                "id": f"{SUB_PROD}/providers/Cloud.Authorization/roleAssignments/ra-{i}",
                "properties": {
                    "principalId": f"u-{i}",
                    "roleDefinitionId": "owner",
                    "scope": SUB_PROD,
                },
            }
            for i in range(5)
        ],
        "clusters": [
            {
                "id": cid,
                "name": cid.rsplit("/", 1)[1],
                "location": "westeurope",
                "properties": {
                    "clusterVersion": "4.0",
                    "encryptionInTransitProperties": {"isEncryptionInTransitEnabled": False},
                    "diskEncryptionProperties": {"encryptionAtHost": False},
                },
            }
            for cid in CLUSTERS
        ],
        "domains": [
            {
                "id": did,
                "name": did.rsplit("/", 1)[1],
                "location": "westeurope",
                "properties": {
                    "publicNetworkAccess": "Enabled",
                    "minimumTlsVersionAllowed": "1.0",
                    "inboundIpRules": [],
                    "disableLocalAuth": False,
                },
            }
            for did in DOMAINS
        ],
        "healthEvents": [
            {
                "id": EVENT_ID,
                "name": "ABC1-23D",
                "properties": {
                    "eventType": "SecurityAdvisory",
                    "status": "Active",
                    "eventLevel": "Critical",
                    "isHIR": True,
                    "title": "Security advisory for event routing",
                    "description": EVENT_DESCRIPTION,
                },
            }
        ],
        "devTooling": {
            "tokens": [
                {
                    "id": "tok-1",
                    "kind": "user",
                    "app": None,
                    "accessType": "full",
                    "description": "",
                    "createdAt": "2024-01-01T00:00:00Z",
                },
                {
                    "id": "tok-2",
                    "kind": "app",
                    "app": "org/app",
                    "accessType": "readOnly",
                    "description": "test",
                    "createdAt": "2024-06-01T00:00:00Z",
                    "value": SECRETS[3],
                },
            ]
        },
    }


def plan_document() -> dict[str, Any]:
    """A deployment plan with literal secrets (findings CLU-008 and CLU-010 point at them)."""
    role = {
        "name": "headnode",
        "osProfile": {"linuxOperatingSystemProfile": {"username": "sshuser",
                                                      "password": SECRETS[0]}},
    }  # fmt: skip
    return {
        "planVersion": 1,
        "requests": [
            {"method": "PUT",
             "url": f"{PLAN_DOMAIN}?api-version=2025-02-15",
             "body": {"location": "westeurope", "properties": {"inboundIpRules": []}}},
            {"method": "PUT",
             "url": f"{PLAN_CLUSTER}?api-version=2024-08-01",
             "body": {"location": "westeurope",
                      "properties": {
                          "clusterVersion": "5.1",
                          "clusterDefinition": {"configurations": {
                              "gateway": {"restAuthCredential.isEnabled": True,
                                          "restAuthCredential.password": SECRETS[1]}}},
                          "computeProfile": {"roles": [role]},
                          "storageProfile": {"storageaccounts": [
                              {"name": "acct", "isDefault": True, "key": SECRETS[2]}]}}}},
        ],
    }  # fmt: skip


def write_sources(folder: Path) -> tuple[Path, Path]:
    """Write the snapshot and plan (pretty JSON, as people keep them in a repository)."""
    folder.mkdir(parents=True, exist_ok=True)
    snap = folder / "estate" / "snapshot.json"
    plan = folder / "deploy" / "plan.json"
    snap.parent.mkdir(parents=True, exist_ok=True)
    plan.parent.mkdir(parents=True, exist_ok=True)
    snap.write_text(json.dumps(snapshot_document(), indent=2) + "\n", encoding="utf-8")
    plan.write_text(json.dumps(plan_document(), indent=2) + "\n", encoding="utf-8")
    return snap, plan


def _finding(
    rule_id: str,
    resource: str,
    status: Status,
    message: str,
    *,
    evidence: dict[str, Any] | None = None,
    source: Path | None = None,
    location: str | None = None,
    kind: str = "estate",
    detail: str = "",
    waiver: WaiverInfo | None = None,
    severity: Severity | None = None,
) -> Finding:
    rule = RULE_BY_ID[rule_id]
    return Finding(
        ruleId=rule_id,
        severity=severity or rule.severity,
        status=status,
        resourceId=resource,
        title=rule.title,
        message=message,
        evidence=evidence or {},
        remediation=rule.remediation,
        references=rule.references,
        fingerprint=fingerprint(rule_id, resource, kind, detail),
        resourceType=rule.resourceType,
        source=str(source) if source is not None else None,
        location=location,
        waiver=waiver,
    )


def make_result(folder: Path) -> AuditResult:
    """The audit result of the sample sources written into ``folder``."""
    snap, plan = write_sources(folder)
    f: list[Finding] = []
    for i, dom in enumerate(DOMAINS):
        name = dom.rsplit("/", 1)[1]
        waived = i == 0
        f.append(_finding(
            "DOM-001", dom, "waived" if waived else "fail",
            f"Domain {name} accepts publishing from public networks (publicNetworkAccess is "
            "Enabled).",
            evidence={"properties/publicNetworkAccess": "Enabled"}, source=snap,
            location=f"domains[{i}].properties.publicNetworkAccess",
            waiver=WAIVER_ORDERS if waived else None,
        ))  # fmt: skip
        f.append(_finding(
            "DOM-002", dom, "baselined" if i == 1 else "fail",
            f"Domain {name} is open to every address: public access is enabled and no inbound IP "
            "rule narrows it.",
            evidence={"publicNetworkAccess": "Enabled", "inboundIpRules": []}, source=snap,
            location=f"domains[{i}].properties.inboundIpRules",
        ))  # fmt: skip
        f.append(_finding(
            "DOM-004", dom, "fail", f"Domain {name} allows TLS 1.0.",
            evidence={"minimumTlsVersionAllowed": "1.0"}, source=snap,
            location=f"domains[{i}].properties.minimumTlsVersionAllowed",
        ))  # fmt: skip
        f.append(_finding(
            "DOM-005", dom, "pass", f"Domain {name} has local authentication disabled.",
            evidence={"disableLocalAuth": True}, source=snap,
            location=f"domains[{i}].properties.disableLocalAuth",
        ))  # fmt: skip
        f.append(_finding(
            "DOM-006", dom, "fail", f"Domain {name} has no managed identity.",
            evidence={"identity": None}, source=snap, location=f"domains[{i}].identity",
        ))  # fmt: skip
        f.append(_finding(
            "DOM-007", dom, "fail" if i else "pass",
            f"Domain {name} has no approved private endpoint connection.",
            evidence={"privateEndpointConnections": []}, source=snap,
            location=f"domains[{i}].properties",
        ))  # fmt: skip
    for i, clu in enumerate(CLUSTERS):
        name = clu.rsplit("/", 1)[1]
        f.append(_finding(
            "CLU-001", clu, "fail", f"Cluster {name} does not encrypt traffic between nodes.",
            evidence={"encryptionInTransitProperties.isEncryptionInTransitEnabled": False},
            source=snap,
            location=f"clusters[{i}].properties.encryptionInTransitProperties"
            ".isEncryptionInTransitEnabled",
        ))  # fmt: skip
        f.append(_finding(
            "CLU-002", clu, "fail", f"Cluster {name} does not encrypt disks at host.",
            evidence={"diskEncryptionProperties.encryptionAtHost": False}, source=snap,
            location=f"clusters[{i}].properties.diskEncryptionProperties.encryptionAtHost",
        ))  # fmt: skip
        f.append(_finding(
            "CLU-011", clu, "fail", f"Cluster {name} runs version 4.0, below 5.1.",
            evidence={"clusterVersion": "4.0", "minimum": "5.1"}, source=snap,
            location=f"clusters[{i}].properties.clusterVersion",
        ))  # fmt: skip
    # the plan: literal secrets (described, never echoed) and a weak password
    base = "requests[1].body.properties"
    for field, loc, sev in (
        ("gateway password",
         f"{base}.clusterDefinition.configurations.gateway['restAuthCredential.password']",
         None),
        ("node password (headnode)",
         f"{base}.computeProfile.roles[0].osProfile.linuxOperatingSystemProfile.password", None),
        ("storage key (acct)", f"{base}.storageProfile.storageaccounts[0].key", None),
    ):  # fmt: skip
        f.append(_finding(
            "CLU-008", PLAN_CLUSTER, "fail",
            f"The plan gives the {field} as a literal value; use a reference.",
            evidence={"field": field, "value": "a literal value", "fingerprint": "sha256:0f1e2d"},
            source=plan, location=loc, kind="plan", detail=field, severity=sev,
        ))  # fmt: skip
    f.append(_finding(
        "CLU-010", PLAN_CLUSTER, "fail",
        "The literal node password is weak: it lacks nothing but is a literal (length 18).",
        evidence={"field": "node password (headnode)", "length": 18}, source=plan,
        location=f"{base}.computeProfile.roles[0].osProfile.linuxOperatingSystemProfile.password",
        kind="plan",
    ))  # fmt: skip
    f.append(_finding(
        "DOM-001", PLAN_DOMAIN, "fail",
        "Domain new-domain accepts publishing from public networks (publicNetworkAccess is "
        "Enabled by default).",
        evidence={"properties/publicNetworkAccess": "Enabled (default)"}, source=plan,
        location="requests[0].body.properties.publicNetworkAccess", kind="plan",
    ))  # fmt: skip
    # access control
    f.append(_finding(
        "RBAC-001", SUB_PROD, "fail", "Subscription prod has 5 owners (more than 3).",
        evidence={"owners": [f"u-{i}" for i in range(5)], "limit": 3}, source=snap,
        location="roleAssignments",
    ))  # fmt: skip
    f.append(
        _finding(
            "RBAC-001",
            SUB_DEV,
            "pass",
            "Subscription dev has 2 owners.",
            evidence={"owners": ["u-1", "u-2"]},
            source=snap,
        )
    )
    f.append(_finding(
        "RBAC-003", SUB_PROD, "fail",
        "Guest Gus Guest (u-guest) holds Contributor at the subscription.",
        evidence={"principal": "u-guest", "role": "Contributor", "via": ["g-contractors"]},
        source=snap, location="principals[1]",
    ))  # fmt: skip
    f.append(_finding(
        "RBAC-010", SUB_PROD, "fail",
        "Carol Ops (u-carol) can create role assignments at the subscription through group "
        "ops-team and role Ops Helper, without an admin role.",
        evidence={"principal": "u-carol", "path": ["u-carol", "g-ops", "ra-9", "Ops Helper",
                                                  "Cloud.Authorization/roleAssignments/write"]},
        source=snap, location="roleAssignments[4]", detail="u-carol",
    ))  # fmt: skip
    f.append(_finding(
        "RBAC-014", SUB_DEV, "fail", "Subscription dev has 7 direct user assignments.",
        evidence={"count": 7, "limit": 5, "note": FORMULA}, source=snap,
    ))  # fmt: skip
    f.append(_finding(
        "DENY-001", f"{SUB_PROD}/providers/Cloud.Authorization/denyAssignments/d-1", "fail",
        "Deny assignment d-1 is user-created.", evidence={"isSystemProtected": False},
        source=snap,
    ))  # fmt: skip
    # health: the description carries HTML from the provider (and an injection attempt)
    f.append(_finding(
        "HLT-001", EVENT_ID, "fail",
        f"Active security advisory ABC1-23D: {SCRIPT_INJECTION} {BOLD}",
        evidence={"title": "Security advisory for event routing", "eventLevel": "Critical",
                  "description": EVENT_DESCRIPTION},
        source=snap, location="healthEvents[0].properties.eventType", severity="critical",
    ))  # fmt: skip
    f.append(_finding(
        "HLT-004", EVENT_ID, "fail", "Event ABC1-23D is a high-incident-rate event.",
        evidence={"isHIR": True}, source=snap, location="healthEvents[0].properties.isHIR",
    ))  # fmt: skip
    # tokens: the waiver expired, so they fail again
    for i, tok in enumerate(("tok-1", "tok-2")):
        f.append(_finding(
            "TOK-001", f"devtooling/tokens/{tok}", "fail",
            f"Token {tok} exists after the service's retirement date (2025-03-31).",
            evidence={"token": tok, "retiredOn": "2025-03-31"}, source=snap,
            location=f"devTooling.tokens[{i}]", waiver=WAIVER_TOKENS,
        ))  # fmt: skip
        f.append(_finding(
            "TOK-004", f"devtooling/tokens/{tok}", "fail",
            f"Token {tok} has a generic description.",
            evidence={"description": ["", "test"][i]}, source=snap,
            location=f"devTooling.tokens[{i}].description",
        ))  # fmt: skip
    return AuditResult(
        findings=f,
        rules=list(RULES),
        startedAt="2026-11-21T10:00:00Z",
        finishedAt="2026-11-21T10:00:03Z",
        target=str(snap),
        targetKind="snapshot",
        failOn="high",
        waivers=[WAIVER_ORDERS],
        staleWaivers=[WAIVER_STALE],
        expiredWaivers=[WAIVER_TOKENS],
        baselineFixed=["0123456789abcdef0123456789abcdef"],
        incomplete=[],
        access=sample_access(),
    )


def sample_access() -> AccessSummary:
    """Privileged principals of both subscriptions and two shadow admins' escalation paths."""
    return AccessSummary(
        privileged=[
            Privileged(SUB_PROD, "u-alice", "Alice Admin", "User", "Owner"),
            Privileged(SUB_PROD, "u-guest", "Gus Guest <guest@partner.example>", "User",
                       "Contributor", ("g-contractors",)),
            Privileged(SUB_PROD, "sp-deploy", "deploy-pipeline", "ServicePrincipal", "Owner"),
            Privileged(SUB_DEV, "u-bob", "Bob Builder", "User", "Owner"),
            Privileged(SUB_DEV, "g-devs", "Developers", "Group", "User Access Administrator"),
        ],
        escalations=[
            EscalationPath(
                "u-carol", "Carol Ops", SUB_PROD,
                (("principal", "Carol Ops (u-carol)"), ("group", "ops-team"),
                 ("group", "ops-oncall <script>alert(3)</script>"),
                 ("assignment", "ra-9 at /subscriptions/1111…"),
                 ("role", "Ops Helper (custom)"),
                 ("permission", "Cloud.Authorization/roleAssignments/write")),
            ),
            EscalationPath(
                "sp-ci", "ci-runner", SUB_DEV,
                (("principal", "ci-runner (sp-ci)"), ("assignment", "ra-12"),
                 ("role", "Role Writer (custom)"),
                 ("permission", "Cloud.Authorization/roleDefinitions/write")),
            ),
        ],
    )  # fmt: skip


_STATUSES: tuple[Status, ...] = ("fail", "fail", "fail", "fail", "pass", "waived", "baselined")


def synthetic_result(n: int, folder: Path | None = None) -> AuditResult:
    """``n`` findings spread over the rules and many resources (for size limits and benchmarks)."""
    source: Path | None = None
    if folder is not None:
        source, _ = write_sources(folder)
    findings: list[Finding] = []
    for i in range(n):
        rule = RULES[i % len(RULES)]
        status = _STATUSES[(i // len(RULES)) % len(_STATUSES)]
        res = _dom(f"{SUB_PROD}/resourceGroups/rg-{i // 50}", f"domain-{i:05d}")
        findings.append(_finding(
            rule.id, res, status,
            f"Resource domain-{i:05d} fails {rule.id}: {rule.description} (case {i})",
            evidence={"index": i, "publicNetworkAccess": "Enabled", "inboundIpRules": [],
                      "note": "synthetic"},
            source=source, location="domains[0].properties.publicNetworkAccess",
            waiver=WAIVER_ORDERS if status == "waived" else None,
        ))  # fmt: skip
    return AuditResult(
        findings=findings,
        rules=list(RULES),
        startedAt="2026-11-21T10:00:00Z",
        finishedAt="2026-11-21T10:05:00Z",
        target=str(source) if source else "synthetic",
        waivers=[WAIVER_ORDERS],
        staleWaivers=[WAIVER_STALE],
        expiredWaivers=[],
        access=sample_access(),
    )
