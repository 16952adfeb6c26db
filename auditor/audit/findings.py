"""The findings model (contracts section 6): what the audit produces and every renderer reads.

Renderers depend on this module only (plus the optional access summary); nothing here knows about
rules' predicates, sources or output formats.
"""

from __future__ import annotations

import hashlib
import itertools
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Literal, overload

from auditor import __version__

if TYPE_CHECKING:
    from auditor.audit.frameworks import ControlResult

Severity = Literal["critical", "high", "medium", "low", "info"]
Status = Literal["fail", "pass", "unknown", "waived", "baselined"]
"""``unknown``: the rule could not be judged for the resource (a value it needs is unresolved, or an
input it needs is absent); it never passes and never fails (``--fail-on-unknown`` makes it block)."""
RunsOn = Literal["plan", "estate"]

SEVERITIES: tuple[Severity, ...] = ("critical", "high", "medium", "low", "info")
"""Most severe first."""

SEVERITY_RANK: dict[str, int] = {s: i for i, s in enumerate(reversed(SEVERITIES))}
"""info 0 ... critical 4: ``SEVERITY_RANK[a] >= SEVERITY_RANK[b]`` means a is at least as severe."""

SCHEMA_VERSION = 1


_STATUS_SEVERITY = attrgetter("status", "severity")


def at_least(severity: str, threshold: str) -> bool:
    """True when ``severity`` is ``threshold`` or more severe."""
    return SEVERITY_RANK[severity] >= SEVERITY_RANK[threshold]


@dataclass(frozen=True)
class RuleInfo:
    """What a renderer needs to know about a rule (the catalogue entry, without its predicate)."""

    id: str
    title: str
    severity: Severity
    resourceType: str
    runsOn: tuple[RunsOn, ...]
    description: str = ""
    remediation: str = ""
    references: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "severity": self.severity,
            "resourceType": self.resourceType,
            "runsOn": list(self.runsOn),
            "description": self.description,
            "remediation": self.remediation,
            "references": list(self.references),
        }


@dataclass(frozen=True)
class WaiverInfo:
    """A waiver of contracts section 7 as the findings carry it."""

    id: str
    rule: str
    resource: str
    justification: str
    expires: str
    """ISO date."""
    expired: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "rule": self.rule,
            "resource": self.resource,
            "justification": self.justification,
            "expires": self.expires,
            "expired": self.expired,
        }


class SourcePath(str):
    """A finding's source file (the ``str`` as given) that also knows where in it the resource is
    defined: ``line`` (1-based, or None) and ``address`` (ARM symbolic name, Terraform address,
    JSON path; or None). Only findings of resources read from templates and plans carry one; a
    snapshot's findings share the plain file name, so a million findings cost no extra slot
    (:attr:`Finding.line`, :attr:`Finding.address`). ``str(path)`` is the plain file name."""

    line: int | None
    address: str | None

    def __new__(cls, file: str, line: int | None = None, address: str | None = None) -> SourcePath:
        self = super().__new__(cls, file)
        self.line = line
        self.address = address
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (SourcePath, (str(self), self.line, self.address))


