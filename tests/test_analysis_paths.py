"""Differential tests of the access analyses' faster paths (RBAC-010, RBAC-012, DENY-003): each
against the code it replaced (kept here, or in an earlier part, as the oracle), on generated
estates."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor.access import analysis
from auditor.access.analysis import (
    WeakChildDeny,
    _descendants,
    _known_scopes,
)
from auditor.access.globs import intersects
from auditor.audit.engine import Engine
from auditor.estate.roles import CONTRIBUTOR, OWNER, RBAC_ADMINISTRATOR, USER_ACCESS_ADMINISTRATOR
from auditor.estate.sample import STORAGE_BLOB_DATA_READER
from auditor.estate.snapshot import loads_snapshot
from tests.test_audit_scale_paths6 import (
    AS_OF,
    _denied_estates,
    _grouped,
    _indexes,
    _old_escalations,
)
from tests.test_rules_as_data import GOOD, MG, SA, SB, SCOPES, snapshots

_ADMINS = [OWNER, USER_ACCESS_ADMINISTRATOR, RBAC_ADMINISTRATOR]


# ------------------------------------------------------------------------------------ oracles


def _old_weak_child_denies(ix: Any, *, limit: int = 50) -> list[WeakChildDeny]:
    """DENY-003's analysis as it was before, each child's type and hits found per deny."""
    weak = [d for d in ix.denies if d.at_scope_only]
    if not weak:
        return []
    ordered = _known_scopes(ix)
    results: list[WeakChildDeny] = []
    for deny in weak:
        patterns = [
            p for perm in deny.permissions for data in (False, True) for p in perm.patterns(data)
        ]
        children: list[str] = []
        carried: dict[str, None] = {}
        for child in _descendants(ix, deny.scope, ordered):
            kind_type = ix.scopes.resource_type(child)
            if kind_type is None:
                continue
            hits = [p for p in patterns if intersects(p, kind_type + "/*")]
            if hits:
                children.append(ix.scopes.display(child))
                carried.update(dict.fromkeys(hits))
        if children:
            results.append(
                WeakChildDeny(
                    denyAssignmentId=deny.id,
                    name=deny.name,
                    scope=deny.record.properties.scope or "/",
                    childScopes=tuple(children[:limit]),
                    childCount=len(children),
                    operations=tuple(carried),
                )
            )
    return results


# ----------------------------------------------------------------------------------- estates


def _assignment(n: int, role: str, principal: str, scope: str, **props: Any) -> dict[str, Any]:
    return {
        "id": f"{scope.rstrip('/')}/providers/Cloud.Authorization/roleAssignments/x{n}",
        "properties": {
            "roleDefinitionId": f"/providers/Cloud.Authorization/roleDefinitions/{role}",
            "principalId": principal,
            "scope": scope,
            **props,
        },
    }


def _with_admins(draw: Any, doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` with administrator roles held at hierarchy scopes by some of its principals and
    groups (directly, or through a group above them): candidates spared at some scopes and not
    at others."""
    ids = [p["id"] for p in doc.get("principals", [])] or ["u0"]
    extra = [
        _assignment(
            900 + n,
            draw(st.sampled_from(_ADMINS)),
            draw(st.sampled_from(ids)),
            draw(st.sampled_from(["/", MG, SA, SB])),
        )
        for n in range(draw(st.integers(0, 5)))
    ]
    return {**doc, "roleAssignments": [*doc.get("roleAssignments", []), *extra]}


@st.composite
def _conditioned(draw: Any) -> dict[str, Any]:
    """A generated snapshot with conditioned assignments (valid, broken, blank) and grants to
    the same principals and their groups at the same scopes and above."""
    doc = draw(snapshots())
    ids = [p["id"] for p in doc.get("principals", [])] or ["u0"]
    roles = [STORAGE_BLOB_DATA_READER, CONTRIBUTOR, OWNER]
    extra = []
    for n in range(draw(st.integers(0, 10))):
        condition = draw(st.sampled_from([None, None, GOOD, "  ", "((broken"]))
        props = {} if condition is None else {"condition": condition, "conditionVersion": "2.0"}
        extra.append(
            _assignment(
                n,
                draw(st.sampled_from(roles)),
                draw(st.sampled_from(ids)),
                draw(st.sampled_from(SCOPES)),
                **props,
            )
        )
    return {**doc, "roleAssignments": [*doc.get("roleAssignments", []), *extra]}


