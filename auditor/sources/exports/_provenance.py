"""Where each record of an imported estate came from: the file, and the JSON path inside it (or the
HAR entry, the cassette interaction, and the path inside its response body).

Built for a million records: a section's records arrive in runs (a page of a listing, a CLI file)
whose paths differ only by the item number, so the table stores one segment per run, not one
entry per record; merging duplicates adds, only when something was merged, the arrival number of
each record kept.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Origin:
    """A record's source: ``file`` as given, ``path`` inside it (``value[3]``, ``[12]``,
    ``log.entries[4] > value[0]``, ``interactions[2] > value[1]``, ``(the whole file)``)."""

    file: str
    path: str

    def __str__(self) -> str:
        return f"{self.file}: {self.path}"


class Provenance:
    """Section and position of a record in the imported snapshot -> its :class:`Origin`."""

    def __init__(self) -> None:
        self.files: list[str] = []
        self._file_index: dict[str, int] = {}
        # section -> parallel lists: first arrival number, file index, path template, first item
        self._starts: dict[str, list[int]] = {}
        self._segments: dict[str, list[tuple[int, str, int, int]]] = {}
        self._arrived: dict[str, int] = {}
        self._kept: dict[str, array[int]] = {}

    def file(self, name: str) -> int:
        index = self._file_index.get(name)
        if index is None:
            index = self._file_index[name] = len(self.files)
            self.files.append(name)
        return index

    def arrived(self, section: str) -> int:
        """How many records of ``section`` have arrived (the next arrival number)."""
        return self._arrived.get(section, 0)

    def extend(self, section: str, file: int, template: str, first: int, count: int) -> None:
        """``count`` records of ``section`` arrived, items ``first``.. of ``template`` (a path
        with ``{}`` where the item number goes; without it, one record at that path)."""
        if count <= 0:
            return
        start = self._arrived.get(section, 0)
        self._arrived[section] = start + count
        segments = self._segments.setdefault(section, [])
        if segments:
            f, t, first0, count0 = segments[-1]
            starts = self._starts[section]
            contiguous = first0 + count0 == first and starts[-1] + count0 == start
            if f == file and t == template and "{}" in t and contiguous:
                segments[-1] = (f, t, first0, count0 + count)
                return
        self._starts.setdefault(section, []).append(start)
        segments.append((file, template, first, count))

    def keep(self, section: str, kept: list[int]) -> None:
        """After merging: the arrival number of each record kept, in the section's final order."""
        self._kept[section] = array("q", kept)

    def origin(self, section: str, index: int) -> Origin | None:
        """Where record ``index`` of ``section`` (in the imported snapshot) came from."""
        found = self.place(section, index)
        return Origin(*found) if found is not None else None

    def place(self, section: str, index: int) -> tuple[str, str] | None:
        """:meth:`origin` as a (file, path) pair (the fast form, asked once per finding)."""
        kept = self._kept.get(section)
        if kept is not None:
            if not 0 <= index < len(kept):
                return None
            index = kept[index]
        starts = self._starts.get(section)
        if not starts:
            return None
        at = bisect_right(starts, index) - 1
        if at < 0:
            return None
        file, template, first, count = self._segments[section][at]
        offset = index - starts[at]
        if offset >= count:
            return None
        path = template.replace("{}", str(first + offset)) if "{}" in template else template
        return self.files[file], path
