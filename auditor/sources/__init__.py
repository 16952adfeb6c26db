"""Readers of the inputs people really have (contracts §8), each producing the plan or snapshot model
the engines already use: ``arm`` (templates, parameters, Bicep-compiled JSON), ``terraform`` (HCL and
plan JSON), ``exports`` (API pages, vendor CLI outputs, HAR, VCR), and ``names`` (vendor <-> seed)."""

from __future__ import annotations

from auditor.sources.deployment import DeploymentRequest, DeploymentSet, SourceRef
from auditor.sources.names import to_seed, to_seed_value, to_vendor

__all__ = [
    "DeploymentRequest",
    "DeploymentSet",
    "SourceRef",
    "to_seed",
    "to_seed_value",
    "to_vendor",
]
