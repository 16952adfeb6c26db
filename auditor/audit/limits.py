"""Bounds on what one finding and one rule may put in the outputs, whatever the estate holds.

- **Per finding** (:func:`bound_evidence`, :func:`bound_text`): a list or object in the evidence
  keeps its first :data:`MAX_ITEMS` entries; a string keeps its first :data:`MAX_CHARS` characters;
  one finding's evidence holds at most :data:`MAX_EVIDENCE_VALUES` values and
  :data:`MAX_EVIDENCE_CHARS` characters of strings in all (what comes after is cut). What was cut
  is said in the evidence itself, under ``"truncated"``: ``{"items": {path: entries left out},
  "characters": {path: characters left out}}``, with the JSON path inside the evidence. A message
  or remediation longer than :data:`MAX_CHARS` ends with ``… (N more characters)``.
- **Per rule** (:func:`cap_failures`), when a cap is asked for (``--max-findings-per-rule N``;
  none by default): at most N failing findings of one
  rule are listed (the most severe first, then by resource); the others are counted, not listed.
  The summary's counts and the gate's verdict include them, and a warning names the rule and how
  many were not listed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, overload

from auditor.audit.findings import Finding, Findings
from auditor.model.secrets import MASK

MAX_ITEMS = 50
"""Entries kept of one list or object in a finding's evidence."""
MAX_CHARS = 2_000
"""Characters kept of one string of a finding (evidence value, message, remediation)."""
MAX_EVIDENCE_VALUES = 1_000
"""Values (strings, numbers, entries of lists and objects) in one finding's evidence, in all."""
MAX_EVIDENCE_CHARS = 20_000
"""Characters of strings in one finding's evidence, in all."""
MAX_FAILURES_PER_RULE = 0
"""Failing findings of one rule listed in the outputs by default: 0 lists all, so every output
format counts the same failing findings (``--max-findings-per-rule N`` opts in to a cap)."""
TRUNCATED = "truncated"
"""The evidence key that says what was cut."""
ELLIPSIS = "…"


