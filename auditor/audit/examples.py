"""A rule's examples, run: what ``auditor rules test`` does (contracts section 10).

Each rule of a pack may carry ``examples: {fail: [...], pass: [...], unknown: [...]}``. An item is

- a resource object as the rule sees it: a snapshot record for an estate rule (a domain, a
  cluster, a health event, an API token, a role assignment ...), or the resource of a plan request
  for a rule that runs on plans only (its ``id``, ``name``, ``type``, ``location``,
  ``properties`` ...: it becomes a ``PUT`` of that body to that id); or
- for rules that judge relations (access, secret scanning, the access change), a mapping of
  ``estate`` (a snapshot document, contracts section 2, holding just what is needed: sections left
  out are empty, a section given as ``null`` is "not collected"), ``plan`` (a plan document,
  contracts section 3: the rule then runs on the plan, against ``estate`` when given) and
  ``resource`` (the id of the resource the status is about, or a resource object placed in the
  estate or the plan), optionally with ``settings`` (the rule's own settings) and ``asOf``.

The example holds when the rule's finding on that resource has the expected status (any failing
finding on it: ``fail``; else any ``unknown``: ``unknown``; else ``pass``). Examples run through
the same code path as ``auditor audit`` and ``auditor gate``, with the rule's settings at their
defaults, the rule enabled (an ``enabledBy`` setting is switched on) and the clock at
:data:`EXAMPLE_AS_OF` unless the example says otherwise.
"""

from __future__ import annotations

import copy
import datetime as dt
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from auditor.audit.packs import Catalogue, Example, Rule
from auditor.errors import InputError

EXAMPLE_AS_OF = dt.date(2026, 11, 21)
"""The audit clock of an example that does not give ``asOf``."""

WRAPPER_KEYS = frozenset({"estate", "plan", "resource", "settings", "asOf"})
"""The keys of an example in the relational form."""

EXAMPLE_SUBSCRIPTION = "00000000-0000-0000-0000-0000000000e1"
"""The subscription of an example resource that gives no ``id``."""

_SNAPSHOT_SECTIONS = (
    "hierarchy",
    "principals",
    "roleDefinitions",
    "roleAssignments",
    "denyAssignments",
    "clusters",
    "domains",
    "healthEvents",
)
_SECTION_OF_TYPE = {
    "Cloud.EventRouting/domains": "domains",
    "Cloud.AnalyticsCluster/clusters": "clusters",
    "Cloud.ResourceHealth/events": "healthEvents",
    "Cloud.Authorization/roleAssignments": "roleAssignments",
    "Cloud.Authorization/denyAssignments": "denyAssignments",
    "Cloud.Authorization/roleDefinitions": "roleDefinitions",
    "DevTooling/apiTokens": "devTooling.tokens",
}
"""Where a resource object of a rule's resource type goes in an example's snapshot."""
_PLAN_API_VERSIONS = {
    "Cloud.EventRouting/domains": "2025-02-15",
    "Cloud.AnalyticsCluster/clusters": "2021-06-01",
    "Cloud.Authorization/roleAssignments": "2022-04-01",
    "Cloud.Authorization/denyAssignments": "2022-04-01",
}

Got = Literal["fail", "pass", "unknown", "waived", "none"]


@dataclass(frozen=True)
class ExampleResult:
    """One example run: what was expected and what the rule said."""

    rule: Rule
    example: Example
    got: Got
    message: str
    """The message of the deciding finding (or why there was none)."""

    @property
    def ok(self) -> bool:
        return self.got == self.example.status

    @property
    def label(self) -> str:
        """``examples.fail[0]``."""
        return f"examples.{self.example.status}[{self.example.index}]"

    def to_json(self) -> dict[str, Any]:
        return {
            "rule": self.rule.id,
            "example": self.label,
            "file": self.rule.source,
            "line": self.example.line,
            "expected": self.example.status,
            "got": self.got,
            "ok": self.ok,
            "message": self.message,
        }


def is_wrapped(item: Any) -> bool:
    """Whether an example item is in the relational form (``{estate, plan, resource}``)."""
    return (
        isinstance(item, dict) and "resource" in item and bool(item) and set(item) <= WRAPPER_KEYS
    )


def example_shape_problem(rule: Rule, item: Any) -> str | None:
    """Why ``item`` cannot be an example of ``rule`` (None when it can); no evaluation."""
    return shape_problem(
        item,
        runs_on=rule.info.runsOn,
        resource_type=rule.resource_type,
        settings=(*rule.settings, *((rule.enabled_by,) if rule.enabled_by else ())),
    )


