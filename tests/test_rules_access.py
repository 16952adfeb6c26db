"""Access-control rules on small hand-made estates (the sample estate, through the golden test,
covers every RBAC/DENY rule's failures and passes too)."""

from __future__ import annotations

from typing import Any

from tests.test_rules_helpers import run_snapshot

OWNER = "8e3af657-a8ff-443c-a75c-2fe8c4bcb635"
CONTRIB = "b24988ac-6180-42a0-ab88-20f7382dd24c"
READER = "acdd72a7-3385-48ef-bd42-f606fba81ae7"
UAA = "18d7d88d-d35e-4fb5-a5c3-7773c20a72d9"
MG = "/providers/Cloud.Management/managementGroups/mg1"
SA = "/subscriptions/aaaaaaaa-0000-0000-0000-000000000001"
SB = "/subscriptions/bbbbbbbb-0000-0000-0000-000000000002"


def ra(
    name: str, principal: str, role: str, scope: str, ptype: str = "User", **props: Any
) -> dict[str, Any]:
    return {
        "id": f"{scope.rstrip('/')}/providers/Cloud.Authorization/roleAssignments/{name}",
        "name": name,
        "properties": {
            "roleDefinitionId": f"/providers/Cloud.Authorization/roleDefinitions/{role}",
            "principalId": principal,
            "principalType": ptype,
            "scope": scope,
            **props,
        },
    }


def principal(pid: str, ptype: str = "User", **kw: Any) -> dict[str, Any]:
    return {"id": pid, "type": ptype, "displayName": pid, **kw}


BASE: dict[str, Any] = {
    "hierarchy": [{"id": MG, "parent": "/"}, {"id": SA, "parent": MG}],
    "principals": [
        principal("u1"),
        principal("u2"),
        principal("u3"),
        principal("u4"),
        principal("grp", "Group"),
        principal("m1", memberOf=["grp"]),
        principal("m2", memberOf=["grp"]),
        principal("off", accountEnabled=False),
        principal("sp1", "ServicePrincipal"),
    ],
}


