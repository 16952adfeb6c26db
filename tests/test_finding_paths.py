"""The per-finding path of the engine (issue 23) gives the findings of the general one: each rule's
finding maker (texts, split templates and the hashed start of its fingerprints found once a rule)
makes the finding the old ``Engine._finding`` made, on estates and plans; the fingerprint of a
rule's hash continued, a finding made by its slots, a list of strings joined and evidence told
small by an inline loop each equal what they replace."""

from __future__ import annotations

import dataclasses
import datetime as dt
import io
import json
import pickle
from collections.abc import Collection
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.audit import engine as engine_module
from auditor.audit import limits
from auditor.audit.checks import Outcome
from auditor.audit.engine import Engine, _Messages, format_value
from auditor.audit.findings import (
    Finding,
    SourcePath,
    fingerprint,
    fingerprinter,
    new_finding,
)
from auditor.audit.packs import render_template
from auditor.audit.resources import Resource, get_path
from auditor.audit.runner import AuditOptions, prepare
from auditor.estate.plan import loads_plan
from auditor.estate.sample import sample_plans, sample_snapshot_bytes
from auditor.estate.snapshot import loads_snapshot

AS_OF = dt.date(2026, 11, 21)


# --- the oracles: the code these paths replace, as it was -------------------------------------


def _old_format_value(value: Any) -> str:
    if type(value) is str:
        return value
    if value is None:
        return "not set"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, list | tuple | set | frozenset):
        items = [_old_format_value(v) for v in value]
        return ", ".join(items) if items else "none"
    if isinstance(value, dict):
        return "an object"
    return str(value)


def _old_render(
    settings: dict[str, Any],
    template: str,
    outcome: Any,
    resource: Resource | None,
    rid: str,
    name: str,
) -> str:
    """``_Messages.render`` as it was: the lookup of each placeholder through
    :func:`render_template`."""
    fields = (outcome.fields or None) if outcome is not None else None
    evidence = (outcome.evidence or None) if outcome is not None else None

    def lookup(key: str) -> str:
        if key == "resourceName":
            return name
        if key == "resourceId":
            return rid
        if fields is not None and key in fields:
            return _old_format_value(fields[key])
        if evidence is not None and key in evidence:
            return _old_format_value(evidence[key])
        if key.startswith("settings."):
            return _old_format_value(settings.get(key[9:]))
        if resource is not None:
            return _old_format_value(get_path(resource.doc, key))
        return "unknown"

    return render_template(template, lookup)


def _old_small(value: Any) -> bool:
    t = type(value)
    if t is str:
        return len(value) <= 200
    return t is not list and t is not dict and t is not tuple


def _old_finding(
    engine: Engine,
    rule: Any,
    outcome: Any,
    resource: Resource | None,
    secrets: Collection[str] | None,
    sizes: dict[int, Any] | None,
) -> Finding:
    """``Engine._finding`` as it was before each rule's maker (fda91d3)."""
    if secrets is None:
        secrets = engine.context.secrets
    if resource is not None:
        rid = outcome.resource_id or resource.id
        rtype = outcome.resource_type or resource.resource_type
        location = outcome.location or resource.location
        source: Any = resource.source
        request = resource.request
        if request is not None and request.source is not None:
            ref = request.source
            source = SourcePath(ref.file, ref.line, ref.address)
    else:
        rid = outcome.resource_id or "/"
        rtype = outcome.resource_type or rule.resource_type
        location = outcome.location
        source = engine.context.source
    info = rule.info
    cache = engine.messages.constant
    settings = dict(engine.context.settings)
    if outcome.unknown is not None:
        message = None
        status = "unknown"
        detail = f"unknown:{outcome.detail}"
    else:
        template = rule.pass_message if outcome.passed else rule.message
        message = cache.get(template)
        status = "pass" if outcome.passed else "fail"
        detail = outcome.detail
    remediation = cache.get(info.remediation)
    if message is None or remediation is None:
        if resource is not None:
            name = outcome.resource_name or resource.name
        else:
            name = outcome.resource_name or rid.rstrip("/").rsplit("/", 1)[-1] or rid
        if outcome.unknown is not None:
            message = f"Could not judge {name}: {outcome.unknown}."
        elif message is None:
            message = _old_render(settings, template, outcome, resource, rid, name)
        if remediation is None:
            remediation = _old_render(settings, info.remediation, outcome, resource, rid, name)
    severity = outcome.severity
    if severity is None:
        severity = engine_module._severity(rule, resource)
    evidence = outcome.evidence or {}
    if evidence:
        evidence = limits.bound_evidence(evidence, secrets, sizes)
    if len(message) > limits.MAX_CHARS:
        message = limits.bound_text(message, secrets)
    if len(remediation) > limits.MAX_CHARS:
        remediation = limits.bound_text(remediation, secrets)
    if location and engine._relocate is not None:
        location = engine._relocate(location)
    return Finding(
        info.id,
        severity,
        status,  # type: ignore[arg-type]
        rid,
        info.title,
        message,
        evidence,
        remediation,
        info.references,
        fingerprint(info.id, rid, engine.source_kind, detail),
        rtype,
        source,
        location,
    )