def shape_problem(
    item: Any, *, runs_on: Sequence[str], resource_type: str, settings: Sequence[str]
) -> str | None:
    """Why ``item`` cannot be an example of a rule that runs on ``runs_on``, judges resources of
    ``resource_type`` and declares ``settings`` (None when it can)."""
    if not isinstance(item, dict):
        return "an example is a mapping: a resource object, or {estate, plan, resource}"
    estate_rule, plan_rule = "estate" in runs_on, "plan" in runs_on
    if is_wrapped(item):
        resource = item["resource"]
        if not isinstance(resource, str | dict):
            return "resource is the id of the resource the status is about (or a resource object)"
        for key in ("estate", "plan", "settings"):
            if key in item and not isinstance(item[key], dict):
                return f"{key} is a mapping"
        if "plan" in item and not plan_rule:
            return "the rule does not run on plans (runsOn), so an example cannot give a plan"
        if "plan" not in item and not estate_rule and not isinstance(resource, dict):
            return "the rule runs on plans only: give plan (and estate when it needs one)"
        if (
            isinstance(resource, dict)
            and "plan" not in item
            and estate_rule
            and resource_type not in _SECTION_OF_TYPE
        ):
            return "give resource as the id of a resource of the estate"
        unknown = set(item.get("settings") or {}) - set(settings)
        if unknown:
            return (
                f"settings names {', '.join(sorted(map(str, unknown)))}, not a setting of the rule"
            )
        if "asOf" in item and not isinstance(item["asOf"], str):
            return "asOf is a date (YYYY-MM-DD), quoted"
        return None
    if set(item) & {"estate", "plan"}:
        return "an example with estate or plan also names its resource (resource: <id>)"
    if estate_rule:
        if resource_type not in _SECTION_OF_TYPE:
            return f"a {resource_type} rule's examples are {{estate: <snapshot>, resource: <id>}}"
    elif resource_type not in _PLAN_API_VERSIONS:
        return f"a {resource_type} rule's examples are {{plan: <plan>, resource: <id>}}"
    return None


def run_examples(catalogue: Catalogue, rules: Iterable[Rule] | None = None) -> list[ExampleResult]:
    """Run every example of ``rules`` (default: every rule of ``catalogue``), in order. An
    example that is not a usable input is an InputError naming the pack file, its line and the
    rule."""
    out: list[ExampleResult] = []
    for rule in catalogue.rules if rules is None else rules:
        for example in rule.examples:
            out.append(run_example(catalogue, rule, example))
    return out


def missing_examples(rules: Iterable[Rule]) -> list[dict[str, Any]]:
    """The rules without a failing or a passing example (every rule needs both), one entry for
    each status missing: ``{rule, file, line, missing}``."""
    out: list[dict[str, Any]] = []
    for rule in rules:
        have = {e.status for e in rule.examples}
        for status in ("fail", "pass"):
            if status not in have:
                out.append(
                    {"rule": rule.id, "file": rule.source, "line": rule.line, "missing": status}
                )
    return out


def run_example(catalogue: Catalogue, rule: Rule, example: Example) -> ExampleResult:
    """Run one example (see the module's docstring)."""
    where = f"{rule.id} examples.{example.status}[{example.index}]"
    problem = example_shape_problem(rule, example.item)
    if problem is not None:
        raise InputError(problem, source=rule.source, location=f"line {example.line}, {where}")
    try:
        return _run(catalogue, rule, example, where)
    except InputError as exc:
        at = f"{exc.location}: " if exc.location else ""
        raise InputError(
            f"the example is not a usable input: {at}{exc.detail}",
            source=rule.source,
            location=f"line {example.line}, {where}",
        ) from None


def _run(catalogue: Catalogue, rule: Rule, example: Example, where: str) -> ExampleResult:
    from auditor.audit.runner import AuditOptions, audit_snapshot, gate_plan
    from auditor.audit.settings import parse_date
    from auditor.estate.plan import loads_plan

    item = copy.deepcopy(example.item)
    wrapped = is_wrapped(item)
    settings: dict[str, Any] = dict(item.get("settings", {})) if wrapped else {}
    if rule.enabled_by is not None:
        settings.setdefault(rule.enabled_by, True)
    as_of = (
        parse_date(str(item["asOf"]), source=f"{where}: asOf")
        if "asOf" in item and wrapped
        else None
    )
    options = AuditOptions(
        use_config=False,
        catalogue=catalogue,
        checks=[rule.id],
        settings=_coerced(catalogue, settings, where),
        as_of=as_of or EXAMPLE_AS_OF,
        max_failures_per_rule=0,
    )
    on_plan = (wrapped and "plan" in item) or not rule.runs_on("estate")
    resource = item["resource"] if wrapped else item
    estate_doc = item.get("estate") if wrapped else None
    if on_plan:
        plan_doc = dict(item.get("plan") or {}) if wrapped else {}
        plan_doc.setdefault("planVersion", 1)
        requests = plan_doc.setdefault("requests", [])
        if isinstance(resource, dict):
            resource = _with_id(resource, rule.resource_type)
            if isinstance(requests, list):
                requests.append(_request(resource))
        plan = loads_plan(json.dumps(plan_doc).encode(), source=f"{rule.source}: {where}")
        estate = _snapshot(estate_doc, None, rule, where) if estate_doc is not None else None
        result = gate_plan(plan, options, estate=estate)
    else:
        if isinstance(resource, dict):
            resource = _with_id(resource, rule.resource_type)
        snapshot = _snapshot(
            estate_doc or {}, resource if isinstance(resource, dict) else None, rule, where
        )
        result = audit_snapshot(snapshot, options)
    target = resource["id"] if isinstance(resource, dict) else str(resource)
    return _judge(rule, example, result.findings, target)