@dataclass(frozen=True, slots=True)
class Finding:
    """One rule evaluated on one resource (contracts section 6).

    ``evidence`` holds the values that decided, never a secret (a secret is described, e.g.
    ``"a literal value"``, or given as its fingerprint); for an ``unknown`` finding it names what
    was missing. ``source`` is the file the resource came from (snapshot, plan or template; a
    :class:`SourcePath` when it knows the resource's :attr:`line` and :attr:`address` there) and
    ``location`` the JSON path of the finding inside the snapshot or plan model: together the
    ``source`` object of contracts section 6 (:meth:`source_json`), which SARIF anchors results to.
    """

    ruleId: str
    severity: Severity
    status: Status
    resourceId: str
    title: str
    message: str
    evidence: dict[str, Any] = field(default_factory=dict)
    remediation: str = ""
    references: tuple[str, ...] = ()
    fingerprint: str = ""
    resourceType: str = ""
    source: str | None = None
    location: str | None = None
    waiver: WaiverInfo | None = None

    @property
    def line(self) -> int | None:
        """The 1-based line of the resource's definition in :attr:`source`, when known."""
        return getattr(self.source, "line", None)

    @property
    def address(self) -> str | None:
        """The resource's address in :attr:`source` (ARM symbolic name, Terraform address, JSON
        path), when known."""
        return getattr(self.source, "address", None)

    def source_json(self) -> dict[str, Any] | None:
        """The ``source`` object of contracts section 6: ``{"file", "line", "address"}`` (line
        when known; address defaults to the JSON path), or None when the resource came from no
        file."""
        if self.source is None:
            return None
        out: dict[str, Any] = {"file": str(self.source)}
        line = self.line
        if line is not None:
            out["line"] = line
        address = self.address or self.location
        if address is not None:
            out["address"] = address
        return out

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "ruleId": self.ruleId,
            "severity": self.severity,
            "status": self.status,
            "resourceId": self.resourceId,
            "resourceType": self.resourceType,
            "title": self.title,
            "message": self.message,
            "evidence": self.evidence,
            "remediation": self.remediation,
            "references": list(self.references),
            "fingerprint": self.fingerprint,
        }
        source = self.source_json()
        if source is not None:
            out["source"] = source
        if self.location is not None:
            out["location"] = self.location
        if self.waiver is not None:
            out["waiver"] = self.waiver.to_json()
        return out


def fingerprint(rule_id: str, resource_id: str, source_kind: str, detail: str = "") -> str:
    """A stable fingerprint: rule, normalised resource id (case-insensitive, no trailing ``/``),
    source kind (``plan`` or ``estate``) and an optional detail that tells apart several findings of
    one rule on one resource (e.g. the offending field)."""
    norm = resource_id.strip().rstrip("/").lower() or "/"
    text = "\x1f".join((rule_id.upper(), norm, source_kind, detail))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def fingerprinter(rule_id: str, source_kind: str) -> Callable[[str, str], str]:
    """:func:`fingerprint` of one rule and source kind, as a function of the resource id and the
    detail: the rule's part of the text is hashed once, and each finding's hash continues from a
    copy of it (the same digest as hashing the whole text; tens of thousands of failing findings
    a run)."""
    head = hashlib.sha256(f"{rule_id.upper()}\x1f".encode())
    tail = f"\x1f{source_kind}\x1f"
    copy = head.copy

    def of(resource_id: str, detail: str) -> str:
        digest = copy()
        digest.update(f"{resource_id.strip().rstrip('/').lower() or '/'}{tail}{detail}".encode())
        return digest.hexdigest()[:32]

    return of


class DeferredFingerprint:
    """What a bulk pass finding holds in place of its fingerprint: the fingerprint is computed
    when read, from the finding's rule and resource id (:func:`fingerprint` with no detail), so a
    million passes do not each keep a 32-character string. Reading ``Finding.fingerprint`` always
    gives the string; nothing else sees this placeholder."""

    __slots__ = ("source_kind",)

    def __init__(self, source_kind: str) -> None:
        self.source_kind = source_kind


class _FingerprintSlot:
    """``Finding.fingerprint``: the slot, resolving a :class:`DeferredFingerprint` when read."""

    __slots__ = ("slot",)

    def __init__(self, slot: Any) -> None:
        self.slot = slot

    def __get__(self, obj: Any, owner: Any = None) -> Any:
        if obj is None:
            return self
        value = self.slot.__get__(obj, owner)
        if type(value) is DeferredFingerprint:
            return fingerprint(obj.ruleId, obj.resourceId, value.source_kind)
        return value

    def __set__(self, obj: Any, value: Any) -> None:
        self.slot.__set__(obj, value)

    def __delete__(self, obj: Any) -> None:
        self.slot.__delete__(obj)


setattr(Finding, "fingerprint", _FingerprintSlot(Finding.__dict__["fingerprint"]))  # noqa: B010

_FIELD_COUNT = 14
_SLOTS = [
    getattr(Finding.__dict__[name], "slot", Finding.__dict__[name]) for name in Finding.__slots__
]
if len(_SLOTS) != _FIELD_COUNT:  # pragma: no cover
    raise RuntimeError("Finding's fields changed: update PassBlock")