# --- each rule's maker against the old _finding, over whole runs -----------------------------


def _checked_run(engine: Engine, rules: list[Any], patch: pytest.MonkeyPatch) -> int:
    """Run ``rules``, checking every finding a rule's maker makes against :func:`_old_finding`
    (the same fields, evidence and JSON) as it is made; how many were checked."""
    checked = [0]
    new_maker = Engine._new_maker

    def recording(self: Engine, rule: Any) -> Any:
        make = new_maker(self, rule)

        def checked_make(outcome: Any, resource: Any, secrets: Any, sizes: Any) -> Finding:
            made = make(outcome, resource, secrets, sizes)
            old = _old_finding(self, rule, outcome, resource, secrets, sizes)
            assert made == old
            assert made.to_json() == old.to_json()
            assert (made.line, made.address, made.waiver) == (old.line, old.address, None)
            checked[0] += 1
            return made

        return checked_make

    patch.setattr(Engine, "_new_maker", recording)
    evaluation = engine.run(rules)
    for f in evaluation.findings:  # passes made when read go through the makers too
        assert f.fingerprint
    return checked[0]


def _generated(seed: int) -> bytes:
    from auditor.estate.generate import generate_estate

    buffer = io.BytesIO()
    generate_estate(600, seed=seed, principals=60, deny_assignments=8, out=buffer, progress=False)
    return buffer.getvalue()


@pytest.mark.parametrize("which", ["sample", "generated-3", "generated-5"])
def test_each_rules_maker_makes_the_findings_of_the_old_path(
    which: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every finding of a whole run over an estate (failures, unknowns, passes of every kind,
    evidence shared by access rows) equals the one the old ``_finding`` makes of the same
    outcome."""
    data = sample_snapshot_bytes() if which == "sample" else _generated(int(which[-1]))
    snapshot = loads_snapshot(data, source=f"{which}.json")
    prep = prepare(AuditOptions(use_config=False, as_of=AS_OF))
    engine = Engine(settings=prep.settings, as_of=AS_OF, snapshot=snapshot)
    assert _checked_run(engine, prep.rules, monkeypatch) > 100


@pytest.mark.parametrize("name", sorted(sample_plans()))
def test_each_rules_maker_on_plans(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """On plans too: requests with their source lines and addresses, unknowns, secrets met while
    checking (masked in what is bounded)."""
    plan = loads_plan(json.dumps(sample_plans()[name]).encode(), source=f"{name}.json")
    prep = prepare(AuditOptions(use_config=False, as_of=AS_OF))
    engine = Engine(settings=prep.settings, as_of=AS_OF, plan=plan)
    assert _checked_run(engine, prep.rules, monkeypatch) > 10


def test_a_maker_follows_the_messages_of_its_run() -> None:
    """A rule's maker is made again when the run's messages change (a new run), and the finding
    of a rule called outside a run is the old path's."""
    snapshot = loads_snapshot(sample_snapshot_bytes(), source="sample.json")
    prep = prepare(AuditOptions(use_config=False, as_of=AS_OF))
    engine = Engine(settings=prep.settings, as_of=AS_OF, snapshot=snapshot)
    rule = next(r for r in prep.rules if r.id == "RBAC-004")
    first = engine._maker(rule)
    assert engine._maker(rule) is first
    engine._prepare_messages([rule])
    assert engine._maker(rule) is not first
    listed = [f for f in engine.run_rule(rule) if f.status != "pass"]
    assert listed and all(f.ruleId == "RBAC-004" for f in listed)


# --- the pieces against what they replace -------------------------------------------------------

_IDS = st.text(st.sampled_from("aB/ -x\u00e9\u212a1"), max_size=12)


@given(
    rule=st.text(st.sampled_from("Rr-0\u00df"), min_size=1, max_size=6),
    rid=_IDS,
    kind=st.sampled_from(["plan", "estate"]),
    detail=st.text(max_size=8),
)
def test_a_rules_fingerprints_are_fingerprint(rule: str, rid: str, kind: str, detail: str) -> None:
    """The rule's hash continued for each finding gives :func:`fingerprint` (case, spaces and
    trailing slashes of the id, the detail)."""
    assert fingerprinter(rule, kind)(rid, detail) == fingerprint(rule, rid, kind, detail)


_TEXT = st.text(max_size=6)
_FIELDS = (
    "ruleId",
    "severity",
    "status",
    "resourceId",
    "title",
    "message",
    "evidence",
    "remediation",
    "references",
    "fingerprint",
    "resourceType",
    "source",
    "location",
)


@given(
    texts=st.lists(_TEXT, min_size=9, max_size=9),
    evidence=st.dictionaries(_TEXT, _TEXT, max_size=3),
    references=st.lists(_TEXT, max_size=2).map(tuple),
    source=st.none() | _TEXT | st.builds(SourcePath, _TEXT, st.none() | st.integers(1, 9)),
    location=st.none() | _TEXT,
)
def test_a_finding_made_by_its_slots_is_the_dataclass_finding(
    texts: list[str],
    evidence: dict[str, str],
    references: tuple[str, ...],
    source: str | None,
    location: str | None,
) -> None:
    """:func:`new_finding` makes the finding ``Finding(...)`` makes: equal fields, JSON,
    copies and pickles, no waiver."""
    rule, severity, status, rid, title, message, remediation, fp, rtype = texts
    args = (rule, severity, status, rid, title, message, evidence, remediation, references, fp)
    made = new_finding(*args, rtype, source, location)  # type: ignore[arg-type]
    built = Finding(*args, rtype, source, location)  # type: ignore[arg-type]
    assert made == built
    assert [getattr(made, n) for n in _FIELDS] == [getattr(built, n) for n in _FIELDS]
    assert made.waiver is None and made.to_json() == built.to_json()
    assert (made.line, made.address) == (built.line, built.address)
    assert dataclasses.replace(made) == built and pickle.loads(pickle.dumps(made)) == built
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.status = "pass"  # type: ignore[misc]


class _Str(str):
    def __str__(self) -> str:
        return "shown"


_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.text(max_size=4)
    | st.dates()
    | st.builds(_Str, st.text(max_size=3))
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(st.text(max_size=2), inner, max_size=2)
    ),
    max_leaves=6,
)


