"""Differential test: the decision function against an independent engine, Cedar (``cedarpy``).

Generated estates (without conditions) are encoded as Cedar policies and entities:

- a finite action vocabulary (control- and data-plane operations as separate Cedar actions); which
  operations a permission matches is worked out here, with this file's own glob matcher;
- one ``permit`` per role assignment over the operations its role grants, ``resource in`` its scope;
- one ``forbid`` per deny assignment and named principal over the operations it denies, with
  ``resource in`` (or ``resource ==`` for ``doNotApplyToChildScopes``) and ``unless { principal in
  ... }`` for the exclusions;
- entity parents for the scope tree (written out independently here) and for group membership.

Cedar's Allow must be exactly our ``allowed``; its Deny our ``denied`` or ``notGranted``.
"""

from __future__ import annotations

import re
from typing import Any

import cedarpy
from hypothesis import given, settings

from auditor.access import AccessRequest
from auditor.estate.roles import builtin_roles, role_guid
from tests.test_access_properties import (
    CONTROL_OPS,
    DATA_OPS,
    PARENT,
    PRINCIPALS,
    SCOPES,
    Estate,
    estates,
)

ALL_ID = "00000000-0000-0000-0000-000000000000"


def _glob(pattern: str, operation: str) -> bool:
    regex = "".join(".*" if c == "*" else re.escape(c) for c in pattern.lower())
    return re.fullmatch(regex, operation.lower()) is not None


def _permission_ops(perm: Any) -> set[str]:
    ops = {
        f"c:{op}"
        for op in CONTROL_OPS
        if any(_glob(p, op) for p in perm.actions)
        and not any(_glob(p, op) for p in perm.notActions)
    }
    ops |= {
        f"d:{op}"
        for op in DATA_OPS
        if any(_glob(p, op) for p in perm.dataActions)
        and not any(_glob(p, op) for p in perm.notDataActions)
    }
    return ops


def _uid(kind: str, key: str) -> str:
    return f'{kind}::"{key.lower()}"'


def _actions(ops: set[str]) -> str:
    return "[" + ", ".join(f'Action::"{op.lower()}"' for op in sorted(ops)) + "]"


def encode(estate: Estate) -> tuple[str, list[dict[str, Any]]]:
    roles = {role_guid(r.id or ""): r for r in builtin_roles()}
    roles.update({role_guid(r.id or ""): r for r in estate.roles})
    role_ops = {
        guid: set().union(*(_permission_ops(p) for p in r.properties.permissions))
        for guid, r in roles.items()
    }
    policies: list[str] = []
    for record in estate.assignments:
        props = record.properties
        ops = role_ops.get(role_guid(props.roleDefinitionId or ""), set())
        if ops:
            policies.append(
                f"permit(principal in {_uid('User', props.principalId or '')}, "
                f"action in {_actions(ops)}, resource in {_uid('Scope', props.scope or '/')});"
            )
    for record in estate.denies:
        props = record.properties
        ops = set().union(*(_permission_ops(p) for p in props.permissions))
        if not ops:
            continue
        resource = "==" if props.doNotApplyToChildScopes else "in"
        unless = " || ".join(
            f"principal in {_uid('User', p.id or '')}" for p in props.excludePrincipals
        )
        tail = f" unless {{ {unless} }}" if unless else ""
        for named in props.principals:
            who = (
                "principal"
                if named.id == ALL_ID and named.type == "SystemDefined"
                else f"principal in {_uid('User', named.id or '')}"
            )
            policies.append(
                f"forbid({who}, action in {_actions(ops)}, "
                f"resource {resource} {_uid('Scope', props.scope or '/')}){tail};"
            )
    entities: list[dict[str, Any]] = []
    for principal in estate.principals:
        entities.append(
            {
                "uid": {"type": "User", "id": (principal.id or "").lower()},
                "attrs": {},
                "parents": [{"type": "User", "id": g.lower()} for g in principal.memberOf],
            }
        )
    for scope in SCOPES:
        parent = PARENT.get(scope)
        entities.append(
            {
                "uid": {"type": "Scope", "id": scope.lower()},
                "attrs": {},
                "parents": [{"type": "Scope", "id": parent.lower()}] if parent else [],
            }
        )
    return "\n".join(policies), entities


REQUESTS = [
    AccessRequest(p, op, s, data)
    for p in PRINCIPALS
    for ops, data in ((CONTROL_OPS, False), (DATA_OPS, True))
    for op in ops
    for s in SCOPES
]


def _cedar_request(request: AccessRequest) -> dict[str, Any]:
    plane = "d" if request.dataAction else "c"
    return {
        "principal": {"type": "User", "id": request.principalId.lower()},
        "action": {"type": "Action", "id": f"{plane}:{request.action.lower()}"},
        "resource": {"type": "Scope", "id": request.scope.lower()},
        "context": {},
    }


@settings(max_examples=60)
@given(estates(acyclic=True))
def test_same_answers_as_cedar(estate: Estate) -> None:
    policies, entities = encode(estate)
    ours = list(estate.engine().check_many(REQUESTS))
    theirs = cedarpy.is_authorized_batch([_cedar_request(r) for r in REQUESTS], policies, entities)
    assert len(theirs) == len(ours)
    for request, mine, other in zip(REQUESTS, ours, theirs, strict=True):
        assert mine.decision != "conditional"
        allowed = other.decision == cedarpy.Decision.Allow
        assert (mine.decision == "allowed") == allowed, (request, mine, policies)


def test_encoding_smoke() -> None:
    """A fixed estate where both engines must agree on every kind of answer."""
    from tests.test_access_support import ALL, deny, group, ra, user

    estate = Estate(
        principals=[user("u0", "g0"), user("u1"), group("g0")],
        roles=[],
        assignments=[ra("a", "g0", "8e3af657-a8ff-443c-a75c-2fe8c4bcb635", SCOPES[3])],
        denies=[deny("d", SCOPES[5], actions=["*"], principals=[ALL], excluded=["u1"])],
    )
    policies, entities = encode(estate)
    answers = {
        (r.principalId, r.scope, r.action, r.dataAction): d
        for r, d in zip(REQUESTS, estate.engine().check_many(REQUESTS), strict=True)
    }
    kinds = {d.decision for d in answers.values()}
    assert {"allowed", "denied", "notGranted"} <= kinds
    results = cedarpy.is_authorized_batch([_cedar_request(r) for r in REQUESTS], policies, entities)
    assert sum(r.decision == cedarpy.Decision.Allow for r in results) == sum(
        d.decision == "allowed" for d in answers.values()
    )
