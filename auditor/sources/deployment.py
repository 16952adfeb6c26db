"""What every reader of a deployment format produces (contracts §3, §6, §8): the requests the
deployment would send, in the seed's names, each with where it came from.

A reader of ARM templates, Bicep-compiled JSON, Terraform HCL or a Terraform plan turns its file into
:class:`DeploymentRequest` objects; the gate turns those into the plan model the rule engine reads
(the same one a plan file gives). A value the reader could not resolve stays in the body as an
:class:`~auditor.expr.arm.values.Unknown` marker, so a rule that needs it reports ``unknown``
instead of guessing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from auditor.expr.arm.values import Unknown, UnknownKind

__all__ = [
    "DeploymentRequest",
    "DeploymentSet",
    "SourceRef",
    "Unknown",
    "UnknownKind",
]


@dataclass(frozen=True, slots=True)
class SourceRef:
    """Where a resource is defined: the file as given, the 1-based line of its definition, and its
    address (ARM symbolic name or name expression, Terraform address, JSON path in a plan)."""

    file: str
    line: int | None = None
    address: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"file": self.file}
        if self.line is not None:
            out["line"] = self.line
        if self.address is not None:
            out["address"] = self.address
        return out


@dataclass(slots=True)
class DeploymentRequest:
    """One request a deployment would send.

    - ``method``: ``PUT`` or ``DELETE``;
    - ``url``: the seed's path with its query (``/subscriptions/{s}/resourceGroups/{rg}/providers/
      Cloud.EventRouting/domains/{name}?api-version=...``); a path segment that is not known is the
      text of an :class:`Unknown`'s expression in braces, and ``unknown_url`` says so;
    - ``body``: the request body as JSON in the seed's names, possibly holding :class:`Unknown` markers
      (``None`` for a ``DELETE``);
    - ``suppressions``: inline suppressions on the resource, rule id (or glob) -> reason.
    """

    method: str
    url: str
    body: dict[str, Any] | None
    source: SourceRef
    suppressions: dict[str, str] = field(default_factory=dict)
    unknown_url: Unknown | None = None


@dataclass(slots=True)
class DeploymentSet:
    """What a reader (or a folder of readers) found: the requests, the files read, the files passed
    over (path, reason), and warnings for the user."""

    requests: list[DeploymentRequest] = field(default_factory=list)
    inputs: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def extend(self, other: DeploymentSet) -> None:
        self.requests.extend(other.requests)
        self.inputs.extend(other.inputs)
        self.skipped.extend(other.skipped)
        self.warnings.extend(other.warnings)
