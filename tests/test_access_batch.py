"""Batches of decisions: taken in any order and any window, they answer exactly as one by one; the
deny assignments that block are named in deny order (nearest first, then id ignoring case, then
snapshot order), checked against a reference computed from the estate's records alone."""

from __future__ import annotations

import gc
import random
from collections.abc import Iterator
from fnmatch import fnmatchcase
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.access import AccessEngine, AccessRequest, decide, decide_batch
from auditor.estate.records import DenyAssignmentRecord
from auditor.model.access import ALL_PRINCIPALS_ID
from tests.test_access_properties import (
    CONTROL_PATTERNS,
    DATA_PATTERNS,
    PARENT,
    PRINCIPALS,
    REQUESTS,
    RG11,
    SUB1,
    Estate,
    estates,
)
from tests.test_access_properties import (
    VM as DEEP_VM,
)
from tests.test_access_support import ALL, CONTRIBUTOR, RG, SUB, VM, build, deny, ra, user


def _recased(request: AccessRequest, rng: random.Random) -> AccessRequest:
    def flip(text: str) -> str:
        return "".join(c.upper() if rng.random() < 0.3 else c for c in text)

    return AccessRequest(
        flip(request.principalId), flip(request.action), flip(request.scope), request.dataAction
    )


@settings(max_examples=40, deadline=None)
@given(estates(), st.integers(0, 2**32), st.sampled_from([None, 1, 2, 3, 7]))
def test_a_batch_answers_exactly_as_one_by_one(
    estate: Estate, seed: int, window: int | None
) -> None:
    rng = random.Random(seed)
    requests = [rng.choice(REQUESTS) for _ in range(rng.randrange(0, 60))]
    requests += [_recased(r, rng) for r in requests[:10]]
    rng.shuffle(requests)
    engine = estate.engine()
    alone = [decide(AccessEngine.from_snapshot(estate.snapshot()).indexes, r) for r in requests]
    assert list(engine.check_many(requests, window=window)) == alone
    assert list(engine.check_many(iter(requests), window=window)) == alone
    assert decide_batch(engine.indexes, requests) == alone


def _with_denies(estate: Estate, denies: list[DenyAssignmentRecord]) -> Estate:
    return Estate(estate.principals, estate.roles, estate.assignments, denies)


def _identities(estate: Estate, principal: str) -> set[str]:
    member_of = {
        (p.id or "").lower(): [g.lower() for g in p.memberOf or ()] for p in estate.principals
    }
    found, stack = {principal.lower()}, [principal.lower()]
    while stack:
        for group in member_of.get(stack.pop(), ()):
            if group not in found:
                found.add(group)
                stack.append(group)
    return found


def _chain(scope: str) -> list[str]:
    chain = [scope]
    while chain[-1] in PARENT:
        chain.append(PARENT[chain[-1]])
    return chain


def _matches(patterns: list[str] | None, operation: str) -> bool:
    return any(fnmatchcase(operation.lower(), p.lower()) for p in patterns or ())


def _reference_blocking(estate: Estate, request: AccessRequest) -> list[str]:
    """The ids of the deny assignments that block ``request``, in deny order, from the records
    (the estates have no conditions)."""
    identities = _identities(estate, request.principalId)
    chain = _chain(request.scope)
    found = []
    for position, record in enumerate(estate.denies):
        props = record.properties
        if props.scope not in chain:
            continue
        distance = chain.index(props.scope)
        if distance and props.doNotApplyToChildScopes:
            continue

        def hits(principals: list) -> bool:  # type: ignore[type-arg]
            return any(
                (p.id or "").lower() in identities or (p.id or "").lower() == ALL_PRINCIPALS_ID
                for p in principals
            )

        if not hits(props.principals) or hits(props.excludePrincipals):
            continue
        operation = request.action
        if request.dataAction:
            matched = any(
                _matches(p.dataActions, operation) and not _matches(p.notDataActions, operation)
                for p in props.permissions
            )
        else:
            matched = any(
                _matches(p.actions, operation) and not _matches(p.notActions, operation)
                for p in props.permissions
            )
        if matched:
            found.append((distance, (record.id or "").lower(), position, record.id or ""))
    return list(dict.fromkeys(identifier for *_key, identifier in sorted(found)))


@st.composite
def _crowded_deny(draw: st.DrawFn) -> DenyAssignmentRecord:
    everyone = draw(st.booleans()) or draw(st.booleans())
    others = draw(st.lists(st.sampled_from(PRINCIPALS), max_size=2, unique=True))
    return deny(
        draw(st.sampled_from(["d1", "D1", "d2", "D2", "d3"])),
        draw(st.sampled_from([SUB1, RG11, DEEP_VM])),
        actions=draw(
            st.lists(st.sampled_from(["*", "*", *CONTROL_PATTERNS]), min_size=1, max_size=2)
        ),
        data_actions=draw(st.lists(st.sampled_from(DATA_PATTERNS), max_size=1)),
        principals=[ALL, *others] if everyone else others or [ALL],
        excluded=draw(st.lists(st.sampled_from(PRINCIPALS), max_size=2, unique=True)),
        at_scope_only=draw(st.booleans()),
    )


_CROWDED = st.lists(_crowded_deny(), min_size=2, max_size=12)
"""Deny assignments over three scopes of one line: mostly naming every principal, often with
exclusions or at their scope only, with ids that may differ only in case (or not at all), so that
every group of a :class:`DenyLevel` meets the others at one scope."""


