"""Frameworks: mappings of the catalogue's rules to the controls of a benchmark, and the
"Compliance by control" view of a run.

A framework file (``rules/frameworks/NAME.yaml``; a user's pack folder may hold its own
``frameworks/NAME.yaml``) names the framework and lists its controls, each with the rules that
answer it (format: ``docs/frameworks.md``). This module loads and validates them
(:func:`load_frameworks`), selects the rules of ``--framework NAME`` (:func:`framework_rules`), and
computes the view every report shows (:func:`control_view`): per control, its rules, the counts of
their findings by status and the failing resources. Renderers only format
:attr:`AuditResult.controls <auditor.audit.findings.AuditResult.controls>`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from os import PathLike
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from auditor._resources import data_dir
from auditor.audit._yaml import read_yaml_file
from auditor.audit.findings import Finding, judged_findings, pass_counts
from auditor.errors import InputError

FRAMEWORKS_FOLDER = "frameworks"
"""The sub-folder of a rule-pack folder that holds its framework files."""
MAX_FAILING_RESOURCES = 20
"""Failing resources listed per control (the rest are counted)."""
STATUSES = ("fail", "unknown", "waived", "baselined", "pass")
"""The counts of a control, in the order reports show them."""
CONTROL_STATUSES = ("fail", "unknown", "waived", "pass", "no-resources", "not-run")
"""A control's status: ``fail`` (a finding of its rules fails), ``unknown`` (none fails, one could
not be judged), ``waived`` (none fails or is unknown, one is waived or baselined), ``pass`` (every
finding passes), ``no-resources`` (its rules ran and found nothing to judge), ``not-run`` (none of
its rules ran: the run's rules are not the control's, e.g. plan rules in an estate audit)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _text(value: Any) -> Any:
    if not isinstance(value, str):
        raise ValueError(f"expected a quoted string, found {value!r}")
    return value


class _FrameworkSpec(_Strict):
    id: str = Field(pattern=r"^[a-z][a-z0-9-]*$")
    name: str = Field(min_length=1)
    version: str = Field(min_length=1)
    url: str | None = None

    _texts = field_validator("version", mode="before")(_text)


class _ControlSpec(_Strict):
    id: str = Field(min_length=1)
    title: str = Field(min_length=1)
    url: str | None = None
    rules: list[str] = Field(min_length=1)

    _texts = field_validator("id", mode="before")(_text)


class _FileSpec(_Strict):
    framework: _FrameworkSpec
    controls: list[_ControlSpec] = Field(min_length=1)


@dataclass(frozen=True)
class Control:
    """A control of a framework and the rules that answer it."""

    id: str
    title: str
    rules: tuple[str, ...]
    url: str | None = None


@dataclass(frozen=True)
class Framework:
    """A framework (``mcsb``, ``cis``) with its controls, in file order."""

    id: str
    name: str
    version: str
    url: str | None
    controls: tuple[Control, ...]
    sources: tuple[str, ...] = ()

    def rule_ids(self) -> list[str]:
        """Every rule mapped to one of its controls, in control order, once."""
        return list(dict.fromkeys(r for c in self.controls for r in c.rules))

    def info(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "name": self.name, "version": self.version}
        if self.url:
            out["url"] = self.url
        return out

    def to_json(self) -> dict[str, Any]:
        out = self.info()
        out["controls"] = [
            {
                "id": c.id,
                "title": c.title,
                **({"url": c.url} if c.url else {}),
                "rules": list(c.rules),
            }
            for c in self.controls
        ]
        return out


def load_framework_file(path: Path, rule_ids: Iterable[str] | None = None) -> Framework:
    """One framework file, validated (every control has a title and rules; with ``rule_ids``,
    every rule it names exists); InputError naming the file and the control."""
    where = str(path)
    document = read_yaml_file(where, what="framework file")
    try:
        spec = _FileSpec.model_validate(document)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        raise InputError(
            f"invalid framework file: {err['msg']}",
            source=where,
            location=_location(document, err["loc"]),
        ) from None
    known = set(rule_ids) if rule_ids is not None else None
    seen: set[str] = set()
    controls: list[Control] = []
    for index, c in enumerate(spec.controls):
        here = f"controls[{index}] ({c.id})"
        if c.id in seen:
            raise InputError(f"control {c.id} is listed twice", source=where, location=here)
        seen.add(c.id)
        for j, rule in enumerate(c.rules):
            if known is not None and rule not in known:
                raise InputError(
                    f"no rule {rule!r} in the loaded catalogue (`auditor rules list` names them)",
                    source=where,
                    location=f"{here}.rules[{j}]",
                )
        controls.append(
            Control(
                id=c.id,
                title=" ".join(c.title.split()),
                rules=tuple(dict.fromkeys(c.rules)),
                url=c.url,
            )
        )
    f = spec.framework
    return Framework(f.id, f.name, f.version, f.url, tuple(controls), (where,))


