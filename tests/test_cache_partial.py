"""Every answer from a cache entry equals the answer from the whole estate loaded from its JSON
(issue 23): access check with its warnings (unknown principal, scope outside the estate, unknown
action, unread attribute), who-can, and principals named by id, e-mail or display name, over
generated estates (auditor.estate.generate at small sizes, the cache's MIN_BYTES set to 0) with
twists a real file has: ids and scopes written in other casings, merged duplicates, unknown fields,
role assignment ids and types that are not the usual ones, no directory at all."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor.access import AccessEngine, AccessRequest
from auditor.access.partial import PartialEstate, cache_tables
from auditor.errors import InputError
from auditor.estate.cache import EstateCache
from auditor.estate.generate import generate_estate
from auditor.estate.snapshot import Snapshot, load_snapshot

TWISTS = ("casing", "duplicate", "unknown-field", "odd-ids", "no-directory", "deny-everyone")
ACTIONS = [
    ("Cloud.Authorization/roleAssignments/write", False),
    ("Cloud.Compute/virtualMachines/read", False),
    ("Cloud.Storage/storageAccounts/blobServices/containers/blobs/read", True),
    ("Cloud.Storage/storageAccounts/blobServices/containers/blobs/read", False),
    ("Cloud.Nothing/misspelt/reed", False),
]


def _twist(doc: dict[str, Any], twists: set[str]) -> None:
    ras = doc["roleAssignments"]
    if "casing" in twists and ras:
        for ra in ras[::3]:
            props = ra["properties"]
            props["principalId"] = props["principalId"].upper()
            props["scope"] = props["scope"].upper() + "/"
        for pr in doc["principals"][::4]:
            pr["memberOf"] = [g.upper() for g in pr.get("memberOf", [])]
    if "odd-ids" in twists and len(ras) > 3:
        ras[1]["id"] = "/custom/id/not/made/of/scope/and/name"
        ras[2]["id"] = ""
        ras[3]["type"] = ""
        ras[0]["name"] = None
    if "unknown-field" in twists and ras:
        ras[len(ras) // 2]["properties"]["extraField"] = [1, "two"]
        if doc["principals"]:
            doc["principals"][0]["userPrincipalName"] = "Someone.Else@Example.Test"
    if "duplicate" in twists and ras:
        ras.append(json.loads(json.dumps(ras[0])))  # an identical copy: merged, with a warning
    if "no-directory" in twists:
        doc["principals"] = []
    if "deny-everyone" in twists and doc.get("denyAssignments"):
        deny = doc["denyAssignments"][0]["properties"]
        deny["doNotApplyToChildScopes"] = True
        deny["permissions"] = [{"actions": ["Cloud.Authorization/*"], "dataActions": ["*"]}]


def _questions(snap: Snapshot) -> tuple[list[str], list[str], list[str]]:
    """Principals (by id, e-mail, display name and unknown), scopes (known, new, outside)."""
    ras = snap.roleAssignments
    principals = [ra.properties.principalId for ra in ras[:: max(1, len(ras) // 3)]][:3]
    groups = [p for p in snap.principals if p.memberOf][:2]
    for pr in [*snap.principals[:1], *groups]:
        principals += [pr.id, pr.email or pr.id, pr.displayName or pr.id]
    for deny in snap.denyAssignments[:1]:
        principals += [p.id for p in deny.properties.excludePrincipals if p.id][:1]
    principals += ["00000000-0000-0000-0000-00000000beef", "Nobody-Known@example.test"]
    scopes = [ra.properties.scope for ra in ras[:: max(1, len(ras) // 3)]][:3]
    scopes += [s + "/providers/Cloud.Compute/virtualMachines/new-vm" for s in scopes[:1]]
    scopes += [h.id for h in snap.hierarchy[:2]]
    scopes += [d.properties.scope for d in snap.denyAssignments[:1]]
    scopes += [
        "/",
        "/subscriptions/00000000-0000-0000-0000-00000000dead/resourceGroups/rg",
        "/providers/Cloud.Management/managementGroups/not-there",
    ]
    return principals, scopes, []


def _same_answers(path: Path, cache_dir: Path) -> None:
    store = EstateCache(cache_dir, min_bytes=0, indexer=cache_tables)
    snap = store.load(path, load_snapshot)  # writes the entry
    whole = AccessEngine.from_snapshot(load_snapshot(path))
    opened = store.open(path)
    assert opened is not None
    partial = PartialEstate(opened)
    principals, scopes, _ = _questions(snap)
    for text in principals:
        try:
            want = whole.resolve_principal(text)
        except InputError:
            want = None
        got = partial.resolve(text)
        assert got is None or got == want, text  # None: the whole estate words the error
        principal = want.id if want is not None else text
        for scope in scopes:
            engine = partial.engine_for_check(principal, scope)
            for action, data in ACTIONS:
                request = AccessRequest(principal, action, scope, data)
                assert engine.check(request, warn=True) == whole.check(request, warn=True), request
            attributes = {"@Resource[Cloud.Storage/storageAccounts:name]": "x", "bogus": 1}
            request = AccessRequest(principal, ACTIONS[2][0], scope, True, attributes=attributes)
            assert engine.check(request, warn=True) == whole.check(request, warn=True)
    for scope in scopes:
        engine = partial.engine_for_who(scope)
        for action, data in ACTIONS:
            got_who = engine.who(action, scope, data, warn=True).to_wire()
            assert got_who == whole.who(action, scope, data, warn=True).to_wire(), (scope, action)
    opened.close()


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    role_assignments=st.integers(0, 60),
    seed=st.integers(0, 10_000),
    principals=st.integers(1, 25),
    denies=st.integers(0, 5),
    twists=st.sets(st.sampled_from(TWISTS), max_size=3),
)
def test_partial_answers_equal_whole_answers(
    role_assignments: int, seed: int, principals: int, denies: int, twists: set[str]
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "estate.json"
        generate_estate(
            role_assignments,
            seed=seed,
            principals=principals,
            deny_assignments=denies,
            out=path,
            progress=False,
        )
        if twists:
            doc = json.loads(path.read_bytes())
            _twist(doc, twists)
            path.write_text(json.dumps(doc))
        _same_answers(path, Path(folder) / "cache")


def test_every_twist_at_once(tmp_path: Path) -> None:
    path = tmp_path / "estate.json"
    generate_estate(200, seed=11, principals=50, deny_assignments=6, out=path, progress=False)
    doc = json.loads(path.read_bytes())
    _twist(doc, set(TWISTS) - {"no-directory"})
    path.write_text(json.dumps(doc))
    _same_answers(path, tmp_path / "cache")
