"""The resources rules look at: domains, clusters, health events and API tokens of a snapshot, or the
request bodies of a plan, each as the JSON a predicate sees (seed defaults applied, secrets masked)
plus the wire model (whose :class:`~auditor.model.secrets.Secret` values the secret checks read).

The access rows (``Cloud.Authorization``: role assignments, role definitions, deny assignments and
subscriptions as :mod:`auditor.access.views` publishes them) are judged by :func:`view_outcomes`:
made once per run, and a million role assignments judged once per distinct value of what the
predicate reads (its facets), their passes in bulk (:class:`~auditor.audit.checks.PassMany`).
"""

from __future__ import annotations

import math
import operator
import sys
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import compress, repeat
from typing import TYPE_CHECKING, Any, Literal

from auditor.audit.findings import Located, RunsOn
from auditor.estate.snapshot import Snapshot
from auditor.model.cluster import CLUSTER_RESOURCE_TYPE
from auditor.model.defaults import cluster_with_defaults, domain_with_defaults
from auditor.model.domain import DOMAIN_RESOURCE_TYPE
from auditor.model.health import HEALTH_EVENT_RESOURCE_TYPE

if TYPE_CHECKING:
    from auditor.audit.checks._registry import CheckContext, Outcome, PassMany
    from auditor.audit.packs import Rule
    from auditor.estate.plan import Plan, PlanRequest


ResourceKind = Literal["domain", "cluster", "healthEvent", "token", "request", "authorization"]

TOKEN_RESOURCE_TYPE = "DevTooling/apiTokens"
PLAN_REQUEST_RESOURCE_TYPE = "Plan/requests"

RESOURCE_KINDS: dict[str, ResourceKind] = {
    DOMAIN_RESOURCE_TYPE: "domain",
    CLUSTER_RESOURCE_TYPE: "cluster",
    HEALTH_EVENT_RESOURCE_TYPE: "healthEvent",
    TOKEN_RESOURCE_TYPE: "token",
    PLAN_REQUEST_RESOURCE_TYPE: "request",
}
"""Rule-pack resource types whose rules run once per resource of that kind."""

AUTHORIZATION_RESOURCE_TYPE = "Cloud.Authorization"
ROLE_ASSIGNMENT_TYPE = "Cloud.Authorization/roleAssignments"
"""The ``type`` of a role assignment row (:data:`auditor.access.views.ROLE_ASSIGNMENTS`)."""
VIEW_TYPES = frozenset({AUTHORIZATION_RESOURCE_TYPE})
"""Rule-pack resource types whose predicate rules judge the access rows (:func:`view_outcomes`);
a rule tells the kinds apart by the row's ``type`` (``appliesTo: "type eq
'Cloud.Authorization/roleAssignments'"``)."""


def token_resource_id(token_id: str | None, index: int) -> str:
    """The resource id of an API token in findings: its ``id`` (``devTooling.tokens[i]`` without)."""
    return token_id if token_id else f"devTooling.tokens[{index}]"


@dataclass
class Resource:
    """One resource a rule judges."""

    kind: ResourceKind
    resource_type: str
    id: str
    name: str
    source_kind: RunsOn
    source: str | None
    location: str | None
    doc: dict[str, Any]
    """Effective JSON (defaults applied, secrets masked): what predicates and templates read."""
    raw: dict[str, Any]
    """The JSON as given (secrets masked): tells a seed default from a given value."""
    model: Any = field(repr=False)
    request: PlanRequest | None = field(default=None, repr=False)


def _last_segment(resource_id: str) -> str:
    return resource_id.rstrip("/").rsplit("/", 1)[-1]


def _as_given(raw: dict[str, Any]) -> dict[str, Any]:
    return raw


_ESTATE_SECTIONS: tuple[
    tuple[str, ResourceKind, str, Callable[[dict[str, Any]], dict[str, Any]]], ...
] = (
    ("domains", "domain", DOMAIN_RESOURCE_TYPE, domain_with_defaults),
    ("clusters", "cluster", CLUSTER_RESOURCE_TYPE, cluster_with_defaults),
    ("healthEvents", "healthEvent", HEALTH_EVENT_RESOURCE_TYPE, _as_given),
)
"""Snapshot section, resource kind, resource type, and how the seed's defaults apply to it."""