# ------------------------------------------------------------------------------------- tests


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), conditional=st.booleans())
def test_escalations_with_administrators_found_per_scope_equal_those_before(
    data: st.DataObject, conditional: bool
) -> None:
    """RBAC-010's analysis, whose candidates are spared by one set per hierarchy scope (who holds
    an administrator role there or above) probed with the identities the decision looks up,
    gives the escalations (paths included) of the analysis before, in order."""
    ix = _indexes(_with_admins(data.draw, _grouped(data.draw)))
    found = analysis.escalations(ix, include_conditional=conditional)
    assert found == _old_escalations(ix, include_conditional=conditional)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=_conditioned())
def test_bypassed_conditions_of_the_assignments_given_equal_those_found_alone(
    doc: dict[str, Any],
) -> None:
    """RBAC-012's analysis, given the assignments the check judges (those whose record has a
    condition, blank ones included, in the index's order), finds what it finds by its own pass
    over the index (the conditioned ones): the same results, in order."""
    ix = _indexes(doc)
    given_ = [ix.assignments[i] for i in ix.conditioned]
    assert analysis.bypassed_conditions(ix, given_) == analysis.bypassed_conditions(ix)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=_denied_estates())
def test_weak_child_denies_with_types_remembered_equal_those_before(doc: dict[str, Any]) -> None:
    """DENY-003's analysis, each child scope's type found once and each deny's hits once per
    type, gives the results of the analysis before."""
    assert analysis.weak_child_denies(_indexes(doc)) == _old_weak_child_denies(_indexes(doc))


def test_bypassed_check_passes_a_blank_condition_and_fails_a_bypassed_one() -> None:
    """RBAC-012's check judges every assignment whose record has a condition: a blank one (no
    condition to bypass) passes, a valid one that an unconditioned grant above bypasses fails
    with those grants (the blank one's among them), the unconditioned one is not judged."""
    from auditor.audit.checks import access as checks

    blob = STORAGE_BLOB_DATA_READER
    rg = f"{SA}/resourceGroups/rg"
    doc = {
        "snapshotVersion": 1,
        "hierarchy": [{"id": MG, "parent": "/"}, {"id": SA, "parent": MG}],
        "principals": [{"id": "ann", "type": "User", "displayName": "Ann"}],
        "roleAssignments": [
            _assignment(1, blob, "ann", rg, condition="   ", conditionVersion="2.0"),
            _assignment(2, blob, "ann", rg, condition=GOOD, conditionVersion="2.0"),
            _assignment(3, blob, "ann", SA),
        ],
    }
    snapshot = loads_snapshot(json.dumps(doc).encode(), source="generated.json")
    ctx = Engine(settings={}, as_of=AS_OF, snapshot=snapshot).context
    outcomes = list(checks.bypassed_conditions(ctx))
    assert [(o.location, o.passed) for o in outcomes] == [
        ("roleAssignments[0]", True),
        ("roleAssignments[1]", False),
    ]
    failed = outcomes[1]
    assert failed.evidence is not None
    # the blank condition is no condition: its grant bypasses too, nearest first
    assert [b["roleAssignmentId"] for b in failed.evidence["bypassedBy"]] == [
        f"{rg}/providers/Cloud.Authorization/roleAssignments/x1",
        f"{SA}/providers/Cloud.Authorization/roleAssignments/x3",
    ]
    assert failed.fields is not None
    assert (failed.fields["principalId"], failed.fields["principalName"]) == ("ann", "Ann")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=_conditioned(), upper=st.booleans())
def test_the_index_lists_the_assignments_whose_record_has_a_condition(
    doc: dict[str, Any], upper: bool
) -> None:
    """The index's list of conditioned assignments (what RBAC-012's check judges) holds the
    place of every assignment whose record has a condition, blank ones included, in order, as a
    pass over the records finds them; so it does when ids are not in lower case (the index's
    second build, with a key looked up per id)."""
    if upper:
        doc = {
            **doc,
            "roleAssignments": [
                {
                    **ra,
                    "properties": {
                        **ra["properties"],
                        "principalId": ra["properties"]["principalId"].upper(),
                    },
                }
                for ra in doc.get("roleAssignments", [])
            ],
        }
    ix = _indexes(doc)
    records = [entry.record for entry in ix.assignments]
    assert ix.conditioned == [i for i, r in enumerate(records) if r.properties.condition]