def bound_text(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` cut to :data:`MAX_CHARS` characters, with a marker saying how many went. Known
    ``secrets`` are masked before cutting (a cut could leave a secret's prefix unrecognisable)."""
    if len(text) <= MAX_CHARS:
        return text
    text = _mask(text, secrets)
    if len(text) <= MAX_CHARS:
        return text
    return f"{text[:MAX_CHARS]}{ELLIPSIS} ({len(text) - MAX_CHARS:,} more characters)"


def _mask(text: str, secrets: Iterable[str]) -> str:
    for secret in sorted(secrets, key=len, reverse=True):
        if secret and secret in text:
            text = text.replace(secret, MASK)
    return text


def bound_evidence(
    evidence: dict[str, Any],
    secrets: Iterable[str] = (),
    sizes: dict[int, tuple[Any, int, int, bool]] | None = None,
) -> dict[str, Any]:
    """``evidence`` within the bounds of the module doc (the same object when nothing is cut).

    ``sizes``: what :func:`_within` found of each list or object value met before, by ``id``
    (with the value, which it keeps alive): for evidence whose values are shared by many findings
    and never changed (the access rows' facets), each is walked once."""
    if len(evidence) <= 16:
        # the common case, a few scalars and short strings, told by a loop with no call per value
        # (tens of thousands of failing findings)
        for value in evidence.values():
            t = type(value)
            if t is str:
                if len(value) > 200:
                    break
            elif t is list or t is dict or t is tuple:
                break
        else:
            return evidence
    if _within(evidence) if sizes is None else _within_shared(evidence, sizes):
        return evidence  # nothing to cut: the cutter would give it back
    cutter = _Cutter(secrets)
    out: dict[str, Any] = cutter.value(evidence, "")
    if not cutter.items and not cutter.chars:
        return out if cutter.masked else evidence
    earlier = evidence.get(TRUNCATED)  # what a check cut itself (it knew the full counts)
    truncated: dict[str, dict[str, int]] = {}
    for kind, found in (("items", cutter.items), ("characters", cutter.chars)):
        merged = dict(earlier.get(kind) or {}) if isinstance(earlier, dict) else {}
        merged.update((k, v) for k, v in found.items() if not k.startswith(f"{TRUNCATED}."))
        if merged:
            truncated[kind] = merged
    out[TRUNCATED] = truncated
    return out


def _within(evidence: dict[str, Any]) -> bool:
    """Whether ``evidence`` is within every bound with room to spare, so :class:`_Cutter` would
    cut and mask nothing (fewer values and characters in all than the limits, no container over
    :data:`MAX_ITEMS`, no string over :data:`MAX_CHARS`). False when unsure."""
    return _measure(evidence)[2]


_CONTAINERS = (str, dict, list, tuple)


def _within_shared(evidence: dict[str, Any], sizes: dict[int, tuple[Any, int, int, bool]]) -> bool:
    """:func:`_within` of ``evidence``, its list and object values measured once each (see
    :func:`bound_evidence`): the sums of values and characters of each are added up, and
    compared with the bounds once at the end (the sums only grow, so the answer is the one a
    comparison after each value gives)."""
    if type(evidence) is not dict or len(evidence) > MAX_ITEMS:
        return _within(evidence)
    values, chars = 1, 0
    for value in evidence.values():
        t = type(value)
        if t is str:
            if len(value) > MAX_CHARS:
                return False
            values += 1
            chars += len(value)
        elif t is dict or t is list or t is tuple:
            found = sizes.get(id(value))
            if found is None or found[0] is not value:
                found = sizes[id(value)] = (value, *_measure(value))
            if not found[3]:
                return False
            values += found[1]
            chars += found[2]
        elif isinstance(value, _CONTAINERS):
            return False  # a subclass: the cutter decides
        else:
            values += 1
    return values < MAX_EVIDENCE_VALUES and chars < MAX_EVIDENCE_CHARS


def _measure(value: Any) -> tuple[int, int, bool]:
    """The values and characters ``value`` holds (counted until a bound is passed), and whether
    it is within every bound (see :func:`_within`; a subclass of ``str``, ``dict``, ``list`` or
    ``tuple`` counts as not within: the cutter decides)."""
    values = chars = 0
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        values += 1
        if values >= MAX_EVIDENCE_VALUES:
            return values, chars, False
        t = type(item)
        if t is str:
            chars += len(item)
            if len(item) > MAX_CHARS or chars >= MAX_EVIDENCE_CHARS:
                return values, chars, False
        elif t is dict or t is list or t is tuple:
            if len(item) > MAX_ITEMS:
                return values, chars, False
            stack.extend(item.values() if t is dict else item)
        elif isinstance(item, str | dict | list | tuple):
            return values, chars, False
    return values, chars, True


class _Cutter:
    def __init__(self, secrets: Iterable[str]) -> None:
        self.secrets = secrets
        self.values = MAX_EVIDENCE_VALUES
        self.budget = MAX_EVIDENCE_CHARS
        self.items: dict[str, int] = {}
        self.chars: dict[str, int] = {}
        self.masked = False

    def exhausted(self) -> bool:
        return self.values <= 0 or self.budget <= 0

    @staticmethod
    def cut(where: dict[str, int], path: str, n: int) -> None:
        """Record ``n`` left out at ``path``; past :data:`MAX_ITEMS` paths, under ``"…"``."""
        if len(where) < MAX_ITEMS:
            where[path or "."] = n
        else:
            where[ELLIPSIS] = where.get(ELLIPSIS, 0) + n

    def value(self, value: Any, path: str) -> Any:
        self.values -= 1
        if isinstance(value, str):
            return self.text(value, path)
        if isinstance(value, dict):
            return self.mapping(value, path)
        if isinstance(value, list | tuple):
            return self.sequence(value, path)
        return value

    def text(self, value: str, path: str) -> str:
        limit = min(MAX_CHARS, max(self.budget, 0))
        if len(value) > limit:
            masked = _mask(value, self.secrets)
            self.masked |= masked != value
            value = masked
        if len(value) > limit:
            self.cut(self.chars, path, len(value) - limit)
            value = value[:limit] + ELLIPSIS
        self.budget -= len(value)
        return value

    def mapping(self, value: dict[Any, Any], path: str) -> dict[Any, Any]:
        out: dict[Any, Any] = {}
        keys = list(value)
        for n, key in enumerate(keys):
            if n >= MAX_ITEMS or self.exhausted():
                self.cut(self.items, path, len(keys) - n)
                break
            out[key] = self.value(value[key], f"{path}.{key}" if path else str(key))
        return out

    def sequence(self, value: Sequence[Any], path: str) -> list[Any]:
        out: list[Any] = []
        for n, item in enumerate(value):
            if n >= MAX_ITEMS or self.exhausted():
                self.cut(self.items, path, len(value) - n)
                break
            out.append(self.value(item, f"{path}[{n}]"))
        return out


@overload
def cap_failures(
    findings: Findings, limit: int | None = MAX_FAILURES_PER_RULE
) -> tuple[Findings, dict[str, dict[str, int]]]: ...


@overload
def cap_failures(
    findings: list[Finding], limit: int | None = MAX_FAILURES_PER_RULE
) -> tuple[list[Finding], dict[str, dict[str, int]]]: ...


def cap_failures(
    findings: list[Finding] | Findings, limit: int | None = MAX_FAILURES_PER_RULE
) -> tuple[list[Finding] | Findings, dict[str, dict[str, int]]]:
    """``findings`` with at most ``limit`` failing findings per rule, and the ones left out
    counted by rule and severity (see :func:`_cap`; the passes of :class:`Findings` are not
    read)."""
    if isinstance(findings, Findings):
        kept, unlisted = _cap(findings.listed, limit)
        return findings.with_listed(kept), unlisted
    return _cap(findings, limit)


def _cap(
    findings: list[Finding], limit: int | None
) -> tuple[list[Finding], dict[str, dict[str, int]]]:
    """``findings`` with at most ``limit`` failing findings per rule, and the ones left out
    counted by rule and severity. ``findings`` are sorted failures first (as
    :func:`~auditor.audit.runner.sort_findings` does), so only that prefix is read; the first
    failures of each rule are kept."""
    if not limit:
        return findings, {}
    end = 0
    counts: dict[str, int] = {}
    for f in findings:
        if f.status != "fail":
            break
        end += 1
        counts[f.ruleId] = counts.get(f.ruleId, 0) + 1
    if all(n <= limit for n in counts.values()):
        return findings, {}
    seen: dict[str, int] = {}
    kept: list[Finding] = []
    unlisted: dict[str, dict[str, int]] = {}
    for f in findings[:end]:
        n = seen[f.ruleId] = seen.get(f.ruleId, 0) + 1
        if n > limit:
            by_severity = unlisted.setdefault(f.ruleId, {})
            by_severity[f.severity] = by_severity.get(f.severity, 0) + 1
        else:
            kept.append(f)
    kept.extend(findings[end:])
    return kept, unlisted


def unlisted_warnings(unlisted: dict[str, dict[str, int]], limit: int) -> list[str]:
    """One warning per rule whose failing findings were not all listed."""
    return [
        f"{rule}: {sum(by.values()):,} more failing finding(s) not listed (at most {limit:,} per "
        "rule are listed; the summary counts them all; --max-findings-per-rule 0 lists every one)"
        for rule, by in sorted(unlisted.items())
    ]