def _location(document: Any, loc: tuple[int | str, ...]) -> str:
    out = ""
    node = document
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
            node = node[part] if isinstance(node, list) and 0 <= part < len(node) else None
            if isinstance(node, dict) and isinstance(node.get("id"), str | int | float):
                out += f" ({node['id']})"
        else:
            out += f".{part}" if out else part
            node = node.get(part) if isinstance(node, dict) else None
    return out or "(top level)"


def load_frameworks(
    folders: Sequence[str | PathLike[str]], rule_ids: Iterable[str] | None = None
) -> dict[str, Framework]:
    """The frameworks of every ``FOLDER/frameworks/*.yaml`` of ``folders`` (rule-pack folders: the
    shipped ``rules/`` first, then a user's ``--rules DIR``), by id. Files of one framework id are
    merged: a control a later file names again gets its rules added (a user pack maps its own rules
    to the shipped controls), a new control is appended; the framework's name and version are the
    first file's."""
    known = set(rule_ids) if rule_ids is not None else None
    out: dict[str, Framework] = {}
    for folder in folders:
        for path in sorted((Path(folder) / FRAMEWORKS_FOLDER).glob("*.yaml")):
            fw = load_framework_file(path, known)
            earlier = out.get(fw.id)
            out[fw.id] = fw if earlier is None else _merge(earlier, fw)
    return out


def _merge(a: Framework, b: Framework) -> Framework:
    controls = {c.id: c for c in a.controls}
    for c in b.controls:
        old = controls.get(c.id)
        if old is None:
            controls[c.id] = c
        else:
            rules = tuple(dict.fromkeys((*old.rules, *c.rules)))
            controls[c.id] = Control(old.id, old.title, rules, old.url or c.url)
    return Framework(
        a.id, a.name, a.version, a.url, tuple(controls.values()), (*a.sources, *b.sources)
    )


@cache
def shipped_frameworks() -> dict[str, Framework]:
    """The frameworks of the shipped ``rules/frameworks/`` (validated against the shipped
    catalogue; loaded once per process)."""
    from auditor.audit.packs import shipped_catalogue

    return load_frameworks([data_dir("rules")], shipped_catalogue().by_id())


def frameworks_for(
    rule_ids: Iterable[str], user_dirs: Sequence[str | PathLike[str]] = ()
) -> dict[str, Framework]:
    """The shipped frameworks plus those of the user's pack folders (``DIR/frameworks/*.yaml``),
    validated against ``rule_ids`` (the loaded catalogue: shipped and user rules)."""
    if not user_dirs:
        return shipped_frameworks()
    return load_frameworks([data_dir("rules"), *user_dirs], rule_ids)


def select_frameworks(
    frameworks: Mapping[str, Framework], names: Sequence[str], *, source: str = "--framework"
) -> list[Framework]:
    """The frameworks ``names`` ask for (ids, any case); an unknown one is an input error listing
    the known ones."""
    out: dict[str, Framework] = {}
    for name in names:
        key = name.strip().lower()
        if key not in frameworks:
            known = ", ".join(sorted(frameworks)) or "none"
            raise InputError(f"unknown framework {name.strip()!r}; known: {known}", source=source)
        out[key] = frameworks[key]
    return list(out.values())


def framework_rules(rules: Sequence[Any], frameworks: Sequence[Framework]) -> list[Any]:
    """The ``rules`` (catalogue order) mapped to a control of one of ``frameworks``."""
    wanted = {r for fw in frameworks for r in fw.rule_ids()}
    return [r for r in rules if r.id in wanted]


