"""Differential tests of the audit's faster paths at scale (sixth part): each new path against the
code it replaced, kept here (or in an earlier part) as the oracle."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any, Literal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor.access import analysis
from auditor.access.analysis import (
    ADMIN_ROLES,
    ESCALATION_ACTIONS,
    Escalation,
    EscalationStep,
    _escalating_roles,
    _holds_role,
    _is_group,
    _perm_text,
    _step,
    _type_of,
)
from auditor.access.decision import AccessRequest, decide
from auditor.access.scopes import ScopeTree
from auditor.audit.engine import Engine
from auditor.estate.snapshot import loads_snapshot
from tests.test_audit_scale_paths2 import _old_dead_grants
from tests.test_rules_as_data import ACTIONS, MG, SA, SB, SCOPES, _condition, snapshots

AS_OF = dt.date(2026, 11, 21)
_DENIED = ["*", "Cloud.Compute/*", "*/read", "Cloud.Authorization/*/write", "Cloud.Storage/*"]


@st.composite
def _deny(draw: Any, n: int, ids: list[str]) -> dict[str, Any]:
    """A deny assignment of some shape: any scope, naming everyone or some principals, with or
    without exclusions, conditions and ``doNotApplyToChildScopes``."""
    everyone = draw(st.booleans())
    props: dict[str, Any] = {
        "denyAssignmentName": f"deny {n}",
        "scope": draw(st.sampled_from([*SCOPES, f"{SB}/resourceGroups/rg2"])),
        "permissions": [
            {
                "actions": draw(st.lists(st.sampled_from(_DENIED), min_size=1, max_size=2)),
                "notActions": draw(st.lists(st.just("Cloud.Compute/x/read"), max_size=1)),
                "dataActions": draw(st.lists(st.just("*"), max_size=1)),
                **(_condition(draw) if draw(st.integers(0, 3)) == 0 else {}),
            }
        ],
        "principals": (
            [{"id": "00000000-0000-0000-0000-000000000000", "type": "SystemDefined"}]
            if everyone
            else [{"id": p} for p in draw(st.lists(st.sampled_from(ids), min_size=1, max_size=3))]
        ),
        "excludePrincipals": [{"id": p} for p in draw(st.lists(st.sampled_from(ids), max_size=1))],
        "doNotApplyToChildScopes": draw(st.booleans()),
    }
    if draw(st.integers(0, 4)) == 0:
        props.update(_condition(draw))
    return {
        "id": f"{props['scope'].rstrip('/')}/providers/Cloud.Authorization/denyAssignments/dx{n}",
        "name": f"dx{n}",
        "properties": props,
    }


@st.composite
def _denied_estates(draw: Any) -> dict[str, Any]:
    """A generated snapshot with many deny assignments of few shapes, assignments below them (at
    scopes the hierarchy does not place too) and custom roles that grant little."""
    doc = draw(snapshots())
    ids = [p["id"] for p in doc.get("principals", [])] or ["u0"]
    denies = [draw(_deny(n, ids)) for n in range(draw(st.integers(0, 8)))]
    extra = []
    for n in range(draw(st.integers(0, 4))):
        scope = draw(st.sampled_from([f"{SA}/resourceGroups/rg/x", f"{SB}/resourceGroups/rg2", MG]))
        role = draw(st.sampled_from(["acdd72a7-3385-48ef-bd42-f606fba81ae7", "nosuch-role"]))
        extra.append(
            {
                "id": f"{scope}/providers/Cloud.Authorization/roleAssignments/extra{n}",
                "properties": {
                    "roleDefinitionId": f"/providers/Cloud.Authorization/roleDefinitions/{role}",
                    "principalId": draw(st.sampled_from(ids)),
                    "scope": scope,
                },
            }
        )
    custom = {
        "id": "/providers/Cloud.Authorization/roleDefinitions/22222222-0000-0000-0000-000000000001",
        "name": "22222222-0000-0000-0000-000000000001",
        "properties": {
            "roleName": "little",
            "type": "CustomRole",
            "permissions": [
                {"actions": draw(st.lists(st.sampled_from(ACTIONS[4:]), min_size=1, max_size=2))}
            ],
            "assignableScopes": ["/"],
        },
    }
    for n in range(draw(st.integers(0, 3))):
        scope = draw(st.sampled_from(SCOPES))
        extra.append(
            {
                "id": f"{scope.rstrip('/')}/providers/Cloud.Authorization/roleAssignments/little{n}",
                "properties": {
                    "roleDefinitionId": custom["id"],
                    "principalId": draw(st.sampled_from(ids)),
                    "scope": scope,
                },
            }
        )
    return {
        **doc,
        "roleAssignments": [*doc.get("roleAssignments", []), *extra],
        "roleDefinitions": [*doc.get("roleDefinitions", []), custom],
        "denyAssignments": [*doc.get("denyAssignments", []), *denies],
    }


def _indexes(doc: dict[str, Any]) -> Any:
    snapshot = loads_snapshot(json.dumps(doc).encode(), source="generated.json")
    return Engine(settings={}, as_of=AS_OF, snapshot=snapshot).context.access().indexes


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=_denied_estates(), eager=st.booleans())
def test_dead_grants_with_denies_passed_down_equal_the_loop_per_scope(
    doc: dict[str, Any], eager: bool
) -> None:
    """RBAC-013's analysis, with the denies a scope's ancestors pass down gathered once per chain
    of ancestors and the roles they could block found once per set of shapes (for every role of
    a small catalogue, or per scope for a large one), gives the results of the loop per scope
    and per assignment it replaced: the same dead grants, blockers and order."""
    ix = _indexes(doc)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(analysis, "_EAGER_ROLES", 10_000 if eager else 0)
        found = analysis.dead_grants(ix)
    assert found == _old_dead_grants(ix)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=_denied_estates(), at_root=st.booleans())
def test_dead_grants_check_picks_its_passes_by_scope_as_one_by_one(
    doc: dict[str, Any], at_root: bool
) -> None:
    """RBAC-013's check, whose passes are the assignments at scopes related to a deny (decided
    per scope of the index, all of them at once when every scope is: a deny at the root), picked
    by a byte each, judges the assignments as a pass over each one did."""
    from tests.test_audit_scale_paths import _check_dead, _deny_everyone_at

    if at_root:
        doc = {**doc, "denyAssignments": [*doc["denyAssignments"], _deny_everyone_at("/")]}
    snapshot = loads_snapshot(json.dumps(doc).encode(), source="generated.json")
    ctx = Engine(settings={}, as_of=AS_OF, snapshot=snapshot).context
    _check_dead(ctx, snapshot)


def test_dead_grants_found_below_a_deny_and_spared_beside_it() -> None:
    """A deny of everything at a subscription kills the grants at and below it (also at a scope
    the hierarchy does not place), passed down to the children; a sibling subscription's grant
    and a grant above the deny live; an at-scope-only deny kills only at its own scope."""
    reader = "acdd72a7-3385-48ef-bd42-f606fba81ae7"

    def assignment(name: str, scope: str) -> dict[str, Any]:
        return {
            "id": f"{scope.rstrip('/')}/providers/Cloud.Authorization/roleAssignments/{name}",
            "properties": {
                "roleDefinitionId": f"/providers/Cloud.Authorization/roleDefinitions/{reader}",
                "principalId": "p1",
                "scope": scope,
            },
        }

    def deny(name: str, scope: str, here_only: bool) -> dict[str, Any]:
        return {
            "id": f"{scope}/providers/Cloud.Authorization/denyAssignments/{name}",
            "properties": {
                "denyAssignmentName": name,
                "scope": scope,
                "permissions": [{"actions": ["*"], "dataActions": ["*"]}],
                "principals": [
                    {"id": "00000000-0000-0000-0000-000000000000", "type": "SystemDefined"}
                ],
                "doNotApplyToChildScopes": here_only,
            },
        }

    doc = {
        "snapshotVersion": 1,
        "hierarchy": [
            {"id": MG, "parent": "/"},
            {"id": SA, "parent": MG},
            {"id": SB, "parent": MG},
        ],
        "roleAssignments": [
            assignment("at", SA),
            assignment("below", f"{SA}/resourceGroups/rg/x/y"),
            assignment("beside", SB),
            assignment("above", MG),
            assignment("here", f"{SB}/resourceGroups/rg2"),
            assignment("under", f"{SB}/resourceGroups/rg2/x"),
        ],
        "denyAssignments": [
            deny("all", SA, False),
            deny("only", f"{SB}/resourceGroups/rg2", True),
        ],
    }
    ix = _indexes(doc)
    found = analysis.dead_grants(ix)
    assert [d.roleAssignmentId.rsplit("/", 1)[-1] for d in found] == ["at", "below", "here"]
    assert [d.deniedBy for d in found] == [
        (f"{SA}/providers/Cloud.Authorization/denyAssignments/all",),
        (f"{SA}/providers/Cloud.Authorization/denyAssignments/all",),
        (f"{SB}/resourceGroups/rg2/providers/Cloud.Authorization/denyAssignments/only",),
    ]
    assert found == _old_dead_grants(ix)


def _old_escalations(ix: Any, *, include_conditional: bool = False) -> list[Escalation]:
    """RBAC-010's analysis as it was before, each action decided by ``decide`` (the oracle)."""
    import networkx as nx

    roles = _escalating_roles(ix)
    if not roles:
        return []
    directory = ix.directory
    graph = nx.DiGraph()
    # (principal key, scope key) -> [(assignment entry, assignee)]
    candidates: dict[tuple[str, str], list[Any]] = {}
    linked_roles: set[str] = set()
    linked: dict[str, list[str]] = {}  # per assignee: its members that are not groups
    for level, bucket in ix.by_scope.items():
        if not ScopeTree.is_hierarchy_level(level):
            continue
        for entry in bucket:
            # holders of an administrator role at this scope are not shadow administrators
            if entry.role not in roles or entry.role in ADMIN_ROLES:
                continue
            assignee = entry.principal
            ra_node = ("ra", entry.id)
            graph.add_edge(("p", assignee), ra_node)
            role_node = ("role", entry.role)
            graph.add_edge(ra_node, role_node)
            # a role's and a group's edges are added once (adding an edge again changes nothing)
            if entry.role not in linked_roles:
                linked_roles.add(entry.role)
                for action, perm in roles[entry.role]:
                    perm_node = ("perm", entry.role, perm.index)
                    graph.add_edge(role_node, perm_node)
                    graph.add_edge(perm_node, ("op", action))
            towards = directory.transitive_members(assignee)
            people = linked.get(assignee)
            if people is None:
                for member, nxt in towards.items():
                    graph.add_edge(("p", member), ("p", nxt))
                people = linked[assignee] = [m for m in towards if not _is_group(ix, m, None)]
            hint = entry.record.properties.principalType
            members = list(people)
            if not _is_group(ix, assignee, hint) or not towards:
                members.append(assignee)
            for member in members:
                candidates.setdefault((member, level), []).append(entry)
    results: list[Escalation] = []
    admins: dict[str, frozenset[str]] = {}  # per scope: who holds an administrator role there
    for member, level in sorted(candidates):
        entries = candidates[(member, level)]
        if _holds_role(ix, member, ix.scopes.chain(level), ADMIN_ROLES, admins):
            continue
        shown_scope = ix.scopes.display(level)
        verdicts = {
            action: decide(
                ix, AccessRequest(directory.display(member), action, shown_scope), explain=False
            ).decision
            for action in ESCALATION_ACTIONS
        }
        allowed = tuple(a for a, v in verdicts.items() if v == "allowed")
        maybe = tuple(a for a, v in verdicts.items() if v == "conditional")
        if allowed:
            decision: Literal["allowed", "conditional"] = "allowed"
            operations = allowed
        elif maybe and include_conditional:
            decision = "conditional"
            operations = maybe
        else:
            continue
        best: list[Any] | None = None
        for entry in sorted(entries, key=lambda e: e.id.lower()):
            try:
                route = nx.shortest_path(graph, ("p", member), ("ra", entry.id))
            except nx.NetworkXNoPath:  # pragma: no cover - every candidate was linked above
                continue
            if best is None or len(route) < len(best):
                best = route
        assert best is not None
        chosen = best[-1][1]
        entry = next(e for e in entries if e.id == chosen)
        grants = roles[entry.role]
        action, perm = next(((a, p) for a, p in grants if a in operations), grants[0])
        steps = [_step(ix, node, member) for node in best]
        role = ix.catalogue.role(entry.role)
        steps.append(
            EscalationStep(
                "roleDefinition",
                role.id if role else entry.role,
                f"'{ix.catalogue.name(entry.role)}'",
            )
        )
        steps.append(EscalationStep("permission", str(perm.index), _perm_text(perm)))
        steps.append(EscalationStep("operation", action, action))
        record = directory.entry(member)
        results.append(
            Escalation(
                principalId=directory.display(member),
                principalType=_type_of(
                    ix,
                    member,
                    entry.record.properties.principalType if entry.principal == member else None,
                ),
                displayName=record.displayName if record else None,
                scope=shown_scope,
                operations=operations,
                decision=decision,
                roleAssignmentIds=tuple(sorted({e.id for e in entries}, key=str.lower)),
                path=tuple(steps),
            )
        )
    return results


