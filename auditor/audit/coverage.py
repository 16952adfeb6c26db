"""Coverage: what an estate run read, and which rules lacked an input they need (contracts
section 6 ``coverage``).

A rule declares its inputs in its pack (``requires:``, :data:`~auditor.audit.packs.REQUIREMENTS`).
Against a snapshot:

- a required **section** the snapshot does not list (its key is absent: "not collected"; an empty
  list given is "none" and counts as listed, :meth:`~auditor.estate.snapshot.Snapshot.has_section`)
  means the rule cannot be judged: it is not run, and reports one ``unknown`` finding for the estate
  naming what was missing (never a silent pass: without a directory, every guest and disabled account
  would look absent);
- **assignedRoles** missing (an assignment names a role whose definition is neither built in nor in
  ``roleDefinitions``) means the rule is judged for what it can see and reports one ``unknown``
  finding naming the role definitions it could not see.

Each such rule is listed in ``coverage.incompleteRules``; ``--require-complete`` makes that exit 3.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from auditor.audit.findings import IncompleteRule
from auditor.audit.packs import REQUIREMENTS

if TYPE_CHECKING:
    from auditor.audit.packs import Rule
    from auditor.estate.plan import Plan
    from auditor.estate.snapshot import Snapshot

ESTATE_RESOURCE = "/"
"""The resource id of an estate-level ``unknown`` finding (the root of every scope)."""
MAX_NAMED = 20
"""Role definitions named in a finding's evidence (the rest are counted)."""


@dataclass(frozen=True)
class Gap:
    """What one rule lacks: ``skip`` when it cannot run at all."""

    rule_id: str
    missing: tuple[str, ...]
    reason: str
    evidence: dict[str, Any]
    skip: bool

    def incomplete(self) -> IncompleteRule:
        return IncompleteRule(self.rule_id, self.reason)


class EstateCoverage:
    """The inputs of one snapshot, judged against the rules' ``requires``."""

    def __init__(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot
        self._unknown_roles: list[str] | None = None

    def unknown_roles(self) -> list[str]:
        """Role definition ids that assignments name and no definition describes (sorted)."""
        if self._unknown_roles is None:
            from auditor.estate.roles import role_catalogue, role_guid

            named = {ra.properties.roleDefinitionId for ra in self.snapshot.roleAssignments}
            known = role_catalogue(self.snapshot.roleDefinitions)
            self._unknown_roles = sorted(r for r in named if r and role_guid(r) not in known)
        return self._unknown_roles

    def gap(self, rule: Rule) -> Gap | None:
        """What ``rule`` lacks in this snapshot, or None when it has every input it needs."""
        if not rule.requires:
            return None
        absent = [
            name
            for name in rule.requires
            if name != "assignedRoles" and not self.snapshot.has_section(name)
        ]
        if absent:
            words = ", ".join(f"{REQUIREMENTS[n]} ({n})" for n in absent)
            return Gap(
                rule.id,
                tuple(absent),
                f"the snapshot does not list {words}: not collected",
                {"missing": absent, "present": sorted(self.present())},
                skip=True,
            )
        if "assignedRoles" in rule.requires:
            roles = self.unknown_roles()
            if roles:
                shown = roles[:MAX_NAMED]
                evidence: dict[str, Any] = {
                    "missing": ["assignedRoles"],
                    "missingRoleDefinitions": shown,
                }
                if len(roles) > len(shown):
                    evidence["moreMissingRoleDefinitions"] = len(roles) - len(shown)
                return Gap(
                    rule.id,
                    ("assignedRoles",),
                    f"the definitions of {len(roles)} assigned role(s) are neither built in nor "
                    "in the snapshot's roleDefinitions, so what they grant is not known",
                    evidence,
                    skip=False,
                )
        return None

    def present(self) -> list[str]:
        from auditor.estate.snapshot import SECTION_ORDER

        return [name for name in SECTION_ORDER if self.snapshot.has_section(name)]

    def inputs(self, target: str | None = None) -> list[dict[str, Any]]:
        """The snapshot as a coverage input: its file, the sections present with their counts,
        and the sections absent."""
        from auditor.estate.snapshot import SECTION_ORDER

        counts = self.snapshot.counts()
        present = self.present()
        sections: dict[str, int] = {}
        for name in present:
            if name == "devTooling":
                sections["devTooling.apps"] = counts["devTooling.apps"]
                sections["devTooling.tokens"] = counts["devTooling.tokens"]
            else:
                sections[name] = counts[name]
        entry: dict[str, Any] = {"kind": "snapshot"}
        file = target or self.snapshot.source
        if file:
            entry["file"] = file
        entry["sections"] = sections
        entry["absent"] = [n for n in SECTION_ORDER if n not in present]
        return [entry]


def plan_inputs(plan: Plan) -> list[dict[str, Any]]:
    """A plan's files as coverage inputs: each file with the requests read from it."""
    per_file: dict[str, int] = dict.fromkeys(plan.inputs, 0)  # files read, requests or not
    for request in plan.requests:
        file = request.source.file if request.source is not None else plan.source or "<plan>"
        per_file[file] = per_file.get(file, 0) + 1
    if not per_file:
        per_file[plan.source or "<plan>"] = 0
    return [{"kind": "plan", "file": file, "requests": n} for file, n in per_file.items()]