def snapshot_resources(snapshot: Snapshot) -> dict[ResourceKind, list[Resource]]:
    """Domains, clusters, health events and tokens of a snapshot."""
    src = snapshot.source
    out: dict[ResourceKind, list[Resource]] = {
        "domain": [],
        "cluster": [],
        "healthEvent": [],
        "token": [],
        "request": [],
    }
    for section, kind, resource_type, with_defaults in _ESTATE_SECTIONS:
        for i, model in enumerate(getattr(snapshot, section)):
            raw = model.to_wire()
            rid = model.id or f"{section}[{i}]"
            out[kind].append(
                Resource(
                    kind,
                    resource_type,
                    rid,
                    model.name or _last_segment(rid),
                    "estate",
                    src,
                    f"{section}[{i}]",
                    with_defaults(raw),
                    raw,
                    model,
                )
            )
    if snapshot.devTooling is not None:
        for i, t in enumerate(snapshot.devTooling.tokens):
            raw = t.to_wire()
            rid = token_resource_id(t.id, i)
            out["token"].append(
                Resource(
                    "token",
                    TOKEN_RESOURCE_TYPE,
                    rid,
                    t.id or str(i),
                    "estate",
                    src,
                    f"devTooling.tokens[{i}]",
                    raw,
                    raw,
                    t,
                )
            )
    return out


def plan_resources(plan: Plan) -> dict[ResourceKind, list[Resource]]:
    """The domain and cluster bodies of a plan, and every request (for PLAN-001; role and deny
    assignments are requests only: no configuration rule reads them)."""
    src = plan.source
    out: dict[ResourceKind, list[Resource]] = {
        "domain": [],
        "cluster": [],
        "healthEvent": [],
        "token": [],
        "request": [],
    }
    for req in plan.requests:
        where = f"{req.json_path}.body"
        raw = req.body.to_wire() if req.kind in ("domain", "cluster") else {}
        if req.kind == "domain":
            out["domain"].append(
                Resource(
                    "domain",
                    DOMAIN_RESOURCE_TYPE,
                    req.resource_id,
                    req.name,
                    "plan",
                    src,
                    where,
                    domain_with_defaults(raw),
                    raw,
                    req.body,
                    req,
                )
            )
        elif req.kind == "cluster":
            out["cluster"].append(
                Resource(
                    "cluster",
                    CLUSTER_RESOURCE_TYPE,
                    req.resource_id,
                    req.name,
                    "plan",
                    src,
                    where,
                    cluster_with_defaults(raw),
                    raw,
                    req.body,
                    req,
                )
            )
        out["request"].append(
            Resource(
                "request",
                PLAN_REQUEST_RESOURCE_TYPE,
                req.resource_id,
                req.name,
                "plan",
                src,
                req.json_path,
                {"method": req.method, "apiVersion": req.api_version},
                {},
                req.body,
                req,
            )
        )
    return out


def get_path(doc: Any, path: str) -> Any:
    """The value at a ``/``-separated member path (names case-insensitive). A path crossing an
    array gives the list of the values found in its elements (None when nothing is found)."""
    parts = [p for p in path.split("/") if p]
    values = list(_walk(doc, parts))
    crosses = _crosses_array(doc, parts)
    if crosses:
        return [v for v in values if v is not None]
    return values[0] if values else None


def _lookup(node: Mapping[str, Any], name: str) -> tuple[bool, Any]:
    if name in node:
        return True, node[name]
    low = name.lower()
    for key, value in node.items():
        if key.lower() == low:
            return True, value
    return False, None


def _walk(node: Any, parts: list[str]) -> Iterator[Any]:
    if not parts:
        yield node
        return
    if isinstance(node, list):
        for item in node:
            yield from _walk(item, parts)
        return
    if isinstance(node, dict):
        found, value = _lookup(node, parts[0])
        if found:
            yield from _walk(value, parts[1:])
        else:
            yield None


def _crosses_array(node: Any, parts: list[str]) -> bool:
    for part in parts:
        if isinstance(node, list):
            return True
        if not isinstance(node, dict):
            return False
        node = _lookup(node, part)[1]
    return False


def has_path(doc: Any, path: str) -> bool:
    """True when every member of ``path`` is present (with a non-null value) in ``doc``."""
    node = doc
    for part in (p for p in path.split("/") if p):
        if not isinstance(node, dict):
            return False
        found, node = _lookup(node, part)
        if not found or node is None:
            return False
    return True


# ------------------------------------------------------------------------------ access rows