@given(value=_VALUES)
def test_format_value_is_the_old_one(value: Any) -> None:
    """Lists of plain strings joined at once read as before (an empty one ``none``, a list of
    one empty string empty); other lists, subclasses of ``str`` and scalars too."""
    assert format_value(value) == _old_format_value(value)


_NAMES = st.sampled_from(
    ["resourceName", "resourceId", "a", "b", "settings.s", "settings.t", "doc/x", "c"]
)
_LITERALS = st.text(st.sampled_from("xy {}"), max_size=3)


@settings(max_examples=300)
@given(
    pieces=st.lists(st.tuples(_LITERALS, _NAMES), max_size=4),
    tail=_LITERALS,
    fields=st.none() | st.dictionaries(_NAMES, _VALUES, max_size=3),
    evidence=st.none() | st.dictionaries(_NAMES, _VALUES, max_size=3),
    doc=st.none() | st.dictionaries(st.sampled_from(["doc", "c"]), _VALUES, max_size=2),
)
def test_split_templates_fill_as_render_template_did(
    pieces: list[tuple[str, str]],
    tail: str,
    fields: dict[str, Any] | None,
    evidence: dict[str, Any] | None,
    doc: dict[str, Any] | None,
) -> None:
    """A template split once a run fills as the old lookup through ``render_template`` did: the
    resource's name and id first, then the outcome's fields, its evidence, the settings, the
    resource's document, else ``unknown``; doubled braces stay single braces."""
    escaped = [(lit.replace("{", "{{").replace("}", "}}"), name) for lit, name in pieces]
    template = "".join(f"{lit}{{{name}}}" for lit, name in escaped)
    template += tail.replace("{", "{{").replace("}", "}}")
    settings_ = {"s": ["one", "two"], "t": None}
    outcome = Outcome(False, evidence, fields=fields)
    resource = None
    if doc is not None:
        resource = Resource("domain", "T", "/r/id", "id", "estate", None, None, doc, doc, None)
    messages = _Messages(settings_)
    got = engine_module._fill(messages.split(template), outcome, resource, "/r/id", "nm")
    assert got == _old_render(settings_, template, outcome, resource, "/r/id", "nm")
    assert messages.split(template) is messages.split(template)  # split once


_EVIDENCE_VALUES = (
    st.text(max_size=3)
    | st.text(min_size=199, max_size=202)
    | st.integers()
    | st.none()
    | st.lists(st.text(max_size=2), max_size=2)
    | st.dictionaries(st.text(max_size=2), st.integers(), max_size=2)
    | st.builds(_Str, st.text(min_size=199, max_size=202))
)


@given(evidence=st.dictionaries(st.text(max_size=3), _EVIDENCE_VALUES, max_size=18))
def test_evidence_told_small_inline_as_before(evidence: dict[str, Any]) -> None:
    """The inline test of a few scalars and short strings returns the evidence itself exactly
    when the old test by :func:`_old_small` did, and bounds the rest the same."""
    small = len(evidence) <= 16 and all(map(_old_small, evidence.values()))
    bounded = limits.bound_evidence(evidence)
    if small:
        assert bounded is evidence
    assert bounded == limits.bound_evidence(dict(evidence), (), {})
