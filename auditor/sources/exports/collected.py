"""Items of a live listing in the vendor's names (``collect --namespace vendor``), mapped to the
seed's exactly as ``auditor estate import`` maps the same items from a saved page (contracts §8):
the same record shapes (:func:`~auditor.sources.exports._shapes.to_doc`, health events by
:func:`~auditor.sources.exports._health.event_doc`) and the same renaming
(:class:`~auditor.sources.exports._seed.Namer`: ids, scopes, types, actions, conditions, the
``EventGridSchema`` value; free text kept).

Items stay raw JSON on both sides: the collector validates them as it validates the seed's. An item
that is not JSON or not an object is passed on unchanged, for the collector to name."""

from __future__ import annotations

from collections.abc import Container, Sequence
from typing import Any

import msgspec

from auditor.sources.exports._records import DECODERS
from auditor.sources.exports._seed import Namer
from auditor.sources.exports._shapes import TYPE_OF_SECTION, classify, to_doc

_FAST = ("roleAssignments", "denyAssignments")
_encode = msgspec.json.Encoder().encode
_UNREADABLE = (msgspec.MsgspecError, UnicodeDecodeError, RecursionError, TypeError)


class SeedNames:
    """Renames the items of one collection's listings (its memo of renamed strings is shared by
    every page)."""

    def __init__(self) -> None:
        self._namer = Namer()

    def items(
        self,
        section: str,
        items: Sequence[msgspec.Raw],
        *,
        skip: Container[int] = (),
        listed_in: str | None = None,
    ) -> list[msgspec.Raw]:
        """``items`` (the ``value`` of a page of ``section``) in the seed's names; the items at
        the indices of ``skip`` are kept as they are. ``listed_in``: the scope the listing was
        asked for (a tenant-relative health event id is made relative to it)."""
        namer = self._namer
        fast = section in _FAST
        decode = DECODERS[section].decode if fast else None
        rename = namer.role_assignment if section == "roleAssignments" else namer.deny_assignment
        seed_type = TYPE_OF_SECTION.get(section, "")
        fine = {seed_type, seed_type.replace("Cloud.", "Microsoft.")}
        out: list[msgspec.Raw] = []
        for k, item in enumerate(items):
            if k in skip:
                out.append(item)
                continue
            if decode is not None:
                try:
                    record = decode(item)
                except _UNREADABLE:
                    record = None
                if record is not None and (
                    record.type is None
                    or record.type in fine
                    or namer.name(record.type).lower() == seed_type.lower()
                ):
                    rename(record)
                    out.append(msgspec.Raw(_encode(record)))
                    continue
            out.append(self._general(section, item, listed_in))
        return out

    def _general(self, section: str, item: msgspec.Raw, listed_in: str | None) -> msgspec.Raw:
        """One item recognised on its own, as the import's general path does."""
        try:
            obj: Any = msgspec.json.decode(item)
        except _UNREADABLE:
            return item
        if not isinstance(obj, dict):
            return item
        try:
            found = classify(obj)
            if isinstance(found, tuple) and found[0] == section:
                shape = found[1]
            else:
                shape = "rest" if isinstance(obj.get("properties"), dict) else "flat"
            doc, _ = to_doc(obj, section, shape, listed_in=listed_in)
            return msgspec.Raw(_encode(self._namer.document(doc)))
        except RecursionError:  # nested too deeply to map: as given (the snapshot refuses it)
            return item