@dataclass(frozen=True)
class ControlResult:
    """One control in the "Compliance by control" view."""

    framework: str
    frameworkName: str
    frameworkVersion: str
    id: str
    title: str
    url: str | None
    rules: tuple[str, ...]
    """Every rule mapped to the control."""
    rulesRun: tuple[str, ...]
    """The mapped rules this run ran (the counts are theirs)."""
    counts: dict[str, int]
    """Findings of the run's mapped rules by status (``fail`` includes failing findings counted
    but not listed under ``--max-findings-per-rule``)."""
    status: str
    failingResources: tuple[str, ...]
    """The first :data:`MAX_FAILING_RESOURCES` resources with a failing finding (most severe
    first)."""
    failingResourcesTotal: int
    """Resources with a listed failing finding, in all."""

    @property
    def key(self) -> str:
        """``mcsb:PA-1``: the tag SARIF and JUnit use."""
        return f"{self.framework}:{self.id}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "framework": self.framework,
            "frameworkName": self.frameworkName,
            "frameworkVersion": self.frameworkVersion,
            "id": self.id,
            "title": self.title,
            "rules": list(self.rules),
            "rulesRun": list(self.rulesRun),
            "status": self.status,
            "counts": dict(self.counts),
            "failingResources": list(self.failingResources),
            "failingResourcesTotal": self.failingResourcesTotal,
        }
        if self.url:
            out["url"] = self.url
        return out


def _status(counts: Mapping[str, int], ran: bool) -> str:
    if not ran:
        return "not-run"
    for status in ("fail", "unknown"):
        if counts[status]:
            return status
    if counts["waived"] or counts["baselined"]:
        return "waived"
    return "pass" if counts["pass"] else "no-resources"


def control_view(
    findings: Sequence[Finding],
    frameworks: Sequence[Framework],
    rules_run: Iterable[str],
    *,
    unlisted: Mapping[str, Mapping[str, int]] | None = None,
    max_resources: int = MAX_FAILING_RESOURCES,
) -> list[ControlResult]:
    """The "Compliance by control" view of a run: for every control of ``frameworks``, its
    rules, the counts of their findings by status, and the failing resources.

    ``findings`` are the run's findings in report order (failing first, most severe first),
    ``rules_run`` the ids of the rules the run evaluated, ``unlisted`` the failing findings counted
    but not listed (rule id -> severity -> count). Passes are counted without being made
    (:func:`~auditor.audit.findings.pass_counts`: a large estate has millions); only the other
    findings are looked at one by one."""
    ran = set(rules_run)
    mapped = {r for fw in frameworks for r in fw.rule_ids()}
    counts: dict[str, Counter[str]] = {r: Counter() for r in mapped}
    failing: dict[str, dict[str, None]] = {r: {} for r in mapped}
    for f in judged_findings(findings):
        per_rule = counts.get(f.ruleId)
        if per_rule is None:
            continue
        status = f.status
        per_rule[status] += 1
        if status == "fail":
            failing[f.ruleId].setdefault(f.resourceId, None)
    for (rule_id, _type), n in pass_counts(findings).items():
        if rule_id in counts:
            counts[rule_id]["pass"] += n
    for rule_id, by_severity in (unlisted or {}).items():
        if rule_id in counts:
            counts[rule_id]["fail"] += sum(by_severity.values())
    out: list[ControlResult] = []
    for fw in frameworks:
        for control in fw.controls:
            run = tuple(r for r in control.rules if r in ran)
            total = {s: sum(counts[r][s] for r in run) for s in STATUSES}
            resources: dict[str, None] = {}
            for r in run:
                resources.update(failing[r])
            out.append(
                ControlResult(
                    framework=fw.id,
                    frameworkName=fw.name,
                    frameworkVersion=fw.version,
                    id=control.id,
                    title=control.title,
                    url=control.url,
                    rules=control.rules,
                    rulesRun=run,
                    counts=total,
                    status=_status(total, bool(run)),
                    failingResources=tuple(list(resources)[:max_resources]),
                    failingResourcesTotal=len(resources),
                )
            )
    return out


def frameworks_in_view(
    frameworks: Mapping[str, Framework], rules_run: Iterable[str]
) -> list[Framework]:
    """With no ``--framework``: every framework that maps at least one rule the run ran."""
    ran = set(rules_run)
    return [fw for fw in frameworks.values() if any(r in ran for r in fw.rule_ids())]
