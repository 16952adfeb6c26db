"""The rule engine: runs the selected rules over a snapshot or a plan and yields findings, passes and
failures alike, with the evidence that decided, a stable fingerprint, and where the resource is.

Predicate rules are evaluated here (the filter engine over the resource's effective JSON); named
checks come from :mod:`auditor.audit.checks`. Messages are the packs' templates filled from the
check's fields, its evidence, the settings and the resource's JSON (secrets masked there). As a last
line of defence every secret value met while checking is scrubbed from messages and evidence.

Whatever the estate holds, a finding's evidence and message stay within the bounds of
:mod:`auditor.audit.limits`, and a run given a :class:`~auditor.audit.budget.Budget` stops when it
is exhausted, keeping what it evaluated (:attr:`Evaluation.stopped`).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import gc
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from auditor._collector import paused
from auditor.audit.budget import CHECK_EVERY, Budget, BudgetExceeded
from auditor.audit.checks import CHECKS, CheckContext, Outcome, PassMany
from auditor.audit.coverage import ESTATE_RESOURCE, EstateCoverage, Gap, plan_inputs
from auditor.audit.findings import (
    DeferredFingerprint,
    Finding,
    Findings,
    IncompleteRule,
    PassBlock,
    RuleInfo,
    RunsOn,
    Severity,
    SourcePath,
    Status,
    fingerprinter,
    new_finding,
)
from auditor.audit.limits import MAX_CHARS, bound_evidence, bound_text
from auditor.audit.packs import (
    Rule,
    _template_parts,
    bind_rule,
    render_template,
    template_fields,
)
from auditor.audit.resources import (
    RESOURCE_KINDS,
    VIEW_TYPES,
    Resource,
    ResourceKind,
    get_path,
    has_path,
    plan_resources,
    release_access_rows,
    snapshot_resources,
    view_outcomes,
)
from auditor.audit.unknowns import CHECK_READS, request_unknowns, unknown_outcome, unresolved
from auditor.estate.snapshot import Snapshot
from auditor.model.secrets import MASK

if TYPE_CHECKING:  # a plan's modules (pydantic wire models) load only when a plan is read
    from auditor.estate.plan import Plan

_EMPTY: dict[str, Any] = {}

_DEFERRED = {kind: DeferredFingerprint(kind) for kind in ("plan", "estate")}

FREEZE_AFTER = 200_000
"""Findings of a run above which :meth:`Engine.run` freezes the garbage collector's objects."""
_frozen = False


_STR = frozenset([str])


def format_value(value: Any) -> str:
    """A value as message text: ``not set`` for null, ``true``/``false``, lists joined."""
    if type(value) is str:  # the common case, first
        return value
    kind = type(value)
    if (kind is list or kind is tuple) and _STR.issuperset(map(type, value)):
        return ", ".join(value) if value else "none"  # a list of plain strings, joined in C
    if value is None:
        return "not set"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, list | tuple | set | frozenset):
        items = [format_value(v) for v in value]
        return ", ".join(items) if items else "none"
    if isinstance(value, dict):
        return "an object"
    return str(value)


def rule_texts(info: RuleInfo, settings: Mapping[str, Any]) -> RuleInfo:
    """``info`` with its title, description and remediation filled from ``settings``
    (``{settings.NAME}``; ``{{``/``}}`` give single braces), as every report shows them. A
    placeholder other than a setting, meaningful only for one finding, reads ``…``."""

    def lookup(name: str) -> str:
        if name.startswith("settings."):
            return format_value(settings.get(name[9:]))
        return "…"

    texts = (info.title, info.description, info.remediation)
    filled = tuple(render_template(t, lookup) if "{" in t or "}" in t else t for t in texts)
    if filled == texts:
        return info
    return dataclasses.replace(info, title=filled[0], description=filled[1], remediation=filled[2])


class _Pass:
    """A pass of a per-resource rule, made into its finding only when read (see
    :meth:`Engine._rule_parts`)."""

    __slots__ = ("resource",)

    def __init__(self, resource: Resource) -> None:
        self.resource = resource


class _Later:
    """A passing outcome of an access rule or a per-run check, made into its finding only when
    read (see :meth:`Engine._rule_parts`): reports that count passes never make it. Only taken
    while the run knows no secret value, so the finding made later is the one made at once."""

    __slots__ = ("outcome", "resource")

    def __init__(self, outcome: Outcome, resource: Resource | None) -> None:
        self.outcome = outcome
        self.resource = resource


