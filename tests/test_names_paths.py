"""The reports' names made faster for issue 23 (1,000,000 role assignments), against the code as
it was (HEAD fda91d3), with the same answers.

- :func:`~auditor.audit.names.estate_names`: a role assignment named as soon as its record is
  found at its location (one pass over the findings, not three), the directory's names gathered
  in C: the same names in the same order as the old function
  (``tests/test_audit_scale_paths2.py``'s oracle), over located findings whose locations are
  right, wrong, repeated, out of range or missing, and ids given in another case or without a
  location.
- :func:`~auditor.audit.names.describer`: a subscription's id found by string operations rather
  than the pattern when the id is ASCII: the words of :func:`~auditor.audit.names.describe` for
  every id, ASCII or not (characters whose case folds match the pattern's letters, such as the
  long s and the Kelvin sign, or whose lower case is longer, such as a dotted capital I)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from auditor.audit.names import describe, describer, estate_names
from auditor.estate.snapshot import loads_snapshot
from tests.test_audit_scale_paths2 import _old_estate_names
from tests.test_rules_as_data import snapshots

_GONE = "/subscriptions/x/providers/Cloud.Authorization/roleAssignments/gone"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=snapshots(), data=st.data())
def test_the_names_are_the_old_ones_in_the_same_order(
    doc: dict[str, Any], data: st.DataObject
) -> None:
    snapshot = loads_snapshot(json.dumps(doc).encode(), source="generated.json")
    records = snapshot.roleAssignments
    ids = [ra.id for ra in records] + [_GONE, "/subscriptions/s1", "not-an-assignment"]
    places = st.one_of(
        st.none(),
        st.integers(0, len(records) + 2).map(lambda i: f"roleAssignments[{i}]"),
        st.sampled_from(["roleAssignments[]", "roleAssignments[-1]", "denyAssignments[0]"]),
    )
    chosen = data.draw(st.lists(st.sampled_from(ids), max_size=10))
    chosen = [rid.upper() if data.draw(st.booleans()) else rid for rid in chosen]
    located = [(rid, data.draw(places)) for rid in chosen]
    located += [(ra.id, f"roleAssignments[{i}]") for i, ra in enumerate(records[:3])]
    given_ids = [rid for rid, _ in located]
    if data.draw(st.booleans()):  # some located ids not among those given, some given twice
        given_ids = given_ids[::2] + given_ids[:2]
    got = estate_names(snapshot, given_ids, located=located)
    assert list(got.items()) == list(
        _old_estate_names(snapshot, given_ids, located=located).items()
    )
    assert list(estate_names(snapshot, given_ids).items()) == list(
        _old_estate_names(snapshot, given_ids).items()
    )


def test_an_assignment_is_named_once_however_often_it_is_found() -> None:
    doc: dict[str, Any] = {
        "roleDefinitions": [],
        "principals": [{"id": "P1", "type": "User", "displayName": "Ann"}],
        "roleAssignments": [
            {
                "id": f"/subscriptions/s1/providers/Cloud.Authorization/roleAssignments/a{i}",
                "properties": {
                    "roleDefinitionId": "/providers/Cloud.Authorization/roleDefinitions/"
                    "8e3af657-a8ff-443c-a75c-2fe8c4bcb635",
                    "principalId": "p1",
                    "scope": "/subscriptions/s1",
                },
            }
            for i in range(3)
        ],
    }
    doc["roleAssignments"][2]["id"] = "ra-without-a-path"  # (not a role assignment's id)
    snapshot = loads_snapshot(json.dumps(doc).encode(), source="s.json")
    first, second, odd = (ra.id for ra in snapshot.roleAssignments)
    located = [
        (first, "roleAssignments[0]"),
        (first, "roleAssignments[0]"),
        (second, None),
        (odd, "roleAssignments[2]"),
    ]
    names = estate_names(snapshot, [first, second, first, odd], located=located)
    assert names[first.lower()] == "Ann as Owner"
    assert names[second.lower()] == "Ann as Owner"
    assert odd not in names
    assert list(names) == list(_old_estate_names(snapshot, [first, second, odd], located=located))


_PIECES = [
    "/subscriptions/",
    "/Subscriptions/",
    "/SUBSCRIPTIONS/",
    "/ſubscriptions/",  # (a long s: the pattern's case-insensitive "s")
    "/providers/Cloud.Management/managementGroups/",
    "/providers/Cloud.management/ManagementGroups/",
    "/providers/Cloud.Authorization/roleAssignments/",
    "/resourceGroups/",
    "/resourcegroups/",
    "/",
    "",
    "s1",
    "S1",
    "mg1",
    "rg-edge",
    "İx",  # (lower case one character longer)
    "K",  # (the Kelvin sign)
    "ä",
]
_IDS = st.lists(st.sampled_from(_PIECES), max_size=7).map("".join)
_NAMES = st.dictionaries(
    st.sampled_from(
        [
            "/subscriptions/s1",
            "/subscriptions/s1/resourcegroups/rg-edge",
            "/providers/cloud.management/managementgroups/mg1",
            "/subscriptions/İx".lower(),
            "/subscriptions/ä",
            "s1",
        ]
    )
    | _IDS.map(str.lower),
    st.sampled_from(["Payments", "Edge", "Root group", "x"]),
    max_size=5,
)


@settings(max_examples=300, deadline=None)
@given(names=_NAMES, ids=st.lists(_IDS, max_size=8))
@example(names={"/subscriptions/s1": "Payments"}, ids=["/subscriptions//x", "/subscriptions/"])
@example(
    names={"/subscriptions/s1": "Payments", "/subscriptions/s1/resourcegroups/rg-edge": "Edge"},
    ids=["/Subscriptions/S1/resourceGroups/rg-edge", "/subscriptions/s1/resourceGroups/"],
)
@example(
    names={"/subscriptions/İx".lower(): "Dotted"},
    ids=["/subscriptions/İx", "/subscriptions/İx/resourceGroups/a"],
)
def test_the_describer_gives_the_words_of_describe(names: dict[str, str], ids: list[str]) -> None:
    name_of = describer(names)
    for rid in ids:
        words = describe(rid, names)
        assert name_of(rid) == words