def _grouped(draw: Any) -> dict[str, Any]:
    """A generated snapshot whose groups nest in many ways (several equally short paths from a
    member to an assignee group), with assignments of escalating roles at the hierarchy."""
    doc = draw(snapshots())
    groups = [f"g{i}" for i in range(draw(st.integers(2, 7)))]
    principals = [
        {
            "id": g,
            "type": "Group",
            "memberOf": draw(
                st.lists(st.sampled_from(groups[i + 1 :]), min_size=1, max_size=3, unique=True)
            )
            if i + 1 < len(groups)
            else [],
        }
        for i, g in enumerate(groups)
    ]
    users = [f"m{i}" for i in range(draw(st.integers(1, 5)))]
    principals += [
        {
            "id": u,
            "type": "User",
            "memberOf": draw(
                st.lists(st.sampled_from(groups), min_size=1, max_size=4, unique=True)
            ),
        }
        for u in users
    ]
    custom = "11111111-0000-0000-0000-000000000000"
    extra = []
    for n in range(draw(st.integers(1, 8))):
        scope = draw(st.sampled_from(["/", MG, SA, SB]))
        # mostly groups, the higher ones most: members reach them by several paths
        role = draw(
            st.sampled_from(
                [
                    custom,
                    custom,
                    "acdd72a7-3385-48ef-bd42-f606fba81ae7",
                    "8e3af657-a8ff-443c-a75c-2fe8c4bcb635",
                ]
            )
        )
        extra.append(
            {
                "id": f"{scope.rstrip('/')}/providers/Cloud.Authorization/roleAssignments/esc{n}",
                "properties": {
                    "roleDefinitionId": f"/providers/Cloud.Authorization/roleDefinitions/{role}",
                    "principalId": draw(st.sampled_from([*groups, *groups[-3:], *users])),
                    "scope": scope,
                },
            }
        )
    writer = {
        "id": f"/providers/Cloud.Authorization/roleDefinitions/{custom}",
        "name": custom,
        "properties": {
            "roleName": "writer",
            "type": "CustomRole",
            "permissions": [{"actions": ["Cloud.Authorization/*/write"]}],
            "assignableScopes": ["/"],
        },
    }
    # denies of every shape, naming everyone or some: most candidates are denied
    denies = [draw(_deny(n, [*groups, *users])) for n in range(draw(st.integers(0, 3)))]
    return {
        **doc,
        "denyAssignments": [*doc.get("denyAssignments", []), *denies],
        "principals": [*doc.get("principals", []), *principals],
        "roleAssignments": [*doc.get("roleAssignments", []), *extra],
        "roleDefinitions": [d for d in doc.get("roleDefinitions", []) if d["name"] != custom]
        + [writer],
    }


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), conditional=st.booleans())
def test_escalations_with_lookups_made_once_equal_those_before(
    data: st.DataObject, conditional: bool
) -> None:
    """RBAC-010's analysis, each action's plan and each candidate's look-ups made once and one
    denial shared by the principals no deny names, gives the escalations (paths included) of the
    analysis before, in order."""
    ix = _indexes(_grouped(data.draw))
    found = analysis.escalations(ix, include_conditional=conditional)
    assert found == _old_escalations(ix, include_conditional=conditional)


