"""Readers of the inputs people really have (contracts §8), each producing the plan or snapshot model
the engines already use: ``arm`` (templates, parameters, Bicep-compiled JSON), ``terraform`` (HCL and
plan JSON), ``exports`` (API pages, vendor CLI outputs, HAR, VCR), and ``names`` (vendor <-> seed);
``gate`` reads the paths ``auditor gate`` is given (:func:`read_deployment`) as one plan."""

from __future__ import annotations

from typing import TYPE_CHECKING

from auditor._lazy import lazy_exports

if TYPE_CHECKING:
    from auditor.sources.deployment import DeploymentRequest, DeploymentSet, SourceRef
    from auditor.sources.exports import ExportFormat, ImportedSnapshot, import_estate, load_estate
    from auditor.sources.gate import (
        GATE_FORMATS,
        DeploymentRead,
        GateFormat,
        parse_assignment,
        read_deployment,
    )
    from auditor.sources.names import to_seed, to_seed_value, to_vendor

_LAZY_MODULES = {
    "deployment": ("DeploymentRequest", "DeploymentSet", "SourceRef"),
    "exports": ("ExportFormat", "ImportedSnapshot", "import_estate", "load_estate"),
    "gate": ("GATE_FORMATS", "DeploymentRead", "GateFormat", "parse_assignment", "read_deployment"),
    "names": ("to_seed", "to_seed_value", "to_vendor"),
}
_LAZY = {name: module for module, names in _LAZY_MODULES.items() for name in names}
"""Each reader is imported on first use: reading a snapshot (``--snapshot``) needs neither the
template readers nor the gate's."""

__all__ = [
    "GATE_FORMATS",
    "DeploymentRead",
    "DeploymentRequest",
    "DeploymentSet",
    "ExportFormat",
    "GateFormat",
    "ImportedSnapshot",
    "SourceRef",
    "import_estate",
    "load_estate",
    "parse_assignment",
    "read_deployment",
    "to_seed",
    "to_seed_value",
    "to_vendor",
]


__getattr__ = lazy_exports(__name__, _LAZY)