_PROTO_SETTERS: tuple[Callable[[Finding, Any], None], ...] = tuple(s.__set__ for s in _SLOTS)
"""The slot setters of :class:`Finding`, in field order, for making passes in bulk."""
_PROTO_GETTERS: tuple[Callable[[Finding], Any], ...] = tuple(
    (lambda slot: lambda f: slot.__get__(f, Finding))(s) for s in _SLOTS
)
"""The raw slot getters (a deferred fingerprint stays deferred)."""
(
    _set_rule,
    _set_severity,
    _set_status,
    _set_resource,
    _set_title,
    _set_message,
    _set_evidence,
    _set_remediation,
    _set_references,
    _set_fingerprint,
    _set_type,
    _set_source,
    _set_location,
    _set_waiver,
) = _PROTO_SETTERS
"""The slot setters one by one, for :func:`new_finding`."""


def new_finding(
    rule_id: str,
    severity: Severity,
    status: Status,
    resource_id: str,
    title: str,
    message: str,
    evidence: dict[str, Any],
    remediation: str,
    references: tuple[str, ...],
    fingerprint: str,
    resource_type: str,
    source: str | None,
    location: str | None,
) -> Finding:
    """``Finding(...)`` of these fields (no waiver), made by the slots' own setters instead of the
    frozen dataclass's ``__init__`` (one ``object.__setattr__`` per field): half the cost, for the
    tens of thousands of failing findings of a large estate."""
    f: Finding = object.__new__(Finding)
    _set_rule(f, rule_id)
    _set_severity(f, severity)
    _set_status(f, status)
    _set_resource(f, resource_id)
    _set_title(f, title)
    _set_message(f, message)
    _set_evidence(f, evidence)
    _set_remediation(f, remediation)
    _set_references(f, references)
    _set_fingerprint(f, fingerprint)
    _set_type(f, resource_type)
    _set_source(f, source)
    _set_location(f, location)
    _set_waiver(f, None)
    return f


def _identity(item: Any) -> Any:
    return item


def _index_array(indexes: Sequence[int]) -> array[int]:
    """``indexes`` in 4 bytes each (8 past 2**31)."""
    try:
        return array("i", indexes)
    except OverflowError:
        return array("q", indexes)