def test_escalations_of_principals_no_deny_names_share_their_denial() -> None:
    """A deny of role writes for everyone but one member at a subscription: the members no deny
    names are denied there one and all (decided once), the excluded one (named by the deny) is
    decided on its own and reported, as the analysis that decided each found."""
    writer = "11111111-0000-0000-0000-000000000000"
    doc = {
        "snapshotVersion": 1,
        "hierarchy": [{"id": MG, "parent": "/"}, {"id": SA, "parent": MG}],
        "principals": [
            {"id": "g0", "type": "Group"},
            *({"id": f"m{i}", "type": "User", "memberOf": ["g0"]} for i in (1, 2, 3)),
        ],
        "roleDefinitions": [
            {
                "id": f"/providers/Cloud.Authorization/roleDefinitions/{writer}",
                "name": writer,
                "properties": {
                    "roleName": "writer",
                    "type": "CustomRole",
                    "permissions": [{"actions": ["Cloud.Authorization/*/write"]}],
                    "assignableScopes": ["/"],
                },
            }
        ],
        "roleAssignments": [
            {
                "id": f"{SA}/providers/Cloud.Authorization/roleAssignments/w",
                "properties": {
                    "roleDefinitionId": f"/providers/Cloud.Authorization/roleDefinitions/{writer}",
                    "principalId": "g0",
                    "scope": SA,
                },
            }
        ],
        "denyAssignments": [
            {
                "id": f"{SA}/providers/Cloud.Authorization/denyAssignments/no-writes",
                "properties": {
                    "denyAssignmentName": "no-writes",
                    "scope": SA,
                    "permissions": [{"actions": ["Cloud.Authorization/*/write"]}],
                    "principals": [
                        {"id": "00000000-0000-0000-0000-000000000000", "type": "SystemDefined"}
                    ],
                    "excludePrincipals": [{"id": "m3"}],
                },
            }
        ],
    }
    ix = _indexes(doc)
    found = analysis.escalations(ix)
    assert [(e.principalId, e.decision) for e in found] == [("m3", "allowed")]
    assert found == _old_escalations(ix)