_NO_SECRETS: frozenset[str] = frozenset()


@dataclass
class Evaluation:
    """What one evaluation produced."""

    findings: Findings
    """The failing, unknown and other judged findings as objects, the passes in compact
    blocks (:class:`~auditor.audit.findings.Findings`)."""
    context: CheckContext
    rules_run: list[Rule] = field(default_factory=list)
    """The rules evaluated (the last one only in part when :attr:`partial` names it)."""
    stopped: str | None = None
    """Why the run stopped before its end (its budget was exhausted); None when it ran in full."""
    not_run: list[Rule] = field(default_factory=list)
    """Rules that applied but were not evaluated because the run stopped."""
    partial: Rule | None = None
    """The rule the run stopped in, with only part of its findings."""
    incomplete_rules: list[IncompleteRule] = field(default_factory=list)
    """Rules that lacked an input they need (each also gave an ``unknown`` finding)."""
    inputs: list[dict[str, Any]] = field(default_factory=list)
    """What the run read (contracts section 6 ``coverage.inputs``)."""


class _Messages:
    """Template rendering; ``constant`` holds the templates that read nothing but settings,
    rendered once (bulk passes never render anything)."""

    def __init__(self, settings: Mapping[str, Any], templates: Iterable[str] = ()) -> None:
        self.settings = settings
        self.constant: dict[str, str] = {}
        self._split: dict[str, tuple[_Part, ...]] = {}
        for template in templates:
            if all(n.startswith("settings.") for n in template_fields(template)):
                self.constant[template] = render_template(template, self._setting)

    def _setting(self, name: str) -> str:
        return format_value(self.settings.get(name[9:]))

    def split(self, template: str) -> tuple[_Part, ...]:
        """``template`` split for :func:`_fill`, once a run (tens of thousands of failing
        findings fill one): the literal text before each placeholder, what the placeholder reads,
        its name, and for ``settings.NAME`` the setting's text (the settings do not change while
        the engine runs)."""
        found = self._split.get(template)
        if found is None:
            found = self._split[template] = tuple(
                (
                    literal,
                    _LITERAL
                    if name is None
                    else _NAME
                    if name == "resourceName"
                    else _ID
                    if name == "resourceId"
                    else _VALUE,
                    name or "",
                    self._setting(name) if name and name.startswith("settings.") else None,
                )
                for literal, name in _template_parts(template)
            )
        return found


_Part = tuple[str, int, str, "str | None"]
"""A piece of a template split by :meth:`_Messages.split`."""
_LITERAL, _NAME, _ID, _VALUE = range(4)
"""What a placeholder reads: nothing (the text after the last one), the resource's name, its id,
or a value looked up (see :func:`_fill`)."""


def _fill(
    parts: tuple[_Part, ...],
    outcome: Outcome | None,
    resource: Resource | None,
    resource_id: str,
    resource_name: str,
) -> str:
    """A template's text for one finding from its ``parts`` (``render_template``'s loop with its
    lookup inline):
    each placeholder reads the resource's name or id, else the outcome's fields, its evidence,
    the settings, the resource, in that order."""
    fields = evidence = None
    if outcome is not None:
        fields = outcome.fields or None
        evidence = outcome.evidence or None
    out: list[str] = []
    add = out.append
    for literal, reads, name, setting in parts:
        add(literal)
        if reads == _VALUE:
            if fields is not None and name in fields:
                value = fields[name]
            elif evidence is not None and name in evidence:
                value = evidence[name]
            elif setting is not None:
                add(setting)
                continue
            elif resource is not None:
                value = get_path(resource.doc, name)
            else:
                add("unknown")
                continue
            add(value if type(value) is str else format_value(value))
        elif reads == _NAME:
            add(resource_name)
        elif reads == _ID:
            add(resource_id)
    return "".join(out)


def _severity(rule: Rule, resource: Resource | None) -> Severity:
    if resource is not None:
        for predicate, severity in rule.severity_predicates:
            if predicate(resource.doc):
                return severity
    return rule.severity


