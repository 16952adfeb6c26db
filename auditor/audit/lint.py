"""``auditor rules lint``: every problem of a rule pack, each with its file and 1-based line.

Loading a pack stops at its first problem (:mod:`auditor.audit.packs`); the lint reads on and lists
them all: YAML that does not parse, unknown, missing and wrong-typed fields (from the pack model's
validation), a predicate (``appliesTo``, ``severityWhen``) that does not parse (with the column
inside the predicate) or reads a setting the rule does not declare, a message placeholder the rule
does not define, a setting without a default or whose default does not have its type, a clashing
rule id or setting name, a ``check`` in a user's pack, and an example of the wrong shape or a rule
without a failing and a passing example.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from auditor.audit.packs import (
    RULE_ID,
    SETTING_NAME,
    PackSpec,
    Positions,
    RuleSpec,
    member_paths,
    read_yaml,
    template_fields,
    yaml_positions,
)
from auditor.errors import InputError

TEMPLATE_VARIABLES = frozenset({"resourceName", "resourceId"})
"""Placeholders every message may use."""

RESOURCE_FIELDS: Mapping[str, frozenset[str]] = {
    "Cloud.EventRouting/domains": frozenset(
        {"id", "name", "type", "location", "tags", "identity", "properties", "systemData", "sku"}
    ),
    "Cloud.AnalyticsCluster/clusters": frozenset(
        {"id", "name", "type", "location", "tags", "identity", "properties", "systemData", "zones"}
    ),
    "Cloud.ResourceHealth/events": frozenset({"id", "name", "type", "properties", "systemData"}),
    "DevTooling/apiTokens": frozenset(
        {"id", "kind", "app", "accessType", "description", "createdAt"}
    ),
}
"""The top-level fields of the resources a predicate rule of each type sees (a placeholder naming
a path under one of them is a resource field). Other types are not checked."""

_LOCATION = re.compile(r"line (\d+)(?:, column (\d+))?")


@dataclass(frozen=True)
class Problem:
    """One problem of a pack: where (file, 1-based line and column), which rule, and what."""

    file: str
    line: int
    column: int
    rule: str | None
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}:{self.column}" if self.line else self.file
        return f"{where}: {self.rule + ': ' if self.rule else ''}{self.message}"

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "rule": self.rule,
            "message": self.message,
        }


@dataclass
class _Seen:
    """Rule ids and setting names of the packs linted so far (and of the shipped ones)."""

    ids: dict[str, tuple[str, int]]
    settings: dict[str, tuple[str, str, int]]


def lint_packs(
    files: Sequence[Path],
    *,
    user: bool = True,
    known: Iterable[Any] = (),
) -> list[Problem]:
    """Every problem of the pack ``files``. ``user``: they are a user's packs (``predicate``
    only); ``known``: rules already loaded (the shipped catalogue) whose ids and setting names
    the files must not reuse."""
    from auditor.audit.checks import CHECKS

    seen = _Seen({}, {})
    for rule in known:
        seen.ids[rule.id] = (rule.source, rule.line)
        for name in rule.settings:
            seen.settings[name] = (rule.id, rule.source, rule.line)
    problems: list[Problem] = []
    for path in files:
        problems.extend(_lint_file(path, user=user, checks=set(CHECKS), seen=seen))
    return problems


def _lint_file(path: Path, *, user: bool, checks: set[str], seen: _Seen) -> list[Problem]:
    from auditor.audit._yaml import MAX_BYTES
    from auditor.estate import read_input_text

    where = str(path)
    try:
        text = read_input_text(where, what="rule pack", limit=MAX_BYTES)
        document = read_yaml(text, source=where)
    except InputError as exc:
        m = _LOCATION.search(exc.location or "")
        line, column = (int(m.group(1)), int(m.group(2) or 1)) if m else (0, 0)
        return [Problem(where, line, column, None, exc.detail)]
    positions = yaml_positions(text)
    out = _File(where, positions, document, text)
    if not isinstance(document, dict):
        out.add((), None, "a rule pack is a mapping (version, pack, resourceType, rules)")
        return out.problems
    try:
        PackSpec.model_validate(document)
    except ValidationError as exc:
        for err in exc.errors(include_url=False):
            out.validation(err)
    rules = document.get("rules")
    resource_type = document.get("resourceType")
    if user and isinstance(resource_type, str):
        from auditor.audit.packs import predicate_resource_types

        known = predicate_resource_types()
        if resource_type not in known:
            out.add(
                ("resourceType",),
                None,
                f"resourceType {resource_type!r} is not one a predicate rule can judge; expected "
                f"one of {', '.join(known)}",
            )
    for index, rule in enumerate(rules if isinstance(rules, list) else []):
        if isinstance(rule, dict):
            _lint_rule(out, index, rule, resource_type, user=user, checks=checks, seen=seen)
    return sorted(out.problems, key=lambda p: (p.line, p.column))


class _File:
    """The problems of one file, placed by the paths of their nodes."""

    def __init__(self, file: str, positions: Positions, document: Any, text: str = "") -> None:
        self.file = file
        self.positions = positions
        self.document = document
        self.lines = text.split("\n")
        self.problems: list[Problem] = []

    def rule_id(self, path: Sequence[str | int]) -> str | None:
        if len(path) >= 2 and path[0] == "rules" and isinstance(path[1], int):
            rules = self.document.get("rules") if isinstance(self.document, dict) else None
            if isinstance(rules, list) and 0 <= path[1] < len(rules):
                rule = rules[path[1]]
                if isinstance(rule, dict) and isinstance(rule.get("id"), str):
                    return str(rule["id"])
        return None

    def add(
        self,
        path: Sequence[str | int],
        rule: str | None,
        message: str,
        *,
        at: tuple[int, int] | None = None,
    ) -> None:
        line, col = at or self.positions.at(tuple(path))
        self.problems.append(Problem(self.file, line, col, rule, message))

    def scalar_point(self, path: Sequence[str | int], index: int) -> tuple[int, int] | None:
        """Where in the file character ``index`` (0-based) of the scalar at ``path`` is, counted
        in its text with each run of whitespace read as one space (as predicates are read): for a
        plain or quoted scalar on one line, or a block scalar (``|``, ``>``); None otherwise."""
        start = self.positions.values.get(tuple(path))
        if start is None or not 0 < start[0] <= len(self.lines):
            return None
        line_no, col = start
        first = self.lines[line_no - 1]
        rest = first[col - 1 :]
        segments: list[tuple[int, int, str]] = []
        if rest[:1] in ("|", ">"):
            indent = len(first) - len(first.lstrip(" "))
            for n in range(line_no, len(self.lines)):
                raw = self.lines[n]
                if raw.strip() and len(raw) - len(raw.lstrip(" ")) <= indent:
                    break
                segments.append((n + 1, 1, raw))
        elif rest[:1] in ("'", '"'):
            end = rest.find(rest[0], 1)
            if end < 0:
                return None
            segments.append((line_no, col + 1, rest[1:end]))
        else:
            segments.append((line_no, col, rest.split(" #", 1)[0]))
        words = [
            (ln, c0 + m.start(), m.group())
            for ln, c0, seg in segments
            for m in re.finditer(r"\S+", seg)
        ]
        pos = 0
        for ln, c, word in words:
            if index < pos + len(word):
                return ln, c + max(0, index - pos)
            pos += len(word) + 1
        return (words[-1][0], words[-1][1] + len(words[-1][2])) if words else None

    def validation(self, err: Any) -> None:
        loc = tuple(err["loc"])
        kind = err["type"]
        name = loc[-1] if loc else ""
        if kind == "extra_forbidden":
            message = f"unknown field {name!r}{_known_fields(loc)}"
        elif kind == "missing":
            message = f"missing field {name!r}"
        else:
            shown = ".".join(str(p) for p in loc if not isinstance(p, int)) or "(top level)"
            message = f"{shown}: {err['msg']}"
        self.add(loc, self.rule_id(loc), message)


def _known_fields(loc: tuple[Any, ...]) -> str:
    """``; known: ...`` for an unknown field of the pack or of a rule."""
    if len(loc) == 1:
        names = list(PackSpec.model_fields)
    elif len(loc) == 3 and loc[0] == "rules":
        names = list(RuleSpec.model_fields)
    else:
        return ""
    return f" (known: {', '.join(names)})"


def _lint_rule(
    out: _File,
    index: int,
    rule: dict[str, Any],
    resource_type: Any,
    *,
    user: bool,
    checks: set[str],
    seen: _Seen,
) -> None:
    here: tuple[str | int, ...] = ("rules", index)
    rid = rule.get("id") if isinstance(rule.get("id"), str) else None
    line = out.positions.line(here)
    if rid is not None and RULE_ID.match(rid):
        other = seen.ids.get(rid)
        if other is not None:
            out.add(
                (*here, "id"),
                rid,
                f"rule id {rid} is already defined in {other[0]}, line {other[1]}",
            )
        else:
            seen.ids[rid] = (out.file, line)
    predicate, check = rule.get("predicate"), rule.get("check")
    if check is not None and user:
        out.add(
            (*here, "check"),
            rid,
            "a user's pack states what a compliant resource is with predicate; check (code) is "
            "for the shipped packs only",
        )
    elif isinstance(check, str) and check not in checks:
        out.add((*here, "check"), rid, f"check {check!r} is not a registered check")
    if (predicate is None) == (check is None) and not (user and check is not None):
        out.add(here, rid, "a rule needs exactly one of predicate and check")
    settings: dict[str, Any] = _mapping(rule.get("settings"))
    _lint_settings(out, here, rid, settings, seen)
    reads: list[str] = []
    texts: list[tuple[tuple[str | int, ...], Any]] = [
        ((*here, "predicate"), predicate),
        ((*here, "appliesTo"), rule.get("appliesTo")),
    ]
    when = rule.get("severityWhen")
    for i, item in enumerate(when if isinstance(when, list) else []):
        if isinstance(item, dict):
            texts.append(((*here, "severityWhen", i, "when"), item.get("when")))
    for path, text in texts:
        if isinstance(text, str):
            reads.extend(_lint_filter(out, path, rid, text, settings))
    enabled = rule.get("enabledBy")
    if isinstance(enabled, str) and enabled not in settings:
        out.add(
            (*here, "enabledBy"), rid, f"enabledBy names {enabled!r}, not a setting of the rule"
        )
    evidence: list[Any] = _list(rule.get("evidence"))
    fields = RESOURCE_FIELDS.get(str(resource_type)) if predicate is not None else None
    for key in ("message", "passMessage", "remediation"):
        template = rule.get(key)
        if not isinstance(template, str):
            continue
        for name in template_fields(template):
            problem = _placeholder_problem(name.strip(), settings, evidence, reads, fields)
            if problem:
                out.add((*here, key), rid, f"{key} uses {{{name}}}: {problem}")
    _lint_examples(out, here, rid, rule, resource_type, settings)


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _lint_settings(
    out: _File, here: tuple[str | int, ...], rid: str | None, settings: dict[str, Any], seen: _Seen
) -> None:
    from auditor.audit.settings import coerce_setting

    for name, spec in settings.items():
        path = (*here, "settings", name)
        if not SETTING_NAME.match(str(name)):
            out.add(path, rid, f"setting name {name!r} is not camelCase")
        other = seen.settings.get(str(name))
        if other is not None and other[0] != rid:
            out.add(
                path,
                rid,
                f"setting {name!r} is declared by {other[0]} too ({other[1]}, line {other[2]}); "
                "setting names are shared by every loaded pack",
            )
        elif rid is not None:
            seen.settings[str(name)] = (rid, out.file, out.positions.line(path))
        if not isinstance(spec, dict):
            continue
        if "default" not in spec:
            out.add(path, rid, f"setting {name!r} has no default")
        elif isinstance(spec.get("type"), str):
            try:
                coerce_setting(spec["type"], spec["default"])
            except ValueError as exc:
                out.add((*path, "default"), rid, f"default of setting {name!r}: {exc}")


def _lint_filter(
    out: _File, path: tuple[str | int, ...], rid: str | None, text: str, settings: Mapping[str, Any]
) -> list[str]:
    """Problems of one filter; the member paths it reads."""
    from auditor.expr.filter import parse_filter

    what = "severityWhen condition" if path[-1] == "when" else str(path[-1])
    try:
        parse_filter(" ".join(text.split()))
    except InputError as exc:
        column = getattr(exc, "column", None)
        where = f" at column {column} of the {what}" if isinstance(column, int) else ""
        problem = getattr(exc, "problem", None) or exc.detail.splitlines()[0]
        point = out.scalar_point(path, column - 1) if isinstance(column, int) else None
        out.add(path, rid, f"the {what} does not parse{where}: {problem}", at=point)
        return []
    try:
        from auditor.audit.packs import filter_parameters

        for name in filter_parameters(text):
            if name.startswith("settings/") and name[9:] not in settings:
                out.add(path, rid, f"the {what} reads @{name}, not a setting of the rule")
    except (ImportError, InputError):
        pass
    try:
        return list(member_paths(text))
    except InputError:
        return []


def _placeholder_problem(
    name: str,
    settings: Mapping[str, Any],
    evidence: Sequence[Any],
    reads: Sequence[str],
    fields: frozenset[str] | None,
) -> str | None:
    if name in TEMPLATE_VARIABLES:
        return None
    if name.startswith("settings."):
        if name[9:] in settings:
            return None
        return f"the rule declares no setting {name[9:]!r}"
    if fields is None:  # a check's fields, or a resource type whose fields are not known
        return None
    if name in evidence or name in reads:
        return None
    if name.split("/", 1)[0] in fields:
        return None
    return (
        "neither a field of the resource, nor evidence, nor settings.NAME of the rule's settings, "
        f"nor one of {', '.join(sorted(TEMPLATE_VARIABLES))}"
    )


def _lint_examples(
    out: _File,
    here: tuple[str | int, ...],
    rid: str | None,
    rule: dict[str, Any],
    resource_type: Any,
    settings: Mapping[str, Any],
) -> None:
    from auditor.audit.examples import shape_problem

    examples = rule.get("examples")
    if examples is None:
        out.add(here, rid, "no examples: give at least one failing and one passing example")
        return
    if not isinstance(examples, dict):
        return  # the model's validation says so
    runs_on = [str(x) for x in _list(rule.get("runsOn"))]
    names = [*settings, *([rule["enabledBy"]] if isinstance(rule.get("enabledBy"), str) else [])]
    for status in ("fail", "pass"):
        if not examples.get(status):
            out.add((*here, "examples"), rid, f"no {status} example: give at least one")
    for status, items in examples.items():
        for i, item in enumerate(items if isinstance(items, list) else []):
            problem = shape_problem(
                item, runs_on=runs_on, resource_type=str(resource_type), settings=names
            )
            if problem:
                out.add((*here, "examples", status, i), rid, f"examples.{status}[{i}]: {problem}")


__all__ = ["Problem", "lint_packs"]