class Located(Sequence[tuple[str, str]]):
    """The ``(resource id, location)`` items of the entries of one section of a snapshot, made
    when read: entry ``i`` is ``(ids[i], "section[i]")`` (the location when its id is None), for
    the entries ``indexes`` names (all when None). A million passes hold one list of ids that
    already exist and an array of indexes, not a million tuples and location strings
    (:attr:`PassBlock.items`)."""

    __slots__ = ("_count", "_indexes", "_mask", "ids", "section")

    def __init__(
        self,
        ids: Sequence[str | None],
        section: str,
        indexes: Sequence[int] | None = None,
        *,
        mask: bytes | None = None,
    ) -> None:
        self.ids = ids
        self.section = section
        self._indexes = indexes
        self._mask = mask
        """Picks the entries instead of ``indexes`` until they are read (a byte each, 1 for
        an entry picked; see :meth:`picked`)."""
        self._count = 0 if mask is None else mask.count(1)

    @property
    def indexes(self) -> Sequence[int] | None:
        """The entries named (all when None)."""
        mask = self._mask
        if mask is not None:  # listed when first read (a report that counts never does)
            picked = itertools.compress(range(len(mask)), mask)
            self._indexes = array("i" if len(mask) <= 1 << 31 else "q", picked)
            self._mask = None
        return self._indexes

    def subset(self, indexes: Sequence[int]) -> Located:
        """The items of the entries ``indexes`` (of the whole section), in that order."""
        if self.indexes is not None:
            indexes = [self.indexes[i] for i in indexes]
        if len(indexes) == len(self.ids) and all(i == n for n, i in enumerate(indexes)):
            return Located(self.ids, self.section)
        return Located(self.ids, self.section, _index_array(indexes))

    def picked(self, mask: bytes) -> Located:
        """The items of the entries whose byte of ``mask`` (one per entry of the whole section,
        0 or 1) is 1, in order: :meth:`subset` of those entries, which are listed only when
        read."""
        if self.indexes is not None:
            return self.subset(list(itertools.compress(range(len(mask)), mask)))
        if len(mask) == len(self.ids) and mask.count(1) == len(mask):
            return Located(self.ids, self.section)
        return Located(self.ids, self.section, mask=mask)

    def __len__(self) -> int:
        if self._mask is not None:
            return self._count
        return len(self.ids if self._indexes is None else self._indexes)

    @overload
    def __getitem__(self, index: int) -> tuple[str, str]: ...

    @overload
    def __getitem__(self, index: slice) -> list[tuple[str, str]]: ...

    def __getitem__(self, index: int | slice) -> tuple[str, str] | list[tuple[str, str]]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if self.indexes is not None:
            index = self.indexes[index]  # IndexError past the end
        rid = self.ids[index]
        location = f"{self.section}[{index}]"
        return (rid or location, location)

    def __iter__(self) -> Iterator[tuple[str, str]]:
        for start in range(0, len(self), 4096):
            yield from zip(*self.columns(start, start + 4096), strict=True)

    def columns(self, start: int, stop: int) -> tuple[list[str], list[str]]:
        """The ids and the locations of items ``start`` to ``stop`` (for writers that take a
        chunk at a time)."""
        section, ids = self.section, self.ids
        if self.indexes is None:
            stop = min(stop, len(ids))
            locations = [f"{section}[{i}]" for i in range(start, stop)]
            chosen = list(ids[start:stop])
        else:
            where = self.indexes[start:stop]
            locations = [f"{section}[{i}]" for i in where]
            chosen = [ids[i] for i in where]
        if None in chosen or "" in chosen:
            chosen = [rid or loc for rid, loc in zip(chosen, locations, strict=True)]
        return chosen, locations  # type: ignore[return-value]


class PassBlock:
    """Passing findings of one rule, held compactly: ``items`` (one per pass, in evaluation order)
    and ``make``, which turns an item into its :class:`Finding` when one is read. A million
    passes cost a million small items (often a list the checks share), not a million findings;
    renderers that only count passes read :attr:`types` and never make one.

    ``proto``, when set, is the finding every pass of the block shares but for its resource id
    and location: each item is then ``(resourceId, location)`` and the fingerprint is
    :func:`fingerprint` of rule, resource and source kind (``source_kind``), so the JSON renderer
    writes such passes without making them (:mod:`auditor.report.json`). ``relocate`` maps an
    item's location to where the snapshot read the entry (see ``Snapshot.file_location``)."""

    __slots__ = ("items", "make", "proto", "relocate", "ruleId", "source_kind", "types")

    def __init__(
        self,
        rule_id: str,
        items: Sequence[Any],
        make: Callable[[Any], Finding] = _identity,
        *,
        types: dict[str, int],
        proto: Finding | None = None,
        source_kind: str = "estate",
        relocate: Callable[[str], str] | None = None,
    ) -> None:
        self.ruleId = rule_id
        self.items = items
        self.make = make
        self.types = types
        """Passes by resource type."""
        self.proto = proto
        self.source_kind = source_kind
        self.relocate = relocate

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[Finding]:
        proto = self.proto
        if proto is None:
            yield from map(self.make, self.items)
            return
        relocate = self.relocate
        new, setters = object.__new__, _PROTO_SETTERS
        fields = [get(proto) for get in _PROTO_GETTERS]
        for rid, location in self.items:
            if location and relocate is not None:
                location = relocate(location)
            fields[3] = rid
            fields[12] = location
            # the same Finding as Finding(...) builds, without the frozen dataclass's __init__
            # (one object.__setattr__ per field: the bulk of a pass's cost)
            f = new(Finding)
            for setter, value in zip(setters, fields, strict=True):
                setter(f, value)
            yield f

    def map(self, fn: Callable[[Finding], Finding]) -> PassBlock:
        """The block with ``fn`` applied to each pass (to its shared ``proto`` only, when it has
        one: ``fn`` must then not depend on the resource id, location or fingerprint)."""
        if self.proto is not None:
            return PassBlock(
                self.ruleId,
                self.items,
                types=self.types,
                proto=fn(self.proto),
                source_kind=self.source_kind,
                relocate=self.relocate,
            )
        make = self.make
        return PassBlock(self.ruleId, self.items, lambda item: fn(make(item)), types=self.types)


