"""Rule packs: the catalogue of ``rules/*.yaml`` as data, loaded and validated.

A pack is one YAML file per resource kind (``domains``, ``clusters``, ``access``, ``health``,
``tokens``, ``plans``). Each rule gives either a ``predicate`` (an OData filter stating what a
COMPLIANT resource looks like, evaluated over the resource's JSON with the seed defaults applied) or a
``check`` (the name of a check in code, :mod:`auditor.audit.checks`). The format is documented in
``docs/configuration.md``. A broken pack is an :class:`~auditor.errors.InputError` naming the file and
the rule.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from auditor._resources import data_dir
from auditor.audit._yaml import MAX_BYTES as MAX_YAML_BYTES
from auditor.audit._yaml import load_yaml
from auditor.audit.findings import RuleInfo, RunsOn, Severity
from auditor.errors import InputError
from auditor.estate import read_input_text

PACK_VERSION = 1

REQUIREMENTS: dict[str, str] = {
    "hierarchy": "the management-group hierarchy",
    "principals": "the directory",
    "roleDefinitions": "the role definitions",
    "roleAssignments": "the role assignments",
    "denyAssignments": "the deny assignments",
    "clusters": "the clusters",
    "domains": "the domains",
    "healthEvents": "the health events",
    "devTooling": "the developer-tooling service",
    "assignedRoles": "the definition of every role an assignment names",
}
"""What a rule may declare under ``requires`` (estate rules): a snapshot section the source must
list (an empty list counts: "none"; a section left out is "not collected"), or ``assignedRoles``,
the definition of every role the role assignments name (built in, or in ``roleDefinitions``). A rule
whose section is missing is not run and reports ``unknown``; a rule missing some role definitions
runs and also reports ``unknown`` for what it could not see (:mod:`auditor.audit.coverage`)."""

RULE_ID = re.compile(r"^[A-Z]+-[0-9]{3}$")
SETTING_NAME = re.compile(r"^[a-z][A-Za-z0-9]*$")
_PLACEHOLDER = re.compile(r"\{\{|\}\}|\{([^{}]*)\}")

SettingType = Literal["integer", "number", "string", "boolean", "date", "list"]

Predicate = Callable[[Any], bool]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SettingSpec(_Strict):
    """A setting a rule takes (rules.md "setting"), with its documented default."""

    type: SettingType
    default: Any
    description: str


class SeverityWhen(_Strict):
    when: str
    severity: Severity


class RuleSpec(_Strict):
    id: str
    title: str
    severity: Severity
    runsOn: list[RunsOn] = Field(min_length=1)
    description: str
    predicate: str | None = None
    check: str | None = None
    appliesTo: str | None = None
    evidence: list[str] = Field(default_factory=list)
    severityWhen: list[SeverityWhen] = Field(default_factory=list)
    enabledBy: str | None = None
    settings: dict[str, SettingSpec] = Field(default_factory=dict)
    requires: list[str] = Field(default_factory=list)
    message: str
    passMessage: str
    remediation: str
    references: list[str] = Field(min_length=1)

    @field_validator("requires")
    @classmethod
    def _requires(cls, value: list[str]) -> list[str]:
        for name in value:
            if name not in REQUIREMENTS:
                raise ValueError(
                    f"unknown input {name!r}; expected one of {', '.join(REQUIREMENTS)}"
                )
        return value

    @field_validator("id")
    @classmethod
    def _id(cls, value: str) -> str:
        if not RULE_ID.match(value):
            raise ValueError(f"rule id {value!r} is not of the form ABC-123")
        return value


class PackSpec(_Strict):
    version: Literal[1]
    pack: str
    resourceType: str
    rules: list[RuleSpec] = Field(min_length=1)


def jsonable(value: Any) -> Any:
    """A setting value as JSON: dates as ISO text, tuples as lists."""
    if isinstance(value, tuple):
        return list(value)
    isoformat = getattr(value, "isoformat", None)
    return isoformat() if callable(isoformat) else value


@dataclass(frozen=True)
class Setting:
    name: str
    type: SettingType
    default: Any
    description: str
    rules: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "type": self.type,
            "default": jsonable(self.default),
            "description": self.description,
            "rules": list(self.rules),
        }


@dataclass(frozen=True)
class Rule:
    """One rule of the catalogue, ready to run."""

    info: RuleInfo
    pack: str
    source: str
    predicate_text: str | None
    check: str | None
    applies_to_text: str | None
    evidence: tuple[str, ...]
    severity_when: tuple[tuple[str, Severity], ...]
    enabled_by: str | None
    settings: tuple[str, ...]
    message: str
    pass_message: str
    predicate: Predicate | None = field(default=None, compare=False, repr=False)
    applies_to: Predicate | None = field(default=None, compare=False, repr=False)
    severity_predicates: tuple[tuple[Predicate, Severity], ...] = field(
        default=(), compare=False, repr=False
    )
    requires: tuple[str, ...] = ()
    """Inputs the rule needs (:data:`REQUIREMENTS`)."""
    reads: tuple[str, ...] = field(default=(), compare=False, repr=False)
    """Member paths the predicate and the evidence read (a predicate rule reading an unknown value
    of a plan is ``unknown``)."""
    applies_reads: tuple[str, ...] = field(default=(), compare=False, repr=False)
    """Member paths ``appliesTo`` reads."""

    @property
    def id(self) -> str:
        return self.info.id

    @property
    def severity(self) -> Severity:
        return self.info.severity

    @property
    def resource_type(self) -> str:
        return self.info.resourceType

    def runs_on(self, kind: RunsOn) -> bool:
        return kind in self.info.runsOn

    def to_json(self, settings: Mapping[str, Setting] | None = None) -> dict[str, Any]:
        out = self.info.to_json()
        out["pack"] = self.pack
        if self.predicate_text is not None:
            out["predicate"] = self.predicate_text
        if self.check is not None:
            out["check"] = self.check
        if self.applies_to_text is not None:
            out["appliesTo"] = self.applies_to_text
        if self.enabled_by is not None:
            out["enabledBy"] = self.enabled_by
        if self.requires:
            out["requires"] = list(self.requires)
        if settings is not None:
            out["settings"] = {
                name: settings[name].to_json() for name in self.settings if name in settings
            }
        return out


@dataclass(frozen=True)
class Catalogue:
    """Every rule of every pack, in pack order, and every setting they declare."""

    rules: tuple[Rule, ...]
    settings: Mapping[str, Setting]

    def by_id(self) -> dict[str, Rule]:
        return {r.id: r for r in self.rules}


def template_fields(template: str) -> list[str]:
    """The placeholder names of a message template (``{name}``; ``{{``/``}}`` are literal)."""
    return [m.group(1) for m in _PLACEHOLDER.finditer(template) if m.group(1) is not None]


def render_template(template: str, lookup: Callable[[str], str]) -> str:
    """Fill ``{name}`` placeholders through ``lookup``; ``{{`` and ``}}`` give single braces."""

    def sub(m: re.Match[str]) -> str:
        name = m.group(1)
        if name is None:
            return m.group(0)[0]
        return lookup(name.strip())

    return _PLACEHOLDER.sub(sub, template)


def _compiler() -> Callable[[str], Predicate]:
    try:
        from auditor.expr.filter import compile_filter
    except ImportError:
        try:
            from auditor.expr.filter.compiler import compile_filter
        except ImportError as exc:
            raise InputError(
                "the rule packs need the filter engine (auditor.expr.filter.compile_filter), which "
                "is missing from this installation"
            ) from exc
        return compile_filter
    return compile_filter


def member_paths(text: str) -> tuple[str, ...]:
    """The member paths a filter reads (``/``-separated), a lambda's inner paths joined to its
    collection's (``properties/inboundIpRules/any(r: r/ipMask eq 'x')`` reads
    ``properties/inboundIpRules`` and ``properties/inboundIpRules/ipMask``)."""
    from auditor.expr.filter import parse_filter
    from auditor.expr.filter.ast import Lambda, Member, children

    found: dict[str, None] = {}
    stack: list[tuple[Any, dict[str, tuple[str, ...]]]] = [(parse_filter(text), {})]
    while stack:
        node, scope = stack.pop()
        if isinstance(node, Member):
            path = node.path
            if path and path[0] in scope:
                path = scope[path[0]] + path[1:]
            found["/".join(path)] = None
            continue
        if isinstance(node, Lambda):
            base = node.collection.path
            if base and base[0] in scope:
                base = scope[base[0]] + base[1:]
            found["/".join(base)] = None
            if node.predicate is not None:
                inner = dict(scope)
                if node.variable:
                    inner[node.variable] = base
                stack.append((node.predicate, inner))
            continue
        stack.extend((child, scope) for child in children(node))
    return tuple(p for p in found if p)


def _compile(text: str, where: str, what: str) -> Predicate:
    try:
        return _compiler()(text)
    except InputError as exc:
        raise InputError(f"{what} does not parse: {exc}", source=where) from None


def read_yaml(text: str, *, source: str = "<rule pack>") -> Any:
    """YAML through the tool's one loader (:mod:`auditor.audit._yaml`: libyaml when available,
    aliases bounded, no implicit dates); an InputError names the line and column."""
    return load_yaml(text, source=source, what="rule pack")


def load_pack_file(path: Path, known_checks: Iterable[str] | None = None) -> list[Rule]:
    """Load and validate one pack file; raises InputError naming the file and the rule."""
    return _load_pack(path, known_checks)[0]


def _load_pack(
    path: Path, known_checks: Iterable[str] | None = None
) -> tuple[list[Rule], PackSpec]:
    where = str(path)
    document = read_yaml(
        read_input_text(where, what="rule pack", limit=MAX_YAML_BYTES), source=where
    )
    try:
        spec = PackSpec.model_validate(document)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        loc = _pack_location(document, err["loc"])
        raise InputError(f"invalid rule pack: {err['msg']}", source=where, location=loc) from None
    checks = set(known_checks) if known_checks is not None else None
    rules: list[Rule] = []
    for index, r in enumerate(spec.rules):
        here = f"rules[{index}] ({r.id})"
        if (r.predicate is None) == (r.check is None):
            raise InputError(
                "a rule needs exactly one of predicate and check", source=where, location=here
            )
        if r.check is not None and checks is not None and r.check not in checks:
            raise InputError(
                f"check {r.check!r} is not a registered check (known: {', '.join(sorted(checks))})",
                source=where,
                location=here,
            )
        for name in r.settings:
            if not SETTING_NAME.match(name):
                raise InputError(
                    f"setting name {name!r} is not camelCase", source=where, location=here
                )
        if r.enabledBy is not None and r.enabledBy not in r.settings:
            raise InputError(
                f"enabledBy names {r.enabledBy!r}, which the rule does not declare under settings",
                source=where,
                location=here,
            )
        for template in (r.message, r.passMessage, r.remediation):
            for name in template_fields(template):
                if name.startswith("settings.") and name[9:] not in r.settings:
                    raise InputError(
                        f"the template uses {{{name}}}, a setting the rule does not declare",
                        source=where,
                        location=here,
                    )
        predicate = _compile(r.predicate, where, f"{here}: predicate") if r.predicate else None
        applies = _compile(r.appliesTo, where, f"{here}: appliesTo") if r.appliesTo else None
        sev_preds = tuple(
            (_compile(s.when, where, f"{here}: severityWhen"), s.severity) for s in r.severityWhen
        )
        info = RuleInfo(
            id=r.id,
            title=r.title,
            severity=r.severity,
            resourceType=spec.resourceType,
            runsOn=tuple(r.runsOn),
            description=" ".join(r.description.split()),
            remediation=r.remediation,
            references=tuple(r.references),
        )
        rules.append(
            Rule(
                info=info,
                pack=spec.pack,
                source=where,
                predicate_text=" ".join(r.predicate.split()) if r.predicate else None,
                check=r.check,
                applies_to_text=r.appliesTo,
                evidence=tuple(r.evidence),
                severity_when=tuple((s.when, s.severity) for s in r.severityWhen),
                enabled_by=r.enabledBy,
                settings=tuple(r.settings),
                message=r.message,
                pass_message=r.passMessage,
                predicate=predicate,
                applies_to=applies,
                severity_predicates=sev_preds,
                requires=tuple(dict.fromkeys(r.requires)),
                reads=tuple(
                    dict.fromkeys(
                        [*(member_paths(r.predicate) if r.predicate else ()), *r.evidence]
                    )
                ),
                applies_reads=member_paths(r.appliesTo) if r.appliesTo else (),
            )
        )
    return rules, spec


def _pack_location(document: Any, loc: tuple[int | str, ...]) -> str:
    out = ""
    node = document
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
            if isinstance(node, list) and 0 <= part < len(node):
                node = node[part]
                if isinstance(node, dict) and isinstance(node.get("id"), str):
                    out += f" ({node['id']})"
        else:
            out += f".{part}" if out else part
            node = node.get(part) if isinstance(node, dict) else None
    return out or "(top level)"


def load_catalogue(folder: Path | None = None) -> Catalogue:
    """Every pack of ``folder`` (default: the shipped ``rules/``), validated as a whole: rule ids
    and setting names are unique, every check is registered, setting defaults have their type."""
    from auditor.audit.checks import CHECKS

    root = folder if folder is not None else data_dir("rules")
    files = sorted(root.glob("*.yaml"))
    if not files:
        raise InputError("no rule packs (*.yaml) found", source=str(root))
    rules: list[Rule] = []
    settings: dict[str, Setting] = {}
    seen: dict[str, str] = {}
    for path in files:
        pack_rules, pack = _load_pack(path, CHECKS.keys())
        for rule, spec in zip(pack_rules, pack.rules, strict=True):
            if rule.id in seen:
                raise InputError(
                    f"rule {rule.id} is defined twice (also in {seen[rule.id]})", source=str(path)
                )
            seen[rule.id] = str(path)
            for name, s in spec.settings.items():
                if name in settings:
                    raise InputError(
                        f"setting {name!r} of {rule.id} is declared by another rule too",
                        source=str(path),
                    )
                from auditor.audit.settings import coerce_setting

                try:
                    default = coerce_setting(s.type, s.default)
                except ValueError as exc:
                    raise InputError(
                        f"default of setting {name!r}: {exc}", source=str(path), location=rule.id
                    ) from None
                settings[name] = Setting(
                    name=name,
                    type=s.type,
                    default=default,
                    description=" ".join(s.description.split()),
                    rules=(rule.id,),
                )
            rules.append(rule)
    return Catalogue(rules=tuple(rules), settings=settings)


@cache
def shipped_catalogue() -> Catalogue:
    """The catalogue of the shipped packs (loaded once per process)."""
    return load_catalogue()