def _predicate_evidence(rule: Rule, resource: Resource) -> dict[str, Any]:
    if not rule.evidence:
        return {}
    out: dict[str, Any] = {}
    defaulted: list[str] = []
    for path in rule.evidence:
        out[path] = get_path(resource.doc, path)
        if out[path] is not None and not has_path(resource.raw, path):
            defaulted.append(path)
    if defaulted:
        out["seedDefaultsApplied"] = defaulted
    return out


class Engine:
    """Runs rules over one snapshot or one plan."""

    def __init__(
        self,
        *,
        settings: Mapping[str, Any],
        as_of: dt.date,
        snapshot: Snapshot | None = None,
        plan: Plan | None = None,
        files: Sequence[str] = (),
        access: Any = None,
    ) -> None:
        if (snapshot is None) == (plan is None):
            raise ValueError("give exactly one of snapshot and plan")
        self.source_kind: RunsOn = "estate" if snapshot is not None else "plan"
        resources: dict[ResourceKind, list[Resource]] = (
            snapshot_resources(snapshot) if snapshot is not None else plan_resources(plan)  # type: ignore[arg-type]
        )
        source = snapshot.source if snapshot is not None else plan.source  # type: ignore[union-attr]
        self.context = CheckContext(
            source_kind=self.source_kind,
            source=source,
            settings=settings,
            as_of=as_of,
            resources=resources,
            snapshot=snapshot,
            plan=plan,
            files=tuple(files),
        )
        if access is not None:
            self.context._access = access
        self.messages = _Messages(settings)
        # a snapshot that knows where its entries were read (duplicates merged, or imported from
        # exports: auditor.sources) names those places instead of its own JSON paths
        self._relocate: Callable[[str], str] | None = (
            snapshot.file_location
            if snapshot is not None
            and (snapshot.positions or type(snapshot).file_location is not Snapshot.file_location)
            else None
        )
        self.coverage = EstateCoverage(snapshot) if snapshot is not None else None
        self.incomplete_rules: list[IncompleteRule] = []
        self._sizes: dict[int, Any] = {}
        self._makers: dict[int, tuple[Rule, _Messages, _Make]] = {}
        self.inputs: list[dict[str, Any]] = (
            self.coverage.inputs() if self.coverage is not None else plan_inputs(plan)  # type: ignore[arg-type]
        )

    def _prepare_messages(self, rules: Iterable[Rule]) -> None:
        templates = [t for r in rules for t in (r.message, r.pass_message, r.info.remediation)]
        self.messages = _Messages(self.context.settings, templates)

    def applicable(self, rule: Rule) -> bool:
        """Whether ``rule`` runs on this source with these settings."""
        if not rule.runs_on(self.source_kind):
            return False
        return not (rule.enabled_by is not None and not self.context.settings.get(rule.enabled_by))

    def run(
        self,
        rules: Iterable[Rule],
        *,
        timings: dict[str, float] | None = None,
        budget: Budget | None = None,
    ) -> Evaluation:
        """Every finding of ``rules`` (those that apply to this source and these settings).

        The cyclic garbage collector is paused meanwhile: a large estate makes millions of
        findings, none in a cycle, and each collection would walk them all again. After a run of
        more than :data:`FREEZE_AFTER` findings the objects then alive are frozen
        (:func:`gc.freeze`), so the collections that sorting and rendering trigger do not walk
        millions of findings over and over; the next run unfreezes them first, so cyclic garbage is
        held back by one run at most.
        ``timings`` receives the seconds each rule took. With a ``budget``, the run stops when it
        is exhausted (checked between rules, every :data:`~auditor.audit.budget.CHECK_EVERY`
        findings, and by a watchdog): the findings so far are kept and :attr:`Evaluation.stopped`
        says why."""
        global _frozen
        settings, as_of = self.context.settings, self.context.as_of
        rules = [bind_rule(r, settings, as_of) for r in rules if self.applicable(r)]
        self._prepare_messages(rules)
        findings = Findings([])
        ran: list[Rule] = []
        self.incomplete_rules = []
        evaluation = Evaluation(
            findings, self.context, ran, incomplete_rules=self.incomplete_rules, inputs=self.inputs
        )
        if _frozen:
            gc.unfreeze()
            _frozen = False
        with paused() as pause:
            try:
                if budget is None or not budget.limited:
                    add, listed = findings.append, findings.listed.append
                    for n, rule in enumerate(rules):
                        ran.append(rule)
                        started = time.perf_counter()
                        for part in self._rule_parts(rule):
                            if type(part) is Finding:
                                listed(part)  # what add does with a finding, without its call
                            else:
                                add(part)
                        if timings is not None:
                            timings[rule.id] = time.perf_counter() - started
                        if rule.predicate is not None and rule.resource_type in VIEW_TYPES:
                            release_access_rows(self.context, rules[n + 1 :])
                else:
                    self._run_within(rules, budget, evaluation, timings)
            finally:
                self._sizes.clear()
                self._makers.clear()
                cache = self.context.cache
                for key in [k for k in cache if k.startswith("transient:")]:
                    del cache[key]
                if pause.active and len(findings) > FREEZE_AFTER:
                    pause.freeze = _frozen = True
        secrets = self.context.secrets
        if secrets:

            def clean(f: Finding) -> Finding:
                return scrub(f, secrets)

            evaluation.findings = Findings(
                [scrub(f, secrets) for f in findings.listed],
                [b.map(clean) for b in findings.blocks],
                findings.positions,
            )
        return evaluation

    def _run_within(
        self,
        rules: list[Rule],
        budget: Budget,
        evaluation: Evaluation,
        timings: dict[str, float] | None,
    ) -> None:
        """The rules of :meth:`run` within ``budget``: stops where it stands when exhausted."""
        add = evaluation.findings.append
        ran = evaluation.rules_run
        done = 0
        try:
            with budget.watchdog():
                for rule in rules:
                    if budget.over():
                        break
                    ran.append(rule)
                    started = time.perf_counter()
                    n = 0
                    for part in self._rule_parts(rule):
                        add(part)
                        size = len(part) if type(part) is PassBlock else 1
                        if (n + size) // CHECK_EVERY > n // CHECK_EVERY and budget.over():
                            raise BudgetExceeded(budget.exceeded or "over budget")
                        n += size
                    done += 1
                    if timings is not None:
                        timings[rule.id] = time.perf_counter() - started
                    if rule.predicate is not None and rule.resource_type in VIEW_TYPES:
                        release_access_rows(self.context, rules[done:])
        except BudgetExceeded as exc:
            if done == len(rules):  # the interrupt came after the last rule: nothing is missing
                return
            budget.exceeded = budget.exceeded or str(exc)
        if done < len(rules):
            evaluation.stopped = budget.exceeded or "over budget"
            if len(ran) > done:
                evaluation.partial = ran[done]
            evaluation.not_run = rules[len(ran) :]

    def _resources_of(self, rule: Rule) -> list[Resource]:
        kind = RESOURCE_KINDS.get(rule.resource_type)
        if kind is None:
            raise ValueError(
                f"rule {rule.id}: resource type {rule.resource_type!r} has no resources to iterate; "
                "use a per-run check"
            )
        resources = list(self.context.resources.get(kind, ()))
        if rule.applies_to is not None:
            applies: Callable[[Any], bool] = rule.applies_to
            reads = rule.applies_reads
            # a resource whose appliesTo reads an unknown value may apply: it is judged unknown
            resources = [
                r
                for r in resources
                if applies(r.doc)
                or (r.request is not None and unresolved(reads, r.request.unknowns))
            ]
        return resources

    def _gap(self, rule: Rule) -> tuple[Finding | None, bool]:
        """The ``unknown`` finding of a rule that lacks an input (coverage), if it does, and
        whether the rule must be left unrun."""
        gap: Gap | None = self.coverage.gap(rule) if self.coverage is not None else None
        if gap is None:
            return None, False
        self.incomplete_rules.append(gap.incomplete())
        outcome = Outcome(
            False,
            dict(gap.evidence, reason=gap.reason),
            detail="coverage:" + ",".join(gap.missing),
            resource_id=ESTATE_RESOURCE,
            resource_name="the estate",
            unknown=gap.reason,
        )
        return self._finding(rule, outcome, None), gap.skip

    def run_rule(self, rule: Rule) -> Iterator[Finding]:
        """Every finding of one rule (passes made one by one: :meth:`_rule_parts` keeps them
        compact)."""
        for part in self._rule_parts(rule):
            if type(part) is PassBlock:
                yield from part
            else:
                yield part  # type: ignore[misc]

    def _rule_parts(self, rule: Rule) -> Iterator[Finding | PassBlock]:
        """The findings of one rule: those that are not passes as objects, the passes in
        :class:`~auditor.audit.findings.PassBlock` values (consecutive passes in one block, in
        evaluation order)."""
        pending: list[Any] = []  # pass findings, or _Pass of a predicate rule, or _Later
        for part in self._outcomes(rule):
            kind = type(part)
            if kind is Finding:  # most often a failure: one test
                if part.status == "pass":  # type: ignore[union-attr]
                    pending.append(part)
                    continue
            elif kind is _Later or kind is _Pass:
                pending.append(part)
                continue
            if pending:
                yield self._block(rule, pending)
                pending = []
            yield part  # type: ignore[misc]
        if pending:
            yield self._block(rule, pending)

    def _block(self, rule: Rule, pending: list[Any]) -> PassBlock:
        """The passes of ``pending`` as one block: a predicate rule's are made when read."""
        types: dict[str, int] = {}
        if type(pending[0]) is _Pass and all(type(p) is _Pass for p in pending):
            resources = [p.resource for p in pending]
            for r in resources:
                types[r.resource_type] = types.get(r.resource_type, 0) + 1

            def make(resource: Resource) -> Finding:
                outcome = Outcome(True, _predicate_evidence(rule, resource))
                return self._finding(rule, outcome, resource)

            return PassBlock(rule.id, resources, make, types=types)
        if type(pending[0]) is _Later and all(type(p) is _Later for p in pending):
            for p in pending:
                o, r = p.outcome, p.resource
                rtype = o.resource_type or (
                    r.resource_type if r is not None else rule.resource_type
                )
                types[rtype] = types.get(rtype, 0) + 1

            def later(p: _Later) -> Finding:
                return self._finding(rule, p.outcome, p.resource, _NO_SECRETS)

            return PassBlock(rule.id, pending, later, types=types)
        made = [self._made(rule, p) for p in pending]
        for f in made:
            types[f.resourceType] = types.get(f.resourceType, 0) + 1
        return PassBlock(rule.id, made, types=types)

    def _made(self, rule: Rule, part: Any) -> Finding:
        """A pending pass (see :meth:`_rule_parts`) as its finding."""
        kind = type(part)
        if kind is _Pass:
            outcome = Outcome(True, _predicate_evidence(rule, part.resource))
            return self._finding(rule, outcome, part.resource)
        if kind is _Later:
            return self._finding(rule, part.outcome, part.resource, _NO_SECRETS)
        return part  # type: ignore[no-any-return]

    def _judged(
        self,
        rule: Rule,
        outcome: Outcome,
        resource: Resource | None,
        *,
        sizes: dict[int, Any] | None = None,
    ) -> Finding | _Later:
        """The finding of an access rule's or a per-run check's outcome; a pass made later (when
        read) while the run knows no secret value. ``sizes``: see :meth:`_finding`."""
        if outcome.passed and outcome.unknown is None and not self.context.secrets:
            return _Later(outcome, resource)
        return self._finding(rule, outcome, resource, sizes=sizes)

    def _outcomes(self, rule: Rule) -> Iterator[Finding | PassBlock | _Pass | _Later]:
        """The findings of one rule, a predicate rule's passes as :class:`_Pass` and bulk passes
        as blocks."""
        if rule.requires:
            gap, skip = self._gap(rule)
            if gap is not None:
                yield gap
            if skip:
                return
        if rule.predicate is not None and rule.resource_type in VIEW_TYPES:
            sizes = self._sizes  # the rows' evidence values are shared and never changed
            judged, make = self._judged, self._maker(rule)
            for outcome in view_outcomes(rule, self.context):  # access rows (resources.py)
                if isinstance(outcome, PassMany):
                    yield self._passes(rule, outcome)
                elif outcome.passed:
                    yield judged(rule, outcome, outcome.resource, sizes=sizes)
                else:  # what _judged makes of a failure, without its two calls
                    yield make(outcome, outcome.resource, None, sizes)
            return
        make = self._maker(rule)
        if rule.predicate is not None:
            predicate = rule.predicate
            for res in self._resources_of(rule):
                unknowns = request_unknowns(res)
                if unknowns:
                    hits = unresolved((*rule.reads, *rule.applies_reads), unknowns)
                    if hits:
                        yield make(unknown_outcome(hits), res, None, None)
                        continue
                if predicate(res.doc):
                    yield _Pass(res)  # made into its finding only when read
                    continue
                yield make(Outcome(False, _predicate_evidence(rule, res)), res, None, None)
            return
        assert rule.check is not None
        spec = CHECKS[rule.check]
        reads = CHECK_READS.get(rule.check)
        if spec.per == "resource":
            for res in self._resources_of(rule):
                if reads is not None:
                    hits = unresolved(reads, request_unknowns(res))
                    if hits:
                        yield make(unknown_outcome(hits), res, None, None)
                        continue
                for outcome in spec.fn(res, self.context):
                    if isinstance(outcome, PassMany):
                        yield self._passes(rule, outcome)
                    else:
                        yield make(outcome, outcome.resource or res, None, None)
        else:
            judged = self._judged
            for outcome in spec.fn(self.context):
                if isinstance(outcome, PassMany):
                    yield self._passes(rule, outcome)
                elif outcome.passed:
                    yield judged(rule, outcome, outcome.resource)
                else:  # what _judged makes of a failure, without its two calls
                    yield make(outcome, outcome.resource, None, None)

    def _passes(self, rule: Rule, many: PassMany) -> PassBlock:
        """Passes in bulk, as one compact block: the items of ``many`` (often a list the checks
        share) and, when the pass message and remediation read only settings, the finding they
        all share but for resource id and location, with the fingerprint of
        :func:`~auditor.audit.findings.fingerprint` deferred until read
        (:class:`~auditor.audit.findings.DeferredFingerprint`)."""
        info = rule.info
        constant = self.messages.constant
        message = constant.get(rule.pass_message)
        remediation = constant.get(info.remediation)
        rtype = many.resource_type
        types = {rtype: len(many.items)}
        if message is None or remediation is None:

            def make(item: tuple[str, str | None]) -> Finding:
                rid, location = item
                outcome = Outcome(True, None, "", None, rid, rtype, None, location)
                return self._finding(rule, outcome, None)

            return PassBlock(rule.id, many.items, make, types=types)
        if len(message) > MAX_CHARS or len(remediation) > MAX_CHARS:
            message, remediation = bound_text(message), bound_text(remediation)
        proto = Finding(
            info.id,
            info.severity,
            "pass",
            "",
            info.title,
            message,
            _EMPTY,
            remediation,
            info.references,
            _DEFERRED[self.source_kind],  # type: ignore[arg-type]
            rtype,
            self.context.source,
            None,
        )
        return PassBlock(
            rule.id,
            many.items,
            types=types,
            proto=proto,
            source_kind=self.source_kind,
            relocate=self._relocate,
        )

    def _finding(
        self,
        rule: Rule,
        outcome: Outcome,
        resource: Resource | None,
        secrets: Collection[str] | None = None,
        *,
        sizes: dict[int, Any] | None = None,
    ) -> Finding:
        """The finding of ``outcome``; evidence and texts bounded with ``secrets`` masked (the
        run's secret values so far when None). ``sizes``: the sizes of evidence values met
        before, when they are shared and never changed (see
        :func:`~auditor.audit.limits.bound_evidence`)."""
        return self._maker(rule)(outcome, resource, secrets, sizes)

    def _maker(self, rule: Rule) -> _Make:
        """:meth:`_finding` of ``rule`` (see :meth:`_new_maker`), made once per rule and
        messages."""
        made = self._makers.get(id(rule))
        if made is None or made[0] is not rule or made[1] is not self.messages:
            made = self._makers[id(rule)] = (rule, self.messages, self._new_maker(rule))
        return made[2]

    def _new_maker(self, rule: Rule) -> _Make:
        """:meth:`_finding` of one rule, with what is the same for each of its findings found
        once: its texts, constant messages and split templates, severity, and the hashed start of
        its fingerprints (a large estate has tens of thousands of failing findings)."""
        info = rule.info
        rule_id, title, references = info.id, info.title, info.references
        default_severity, default_type = info.severity, rule.resource_type
        predicates = rule.severity_predicates
        messages = self.messages
        constant = messages.constant
        fail_text, fail_parts = constant.get(rule.message), messages.split(rule.message)
        pass_text, pass_parts = constant.get(rule.pass_message), messages.split(rule.pass_message)
        remedy_text = constant.get(info.remediation)
        remedy_parts = messages.split(info.remediation)
        context, relocate = self.context, self._relocate
        fingerprint_of = fingerprinter(rule_id, self.source_kind)

        def make(
            outcome: Outcome,
            resource: Resource | None,
            secrets: Collection[str] | None,
            sizes: dict[int, Any] | None,
        ) -> Finding:
            if secrets is None:
                secrets = context.secrets
            location: str | None
            source: str | None
            if resource is not None:
                rid = outcome.resource_id or resource.id
                rtype = outcome.resource_type or resource.resource_type
                location = outcome.location or resource.location
                source = resource.source
                request = resource.request
                if request is not None and request.source is not None:
                    ref = request.source
                    source = SourcePath(ref.file, ref.line, ref.address)
            else:
                rid = outcome.resource_id or "/"
                rtype = outcome.resource_type or default_type
                location = outcome.location
                source = context.source
            unknown = outcome.unknown
            status: Status
            if unknown is not None:
                status, message, parts = "unknown", None, fail_parts
                detail = f"unknown:{outcome.detail}"
            elif outcome.passed:
                status, message, parts, detail = "pass", pass_text, pass_parts, outcome.detail
            else:
                status, message, parts, detail = "fail", fail_text, fail_parts, outcome.detail
            remediation = remedy_text
            if message is None or remediation is None:
                if resource is not None:
                    name = outcome.resource_name or resource.name
                else:
                    name = outcome.resource_name or rid.rstrip("/").rsplit("/", 1)[-1] or rid
                if unknown is not None:
                    message = f"Could not judge {name}: {unknown}."
                elif message is None:
                    message = _fill(parts, outcome, resource, rid, name)
                if remediation is None:
                    remediation = _fill(remedy_parts, outcome, resource, rid, name)
            severity = outcome.severity
            if severity is None:
                severity = _severity(rule, resource) if predicates else default_severity
            evidence = outcome.evidence or _EMPTY
            if evidence is not _EMPTY:
                evidence = bound_evidence(evidence, secrets, sizes)
            if len(message) > MAX_CHARS:
                message = bound_text(message, secrets)
            if len(remediation) > MAX_CHARS:
                remediation = bound_text(remediation, secrets)
            if location and relocate is not None:
                location = relocate(location)
            return new_finding(
                rule_id,
                severity,
                status,
                rid,
                title,
                message,
                evidence,
                remediation,
                references,
                fingerprint_of(rid, detail),
                rtype,
                source,
                location,
            )

        return make