class Findings(Sequence[Finding]):
    """A run's findings: ``listed`` (the failing, unknown, waived and baselined findings, and any
    pass given as an object) and the passes of ``blocks`` (:class:`PassBlock`). In the order of a
    report (``positions`` None) the listed findings come first, then the blocks; as a run
    evaluated them, ``positions[k]`` says how many listed findings came before block ``k``.
    Iterating makes each pass as it is read, and drops it; counting passes makes none
    (:func:`pass_counts`)."""

    __slots__ = ("blocks", "listed", "positions")

    positions: list[int] | None

    def __init__(
        self,
        listed: list[Finding],
        blocks: Sequence[PassBlock] = (),
        positions: Sequence[int] | None = None,
    ) -> None:
        self.listed = listed
        if positions is not None:
            positions = [p for p, b in zip(positions, blocks, strict=True) if len(b)]
            if all(p == len(listed) for p in positions):
                positions = None
        self.blocks = [b for b in blocks if len(b)]
        self.positions = positions

    @property
    def passes_last(self) -> bool:
        """Whether every block comes after every listed finding (a report's order)."""
        n = len(self.listed)
        return self.positions is None or all(p == n for p in self.positions)

    def append(self, part: Finding | PassBlock) -> None:
        """Add a finding, or a block of passes, at the end (as a run evaluates them)."""
        if type(part) is PassBlock:
            if len(part):
                if self.positions is None:
                    self.positions = [len(self.listed)] * len(self.blocks)
                self.positions.append(len(self.listed))
                self.blocks.append(part)
        else:
            self.listed.append(part)  # type: ignore[arg-type]

    def segments(self) -> Iterator[list[Finding] | PassBlock]:
        """Runs of listed findings and blocks, in order."""
        positions = self.positions or [len(self.listed)] * len(self.blocks)
        done = 0
        for position, block in zip(positions, self.blocks, strict=True):
            if position > done:
                yield self.listed[done:position]
                done = position
            yield block
        if done < len(self.listed):
            yield self.listed[done:] if done else self.listed

    def __len__(self) -> int:
        return len(self.listed) + sum(len(b) for b in self.blocks)

    def __iter__(self) -> Iterator[Finding]:
        for segment in self.segments():
            yield from segment

    @overload
    def __getitem__(self, index: int) -> Finding: ...

    @overload
    def __getitem__(self, index: slice) -> list[Finding]: ...

    def __getitem__(self, index: int | slice) -> Finding | list[Finding]:
        if isinstance(index, slice):
            return list(self)[index]
        n = len(self)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError("findings index out of range")
        for segment in self.segments():
            if index < len(segment):
                if isinstance(segment, list):
                    return segment[index]
                return next(itertools.islice(segment, index, None))
            index -= len(segment)
        raise IndexError("findings index out of range")  # pragma: no cover

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Findings | list | tuple):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Findings({len(self.listed)} listed, {self.pass_count()} passes in blocks)"

    def pass_count(self) -> int:
        """The passes in :attr:`blocks` (not those in :attr:`listed`)."""
        return sum(len(b) for b in self.blocks)

    def with_listed(self, listed: list[Finding]) -> Findings:
        """The same passes after other listed findings (a report's order)."""
        return Findings(listed, self.blocks)

    def passes(self) -> list[PassBlock]:
        """Every pass in blocks, in order: the blocks, and the passes of :attr:`listed` (one
        block for each run of one rule's)."""
        out: list[PassBlock] = []
        for segment in self.segments():
            if isinstance(segment, PassBlock):
                out.append(segment)
                continue
            passes = [f for f in segment if f.status == "pass"]
            for rule_id, group in itertools.groupby(passes, key=lambda f: f.ruleId):
                made = list(group)
                types: dict[str, int] = {}
                for f in made:
                    types[f.resourceType] = types.get(f.resourceType, 0) + 1
                out.append(PassBlock(rule_id, made, types=types))
        return out