@dataclass
class _AccessRows:
    assignments: Any
    """:class:`auditor.access.AssignmentRows`."""
    items: Located
    """``(resource id, location)`` of every role assignment, for bulk passes."""
    small: list[tuple[str, list[dict[str, Any]], str | None]]
    """``(type, rows, location section)`` of role definitions, deny assignments, subscriptions."""


class _AssignmentIds(Sequence[str | None]):
    """The ids of the role assignments ``entries`` (the index's), read from their records when
    asked for and listed at once when many are: the reports that count passes never read the
    ids of a million passes (text, SARIF) or read a few thousand (the HTML page's first pass of
    each rule), so they are not gathered from a million records for them; the JSON report,
    which reads them all, has them listed after its first chunks."""

    __slots__ = ("_entries", "_ids", "_read")

    def __init__(self, entries: Sequence[Any]) -> None:
        self._entries = entries
        self._ids: list[str | None] | None = None
        self._read = 0

    def _listed(self) -> list[str | None]:
        ids = self._ids
        if ids is None:
            # a comprehension: faster than map(attrgetter) over a million records in 3.11
            ids = self._ids = [entry.record.id for entry in self._entries]
        return ids

    def __len__(self) -> int:
        return len(self._entries)

    def __getitem__(self, index: Any) -> Any:
        ids = self._ids
        if ids is not None:
            return ids[index]
        if isinstance(index, slice):
            picked = self._entries[index]
            self._read += len(picked)
            if self._read > _IDS_READ_ONE_BY_ONE:
                return self._listed()[index]
            return [entry.record.id for entry in picked]
        self._read += 1
        if self._read > _IDS_READ_ONE_BY_ONE:
            return self._listed()[index]
        return self._entries[index].record.id

    def __iter__(self) -> Iterator[str | None]:
        return iter(self._listed())


_IDS_READ_ONE_BY_ONE = 1 << 16
""":class:`_AssignmentIds` lists every id once more than this many are read."""


def _access_rows(ctx: CheckContext) -> _AccessRows:
    """The access rows of the run's snapshot (made once per run; dropped when it ends)."""
    found: _AccessRows | None = ctx.cache.get("transient:accessRows")
    if found is not None:
        return found
    from auditor.access import (
        AssignmentRows,
        deny_assignment_rows,
        role_definition_rows,
        subscription_rows,
    )

    assert ctx.snapshot is not None
    engine = ctx.access()
    snapshot = ctx.snapshot
    items: Located | None = ctx.cache.get("transient:passItems")
    if items is None:  # shared with the access checks (auditor.audit.checks.access)
        items = Located(_AssignmentIds(engine.indexes.assignments), "roleAssignments")
        ctx.cache["transient:passItems"] = items
    rows = AssignmentRows(engine, bool(snapshot.principals))
    found = _AccessRows(
        rows,
        items,
        [
            (
                "Cloud.Authorization/roleDefinitions",
                role_definition_rows(engine, snapshot),
                "roleDefinitions",
            ),
            (
                "Cloud.Authorization/denyAssignments",
                deny_assignment_rows(snapshot),
                "denyAssignments",
            ),
            ("Cloud.Resources/subscriptions", subscription_rows(engine, rows), None),
        ],
    )
    ctx.cache["transient:accessRows"] = found
    return found


def release_access_rows(ctx: CheckContext, rules_left: Iterable[Rule]) -> None:
    """Free what the access rows of the run hold that none of ``rules_left`` reads: all of them
    when no rule left judges them, else the per-assignment keys and facets of the fields no rule
    left reads (a million assignments make each a list of a million)."""
    found: _AccessRows | None = ctx.cache.get("transient:accessRows")
    if found is None:
        return
    left = [r for r in rules_left if r.predicate is not None and r.resource_type in VIEW_TYPES]
    if not left:
        del ctx.cache["transient:accessRows"]
        return
    found.assignments.keep(p for r in left for p in _read_paths(r))


def _always(_doc: Any) -> bool:
    return True


def _row_resource(row: dict[str, Any], location: str | None, source: str | None) -> Resource:
    rid = str(row["id"])
    return Resource(
        "authorization",
        str(row["type"]),
        rid,
        str(row.get("name") or rid),
        "estate",
        source,
        location,
        row,
        row,
        None,
    )


def _evidence(rule: Rule, row: dict[str, Any]) -> dict[str, Any]:
    return {path: _row_value(row, path) for path in rule.evidence}


