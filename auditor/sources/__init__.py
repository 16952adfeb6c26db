"""Readers of the inputs people really have (contracts §8), each producing the plan or snapshot model
the engines already use: ``arm`` (templates, parameters, Bicep-compiled JSON), ``terraform`` (HCL and
plan JSON), ``exports`` (API pages, vendor CLI outputs, HAR, VCR), and ``names`` (vendor <-> seed);
``gate`` reads the paths ``auditor gate`` is given (:func:`read_deployment`) as one plan."""

from __future__ import annotations

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