def judged_findings(findings: Iterable[Finding]) -> list[Finding]:
    """The findings that are not passes, in order, without making the passes of a
    :class:`Findings`."""
    source = findings.listed if isinstance(findings, Findings) else findings
    return [f for f in source if f.status != "pass"]


def pass_counts(findings: Iterable[Finding]) -> Counter[tuple[str, str]]:
    """Passes by (rule id, resource type), without making the passes of a :class:`Findings`."""
    counts: Counter[tuple[str, str]] = Counter()
    segments = findings.segments() if isinstance(findings, Findings) else [findings]
    for segment in segments:  # in the order of iteration
        if isinstance(segment, PassBlock):
            for rtype, n in segment.types.items():
                counts[(segment.ruleId, rtype)] += n
            continue
        for f in segment:
            if f.status == "pass":
                counts[(f.ruleId, f.resourceType)] += 1
    return counts


def count_passes(findings: Iterable[Finding]) -> int:
    """How many passes, without making those of a :class:`Findings`."""
    if isinstance(findings, Findings):
        return findings.pass_count() + sum(1 for f in findings.listed if f.status == "pass")
    return sum(1 for f in findings if f.status == "pass")


@dataclass(frozen=True)
class Privileged:
    """A principal holding a privileged role at a subscription (for the access section of reports)."""

    subscription: str
    principalId: str
    displayName: str
    principalType: str
    role: str
    via: tuple[str, ...] = ()
    """Group path (group ids or names) through which the role is held; empty when direct."""


@dataclass(frozen=True)
class EscalationPath:
    """A shadow admin's path: principal -> groups -> assignment -> role -> permission (RBAC-010)."""

    principalId: str
    displayName: str
    scope: str
    steps: tuple[tuple[str, str], ...]
    """(kind, label) pairs in order: ("principal", ...), ("group", ...), ("assignment", ...),
    ("role", ...), ("permission", ...)."""


@dataclass
class AccessSummary:
    privileged: list[Privileged] = field(default_factory=list)
    escalations: list[EscalationPath] = field(default_factory=list)


@dataclass(frozen=True)
class IncompleteRule:
    """A rule that lacked an input it needs (contracts section 6 ``coverage.incompleteRules``)."""

    ruleId: str
    missing: str
    """What was missing, in words (``principals (the directory): not in the snapshot``)."""

    def to_json(self) -> dict[str, Any]:
        return {"ruleId": self.ruleId, "missing": self.missing}


@dataclass
class Coverage:
    """What a run read and what it could not judge (contracts section 6 ``coverage``).

    ``inputs``: each input read, ``{"kind", "file" (or "url"), ...}`` with the sections present and
    their counts (``{"sections": {"principals": 12, ...}, "absent": [...]}`` for a snapshot,
    ``{"requests": n}`` for a plan); ``skipped``: inputs passed over, ``{"file", "reason"}``;
    ``incompleteRules``: rules that lacked an input (each also reported as an ``unknown``
    finding). ``--require-complete`` turns incomplete rules into exit code 3."""

    inputs: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[dict[str, Any]] = field(default_factory=list)
    incompleteRules: list[IncompleteRule] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return not self.incompleteRules

    def to_json(self) -> dict[str, Any]:
        return {
            "inputs": [dict(i) for i in self.inputs],
            "skipped": [dict(s) for s in self.skipped],
            "incompleteRules": [r.to_json() for r in self.incompleteRules],
        }


