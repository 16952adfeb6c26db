"""Real exports read as an estate (contracts §8): management-API responses (listings, their pages,
single resources), the vendor CLI's JSON outputs, health events in the SDK's flattened shape, HAR
files and VCR cassettes, in the vendor's namespaces or the seed's, each recognised by its shape.

- :func:`import_estate`: any mix of files and folders into one snapshot, each record with its
  provenance, duplicates merged, conflicts reported, and a summary of what was read and skipped
  (``auditor estate import``).
- :func:`load_estate`: what every ``--snapshot`` option reads; a snapshot file goes straight to
  the snapshot loader, anything else through the readers here.

One module per job: ``_read`` (what a file is), ``_documents`` (listings, CLI arrays, single
resources, group member wrappers), ``_traffic`` and ``_endpoints`` (HAR files, cassettes, the URLs
read), ``_yaml`` (bounded YAML), ``_shapes`` (what a record is, and its snapshot shape), ``_health``
(health events), ``_seed`` (vendor names), ``_records`` (bulk records), ``_assemble`` (merging,
conflicts), ``_provenance`` and ``_snapshot`` (where each record came from), ``_summary`` (the
table), ``_load`` (the entry points). Decisions: ``docs/decisions.md``, "Real exports".
"""

from __future__ import annotations

from auditor.sources.exports._load import SUFFIXES, check_output, import_estate, load_estate
from auditor.sources.exports._provenance import Origin, Provenance
from auditor.sources.exports._read import EXPECTED, ExportFormat
from auditor.sources.exports._snapshot import ImportedSnapshot
from auditor.sources.exports._summary import FileSummary, ImportSummary

__all__ = [
    "EXPECTED",
    "SUFFIXES",
    "ExportFormat",
    "FileSummary",
    "ImportSummary",
    "ImportedSnapshot",
    "Origin",
    "Provenance",
    "check_output",
    "import_estate",
    "load_estate",
]