def _evidence_reader(paths: Sequence[str]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """:func:`_evidence` of a rule whose evidence paths are ``paths``, as a function of the row
    (each path split once, not for each failing row)."""
    plan = [(path, path.split("/")) for path in paths]

    def evidence(row: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for path, parts in plan:  # _row_value's plain lookups, else get_path
            node: Any = row
            for part in parts:
                if not part or type(node) is not dict or part not in node:
                    node = get_path(row, path)
                    break
                node = node[part]
            out[path] = node
        return out

    return evidence


def _row_value(row: dict[str, Any], path: str) -> Any:
    """:func:`get_path` of ``row``, by plain lookups when every member of ``path`` is in an
    object as written (``principal/enabled`` of a row: what the evidence of most failing access
    rows reads), else by :func:`get_path` itself (names in another case, arrays crossed)."""
    node: Any = row
    for part in path.split("/"):
        if not part or type(node) is not dict or part not in node:
            return get_path(row, path)
        node = node[part]
    return node


def view_outcomes(rule: Rule, ctx: CheckContext) -> Iterator[Outcome | PassMany]:
    """The outcomes of a predicate rule over the access rows: failing rows one by one (their
    whole row for the message and evidence), passing role assignments in bulk when the pass
    message and remediation read only settings."""
    from auditor.audit.checks._registry import Outcome, PassMany
    from auditor.audit.packs import template_fields

    if ctx.snapshot is None or rule.predicate is None:
        return
    rows = _access_rows(ctx)
    predicate = rule.predicate
    applies = rule.applies_to or _always
    bulk = all(
        n.startswith("settings.")
        for t in (rule.pass_message, rule.info.remediation)
        for n in template_fields(t)
    )
    source = ctx.source
    passed, failed = _judged(rule, rows.assignments, predicate, applies)
    shown = _shown_names(rule)
    assignment_row = rows.assignments.row if shown is None else rows.assignments.shown_rows(shown)
    evidence = _evidence_reader(rule.evidence)
    for index in failed:  # tens of thousands at a million assignments: no call spared
        row = assignment_row(index)
        rid = str(row["id"])
        res = Resource(
            "authorization",
            ROLE_ASSIGNMENT_TYPE,
            rid,
            str(row.get("name") or rid),
            "estate",
            source,
            f"roleAssignments[{index}]",
            row,
            row,
            None,
        )  # as _row_resource makes it
        yield Outcome(False, evidence(row), resource=res, fields=row)
    if bulk:
        items = rows.items
        if isinstance(passed, bytes):
            if 1 in passed:  # listed only if read (reports that count passes never do)
                yield PassMany("Cloud.Authorization/roleAssignments", items.picked(passed))
        elif passed:
            if len(passed) == len(items) and items.indexes is None:  # every one, in order
                items = Located(items.ids, items.section)
            else:
                items = items.subset(passed)
            yield PassMany("Cloud.Authorization/roleAssignments", items)
    else:
        for index in _listed(passed):
            row = assignment_row(index)
            res = _row_resource(row, f"roleAssignments[{index}]", source)
            yield Outcome(True, _evidence(rule, row), resource=res, fields=row)
    for _rtype, section, where in rows.small:
        for index, row in enumerate(section):
            if not applies(row):
                continue
            ok = bool(predicate(row))
            location = f"{where}[{index}]" if where else None
            res = _row_resource(row, location, source)
            yield Outcome(ok, _evidence(rule, row), resource=res, fields=row)


def _shown_names(rule: Rule) -> frozenset[str] | None:
    """The top-level fields (case-folded) a finding of ``rule`` reads of its row: the placeholders
    of its messages and remediation, its evidence paths; None when it may read more (a severity
    predicate reads the row, a path names no field). A row holding those fields as the whole row
    has them gives the same findings (:meth:`~auditor.access.AssignmentRows.shown_row`)."""
    from auditor.audit.packs import template_fields

    if rule.severity_predicates:
        return None
    paths = [
        name.strip()
        for template in (rule.message, rule.pass_message, rule.info.remediation)
        for name in template_fields(template)
    ]
    paths.extend(rule.evidence)
    names: set[str] = set()
    for path in paths:
        first = next((part for part in path.split("/") if part), None)
        if first is None:
            return None  # the whole row
        names.add(first.casefold())
    return frozenset(names)


def _read_paths(rule: Rule) -> tuple[str, ...]:
    """The member paths the rule's predicate and ``appliesTo`` read (what decides a verdict)."""
    from auditor.audit.packs import member_paths

    reads = member_paths(rule.predicate_text) if rule.predicate_text else ()
    return tuple(dict.fromkeys((*reads, *rule.applies_reads)))


def _verdicts(
    rule: Rule,
    rows: Any,
    predicate: Callable[[Any], bool],
    applies: Callable[[Any], bool],
) -> tuple[list[int], list[int]]:
    """The indexes of the role assignments the rule applies to that pass, and that fail
    (:func:`_judged`, the passes listed)."""
    passed, failed = _judged(rule, rows, predicate, applies)
    return _listed(passed), failed


def _listed(passed: list[int] | bytes) -> list[int]:
    """The indexes of :func:`_judged`'s passes."""
    if isinstance(passed, bytes):
        return list(compress(range(len(passed)), passed))
    return passed


def _judged(
    rule: Rule,
    rows: Any,
    predicate: Callable[[Any], bool],
    applies: Callable[[Any], bool],
) -> tuple[list[int] | bytes, list[int]]:
    """The role assignments the rule applies to that pass (their indexes, or a byte per
    assignment, 1 for a pass: a million passes are not listed), and the indexes of those that
    fail.

    Each distinct combination of the values the rule reads is judged once, on a row of just the
    fields it reads: the values of a facet (the principal, the role...) are found once per
    distinct key of that facet (:meth:`~auditor.access.AssignmentRows.key_value_list`), numbered
    per distinct combination, and the numbers of the facets read are combined per assignment by
    loops that run in C (a million assignments: no Python step each); the distinct combinations
    and the failures are found by searches in C where they are few."""
    n = len(rows)
    passed: list[int] = []
    failed: list[int] = []
    facet_of = rows.facet_of
    constant = all(facet_of(p) is None for p in rule.applies_reads)
    applies_to = {p.split("/", 1)[0] for p in rule.applies_reads}
    if not n or (constant and not applies(rows.fields_row(applies_to, 0))):
        return passed, failed  # it judges another kind (by `type`): nothing to do here
    paths = _read_paths(rule)
    names = {p.split("/", 1)[0] for p in paths}
    by_facet: dict[str, list[str]] = {}
    for path in paths:
        facet = facet_of(path)
        if facet == "assignment":  # it reads the assignment itself: every row is judged
            for index in range(n):
                row = rows.row(index)
                if applies(row):
                    (passed if predicate(row) else failed).append(index)
            return passed, failed
        if facet is not None:
            by_facet.setdefault(facet, []).append(path)
    if not by_facet:  # one verdict for every assignment
        doc = rows.fields_row(names, 0)
        if applies(doc):
            return (list(range(n)), failed) if predicate(doc) else (passed, list(range(n)))
        return passed, failed
    # per facet: a number per distinct combination of the values read of it (a digit), with a key
    # that has it; then per assignment a number per combination over the facets (mixed radix)
    facets = list(by_facet)
    codes_of: list[Any] = []
    luts: list[list[int]] = []
    keys_of: list[list[Any]] = []
    for facet in facets:
        codes, keys = rows.facet_codes(facet)
        # each key's values (with their types where 1 and true, 0 and false could meet)
        typed: list[list[Any]] = []
        for path in by_facet[facet]:
            listed, found = rows.key_value_list(path)
            if listed is not keys:  # the facet's keys in another order: never so, but sound
                found = list(map(rows.key_values(path).__getitem__, keys))
            typed.append(_typed(found))
        per_key: list[Any] = typed[0] if len(typed) == 1 else list(zip(*typed, strict=True))
        # each distinct combination numbered in the order first met, in C
        numbers = {combo: n for n, combo in enumerate(dict.fromkeys(per_key))}
        lut = list(map(numbers.__getitem__, per_key))
        example = []  # each number's first key: numbered in order, each is met after the last
        start = 0
        for number in range(len(numbers)):
            start = lut.index(number, start)
            example.append(keys[start])
        codes_of.append(codes)
        luts.append(lut)
        keys_of.append(example)
    sizes = [len(example) for example in keys_of]
    combos: Any
    paged: _Paged | None = None
    if math.prod(sizes) <= _BYTE_COMBINATIONS:
        combos = _byte_combinations(codes_of, luts, sizes, n)
        # each possible number looked for (a memchr each, in C): no million-item set
        distinct: Iterable[int] = [b for b in range(math.prod(sizes)) if b in combos]
    elif math.prod(sizes) <= _SHORT_COMBINATIONS:
        combos = _short_combinations(codes_of, luts, sizes, n)
        if math.prod(sizes) <= _PAGED_COMBINATIONS:  # a few pages of 256: no set, no map
            paged = _Paged(combos, math.prod(sizes))
            distinct = paged.present()
        else:
            distinct = set(combos)
    else:
        column: Any = None
        for codes, lut, size in zip(codes_of, luts, sizes, strict=True):
            digits = map(lut.__getitem__, codes)
            if column is None:
                column = digits
            else:
                column = map(operator.add, map(operator.mul, column, repeat(size)), digits)
        combos = array("q", column)
        distinct = set(combos)
    verdicts: dict[int, int] = {}  # 0 not applying, 1 pass, 2 fail
    # each combination's row merged from the fields of its facets' keys, each made once (RBAC-003:
    # ten thousand combinations of a few thousand principals and a few roles)
    read_of = [[name for name in names if rows.facet_of(name) == facet] for facet in facets]
    made: dict[tuple[int, int], dict[str, Any]] = {}
    last = len(facets) - 1
    for number in distinct:
        merged: dict[str, Any] = {}
        rest = number
        for position in range(last, -1, -1):
            rest, digit = divmod(rest, sizes[position])
            part = made.get((position, digit))
            if part is None:
                chosen = {facets[position]: keys_of[position][digit]}
                part = made[(position, digit)] = rows.fields_of(read_of[position], chosen)
            merged.update(part)
        verdicts[number] = (1 if predicate(merged) else 2) if applies(merged) else 0
    if isinstance(combos, bytes):
        verdict = combos.translate(bytes(verdicts.get(b, 0) for b in range(256)))
    elif paged is not None:
        verdict = paged.verdict(verdicts)
    elif combos.typecode == "H":  # a table of every number's verdict: no dictionary lookup
        table = bytearray(math.prod(sizes))
        for number, judged in verdicts.items():
            table[number] = judged
        verdict = bytes(map(table.__getitem__, combos))
    else:
        verdict = bytes(map(verdicts.__getitem__, combos))
    del combos
    return verdict.translate(_PASS_MASK), _failing(verdict)


def _failing(verdict: bytes) -> list[int]:
    """The indexes of the failing assignments of :func:`_judged`'s ``verdict`` (a byte each, 2
    for a failure), in order: found by :meth:`bytes.find` (a memchr, in C) when they are few (a
    rule fails a few thousand assignments of a million), else by one pass over a mask."""
    if verdict.count(2) * _FEW_FAILING > len(verdict):
        return list(compress(range(len(verdict)), verdict.translate(_FAIL_MASK)))
    failed: list[int] = []
    add = failed.append
    find = verdict.find
    index = find(2)
    while index >= 0:
        add(index)
        index = find(2, index + 1)
    return failed


def _typed(values: list[Any]) -> list[Any]:
    """``values`` as keys that are equal only for values equal and of the same type: as they are
    when no two of their types can hold equal values (strings, null, frozen lists and objects,
    and at most one of booleans, integers and floats), else each with its type (1 and true, 0
    and false are judged apart)."""
    kinds = set(map(type, values))
    numeric = kinds - _UNMIXED_TYPES
    if len(numeric) <= 1 and numeric <= _NUMBER_TYPES:
        return values
    return list(zip(map(type, values), values, strict=True))


_UNMIXED_TYPES = frozenset({str, type(None), tuple})
"""Value types none of whose values equals a value of another type (frozen lists and objects are
tagged tuples: :func:`auditor.access.views._frozen`)."""
_NUMBER_TYPES = frozenset({bool, int, float})


def _byte_combinations(
    codes_of: Sequence[Any], luts: Sequence[list[int]], sizes: Sequence[int], n: int
) -> bytes:
    """Per assignment, the number of its combination of digits (mixed radix, ``sizes`` the
    digits' bases, whose product is at most 256) as one byte, every loop in C: each facet's digits
    are a byte per assignment (its key codes through a table), and the digit strings are combined
    as integers (``x * size + digits``: no byte can carry into the next, as every combination
    number fits in a byte)."""
    combined = 0
    for codes, lut, size in zip(codes_of, luts, sizes, strict=True):
        table = bytes(lut)
        if codes.typecode == "B":  # a byte per key code: translated
            digits = codes.tobytes().translate(table.ljust(256, b"\0"))
        else:
            digits = bytes(map(table.__getitem__, codes))
        combined = combined * size + int.from_bytes(digits, "little")
    return combined.to_bytes(n, "little")


def _short_combinations(
    codes_of: Sequence[Any], luts: Sequence[list[int]], sizes: Sequence[int], n: int
) -> array[int]:
    """:func:`_byte_combinations` in two bytes per assignment (``sizes``' product at most
    65,536): each facet's digits are a 16-bit lane per assignment of one integer, combined as
    integers (no lane carries into the next), then read back as an ``array('H')``: a rule whose
    combinations do not fit in a byte (RBAC-003: the guests of each principal times the roles)
    takes no Python step per assignment but reading its key codes through a table."""
    order: Literal["little", "big"] = "little" if sys.byteorder == "little" else "big"
    low = 0 if order == "little" else 1  # where a lane's low byte is
    combined = 0
    for codes, lut, size in zip(codes_of, luts, sizes, strict=True):
        if codes.typecode == "B" and len(lut) <= 256 and size <= 256:
            # a byte per key code, translated in C, then widened to two bytes a lane
            lanes = bytearray(2 * n)
            lanes[low::2] = codes.tobytes().translate(bytes(lut).ljust(256, b"\0"))
            digits = int.from_bytes(lanes, order)
        else:
            digits = int.from_bytes(array("H", map(lut.__getitem__, codes)).tobytes(), order)
        combined = combined * size + digits
    combos = array("H")
    combos.frombytes(combined.to_bytes(2 * n, order))
    return combos


class _Paged:
    """Two-byte combination numbers (:func:`_short_combinations`) that fall on a few pages of 256
    (RBAC-009: the scope's level, the role and the principal's type, a few hundred
    combinations), as each assignment's low byte and, per page, a mask of the assignments on it
    (an integer whose bytes are 0xFF there): the distinct numbers are then found by searches in
    C (a memchr each) and the verdicts by a translation per page, with no Python step per
    assignment (a set of a million numbers, a table look-up each)."""

    def __init__(self, combos: array[int], size: int) -> None:
        """``combos``: the numbers, each below ``size``."""
        raw = combos.tobytes()
        low = 0 if sys.byteorder == "little" else 1
        self.size = size
        self.lows = raw[low::2]
        pages = raw[1 - low :: 2]
        self.masks: list[int] = []
        for page in range((size + 255) // 256):
            table = bytearray(256)
            table[page] = 0xFF
            self.masks.append(int.from_bytes(pages.translate(table), "little"))

    def present(self) -> list[int]:
        """The numbers some assignment has, in order."""
        n, size = len(self.lows), self.size
        lows = int.from_bytes(self.lows, "little")
        zeros = int.from_bytes(self.lows.translate(_ZERO_MARK), "little")
        found: list[int] = []
        for page, mask in enumerate(self.masks):
            base = page * 256
            on_page = (lows & mask).to_bytes(n, "little")  # 0 where off the page
            if zeros & mask:
                found.append(base)
            found.extend(base + b for b in range(1, min(256, size - base)) if b in on_page)
        return found

    def verdict(self, verdicts: dict[int, int]) -> bytes:
        """Each assignment's verdict (a byte), from the verdict of each number present."""
        total = 0
        for page, mask in enumerate(self.masks):
            table = bytes(verdicts.get(page * 256 + b, 0) for b in range(256))
            total |= int.from_bytes(self.lows.translate(table), "little") & mask
        return total.to_bytes(len(self.lows), "little")


_PAGED_COMBINATIONS = 1024
"""Combinations that :class:`_Paged` judges (four pages: past them, a set and a table)."""
_ZERO_MARK = bytes([0xFF] + [0] * 255)
_BYTE_COMBINATIONS = 256
"""Combinations of the values a rule reads that :func:`_byte_combinations` numbers in a byte."""
_SHORT_COMBINATIONS = 1 << 16
"""Combinations that :func:`_short_combinations` numbers in two bytes (past them, 8 bytes)."""
_PASS_MASK = bytes([0, 1] + [0] * 254)
_FAIL_MASK = bytes([0, 0, 1] + [0] * 253)
_FEW_FAILING = 16
""":func:`_failing` finds the failures one by one when at most one assignment in this many fails."""
