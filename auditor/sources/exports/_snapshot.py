"""The snapshot an import builds: a :class:`~auditor.estate.snapshot.Snapshot` (the engines read it
as any other) that also carries where each record came from and the import's summary. Neither is
written to the snapshot file: the wire records stay exactly as contracts §2 has them."""

from __future__ import annotations

from dataclasses import dataclass, field

from auditor.estate.snapshot import SECTION_ORDER, Snapshot
from auditor.sources.exports._provenance import Origin, Provenance
from auditor.sources.exports._summary import ImportSummary


@dataclass(eq=False)
class ImportedSnapshot(Snapshot):
    """A snapshot built from exports. ``provenance`` maps each record to its :class:`Origin`;
    ``summary`` says what was read from which file and what was skipped."""

    provenance: Provenance = field(default_factory=Provenance, compare=False)
    summary: ImportSummary = field(default_factory=ImportSummary, compare=False)
    _by_id: dict[str, tuple[str, int]] | None = field(default=None, compare=False, repr=False)
    _single: bool | None = field(default=None, compare=False, repr=False)

    def origin(self, section: str, index: int) -> Origin | None:
        """Where record ``index`` of ``section`` came from."""
        return self.provenance.origin(section, index)

    def origin_of(self, record_id: str) -> Origin | None:
        """Where the record with id ``record_id`` came from (ids compare case-insensitively; the
        index by id is built on the first call)."""
        if self._by_id is None:
            index: dict[str, tuple[str, int]] = {}
            for section in SECTION_ORDER:
                if section == "devTooling":
                    continue
                for i, record in enumerate(getattr(self, section)):
                    rid = getattr(record, "id", None)
                    if isinstance(rid, str):
                        index.setdefault(rid.rstrip("/").lower(), (section, i))
            self._by_id = index
        found = self._by_id.get(record_id.rstrip("/").lower())
        return self.provenance.origin(*found) if found is not None else None

    def file_location(self, location: str) -> str:
        """A JSON path into the snapshot's sections as the place in the input it came from: the
        path inside the file (``value[3].properties.scope``), preceded by the file when the
        import read several. Asked once per finding: no regular expression, no objects."""
        bracket = location.find("[")
        close = location.find("]", bracket + 1)
        if bracket <= 0 or close < 0:
            return location
        try:
            index = int(location[bracket + 1 : close])
        except ValueError:
            return location
        found = self.provenance.place(location[:bracket], index)
        if found is None:
            return location
        file, path = found
        rest = location[close + 1 :]
        if path.endswith(")"):  # a whole document: "(the whole file) properties.scope"
            path = path + (" " + rest.lstrip(".") if rest else "")
        else:
            path = path + rest
        if self._single is None:
            files = self.provenance.files
            self._single = len(files) == 1 and files[0] == self.source
        return path if self._single else f"{file}: {path}"