def _coerced(catalogue: Catalogue, values: Mapping[str, Any], where: str) -> dict[str, Any]:
    from auditor.audit.settings import coerce_setting

    out: dict[str, Any] = {}
    for name, value in values.items():
        spec = catalogue.settings.get(name)
        if spec is None:
            raise InputError(f"unknown setting {name!r}", source=f"{where}: settings")
        try:
            out[name] = coerce_setting(spec.type, value)
        except ValueError as exc:
            raise InputError(str(exc), source=f"{where}: settings.{name}") from None
    return out


def _with_id(resource: dict[str, Any], resource_type: str) -> dict[str, Any]:
    """The resource with an ``id`` (and ``name`` and ``type`` where it has a type), made up when
    the example gives none."""
    if resource_type == "DevTooling/apiTokens":
        resource.setdefault("id", "example-token")
        return resource
    name = resource.get("name") if isinstance(resource.get("name"), str) else "example"
    if not isinstance(resource.get("id"), str):
        provider = resource_type if "/" in resource_type else f"{resource_type}/resources"
        resource["id"] = (
            f"/subscriptions/{EXAMPLE_SUBSCRIPTION}/resourceGroups/rg-example/providers/"
            f"{provider}/{name}"
        )
    resource.setdefault("name", resource["id"].rstrip("/").rsplit("/", 1)[-1])
    if resource_type in _SECTION_OF_TYPE and resource_type.count("/") == 1:
        resource.setdefault("type", resource_type)
    return resource


def _request(resource: dict[str, Any]) -> dict[str, Any]:
    """A ``PUT`` of the resource's body to its id, at the api-version of seed section 9."""
    version = _PLAN_API_VERSIONS.get(str(resource.get("type")), "2021-06-01")
    body = {k: v for k, v in resource.items() if k not in ("id", "name", "type")}
    return {"method": "PUT", "url": f"{resource['id']}?api-version={version}", "body": body}


def _snapshot(doc: Any, resource: dict[str, Any] | None, rule: Rule, where: str) -> Any:
    from auditor.estate.snapshot import loads_snapshot

    if not isinstance(doc, dict):
        raise InputError("estate is a snapshot document (a mapping)", source=where)
    snapshot: dict[str, Any] = {"snapshotVersion": 1, **doc}
    for section in _SNAPSHOT_SECTIONS:
        snapshot.setdefault(section, [])
    dev = snapshot.setdefault("devTooling", {})
    if isinstance(dev, dict):
        dev.setdefault("apps", [])
        dev.setdefault("tokens", [])
    if resource is not None:
        section = _SECTION_OF_TYPE[rule.resource_type]
        if section == "devTooling.tokens":
            dev["tokens"].append(resource)
        else:
            snapshot[section].append(resource)
    for key in [k for k, v in snapshot.items() if v is None]:
        del snapshot[key]  # a section given as null: not collected
    return loads_snapshot(json.dumps(snapshot).encode(), source=f"{rule.source}: {where}")


def _norm(resource_id: str) -> str:
    return resource_id.rstrip("/").lower() or "/"


def _judge(rule: Rule, example: Example, findings: Sequence[Any], target: str) -> ExampleResult:
    key = _norm(target)
    mine = [f for f in findings if f.ruleId == rule.id and _norm(f.resourceId) == key]
    if not mine:
        # a rule that lacked an input is unknown for the estate as a whole
        mine = [
            f
            for f in findings
            if f.ruleId == rule.id and f.status == "unknown" and _norm(f.resourceId) == "/"
        ]
    for status in ("fail", "unknown", "waived", "pass"):
        hits = [f for f in mine if f.status == status]
        if hits:
            return ExampleResult(rule, example, status, hits[0].message)
    others = sorted({f.resourceId for f in findings if f.ruleId == rule.id})
    said = f"; it judged {', '.join(others[:5])}" if others else ""
    return ExampleResult(rule, example, "none", f"the rule gave no finding on {target}{said}")
