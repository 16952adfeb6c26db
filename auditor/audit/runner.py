"""One audit or gate run, end to end: configuration, rule selection, evaluation, waivers,
baselines, and the :class:`~auditor.audit.findings.AuditResult` every renderer reads.

This is the library entry point (the CLI only parses arguments and calls it)::

    from auditor.audit import AuditOptions, audit_snapshot
    result = audit_snapshot(load_snapshot("estate.json"), AuditOptions(as_of=date(2026, 11, 21)))
    result.exit_code
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, overload

from auditor.audit.budget import Budget
from auditor.audit.engine import Engine, Evaluation, rule_texts
from auditor.audit.findings import (
    SEVERITY_RANK,
    AccessSummary,
    AuditResult,
    Coverage,
    EscalationPath,
    Finding,
    Findings,
    Privileged,
    Severity,
)
from auditor.audit.frameworks import (
    Framework,
    control_view,
    framework_rules,
    frameworks_for,
    frameworks_in_view,
    select_frameworks,
)
from auditor.audit.limits import MAX_FAILURES_PER_RULE, cap_failures, unlisted_warnings
from auditor.audit.names import estate_names
from auditor.audit.packs import Catalogue, Rule, catalogue_with, shipped_catalogue
from auditor.audit.ruleset import check_pin
from auditor.audit.settings import (
    AuditConfig,
    check_patterns,
    config_rule_packs,
    load_config,
    select_rules,
    split_patterns,
    today,
)
from auditor.audit.waivers import Waiver, apply_waivers, inline_waivers, load_waivers
from auditor.errors import InputError
from auditor.estate.snapshot import Snapshot

if TYPE_CHECKING:  # a plan's modules and the baseline's load only when a run reads them
    from auditor.audit.baseline import BaselineEntry
    from auditor.estate.plan import Plan

DEFAULT_FAIL_ON: Severity = "high"


@dataclass
class AuditOptions:
    """What a run is asked to do (command-line values; None means "from the configuration file,
    else the default")."""

    config_file: str | None = None
    use_config: bool = True
    """Look the configuration file up when ``config_file`` is None (False: defaults only)."""
    settings: dict[str, Any] = field(default_factory=dict)
    """Setting overrides (library use and tests)."""
    checks: Sequence[str] = ()
    skip_checks: Sequence[str] = ()
    fail_on: Severity | None = None
    as_of: dt.date | None = None
    waivers: str | None = None
    waiver_list: Sequence[Waiver] | None = None
    baseline: str | None = None
    create_baseline: str | None = None
    files: Sequence[str] = ()
    """Extra files to scan for token values (TOK-006)."""
    catalogue: Catalogue | None = None
    rule_packs: Sequence[str] = ()
    """Folders of the user's rule packs (``--rules DIR``), loaded beside the shipped ones and
    those the configuration file names (``rules = ["DIR"]``); unused when ``catalogue`` is given."""
    budget: Budget | None = None
    """Time and memory limits of the evaluation; exhausted, the run stops and is incomplete."""
    max_failures_per_rule: int | None = MAX_FAILURES_PER_RULE
    """Failing findings of one rule listed in the result (the rest are counted); 0 or None: all."""
    fail_on_unknown: bool = False
    """``--fail-on-unknown``: an ``unknown`` finding (not waived) fails the gate (exit code 1)."""
    require_complete: bool = False
    """``--require-complete``: a rule lacking an input it needs makes the run incomplete (exit
    code 3)."""
    frameworks: Sequence[str] = ()
    """``--framework NAME``: run only the rules these frameworks map (``mcsb``, ``cis``, or a
    user pack's); the control view shows their controls."""
    ruleset: str | None = None
    """``--ruleset VERSION``: refuse to run unless the installed catalogue is this version."""


@dataclass
class Prepared:
    catalogue: Catalogue
    config: AuditConfig
    settings: dict[str, Any]
    rules: list[Rule]
    fail_on: Severity
    as_of: dt.date
    waivers: list[Waiver]
    frameworks: list[Framework] = field(default_factory=list)
    """The frameworks ``--framework`` (or ``framework`` in the configuration) selected."""
    known_frameworks: Mapping[str, Framework] = field(default_factory=dict)
    """Every loaded framework, by id (the control view's, when none was selected)."""


def effective_settings(catalogue: Catalogue, *layers: Mapping[str, Any]) -> dict[str, Any]:
    """Every setting: its documented default, overridden by each layer in turn."""
    out = {name: s.default for name, s in catalogue.settings.items()}
    for layer in layers:
        for name, value in layer.items():
            if name not in out:
                raise InputError(
                    f"unknown setting {name!r}; known: {', '.join(sorted(out))}", source="settings"
                )
            out[name] = value
    return out


def prepare(options: AuditOptions) -> Prepared:
    """Read the configuration and the waivers, select rules: everything but the evaluation."""
    use_config = options.config_file is not None or options.use_config
    catalogue = options.catalogue or catalogue_with(
        [*(config_rule_packs(options.config_file) if use_config else ()), *options.rule_packs]
    )
    config = load_config(options.config_file, catalogue.settings) if use_config else AuditConfig()
    settings = effective_settings(catalogue, config.settings, options.settings)
    where = config.source or "the configuration"
    check_patterns(catalogue.rules, split_patterns(config.checks), source=f"{where}: check")
    check_patterns(
        catalogue.rules, split_patterns(config.skip_checks), source=f"{where}: skip-check"
    )
    checks = split_patterns([*config.checks, *options.checks])
    skips = split_patterns([*config.skip_checks, *options.skip_checks])
    rules = select_rules(catalogue.rules, checks, skips)
    if options.ruleset is not None:
        check_pin(options.ruleset, source="--ruleset")
    else:
        check_pin(config.ruleset, source=f"{where}: ruleset")
    known = frameworks_for(
        [r.id for r in catalogue.rules], [*config.rule_packs, *options.rule_packs]
    )
    names = list(options.frameworks) or config.frameworks
    where_fw = "--framework" if options.frameworks else f"{where}: framework"
    frameworks = select_frameworks(known, names, source=where_fw)
    if frameworks:
        rules = framework_rules(rules, frameworks)
    fail_on = options.fail_on or config.fail_on or DEFAULT_FAIL_ON
    as_of = options.as_of or config.as_of or today()
    if options.waiver_list is not None:
        waivers = list(options.waiver_list)
    else:
        path = options.waivers or config.waivers
        waivers = load_waivers(path) if path else []
    return Prepared(catalogue, config, settings, rules, fail_on, as_of, waivers, frameworks, known)


def _now() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


_STATUS_ORDER = {"fail": 0, "unknown": 1, "waived": 2, "baselined": 3, "pass": 4}


@overload
def sort_findings(findings: Findings) -> Findings: ...


@overload
def sort_findings(findings: list[Finding]) -> list[Finding]: ...


def sort_findings(findings: list[Finding] | Findings) -> list[Finding] | Findings:
    """Failures first, most severe first, then unknown, waived and baselined ones, by rule and
    resource; passes last, in evaluation order (catalogue order; a large estate has millions).
    Given :class:`~auditor.audit.findings.Findings`, gives them again with their passes still in
    blocks."""
    if isinstance(findings, Findings):
        judged = sort_findings([f for f in findings.listed if f.status != "pass"])
        return Findings(judged, findings.passes())
    judged = [f for f in findings if f.status != "pass"]
    judged.sort(
        key=lambda f: (
            _STATUS_ORDER[f.status],
            -SEVERITY_RANK[f.severity],
            f.ruleId,
            f.resourceId.lower(),
            f.fingerprint,
        )
    )
    judged.extend(f for f in findings if f.status == "pass")
    return judged


def _finish(
    prep: Prepared,
    options: AuditOptions,
    evaluation: Evaluation,
    *,
    started: str,
    target: str,
    target_kind: Literal["snapshot", "plan", "api"],
    incomplete: Sequence[str] = (),
    warnings: Sequence[str] = (),
    skipped: Sequence[Mapping[str, Any]] = (),
) -> AuditResult:
    evaluated = evaluation.findings
    # waivers and the baseline change failing and unknown findings only: the passes stay in
    # their blocks
    waived = apply_waivers(evaluated.listed, prep.waivers, prep.as_of)
    findings = evaluated.with_listed(waived.findings)
    fixed: list[str] = []
    stale: list[str] = []
    ran = [r.id for r in evaluation.rules_run if r is not evaluation.partial]
    if options.create_baseline:
        from auditor.audit.baseline import write_baseline

        write_baseline(options.create_baseline, findings.listed, started)  # passes never enter
    baseline_path = options.create_baseline or options.baseline
    if baseline_path:
        from auditor.audit.baseline import load_baseline

        findings, fixed, stale = _baseline(findings, load_baseline(baseline_path), ran)
    warnings = list(warnings)
    incomplete = list(incomplete)
    if evaluation.stopped is not None:
        incomplete.append(_stopped(evaluation))
        warnings.append(_stopped(evaluation))
    limit = options.max_failures_per_rule
    listed, unlisted = cap_failures(sort_findings(findings), limit)
    del findings
    if unlisted and limit:
        warnings.extend(unlisted_warnings(unlisted, limit))
    run_ids = [r.id for r in evaluation.rules_run]
    shown = prep.frameworks or frameworks_in_view(prep.known_frameworks, run_ids)
    warnings.extend(
        f"framework {fw.id}: none of its rules ran on this {target_kind}, so none of its "
        "controls was judged (not-run)"
        for fw in prep.frameworks
        if not set(fw.rule_ids()) & set(run_ids)
    )
    result = AuditResult(
        findings=listed,
        rules=[rule_texts(r.info, prep.settings) for r in evaluation.rules_run],
        startedAt=started,
        finishedAt=_now(),
        target=target,
        targetKind=target_kind,
        failOn=prep.fail_on,
        waivers=waived.applied,
        staleWaivers=waived.stale,
        expiredWaivers=waived.expired,
        baselineFixed=fixed,
        baselineStale=stale,
        incomplete=incomplete,
        warnings=warnings,
        unlisted=unlisted,
        coverage=Coverage(
            inputs=list(evaluation.inputs),
            skipped=[dict(s) for s in skipped],
            incompleteRules=list(evaluation.incomplete_rules),
        ),
        failOnUnknown=options.fail_on_unknown,
        requireComplete=options.require_complete,
        controls=control_view(listed, shown, run_ids, unlisted=unlisted),
    )
    if evaluation.context._access is not None and evaluation.stopped is None:
        result.access = access_summary(evaluation)
    return result


def _baseline(
    findings: Findings, entries: list[BaselineEntry], ran: list[str]
) -> tuple[Findings, list[str], list[str]]:
    """:func:`apply_baseline` on the listed findings; an entry it calls stale (its resource not
    judged) whose rule and resource a pass of the blocks judged is fixed."""
    from auditor.audit.baseline import apply_baseline

    outcome = apply_baseline(findings.listed, entries, ran)
    fixed, stale = outcome.fixed, outcome.stale
    if stale and findings.blocks:
        wanted = {fp: e for e in entries if (fp := e.fingerprint) in set(stale)}
        keys = {(e.ruleId, e.resourceId.rstrip("/").lower()) for e in wanted.values()}
        judged = {
            key
            for block in findings.blocks
            if block.ruleId in {k[0] for k in keys}
            for f in block
            if (key := (f.ruleId, f.resourceId.rstrip("/").lower())) in keys
        }
        if judged:
            now_fixed = {
                fp
                for fp, e in wanted.items()
                if (e.ruleId, e.resourceId.rstrip("/").lower()) in judged
            }
            order: dict[str, int] = {}
            for n, e in enumerate(entries):
                order.setdefault(e.fingerprint, n)
            fixed = sorted([*fixed, *now_fixed], key=order.__getitem__)
            stale = [fp for fp in stale if fp not in now_fixed]
    return findings.with_listed(outcome.findings), fixed, stale


def _stopped(evaluation: Evaluation) -> str:
    """What a run stopped by its budget evaluated and what it did not."""
    parts = [f"evaluation stopped: {evaluation.stopped}"]
    if evaluation.partial is not None:
        parts.append(f"{evaluation.partial.id} evaluated in part")
    if evaluation.not_run:
        parts.append(
            f"{len(evaluation.not_run)} rule(s) not run: "
            + ", ".join(r.id for r in evaluation.not_run)
        )
    return "; ".join(parts)


def access_summary(evaluation: Evaluation) -> AccessSummary:
    """Privileged holders per subscription and the shadow-admin paths, for the reports."""
    from auditor.access import PRIVILEGED_ROLES
    from auditor.access.scopes import ScopeTree

    engine = evaluation.context.access()
    ix = engine.indexes
    summary = AccessSummary()
    subs = sorted(
        {s for s in (ScopeTree.subscription_of(k) for k in ix.scopes.known()) if s is not None}
    )
    by_scope = ix.by_scope
    # the privileged assignments at a level, each with what the reports show of it, found once
    # (those at ``/`` and the management groups are listed again under every subscription)
    held: dict[str, list[tuple[str, str, str, str]]] = {}
    for sub in subs:
        shown = ix.scopes.display(sub)
        for level in ix.scopes.chain(sub):
            found = held.get(level)
            if found is None:
                found = held[level] = [
                    _privileged_fields(ix, e)
                    for e in by_scope.get(level, ())
                    if e.role in PRIVILEGED_ROLES
                ]
            for principal_id, name, principal_type, role in found:
                summary.privileged.append(
                    Privileged(shown, principal_id, name, principal_type, role)
                )
    escalations = evaluation.context.cache.get("escalations")
    if escalations is None:
        escalations = engine.escalations()
    for esc in escalations:
        summary.escalations.append(
            EscalationPath(
                principalId=esc.principalId,
                displayName=esc.displayName or esc.principalId,
                scope=esc.scope,
                steps=tuple((s.kind, s.name) for s in esc.path),
            )
        )
    return summary


def _privileged_fields(ix: Any, entry: Any) -> tuple[str, str, str, str]:
    """What :class:`~auditor.audit.findings.Privileged` shows of an assignment: principal id,
    display name, principal type and role name."""
    record = ix.directory.entry(entry.principal)
    return (
        ix.directory.display(entry.principal),
        ix.directory.name(entry.principal),
        (record.type if record is not None and record.type else None)
        or entry.record.properties.principalType
        or "User",
        ix.catalogue.name(entry.role),
    )


def audit_snapshot(
    snapshot: Snapshot,
    options: AuditOptions | None = None,
    *,
    target: str | None = None,
    target_kind: Literal["snapshot", "api"] = "snapshot",
    incomplete: Sequence[str] = (),
) -> AuditResult:
    """Audit a snapshot with every selected estate rule."""
    options = options or AuditOptions()
    started = _now()
    prep = prepare(options)
    engine = Engine(
        settings=prep.settings, as_of=prep.as_of, snapshot=snapshot, files=options.files
    )
    evaluation = engine.run(prep.rules, budget=options.budget)
    if target_kind == "api" and target:
        for entry in evaluation.inputs:
            entry["kind"] = "api"
            entry.pop("file", None)
            entry["url"] = target
    result = _finish(
        prep,
        options,
        evaluation,
        started=started,
        target=target or snapshot.source or "<snapshot>",
        target_kind=target_kind,
        incomplete=incomplete,
        warnings=snapshot.warnings,
    )
    from operator import attrgetter

    judged = result.judged
    ids = list(map(attrgetter("resourceId"), judged))  # (made in C: a large run judges 60,000)
    located = zip(ids, map(attrgetter("location"), judged), strict=True)
    result.names = estate_names(snapshot, ids, located=located)
    return result


def gate_plan(
    plan: Plan,
    options: AuditOptions | None = None,
    *,
    skipped: Sequence[Mapping[str, Any]] = (),
    warnings: Sequence[str] = (),
    estate: Snapshot | None = None,
) -> AuditResult:
    """Judge a plan with every selected plan rule (the pre-deployment gate). ``skipped`` lists the
    inputs passed over (``{"file", "reason"}``: a folder's unrecognised files) and ``warnings``
    what a reader wants the user to know; both go in the result. The requests' inline
    suppressions are waivers after those of the waivers file (:func:`inline_waivers`).

    ``estate`` (``gate --estate``) is the estate the plan deploys to: the access change of the
    plan's role and deny assignment requests is computed against it
    (:func:`auditor.access.plan_access_change`), judged by the ACC rules and kept as the result's
    ``accessDelta``. Without it, those requests are ``unknown`` for the ACC rules and a warning
    says the access change was not computed."""
    from auditor.audit.checks.access_change import ACCESS_CHANGE

    options = options or AuditOptions()
    started = _now()
    prep = prepare(options)
    prep.waivers = [*prep.waivers, *inline_waivers(plan)]
    engine = Engine(settings=prep.settings, as_of=prep.as_of, plan=plan, files=options.files)
    warnings = list(warnings)
    change = None
    if estate is not None:
        from auditor.access.plan_change import plan_access_change
        from auditor.audit.coverage import EstateCoverage

        change = plan_access_change(estate, plan)
        engine.context.cache[ACCESS_CHANGE] = change
        engine.inputs.extend(EstateCoverage(estate).inputs())
        warnings.extend([*estate.warnings, *change.notes])
    else:
        count = sum(1 for r in plan.requests if r.kind in ("roleAssignment", "denyAssignment"))
        if count:
            warnings.append(
                f"the plan has {count} role or deny assignment request(s) but no estate was "
                "given: the access change was not computed and ACC-001..003 are unknown (gate "
                "with --estate SNAPSHOT)"
            )
    evaluation = engine.run(prep.rules, budget=options.budget)
    result = _finish(
        prep,
        options,
        evaluation,
        started=started,
        target=plan.source or "<plan>",
        target_kind="plan",
        warnings=warnings,
        skipped=skipped,
    )
    if change is not None:
        result.accessDelta = change.delta
    return result


def rule_catalogue_json(
    catalogue: Catalogue | None = None, settings: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """``auditor rules list --format json``: every rule (its texts filled from the defaults and
    ``settings``) and every setting with its default."""
    catalogue = catalogue or shipped_catalogue()
    values = effective_settings(catalogue, settings or {})
    rules = []
    for r in catalogue.rules:
        doc = r.to_json(catalogue.settings)
        info = rule_texts(r.info, values)
        for key in ("title", "description", "remediation"):
            if key in doc:
                doc[key] = getattr(info, key)
        rules.append(doc)
    return {
        "rules": rules,
        "settings": {name: s.to_json() for name, s in sorted(catalogue.settings.items())},
    }


def check_path_readable(path: str, what: str) -> None:
    if not os.path.exists(path):
        raise InputError(f"no such {what}", source=path)