@settings(max_examples=60, deadline=None)
@given(st.one_of(estates(), st.builds(_with_denies, estates(), _CROWDED)))
def test_blocking_denies_are_named_in_deny_order(estate: Estate) -> None:
    engine = estate.engine()
    for request, decision in zip(REQUESTS, engine.check_many(REQUESTS), strict=True):
        expected = _reference_blocking(estate, request)
        if expected:
            assert decision.decision == "denied", (request, expected)
            assert list(decision.deniedBy) == expected, request
        else:
            assert decision.decision != "denied", request


def test_denies_of_every_kind_at_one_scope_are_merged_in_order() -> None:
    """One scope holding an unconditioned deny for everyone, one at that scope only, one with an
    exclusion and one naming the principal: ids sorted across the four kinds."""
    write = "Cloud.Compute/virtualMachines/write"
    engine = AccessEngine.from_snapshot(
        build(
            principals=[user("alice"), user("bob")],
            assignments=[ra("r1", "alice", CONTRIBUTOR, SUB)],
            denies=[
                deny("d-b", RG, actions=["*"], principals=[ALL]),
                deny("d-d", RG, actions=["*/write"], principals=[ALL], at_scope_only=True),
                deny("d-a", RG, actions=["*"], principals=[ALL], excluded=["bob"]),
                deny("d-c", RG, actions=[write], principals=["alice"]),
                deny("d-e", SUB, actions=["*"], principals=[ALL]),
            ],
        )
    )
    at_rg = engine.check(AccessRequest("alice", write, RG))
    assert [d.rsplit("/", 1)[-1] for d in at_rg.deniedBy] == ["d-a", "d-b", "d-c", "d-d", "d-e"]
    below = engine.check(AccessRequest("alice", write, VM))
    assert [d.rsplit("/", 1)[-1] for d in below.deniedBy] == ["d-a", "d-b", "d-c", "d-e"]
    bob = engine.check(AccessRequest("bob", write, VM))
    assert [d.rsplit("/", 1)[-1] for d in bob.deniedBy] == ["d-b", "d-e"]


def test_a_failing_stream_gives_the_decisions_read_before_the_failure() -> None:
    engine = AccessEngine.from_snapshot(build(principals=[user("alice")]))
    good = [AccessRequest("alice", "Cloud.Compute/virtualMachines/read", SUB)] * 5

    def stream() -> Iterator[AccessRequest]:
        yield from good
        raise ValueError("line 6: not a request")

    answered = []
    with pytest.raises(ValueError, match="line 6"):
        for decision in engine.check_many(stream(), window=100):
            answered.append(decision)
    assert len(answered) == 5
    assert all(d.decision == "notGranted" for d in answered)


def test_a_large_batch_pauses_the_collector_and_restores_it() -> None:
    engine = AccessEngine.from_snapshot(
        build(
            principals=[user("alice", "team")],
            assignments=[ra("r1", "team", CONTRIBUTOR, SUB)],
            denies=[deny("d1", RG, actions=["*/delete"], excluded=["bob"])],
        )
    )
    ix = engine.indexes
    seen: list[bool] = []
    levels = ix.levels

    def watched(scope: str) -> Any:
        seen.append(gc.isenabled())
        return levels(scope)

    ix.levels = watched  # type: ignore[method-assign]
    requests = [
        AccessRequest(f"user-{i % 300}", "Cloud.Compute/virtualMachines/write", f"{VM}-{i}")
        for i in range(3000)
    ]
    assert gc.isenabled()
    decisions = decide_batch(ix, requests)
    assert gc.isenabled()
    assert len(seen) == 3000 and not any(seen)  # paused while deciding
    assert [d.decision for d in decisions] == ["notGranted"] * 3000
    small = decide_batch(ix, requests[:10])
    assert len(small) == 10 and all(seen[3000:])  # a small batch leaves it alone
    gc.disable()
    try:
        decide_batch(ix, requests)
        assert not gc.isenabled()  # not enabled by a batch
    finally:
        gc.enable()


def test_a_large_build_freezes_its_prepared_levels(monkeypatch: pytest.MonkeyPatch) -> None:
    """A large estate's indexes, the levels prepared at index time among them, are frozen: the
    collections a first batch triggers do not walk them (the threshold is lowered here so that a
    small estate counts as large; the process's collector is restored afterwards)."""
    from auditor.access import indexes

    monkeypatch.setattr(indexes, "_FREEZE_AFTER", 1)
    monkeypatch.setattr(indexes, "_frozen", False)
    threshold = gc.get_threshold()
    try:
        ix = indexes.Indexes(
            build(
                principals=[user("alice", "team")],
                assignments=[
                    ra("r1", "team", CONTRIBUTOR, SUB),
                    ra("r2", "alice", CONTRIBUTOR, RG),
                ],
                denies=[deny("d1", RG, actions=["*/delete"], excluded=["bob"])],
            )
        )
        prepared = [lv.grant_levels for lv in ix._levels_by_key.values() if lv.grant_levels]
        assert len(prepared) >= 2 and all(gc.is_tracked(t) for t in prepared)
        walked = {id(o) for generation in range(3) for o in gc.get_objects(generation)}
        assert not [t for t in prepared if id(t) in walked]  # frozen, so in no generation
    finally:
        gc.unfreeze()
        gc.set_threshold(*threshold)