_Make = Callable[
    [Outcome, "Resource | None", "Collection[str] | None", "dict[int, Any] | None"], Finding
]
"""A rule's :meth:`Engine._finding`: outcome, resource, secrets and sizes to the finding."""


def _scrub_value(value: Any, secrets: Iterable[str]) -> Any:
    if isinstance(value, str):
        for secret in secrets:
            if secret in value:
                value = value.replace(secret, MASK)
        return value
    if isinstance(value, dict):
        return {k: _scrub_value(v, secrets) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_scrub_value(v, secrets) for v in value]
    return value


def scrub(finding: Finding, secrets: set[str]) -> Finding:
    """The finding with every occurrence of a known secret value masked (messages, evidence)."""
    ordered = sorted(secrets, key=len, reverse=True)
    message = _scrub_value(finding.message, ordered)
    remediation = _scrub_value(finding.remediation, ordered)
    evidence = _scrub_value(finding.evidence, ordered)
    if (
        message == finding.message
        and remediation == finding.remediation
        and evidence == finding.evidence
    ):
        return finding
    from dataclasses import replace

    return replace(finding, message=message, remediation=remediation, evidence=evidence)


def evaluate(
    rules: Iterable[Rule],
    *,
    settings: Mapping[str, Any],
    as_of: dt.date,
    snapshot: Snapshot | None = None,
    plan: Plan | None = None,
    files: Sequence[str] = (),
) -> Evaluation:
    """Run ``rules`` over ``snapshot`` or ``plan`` (see :class:`Engine`)."""
    return Engine(settings=settings, as_of=as_of, snapshot=snapshot, plan=plan, files=files).run(
        rules
    )