@dataclass
class AuditResult:
    """Everything one audit or gate run produced, in the order renderers show it."""

    findings: Sequence[Finding]
    """Every finding, passes last: a :class:`Findings` from a run (its passes held compactly), or
    any list."""
    rules: list[RuleInfo]
    startedAt: str
    finishedAt: str
    target: str
    """What was audited: the snapshot or plan path, or the API base URL."""
    targetKind: Literal["snapshot", "plan", "api"] = "snapshot"
    failOn: Severity = "high"
    waivers: list[WaiverInfo] = field(default_factory=list)
    staleWaivers: list[WaiverInfo] = field(default_factory=list)
    expiredWaivers: list[WaiverInfo] = field(default_factory=list)
    baselineFixed: list[str] = field(default_factory=list)
    """Fingerprints in the baseline that no longer fail (fixed)."""
    baselineStale: list[str] = field(default_factory=list)
    """Fingerprints in the baseline whose resource was not judged any more (gone)."""
    incomplete: list[str] = field(default_factory=list)
    """Sources that could not be read in full, or the run's budget exhausted (exit code 3)."""
    warnings: list[str] = field(default_factory=list)
    """What the reader should know about the run (duplicates merged, secret-looking unknown fields
    dropped, findings not listed, rules not run): contracts 6 ``warnings``."""
    unlisted: dict[str, dict[str, int]] = field(default_factory=dict)
    """Failing findings counted but not listed (rule id -> severity -> count; see
    :func:`auditor.audit.limits.cap_failures`): in the summary and the gate's verdict."""
    access: AccessSummary | None = None
    accessDelta: Any = None
    """``gate --estate``: the plan's :class:`~auditor.access.AccessDelta` (contracts §9), written
    as ``accessDelta`` in the JSON; None otherwise."""
    toolVersion: str = __version__
    coverage: Coverage = field(default_factory=Coverage)
    failOnUnknown: bool = False
    """``--fail-on-unknown``: an ``unknown`` finding fails the gate (exit code 1)."""
    requireComplete: bool = False
    """``--require-complete``: a rule that lacked its inputs makes the run incomplete (exit 3)."""
    names: dict[str, str] = field(default_factory=dict)
    """Display names the snapshot holds for the ids the reports show (lower-case id -> name; see
    :mod:`auditor.audit.names`): shown next to the ids by the reports for people, not in the
    JSON."""
    controls: list[ControlResult] = field(default_factory=list)
    """The "Compliance by control" view (:func:`auditor.audit.frameworks.control_view`): every
    control of the run's frameworks with its rules, counts and failing resources; ``controls`` in
    the JSON."""
    history: dict[str, Any] | None = None
    """``--history FILE``: the run's target's trend and what changed since its last audit
    (:func:`auditor.history.for_reports.report_history`), for the HTML and Markdown reports; not
    in the JSON."""

    def summary(self) -> dict[str, int]:
        """Counts per severity of failing findings, plus passed, waived, baselined and unknown
        (contracts section 6)."""
        out: dict[str, int] = {s: 0 for s in SEVERITIES}
        out["passed"] = 0
        out["waived"] = 0
        out["baselined"] = 0
        out["unknown"] = 0
        findings = self.findings
        if isinstance(findings, Findings):
            out["passed"] = findings.pass_count()
            findings = findings.listed
        for f in findings:
            status = f.status
            if status == "fail":
                out[f.severity] += 1
            elif status == "pass":
                out["passed"] += 1
            elif status == "waived":
                out["waived"] += 1
            elif status == "unknown":
                out["unknown"] += 1
            else:
                out["baselined"] += 1
        for by_severity in self.unlisted.values():
            for severity, n in by_severity.items():
                out[severity] += n
        return out

    @property
    def judged(self) -> list[Finding]:
        """The findings that are not passes, in order (no pass is made to find them)."""
        return judged_findings(self.findings)

    @property
    def failures(self) -> list[Finding]:
        return [f for f in self.judged if f.status == "fail"]

    @property
    def unknowns(self) -> list[Finding]:
        """The findings no rule could judge (status ``unknown``)."""
        return [f for f in self.judged if f.status == "unknown"]

    def blocking_failures(self) -> int:
        """Failing findings at or above ``failOn``, counted ones (not listed) included."""
        # counted by (status, severity) in C: a million-assignment estate lists ~60k failures,
        # and a run asks this several times (exit code, reasons, summary)
        findings = self.findings
        source = findings.listed if isinstance(findings, Findings) else findings
        counts = Counter(map(_STATUS_SEVERITY, source))
        listed = sum(
            n
            for (status, severity), n in counts.items()
            if status == "fail" and at_least(severity, self.failOn)
        )
        return listed + sum(
            n
            for by_severity in self.unlisted.values()
            for severity, n in by_severity.items()
            if at_least(severity, self.failOn)
        )

    @property
    def gate_failed(self) -> bool:
        """Exit code 1: a failing finding at or above ``failOn``, an expired waiver, or (with
        ``failOnUnknown``) an unknown finding."""
        return (
            bool(self.expiredWaivers)
            or self.blocking_failures() > 0
            or (self.failOnUnknown and any(f.status == "unknown" for f in self.judged))
        )

    @property
    def coverage_failed(self) -> bool:
        """Exit code 3 by ``--require-complete``: a rule lacked an input it needs."""
        return self.requireComplete and not self.coverage.complete

    @property
    def exit_code(self) -> int:
        if self.incomplete or self.coverage_failed:
            return 3
        return 1 if self.gate_failed else 0

    def gate_reasons(self) -> list[str]:
        """Why the gate fails, one phrase a cause (empty when it passes)."""
        reasons: list[str] = []
        blocking = self.blocking_failures()
        if blocking:
            reasons.append(f"{blocking} failing finding(s) at or above {self.failOn}")
        if self.expiredWaivers:
            reasons.append(f"{len(self.expiredWaivers)} expired waiver(s)")
        if self.failOnUnknown:
            unknown = sum(1 for f in self.judged if f.status == "unknown")
            if unknown:
                reasons.append(f"{unknown} unknown finding(s) with --fail-on-unknown")
        return reasons

    def exit_reason(self) -> str:
        """Why the exit code is what it is, in one line (for the end of a run)."""
        code = self.exit_code
        if code == 3:
            parts = []
            if self.incomplete:
                parts.append("some sources could not be read in full")
            if self.coverage_failed:
                rules = ", ".join(sorted({r.ruleId for r in self.coverage.incompleteRules}))
                parts.append(f"--require-complete and rule(s) lacked their inputs: {rules}")
            return "exit 3, evaluation incomplete: " + "; ".join(parts)
        if code == 1:
            return "exit 1, the gate failed: " + " and ".join(self.gate_reasons())
        out = f"exit 0: no failing finding at or above {self.failOn}"
        unknown = sum(1 for f in self.judged if f.status == "unknown")
        if unknown:
            out += f" ({unknown} unknown finding(s) not judged; --fail-on-unknown blocks on them)"
        return out

    def to_json(self) -> dict[str, Any]:
        """The findings document of contracts section 6 (``schemaVersion`` 1), with the access
        delta of contracts §9 as ``accessDelta`` when there is one."""
        return self.document([f.to_json() for f in self.findings])

    def document(self, findings: list[Any]) -> dict[str, Any]:
        """:meth:`to_json` with ``findings`` as its findings array (the JSON renderer streams
        them: it gives an empty one)."""
        doc = {
            "schemaVersion": SCHEMA_VERSION,
            "tool": {"name": "auditor", "version": self.toolVersion},
            "startedAt": self.startedAt,
            "finishedAt": self.finishedAt,
            "target": {"kind": self.targetKind, "name": self.target},
            "failOn": self.failOn,
            "summary": self.summary(),
            "findings": findings,
            "waivers": {
                "applied": [w.to_json() for w in self.waivers],
                "expired": [w.to_json() for w in self.expiredWaivers],
                "stale": [w.to_json() for w in self.staleWaivers],
            },
            "baseline": {"fixed": list(self.baselineFixed), "stale": list(self.baselineStale)},
            "incomplete": list(self.incomplete),
            "unlisted": {rule: dict(by) for rule, by in self.unlisted.items()},
            "coverage": self.coverage.to_json(),
            "warnings": list(self.warnings),
            "controls": [c.to_json() for c in self.controls],
        }
        if self.accessDelta is not None:
            doc["accessDelta"] = self.accessDelta.to_wire()
        return doc
