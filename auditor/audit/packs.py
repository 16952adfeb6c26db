"""Rule packs: the catalogue of ``rules/*.yaml`` as data, loaded and validated.

A pack is one YAML file per resource kind (``domains``, ``clusters``, ``access``, ``health``,
``tokens``, ``plans``). Each rule gives either a ``predicate`` (an OData filter stating what a
COMPLIANT resource looks like, evaluated over the resource's JSON with the seed defaults applied) or a
``check`` (the name of a check in code, :mod:`auditor.audit.checks`; shipped packs only). A user's
packs (``--rules DIR``, ``rules = ["DIR"]`` in the configuration) load beside the shipped ones
(:func:`load_catalogue`, :func:`catalogue_with`). Each rule carries its examples, read only when
asked (``examples=True``: ``auditor rules test``, :mod:`auditor.audit.examples`). The format is
documented in ``docs/rule-packs.md``, with a JSON Schema in ``rule-pack.schema.json`` beside this
module. A broken pack is an :class:`~auditor.errors.InputError` naming the file, the line and the
rule.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache
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
ExampleStatus = Literal["fail", "pass", "unknown"]

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
    references: list[str] = Field(default_factory=list)
    """Where the rule comes from (a benchmark control, the vendor's policy, a document): every
    shipped rule names one (a test checks); a user's rule may name none."""
    examples: dict[ExampleStatus, list[Any]] = Field(default_factory=dict)

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
class Example:
    """One example of a rule: an input and the status the rule must give it."""

    status: ExampleStatus
    index: int
    """Its position in the rule's list for ``status`` (``examples.fail[0]``)."""
    item: Any
    line: int
    """The 1-based line of the example in the pack file (0: not known)."""


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
    parameters: tuple[str, ...] = field(default=(), compare=False, repr=False)
    """``asOf`` and ``settings/NAME`` the predicate, ``appliesTo`` or ``severityWhen`` read: the
    engine compiles them for the values in force (:func:`bind_rule`)."""
    line: int = field(default=0, compare=False)
    """The 1-based line of the rule in its pack file (0: not known)."""
    examples: tuple[Example, ...] = field(default=(), compare=False, repr=False)
    """The rule's examples (``examples:``), run by ``auditor rules test``
    (:mod:`auditor.audit.examples`)."""
    user: bool = field(default=False, compare=False)
    """Loaded from a user's pack (``--rules DIR``), not shipped."""

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
    out: list[str] = []
    for literal, name in _template_parts(template):
        out.append(literal)
        if name is not None:
            out.append(lookup(name))
    return "".join(out)


@lru_cache(maxsize=4096)
def _template_parts(template: str) -> tuple[tuple[str, str | None], ...]:
    """``template`` split once into ``(text, placeholder name or None)`` pairs, in order (a run
    renders one template for each of tens of thousands of failing findings)."""
    parts: list[tuple[str, str | None]] = []
    start = 0
    for m in _PLACEHOLDER.finditer(template):
        text = template[start : m.start()]
        name = m.group(1)
        if name is None:  # {{ or }}
            parts.append((text + m.group(0)[0], None))
        else:
            parts.append((text, name.strip()))
        start = m.end()
    parts.append((template[start:], None))
    return tuple(parts)


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


def filter_parameters(text: str) -> tuple[str, ...]:
    """The parameters a predicate reads: ``asOf`` and ``settings/NAME`` (``@asOf``,
    ``@settings/NAME``), each once, in source order."""
    from auditor.expr.filter import parameters, parse_filter

    return tuple(dict.fromkeys(p.name for p in parameters(parse_filter(text))))


def parameter_values(
    names: Iterable[str], settings: Mapping[str, Any], as_of: Any
) -> dict[str, Any]:
    """The values of the parameters ``names`` in force: ``asOf`` the audit's clock, ``settings/NAME``
    the setting's value in ``settings``."""
    return {n: as_of if n == "asOf" else settings.get(n[len("settings/") :]) for n in names}


def _compile(
    text: str, where: str, what: str, declared: Mapping[str, SettingSpec] | None = None
) -> Predicate:
    """Compile a predicate; one that reads ``@settings/NAME`` must declare NAME (an error at load,
    not at run time) and is compiled here with the settings' defaults and today's date."""
    import datetime as dt

    try:
        names = filter_parameters(text)
        if not names:
            return _compiler()(text)
        for name in names:
            if name.startswith("settings/") and name[9:] not in (declared or {}):
                raise InputError(
                    f"{what} reads @{name}, a setting the rule does not declare under settings",
                    source=where,
                )
        defaults = {n: _default(spec) for n, spec in (declared or {}).items()}
        from auditor.expr.filter import compile_filter

        return compile_filter(text, parameter_values(names, defaults, dt.date.today()))
    except InputError as exc:
        if exc.source == where:
            raise
        raise InputError(f"{what} does not parse: {exc}", source=where) from None


def _default(spec: SettingSpec) -> Any:
    from auditor.audit.settings import coerce_setting

    try:
        return coerce_setting(spec.type, spec.default)
    except ValueError:
        return spec.default


def bind_rule(rule: Rule, settings: Mapping[str, Any], as_of: Any) -> Rule:
    """``rule`` with its predicate, ``appliesTo`` and ``severityWhen`` compiled for the settings in
    force and the audit's clock (``@settings/NAME``, ``@asOf``); ``rule`` itself when it reads
    neither. Compiled once per distinct value (the filter engine caches by canonical text)."""
    if not rule.parameters:
        return rule
    import dataclasses

    from auditor.expr.filter import compile_filter

    values = parameter_values(rule.parameters, settings, as_of)

    def bound(text: str | None) -> Predicate | None:
        return compile_filter(text, values) if text else None

    return dataclasses.replace(
        rule,
        predicate=bound(rule.predicate_text),
        applies_to=bound(rule.applies_to_text),
        severity_predicates=tuple(
            (compile_filter(text, values), severity) for text, severity in rule.severity_when
        ),
    )


def read_yaml(text: str, *, source: str = "<rule pack>") -> Any:
    """YAML through the tool's one loader (:mod:`auditor.audit._yaml`: libyaml when available,
    aliases bounded, no implicit dates); an InputError names the line and column."""
    return load_yaml(text, source=source, what="rule pack")


Path_ = tuple[str | int, ...]


@dataclass(frozen=True)
class Positions:
    """Where each node of a YAML document is: 1-based (line, column) by its path (mapping keys
    and sequence indexes), for the value and, for a mapping entry, for its key."""

    values: Mapping[Path_, tuple[int, int]]
    keys: Mapping[Path_, tuple[int, int]]

    def at(self, path: Path_) -> tuple[int, int]:
        """The position of ``path`` (its key when it is a mapping entry), or of its nearest
        ancestor present in the document; ``(0, 0)`` when nothing is."""
        path = tuple(path)
        while True:
            found = self.keys.get(path) or self.values.get(path)
            if found is not None or not path:
                return found or (0, 0)
            path = path[:-1]

    def line(self, path: Path_) -> int:
        return self.at(path)[0]


def yaml_positions(text: str) -> Positions:
    """The :class:`Positions` of a YAML document :func:`read_yaml` accepted."""
    import yaml

    from auditor.audit._yaml import _Loader

    loader = _Loader(text)
    try:
        root = loader.get_single_node()
    finally:
        loader.dispose()
    values: dict[Path_, tuple[int, int]] = {}
    keys: dict[Path_, tuple[int, int]] = {}
    stack: list[tuple[Path_, Any]] = [((), root)] if root is not None else []
    while stack:
        path, node = stack.pop()
        if path in values:
            continue
        values[path] = (node.start_mark.line + 1, node.start_mark.column + 1)
        if isinstance(node, yaml.SequenceNode):
            stack.extend(((*path, i), child) for i, child in enumerate(node.value))
        elif isinstance(node, yaml.MappingNode):
            for key, child in node.value:
                if isinstance(key, yaml.ScalarNode):
                    here = (*path, key.value)
                    keys.setdefault(here, (key.start_mark.line + 1, key.start_mark.column + 1))
                    stack.append((here, child))
    return Positions(values, keys)


def load_pack_file(path: Path, known_checks: Iterable[str] | None = None) -> list[Rule]:
    """Load and validate one pack file; raises InputError naming the file and the rule."""
    return _load_pack(path, known_checks)[0]


def _load_pack(
    path: Path,
    known_checks: Iterable[str] | None = None,
    *,
    user: bool = False,
    with_examples: bool = False,
) -> tuple[list[Rule], PackSpec]:
    """The rules of one pack file. Without ``with_examples`` the rules' ``examples:`` blocks are
    not read (:func:`without_examples`: an audit has no use for them); with it each rule carries
    its examples with their lines."""
    where = str(path)
    full = read_input_text(where, what="rule pack", limit=MAX_YAML_BYTES)
    text = full if with_examples else without_examples(full)
    document = read_yaml(text, source=where)
    lines = _id_lines(text)
    try:
        spec = PackSpec.model_validate(document)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        loc = _pack_location(document, err["loc"])
        line = yaml_positions(text).line(tuple(err["loc"]))
        raise InputError(
            f"invalid rule pack: {err['msg']}",
            source=where,
            location=f"line {line}, {loc}" if line else loc,
        ) from None
    if user:
        _check_resource_type(spec.resourceType, where, text)
    checks = set(known_checks) if known_checks is not None else None
    rules: list[Rule] = []
    positions: Any = None
    for index, r in enumerate(spec.rules):
        rule_line = lines.get(r.id, 0)
        if not rule_line:  # (not in block style: ask the YAML's own positions)
            positions = positions if positions is not None else yaml_positions(text)
            rule_line = positions.line(("rules", index)) or 1
        here = f"line {rule_line}, rules[{index}] ({r.id})"
        if (r.predicate is None) == (r.check is None):
            raise InputError(
                "a rule needs exactly one of predicate and check", source=where, location=here
            )
        if r.check is not None and user:
            raise InputError(
                "a rule of a user's pack states what a compliant resource is with predicate "
                f"(check {r.check!r} names code, which only the shipped packs may use)",
                source=where,
                location=here,
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
        predicate = (
            _compile(r.predicate, where, f"{here}: predicate", r.settings) if r.predicate else None
        )
        applies = (
            _compile(r.appliesTo, where, f"{here}: appliesTo", r.settings) if r.appliesTo else None
        )
        sev_preds = tuple(
            (_compile(s.when, where, f"{here}: severityWhen", r.settings), s.severity)
            for s in r.severityWhen
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
                parameters=tuple(
                    dict.fromkeys(
                        n
                        for text in (r.predicate, r.appliesTo, *(w.when for w in r.severityWhen))
                        if text
                        for n in filter_parameters(text)
                    )
                ),
                line=rule_line,
                user=user,
            )
        )
    if with_examples and any(r.examples for r in spec.rules):
        positions = yaml_positions(text)
        rules = [
            dataclasses.replace(
                rule,
                examples=tuple(
                    Example(
                        status,
                        i,
                        item,
                        positions.line(("rules", index, "examples", status, i)),
                    )
                    for status, items in r.examples.items()
                    for i, item in enumerate(items)
                ),
            )
            for index, (rule, r) in enumerate(zip(rules, spec.rules, strict=True))
        ]
    return rules, spec


def predicate_resource_types() -> tuple[str, ...]:
    """The ``resourceType`` values a predicate rule can judge (the kinds the engine iterates)."""
    from auditor.audit import resources

    return (*resources.RESOURCE_KINDS, *sorted(getattr(resources, "VIEW_TYPES", ())))


def _check_resource_type(resource_type: str, where: str, text: str) -> None:
    known = predicate_resource_types()
    if resource_type not in known:
        line = yaml_positions(text).line(("resourceType",))
        raise InputError(
            f"resourceType {resource_type!r} is not one a predicate rule can judge; expected one "
            f"of {', '.join(known)}",
            source=where,
            location=f"line {line}, resourceType",
        )


_ID_LINE = re.compile(
    r"""^[ \t]*(?:-[ \t]+)?id:[ \t]*["']?([A-Z]+-[0-9]{3})["']?[ \t]*(?:\#.*)?$""", re.M
)
_EXAMPLES_LINE = re.compile(r"^( +)examples:(?:[ \t].*)?\r?$")


def _id_lines(text: str) -> dict[str, int]:
    """The 1-based line of each rule id's ``id:`` (the first, for an id given twice)."""
    out: dict[str, int] = {}
    for m in _ID_LINE.finditer(text):
        out.setdefault(m.group(1), text.count("\n", 0, m.start()) + 1)
    return out


def without_examples(text: str) -> str:
    """``text`` with the rules' ``examples:`` blocks blanked (each line left empty, so the line
    numbers hold): the block-style key at the indentation of a rule's keys and the lines indented
    deeper that follow it. YAML puts every line of that value deeper than its key (a block
    scalar's content and a flow collection's continuation lines alike), so nothing else is cut;
    the packs parse twice as fast without their examples."""
    if "examples:" not in text:
        return text
    keys = {
        len(m.group(1))
        for m in re.finditer(r"^( +)(?:id|title|severity|runsOn|message):", text, re.M)
    }
    lines = text.split("\n")
    cut = -1
    for n, line in enumerate(lines):
        stripped = line.lstrip(" ")
        indent = len(line) - len(stripped)
        if cut >= 0:
            if not stripped or stripped.startswith("#") or indent > cut:
                lines[n] = ""
                continue
            cut = -1
        m = _EXAMPLES_LINE.match(line)
        if m is not None and len(m.group(1)) in keys:
            cut = len(m.group(1))
            lines[n] = ""
    return "\n".join(lines)


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


PACK_SUFFIXES = (".yaml", ".yml")


def pack_files(folder: str | os.PathLike[str]) -> list[Path]:
    """The pack files of a user's ``--rules`` folder (``*.yaml``, ``*.yml``; a single file is
    itself); an InputError when there is none."""
    root = Path(folder)
    if root.is_file():
        return [root]
    if not root.is_dir():
        raise InputError("no such folder of rule packs", source=str(folder))
    # (not only regular files: a pipe or a device named *.yaml is refused when read, not skipped)
    files = sorted(p for p in root.iterdir() if p.suffix in PACK_SUFFIXES and not p.is_dir())
    if not files:
        raise InputError("no rule packs (*.yaml) found", source=str(folder))
    return files


class _Builder:
    """A catalogue being assembled pack by pack: ids and setting names unique across packs."""

    def __init__(self, *, examples: bool = False) -> None:
        self.examples = examples
        self.rules: list[Rule] = []
        self.settings: dict[str, Setting] = {}
        self.seen: dict[str, Rule] = {}
        self.setting_of: dict[str, Rule] = {}

    def add(self, path: Path, known_checks: Iterable[str], *, user: bool) -> None:
        from auditor.audit.settings import coerce_setting

        pack_rules, pack = _load_pack(path, known_checks, user=user, with_examples=self.examples)
        for rule, spec in zip(pack_rules, pack.rules, strict=True):
            other = self.seen.get(rule.id)
            if other is not None:
                raise InputError(
                    f"rule id {rule.id} (line {rule.line}) is already defined in "
                    f"{other.source}, line {other.line}: every loaded rule needs its own id",
                    source=str(path),
                    location=f"line {rule.line}",
                )
            self.seen[rule.id] = rule
            for name, s in spec.settings.items():
                owner = self.setting_of.get(name)
                if owner is not None:
                    raise InputError(
                        f"setting {name!r} of {rule.id} is declared by {owner.id} too "
                        f"({owner.source}, line {owner.line}); setting names are shared by "
                        "every loaded pack",
                        source=str(path),
                        location=f"line {rule.line}",
                    )
                try:
                    default = coerce_setting(s.type, s.default)
                except ValueError as exc:
                    raise InputError(
                        f"default of setting {name!r}: {exc}",
                        source=str(path),
                        location=f"line {rule.line}, {rule.id}",
                    ) from None
                self.setting_of[name] = rule
                self.settings[name] = Setting(
                    name=name,
                    type=s.type,
                    default=default,
                    description=" ".join(s.description.split()),
                    rules=(rule.id,),
                )
            self.rules.append(rule)

    def extend(self, catalogue: Catalogue) -> None:
        """Start from the rules and settings of an assembled catalogue."""
        for rule in catalogue.rules:
            self.seen[rule.id] = rule
            self.rules.append(rule)
        for name, setting in catalogue.settings.items():
            self.settings[name] = setting
            self.setting_of[name] = self.seen[setting.rules[0]]

    def catalogue(self) -> Catalogue:
        return Catalogue(rules=tuple(self.rules), settings=self.settings)


def load_catalogue(
    folder: Path | None = None,
    user: Sequence[str | os.PathLike[str]] = (),
    *,
    shipped: bool = True,
    examples: bool = False,
) -> Catalogue:
    """Every pack of ``folder`` (default: the shipped ``rules/``; none with ``shipped=False``),
    then every pack of the user's folders ``user`` (``--rules DIR``: ``predicate`` rules only),
    validated as a whole: rule ids and setting names are unique across every loaded pack (a clash
    is an InputError naming both files and lines), every check is registered, setting defaults
    have their type. ``examples``: read the rules' examples too (``auditor rules test``)."""
    from auditor.audit.checks import CHECKS

    build = _Builder(examples=examples)
    if shipped and folder is None and user:
        build.extend(shipped_catalogue(examples=examples))  # parsed once per process
    elif shipped:
        root = folder if folder is not None else data_dir("rules")
        files = sorted(root.glob("*.yaml"))
        if not files:
            raise InputError("no rule packs (*.yaml) found", source=str(root))
        for path in files:
            build.add(path, CHECKS.keys(), user=False)
    for where in user:
        for path in pack_files(where):
            build.add(path, (), user=True)
    return build.catalogue()


def catalogue_with(
    user: Sequence[str | os.PathLike[str]] = (), *, examples: bool = False
) -> Catalogue:
    """The shipped catalogue plus the user's packs in ``user`` (the shipped one alone, loaded
    once per process, when there are none); ``examples``: with the rules' examples."""
    if not user:
        return shipped_catalogue(examples=examples)
    return load_catalogue(None, list(dict.fromkeys(os.fspath(u) for u in user)), examples=examples)


@cache
def shipped_catalogue(*, examples: bool = False) -> Catalogue:
    """The catalogue of the shipped packs (loaded once per process; with the rules' examples
    when ``examples``)."""
    return load_catalogue(examples=examples)