def estate(*assignments: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {**BASE, "roleAssignments": list(assignments), **extra}


def by_resource(findings: list[Any]) -> dict[str, str]:
    return {f.resourceId: f.status for f in findings}


def test_owner_counts_group_as_one_and_settings() -> None:
    doc = estate(
        ra("o1", "u1", OWNER, SA),
        ra("o2", "u2", OWNER, MG),
        ra("o3", "grp", OWNER, SA, "Group"),
        ra("o4", "u3", OWNER, f"{SA}/resourceGroups/rg"),  # below the subscription: not counted
        ra("o5", "u4", OWNER, SB),
    )
    assert by_resource(run_snapshot("RBAC-001", doc)) == {SA: "pass", SB: "pass"}
    assert by_resource(run_snapshot("RBAC-002", doc)) == {SA: "pass", SB: "fail"}
    assert by_resource(run_snapshot("RBAC-001", doc, settings={"maxSubscriptionOwners": 2})) == {
        SA: "fail",
        SB: "pass",
    }
    f = next(x for x in run_snapshot("RBAC-001", doc) if x.resourceId == SA)
    assert f.evidence["ownerCount"] == 3


def test_rbac004_005_disabled_and_orphaned() -> None:
    doc = estate(
        ra("a", "off", READER, SA), ra("b", "u1", READER, SA), ra("c", "ghost", READER, SA)
    )
    r4 = {f.resourceId.rsplit("/", 1)[-1]: f.status for f in run_snapshot("RBAC-004", doc)}
    assert r4 == {"a": "fail", "b": "pass"}
    r5 = {f.resourceId.rsplit("/", 1)[-1]: f.status for f in run_snapshot("RBAC-005", doc)}
    assert r5 == {"a": "pass", "b": "pass", "c": "fail"}
    # no directory in the snapshot: not judged (one unknown finding), never a silent pass
    nodir = run_snapshot("RBAC-005", {"roleAssignments": [ra("c", "ghost", READER, SA)]})
    assert [(f.status, f.resourceId, f.evidence["missing"]) for f in nodir] == [
        ("unknown", "/", ["principals"])
    ]


def custom_role(
    guid: str,
    actions: list[str],
    scopes: list[str],
    data: list[str] | None = None,
    not_actions: list[str] | None = None,
) -> dict[str, Any]:
    return {
        "id": f"/providers/Cloud.Authorization/roleDefinitions/{guid}",
        "name": guid,
        "properties": {
            "roleName": f"role-{guid[:4]}",
            "type": "CustomRole",
            "assignableScopes": scopes,
            "permissions": [
                {"actions": actions, "notActions": not_actions or [], "dataActions": data or []}
            ],
        },
    }


def test_custom_role_rules() -> None:
    roles = [
        custom_role("11111111-0000-0000-0000-000000000001", ["*"], [SA]),
        custom_role("22222222-0000-0000-0000-000000000002", ["Cloud.Authorization/*/write"], [SA]),
        custom_role(
            "33333333-0000-0000-0000-000000000003",
            ["Cloud.Compute/*"],
            [MG],
            data=["Cloud.Storage/x/read"],
        ),
        custom_role(
            "44444444-0000-0000-0000-000000000004",
            ["*"],
            [SA],
            not_actions=["Cloud.Authorization/*"],
        ),
    ]
    doc = estate(roleDefinitions=roles)
    ids = [r["id"] for r in roles]

    def short(findings: list[Any]) -> list[str]:
        return [by_resource(findings)[rid] for rid in ids]

    assert short(run_snapshot("RBAC-006", doc)) == ["fail", "pass", "pass", "fail"]
    assert short(run_snapshot("RBAC-007", doc)) == ["fail", "fail", "pass", "pass"]
    assert short(run_snapshot("RBAC-015", doc)) == ["pass", "pass", "fail", "pass"]


def test_rbac008_009() -> None:
    doc = estate(
        ra("u-mg", "u1", UAA, MG),
        ra("u-root", "u2", UAA, "/"),
        ra("u-sub", "u3", UAA, SA),
        ra("sp-sub", "sp1", CONTRIB, SA, "ServicePrincipal"),
        ra("sp-rg", "sp1", OWNER, f"{SA}/resourceGroups/rg", "ServicePrincipal"),
    )
    r8 = {f.resourceId.rsplit("/", 1)[-1]: f.status for f in run_snapshot("RBAC-008", doc)}
    assert r8 == {"u-mg": "fail", "u-root": "fail", "u-sub": "pass"}
    r9 = {f.resourceId.rsplit("/", 1)[-1]: f.status for f in run_snapshot("RBAC-009", doc)}
    assert r9 == {"sp-sub": "fail", "sp-rg": "pass"}


def test_rbac011_conditions() -> None:
    good = "((!(ActionMatches{'Cloud.Storage/storageAccounts/blobServices/containers/blobs/read'})) OR (@Resource[Cloud.Storage/storageAccounts/blobServices/containers:name] StringEquals 'logs'))"
    huge = (
        "("
        + " OR ".join(
            [
                "(@Resource[Cloud.Storage/storageAccounts/blobServices/containers:name] StringEquals 'x')"
            ]
            * 120
        )
        + ")"
    )
    doc = estate(
        ra("ok", "u1", READER, SA, condition=good, conditionVersion="2.0"),
        ra("v1", "u1", READER, SA, condition=good, conditionVersion="1.0"),
        ra("bad", "u1", READER, SA, condition="(@Resource[x] StringEquals", conditionVersion="2.0"),
        ra("big", "u1", READER, SA, condition=huge, conditionVersion="2.0"),
        ra("none", "u1", READER, SA),
    )
    r = {f.resourceId.rsplit("/", 1)[-1]: f.status for f in run_snapshot("RBAC-011", doc)}
    assert r == {"ok": "pass", "v1": "fail", "bad": "fail", "big": "fail"}


def test_rbac014_direct_users() -> None:
    many = [ra(f"d{i}", "u1", READER, f"{SA}/resourceGroups/rg{i}") for i in range(6)]
    doc = estate(*many, ra("g", "grp", READER, SB, "Group"))
    assert by_resource(run_snapshot("RBAC-014", doc)) == {SA: "fail", SB: "pass"}
    assert by_resource(run_snapshot("RBAC-014", doc, settings={"maxDirectUserAssignments": 6})) == {
        SA: "pass",
        SB: "pass",
    }


def deny(
    name: str, principals: list[str], excluded: list[str], protected: bool | None = None
) -> dict[str, Any]:
    return {
        "id": f"{SA}/providers/Cloud.Authorization/denyAssignments/{name}",
        "name": name,
        "properties": {
            "denyAssignmentName": name,
            "scope": SA,
            "isSystemProtected": protected,
            "permissions": [{"actions": ["Cloud.Network/*/delete"]}],
            "principals": [{"id": p, "type": "User"} for p in principals],
            "excludePrincipals": [{"id": p, "type": "User"} for p in excluded],
        },
    }


def test_deny_rules() -> None:
    doc = estate(
        denyAssignments=[deny("sys", ["u1"], [], True), deny("user", ["u1", "U2"], ["u2"])]
    )
    ids = [d["id"] for d in doc["denyAssignments"]]
    assert [by_resource(run_snapshot("DENY-001", doc))[i] for i in ids] == ["pass", "fail"]
    d2 = {f.resourceId: f for f in run_snapshot("DENY-002", doc)}
    assert [d2[i].status for i in ids] == ["pass", "fail"]
    assert d2[ids[1]].evidence["namedAndExcluded"] == ["u2"]
