"""Records of many inputs assembled into one snapshot: recognised, converted to the seed's shape and
names, decoded into the snapshot's records and models, merged by id, with provenance.

Speed: a page of role or deny assignments in the REST shape (and the CLI's role assignment rows)
decodes item by item straight into the compact records, as the snapshot loader does, with the
vendor's names rewritten through a memo and repeated strings shared; any item that does not fit
(another kind, an unknown field, a wrong type) takes the general path, which recognises it on its
own. The general path validates small sections through the snapshot loader, so an import reports a
bad value exactly as a snapshot does, at the file and JSON path it came from.

**Decisions** (duplicates across inputs; real exports overlap):

- Entries share an id (case-insensitively, a trailing ``/`` ignored) -> one entry. Identical copies
  are merged silently (counted). Copies of one health event that differ only in ``impact`` are one
  event with the union of the impacts.
- Different copies are a *conflict*: a warning names both places and the first field that
  differs, and says which copy was kept: the one with the newer timestamp (``updatedOn`` of
  assignments and role definitions, ``lastUpdateTime`` of health events, ``systemData.
  lastModifiedAt`` of clusters and domains), else the later one (inputs in the order given, a
  folder's files by name, items in file order).
- Principals are combined, not replaced: a directory listing and group member listings each say
  something about a principal; fields that are absent in one copy are taken from the other, the
  groups of ``memberOf`` are united; two different values of a field are a conflict (the later
  kept).
"""

from __future__ import annotations

import sys
from collections import Counter
from operator import attrgetter, methodcaller
from typing import Any

import msgspec

from auditor.errors import InputError, clip
from auditor.estate import drop_secret_looking, first_difference, known_fields
from auditor.estate.records import (
    BULK_SECTIONS,
    DirectoryPrincipalRecord,
    string_sharer,
)
from auditor.estate.snapshot import SECTION_ORDER
from auditor.inert import inert
from auditor.model.unknown_fields import (
    dropped_fields_warning,
)
from auditor.sources.exports._documents import FileRead, RawArray, Run, instant, later, plain
from auditor.sources.exports._health import union_impacts, without_impact
from auditor.sources.exports._provenance import Origin, Provenance
from auditor.sources.exports._records import (
    DECODERS,
    from_cli,
    record_error,
    same_record,
)
from auditor.sources.exports._seed import Namer
from auditor.sources.exports._shapes import (
    TYPE_OF_SECTION,
    classify,
    directory_kind,
    directory_record,
    to_doc,
)
from auditor.sources.exports._snapshot import ImportedSnapshot
from auditor.sources.exports._summary import FileSummary, ImportSummary

SMALL = ("roleDefinitions", "clusters", "domains", "healthEvents")
ASSIGNMENTS = ("hierarchy", "roleAssignments", "denyAssignments")
ORDER = tuple(s for s in SECTION_ORDER if s != "devTooling")
"""The sections an import fills, in the snapshot's order (developer tooling is never imported)."""
_TIMES: dict[str, tuple[str, str]] = {
    "roleAssignments": ("properties", "updatedOn"),
    "denyAssignments": ("properties", "updatedOn"),
    "roleDefinitions": ("properties", "updatedOn"),
    "healthEvents": ("properties", "lastUpdateTime"),
    "clusters": ("systemData", "lastModifiedAt"),
    "domains": ("systemData", "lastModifiedAt"),
}
_SHOWN_CONFLICTS = 10
_rstrip_slash = methodcaller("rstrip", "/")


def _raw_items(run: Run, fr: FileRead) -> list[Any]:
    """The items of a run one by one (an array left whole is split now, once)."""
    if isinstance(run.items, RawArray):
        run.items = run.items.split(fr.file)
    return run.items


def id_key(value: str) -> str:
    """The comparison key of an id (contracts 1)."""
    return value.rstrip("/").lower()


def _template_path(template: str, number: int) -> str:
    return template.replace("{}", str(number)) if "{}" in template else template


class Assembler:
    """Collects the records of every input file, then builds the snapshot (:meth:`finish`)."""

    def __init__(self) -> None:
        self.prov = Provenance()
        self.namer = Namer()
        self.bulk: dict[str, list[Any]] = {s: [] for s in ASSIGNMENTS}
        self.preserved: dict[str, dict[int, Any]] = {}
        self.principals: list[DirectoryPrincipalRecord] = []
        self._principal_at: dict[str, int] = {}
        self.docs: dict[str, list[dict[str, Any]]] = {s: [] for s in SMALL}
        self.listed: set[str] = set()
        self.summary = ImportSummary()
        self.warnings: list[str] = []
        self.dropped: list[str] = []
        self.conflicts: list[str] = []
        self.merged: Counter[str] = Counter()
        self.combined = 0
        self._kinds: dict[Any, str | None] = {}
        """Copies of principals combined with an earlier one (a user list and member lists)."""
        self.collected_at: str | None = None
        self.tenant_id: str | None = None
        self.dev_tooling: Any = None
        self.incomplete: list[Any] = []

    # -- input files --------------------------------------------------------------------------

    def add(self, fr: FileRead) -> FileSummary:
        """Take the records of one file; its summary row is returned (and kept)."""
        fi = self.prov.file(fr.file)
        counts: Counter[str] = Counter()
        if fr.snapshot is not None:
            self._snapshot(fi, fr, counts)
        for run in fr.runs:
            self._run(fi, fr, run, counts)
        self.listed |= fr.listed
        if fr.collected_at is not None and (
            self.collected_at is None or later(fr.collected_at, self.collected_at)
        ):
            self.collected_at = fr.collected_at
        row = FileSummary(fr.file, fr.kind, {k: v for k, v in counts.items() if v})
        for where, reason in fr.skipped:
            row.skipped.setdefault(reason, []).append(where)
        if fr.next_links:
            row.remarks.append(
                f"{len(fr.next_links):,} listing page(s) with a nextLink: the listing has more "
                "pages; give every page (the import cannot tell whether it has them all)"
            )
        name = inert(fr.file, limit=200)
        self.warnings.extend(f"{name}: {inert(note, limit=400)}" for note in fr.notes)
        if fr.skipped:
            self.warnings.append(f"{name}: {_skip_text(row)}")
        self.summary.files.append(row)
        return row

    def skip_file(self, name: str, reason: str, *, warn: bool = False) -> None:
        """A file of a folder that holds nothing the audit reads (``warn``: say so in a warning
        too, for a file whose name promised something)."""
        row = FileSummary(name, "not read")
        row.skipped[reason] = ["(the whole file)"]
        self.summary.files.append(row)
        if warn:
            self.warnings.append(f"{inert(name, limit=200)}: not read: {inert(reason, limit=300)}")

    def _run(self, fi: int, fr: FileRead, run: Run, counts: Counter[str]) -> None:
        items = _raw_items(run, fr)
        if run.fast == "principals":
            self._principals(fi, fr, run, items, counts)
        elif run.fast is not None:
            self._assignments(fi, fr, run, items, counts)
        else:
            for k, item in enumerate(items):
                self._item(fi, fr, run, k, item, counts)

    def _assignments(
        self, fi: int, fr: FileRead, run: Run, items: list[Any], counts: Counter[str]
    ) -> None:
        """Assignments decoded item by item (each renamed and shared at once, while its strings
        are in the processor's caches: a third faster than a second pass over a decoded page);
        an item that does not decode, or is of another type, takes the general path."""
        fast = run.fast or ""
        section = "denyAssignments" if fast == "denyAssignments" else "roleAssignments"
        decode = DECODERS[fast].decode
        cli = fast == "cli-roleAssignments"
        append = self.bulk[section].append
        namer = self.namer
        # role assignments: renamed through a memo of interned strings, shared in the same pass
        rename = namer.role_assignment if section == "roleAssignments" else namer.deny_assignment
        share = string_sharer(section) if section != "roleAssignments" else None
        seed_type = TYPE_OF_SECTION[section]
        fine = {seed_type, seed_type.replace("Cloud.", "Microsoft.")}
        lower = seed_type.lower()
        start = 0
        for k, item in enumerate(items):
            try:
                record = decode(item)
            except (msgspec.ValidationError, msgspec.DecodeError, RecursionError, TypeError):
                record = None
            if record is not None:
                kind = record.type
                if kind is not None and kind not in fine and namer.name(kind).lower() != lower:
                    record = None
            if record is None:
                self._extend(section, fi, run.template, start, k, counts)
                self._item(fi, fr, run, k, item, counts)
                start = k + 1
                continue
            if cli:
                record = from_cli(record)
            rename(record)
            if share is not None:
                share(record)
            append(record)
        self._extend(section, fi, run.template, start, len(items), counts)

    def _extend(
        self, section: str, fi: int, template: str, start: int, end: int, counts: Counter[str]
    ) -> None:
        if end > start:
            self.prov.extend(section, fi, template, start, end - start)
            counts[section] += end - start

    def _principals(
        self, fi: int, fr: FileRead, run: Run, items: list[Any], counts: Counter[str]
    ) -> None:
        """Directory objects decoded item by item: new principals kept, known ones combined."""
        decode = DECODERS["principals"].decode
        share = string_sharer("principals")
        group = run.group
        index = self._principal_at
        principals = self.principals
        template = run.template
        fresh = 0  # the first of the current stretch of new principals
        read = 0
        for k, item in enumerate(items):
            try:
                obj = decode(item)
            except (msgspec.ValidationError, msgspec.DecodeError, RecursionError, TypeError):
                obj = None
            if obj is not None and group is not None and isinstance(obj.id, str):
                at = index.get(id_key(obj.id))
                if at is not None and self._member_of(at, obj, group):
                    # a member listing's copy of a known principal, saying nothing new but the
                    # group: the group is added, nothing is built
                    if k > fresh:
                        self._new_principals(fi, template, fresh, k)
                    fresh = k + 1
                    read += 1
                    continue
            record = directory_record(obj, group) if obj is not None else None
            if record is None:
                self._new_principals(fi, template, fresh, k)
                self._item(fi, fr, run, k, item, counts)
                fresh = k + 1
                continue
            read += 1
            if share is not None:
                share(record)
            key = id_key(record.id)
            at = index.get(key)
            if at is None:
                index[key] = len(principals)
                principals.append(record)
            else:
                self._new_principals(fi, template, fresh, k)
                fresh = k + 1
                self._combine(at, record, fi, template, k)
        self._new_principals(fi, template, fresh, len(items))
        counts["principals"] += read

    def _member_of(self, at: int, obj: Any, group: str) -> bool:
        """Add ``group`` to known principal ``at`` when ``obj`` (its copy in the group's member
        listing) agrees with what is known; False when the copy must be combined in full."""
        old = self.principals[at]
        if (
            obj.memberOf
            or obj.displayName != old.displayName
            or obj.accountEnabled != old.accountEnabled
            or obj.userType != old.userType
            or (obj.mail or obj.email or old.email) != old.email
        ):
            return False
        kinds = self._kinds
        kind = kinds.get(obj.odata_type)
        if kind is None:
            kind = directory_kind(obj)
            if isinstance(obj.odata_type, str) and len(kinds) < 16:
                kinds[obj.odata_type] = kind
        if kind != old.type:
            return False
        groups = old.memberOf
        if group not in groups:
            groups.append(sys.intern(group))
        self.combined += 1
        return True

    def _new_principals(self, fi: int, template: str, start: int, end: int) -> None:
        if end > start:
            self.prov.extend("principals", fi, template, start, end - start)

    def _item(
        self, fi: int, fr: FileRead, run: Run, k: int, item: Any, counts: Counter[str]
    ) -> None:
        """The general path: one item recognised and converted on its own."""
        where = _template_path(run.template, k)
        obj = plain(item, run.data, fr.file)
        found = classify(obj)
        if isinstance(found, str):
            fr.skip(where, found)
            return
        section, shape = found
        if run.group is not None and section != "principals":
            fr.skip(where, f"a group member listing holds a {section} record")
            return
        doc, note = to_doc(obj, section, shape, listed_in=run.listed_in, group=run.group)
        if note:
            fr.notes.append(f"{where}: {note}")
        origin = Origin(fr.file, where)
        if section in SMALL:
            self.docs[section].append(self.namer.document(doc))
            self.prov.extend(section, fi, run.template, k, 1)
            counts[section] += 1
        elif section == "principals":
            if not isinstance(doc.get("id"), str) or not doc["id"]:
                fr.skip(where, "a directory object without an id")
                return
            record, _ = self._record(section, doc, origin)
            self._principal(record, fi, run.template, k, counts)
        else:
            record, kept = self._record(section, self.namer.document(doc), origin)
            arrival = self.prov.arrived(section)
            self.bulk[section].append(record)
            if kept is not None:
                self.preserved.setdefault(section, {})[arrival] = kept
            self.prov.extend(section, fi, run.template, k, 1)
            counts[section] += 1

    def _record(self, section: str, doc: dict[str, Any], origin: Origin) -> tuple[Any, Any]:
        """A bulk record from plain JSON in the seed's names, and the JSON to write back when it
        carries unknown fields (those with secret-looking names dropped and named)."""
        cls = BULK_SECTIONS[section]
        known, unknown = known_fields(doc, cls)
        try:
            record = msgspec.convert(known, cls)
        except msgspec.ValidationError:
            raise record_error(section, doc, origin) from None
        share = string_sharer(section)
        if share is not None:
            share(record)
        if not unknown or section == "principals":
            return record, None
        found: list[str] = []
        drop_secret_looking(doc, cls, "", found)
        self.dropped.extend(f"{origin}{'' if p.startswith('[') else '.'}{p}" for p in found)
        return record, doc if known_fields(doc, cls)[1] else None

    def _principal(
        self, record: Any, fi: int, template: str, number: int, counts: Counter[str]
    ) -> None:
        counts["principals"] += 1
        key = id_key(record.id)
        at = self._principal_at.get(key)
        if at is None:
            self._principal_at[key] = len(self.principals)
            self.principals.append(record)
            self.prov.extend("principals", fi, template, number, 1)
        else:
            self._combine(at, record, fi, template, number)

    def _combine(self, at: int, record: Any, fi: int, template: str, number: int) -> None:
        """What another copy of a known principal says, added to it (see the module doc)."""
        old = self.principals[at]
        self.combined += 1
        if (record.type, record.displayName, record.email, record.userType) != (
            old.type,
            old.displayName,
            old.email,
            old.userType,
        ) or record.accountEnabled != old.accountEnabled:
            differ = []
            for name in ("type", "displayName", "email", "userType", "accountEnabled"):
                new = getattr(record, name)
                if new is None:
                    continue
                current = getattr(old, name)
                if current is None:
                    setattr(old, name, new)
                elif current != new:
                    differ.append(name)
                    setattr(old, name, new)
            if differ:
                first = self.prov.origin("principals", at)
                later = Origin(self.prov.files[fi], _template_path(template, number))
                self._conflict(
                    "principals",
                    record.id,
                    first,
                    later,
                    ", ".join(differ),
                    later,
                    "the later copy",
                )
        groups = old.memberOf
        for group in record.memberOf:
            if group not in groups:
                groups.append(group)

    def _snapshot(self, fi: int, fr: FileRead, counts: Counter[str]) -> None:
        snap = fr.snapshot
        assert snap is not None
        name = inert(fr.file, limit=200)
        for section in ASSIGNMENTS:
            records = getattr(snap, section)
            out = self.bulk[section]
            base = len(out)
            out.extend(records)
            kept = snap.preserved.get(section)
            if kept:
                self.preserved.setdefault(section, {}).update(
                    {base + i: value for i, value in kept.items()}
                )
            template = f"{section}[{{}}]"
            positions = snap.positions.get(section)
            if positions is None:
                self.prov.extend(section, fi, template, 0, len(records))
            else:
                for p in positions:
                    self.prov.extend(section, fi, template, p, 1)
            counts[section] += len(records)
        positions = snap.positions.get("principals")
        for i, record in enumerate(snap.principals):
            number = positions[i] if positions is not None else i
            self._principal(record, fi, "principals[{}]", number, counts)
        for section in SMALL:
            positions = snap.positions.get(section)
            for i, model in enumerate(getattr(snap, section)):
                self.docs[section].append(model.to_wire(reveal_secrets=True))
                number = positions[i] if positions is not None else i
                self.prov.extend(section, fi, f"{section}[{{}}]", number, 1)
                counts[section] += 1
        present = snap.present if snap.present is not None else frozenset(ORDER)
        self.listed |= {s for s in present if s != "devTooling"}
        if snap.devTooling is not None:
            if self.dev_tooling is not None and self.dev_tooling != snap.devTooling:
                self.warnings.append(
                    f"{name}: devTooling differs from that of an earlier snapshot; kept this one "
                    "(the later input)"
                )
            self.dev_tooling = snap.devTooling
        if snap.tenantId is not None:
            if self.tenant_id is not None and self.tenant_id.lower() != snap.tenantId.lower():
                self.warnings.append(
                    f"{name}: tenantId differs from that of an earlier snapshot; kept the first"
                )
            self.tenant_id = self.tenant_id or snap.tenantId
        fr.recorded_at(snap.collectedAt)
        self.warnings.extend(f"{name}: {w}" for w in snap.warnings)
        raw = snap.extra.get("incomplete")
        if raw is not None:
            value = msgspec.json.decode(raw)
            self.incomplete.extend(value if isinstance(value, list) else [value])
            self.warnings.append(
                f"{name}: the snapshot was collected incompletely (its 'incomplete' list): "
                "records of the listings named there are missing"
            )

    # -- the snapshot ---------------------------------------------------------------------------

    def placed(self, row: FileSummary) -> int:
        return sum(row.counts.values())

    def finish(self, source: str) -> ImportedSnapshot:
        snap = ImportedSnapshot(source=source, provenance=self.prov, summary=self.summary)
        for section in ASSIGNMENTS:
            records, preserved = self._merge_records(section)
            setattr(snap, section, records)
            if preserved:
                snap.preserved[section] = preserved
        snap.principals = self.principals
        for section in SMALL:
            setattr(snap, section, self._validate(section, self._merge_docs(section)))
        snap.devTooling = self.dev_tooling
        snap.tenantId = self.tenant_id
        snap.collectedAt = self.collected_at
        if self.incomplete:
            snap.extra["incomplete"] = msgspec.json.encode(self.incomplete)
        has = {s for s in ORDER if getattr(snap, s)}
        snap.present = frozenset(self.listed | has | ({"devTooling"} if snap.devTooling else set()))
        self.summary.totals = {s: len(getattr(snap, s)) for s in ORDER}
        self.merged["principals"] += self.combined
        self.summary.merged = {s: n for s, n in self.merged.items() if n}
        self.summary.conflicts = len(self.conflicts)
        snap.warnings = self._warnings()
        return snap

    def _warnings(self) -> list[str]:
        out = list(self.warnings)
        for section, n in self.merged.items():
            if n and section != "principals":
                out.append(
                    f"{section}: merged {n:,} duplicate entr{'y' if n == 1 else 'ies'} across the "
                    "inputs (same id, compared case-insensitively; identical, or one health "
                    "event listed once per impacted service)"
                )
        out.extend(self.conflicts[:_SHOWN_CONFLICTS])
        if len(self.conflicts) > _SHOWN_CONFLICTS:
            out.append(
                f"... and {len(self.conflicts) - _SHOWN_CONFLICTS:,} more conflicting copies"
            )
        if self.dropped:
            out.append(dropped_fields_warning(self.dropped))
        return out

    def _conflict(
        self,
        section: str,
        record_id: Any,
        first: Origin | None,
        second: Origin | None,
        differs: str | None,
        kept: Origin | None,
        why: str,
    ) -> None:
        what = f"{differs} differs" if differs else "the content differs"
        self.conflicts.append(
            f"{section}: two different copies of {inert(record_id, limit=200)} ({what}): "
            f"{inert(first, limit=240)} and {inert(second, limit=240)}; kept "
            f"{inert(kept, limit=240)} ({why})"
        )

    def _newer(self, section: str, a: Any, b: Any) -> tuple[bool, str]:
        """Whether ``b`` (the later copy) wins over ``a``, and why."""
        path = _TIMES.get(section)
        if path is not None:
            ta, tb = instant(_field(a, path)), instant(_field(b, path))
            if ta is not None and tb is not None and ta != tb:
                return tb > ta, f"newer {'.'.join(path) if path[0] != 'properties' else path[1]}"
        return True, "the later copy"

    def _merge_records(self, section: str) -> tuple[list[Any], dict[int, Any]]:
        records = self.bulk[section]
        preserved = self.preserved.get(section, {})
        n = len(records)
        ids = map(str.lower, map(_rstrip_slash, map(attrgetter("id"), records)))
        if n < 2 or len(set(map(hash, ids))) == n:
            return records, preserved
        first: dict[str, int] = {}
        keep: list[int] = []
        slot: dict[int, int] = {}
        for i, record in enumerate(records):
            j = first.setdefault(id_key(record.id), i)
            if j == i:
                slot[i] = len(keep)
                keep.append(i)
                continue
            at = slot[j]
            w = keep[at]
            if same_record(records[w], record, preserved.get(w), preserved.get(i)):
                self.merged[section] += 1
                continue
            later, why = self._newer(section, records[w], record)
            a = preserved.get(w) or msgspec.to_builtins(records[w])
            b = preserved.get(i) or msgspec.to_builtins(record)
            self._conflict(
                section,
                record.id,
                self.prov.origin(section, w),
                self.prov.origin(section, i),
                first_difference(a, b),
                self.prov.origin(section, i if later else w),
                why,
            )
            if later:
                keep[at] = i
        self.prov.keep(section, keep)
        merged = [records[i] for i in keep]
        return merged, {new: preserved[old] for new, old in enumerate(keep) if old in preserved}

    def _merge_docs(self, section: str) -> list[dict[str, Any]]:
        docs = self.docs[section]
        first: dict[str, int] = {}
        keep: list[int] = []
        slot: dict[int, int] = {}
        events = section == "healthEvents"
        for i, doc in enumerate(docs):
            rid = doc.get("id")
            if not isinstance(rid, str) or not rid:
                keep.append(i)
                continue
            j = first.setdefault(id_key(rid), i)
            if j == i:
                slot[i] = len(keep)
                keep.append(i)
                continue
            at = slot[j]
            w = keep[at]
            a, b = docs[w], doc
            if events:
                if _without_id(without_impact(a)) == _without_id(without_impact(b)):
                    docs[w] = union_impacts(a, b)
                    self.merged[section] += 1
                    continue
            elif _without_id(a) == _without_id(b):
                self.merged[section] += 1
                continue
            later, why = self._newer(section, a, b)
            self._conflict(
                section,
                rid,
                self.prov.origin(section, w),
                self.prov.origin(section, i),
                first_difference(_without_id(a), _without_id(b)),
                self.prov.origin(section, i if later else w),
                why,
            )
            winner, loser = (b, a) if later else (a, b)
            if events:
                docs[i if later else w] = union_impacts(winner, loser)
            if later:
                keep[at] = i
        if len(keep) != len(docs):
            self.prov.keep(section, keep)
        return [docs[i] for i in keep]

    def _validate(self, section: str, docs: list[dict[str, Any]]) -> list[Any]:
        """The wire models of a small section, validated by the snapshot loader (errors and
        dropped secret-looking fields named at the place they came from)."""
        if not docs:
            return []
        import re

        from auditor.estate.snapshot import loads_snapshot

        try:
            mini = loads_snapshot(msgspec.json.encode({section: docs}), source="<import>")
        except InputError as exc:
            raise self._relocated(section, exc) from None
        pattern = re.compile(rf"\b{section}\[(\d+)\]")

        def place(m: re.Match[str]) -> str:
            origin = self.prov.origin(section, int(m.group(1)))
            return str(origin) if origin is not None else m.group(0)

        self.warnings.extend(pattern.sub(place, w) for w in mini.warnings)
        models: list[Any] = getattr(mini, section)
        return models

    def _relocated(self, section: str, exc: InputError) -> InputError:
        import re

        m = re.match(rf"^{section}\[(\d+)\](.*)$", exc.location or "", re.DOTALL)
        if m is None:
            return exc
        origin = self.prov.origin(section, int(m.group(1)))
        if origin is None:
            return exc
        return InputError(exc.detail, source=origin.file, location=origin.path + m.group(2))


def _skip_text(row: FileSummary) -> str:
    total = row.skipped_count()
    reasons = sorted(row.skipped.items(), key=lambda kv: -len(kv[1]))
    shown = "; ".join(f"{len(places):,} x {clip(reason, 160)}" for reason, places in reasons[:3])
    more = f"; and {len(reasons) - 3:,} other reason(s)" if len(reasons) > 3 else ""
    return f"skipped {total:,} item(s) (`auditor estate import` lists them): {shown}{more}"


def _field(value: Any, path: tuple[str, str]) -> Any:
    outer = value.get(path[0]) if isinstance(value, dict) else getattr(value, path[0], None)
    if outer is None:
        return None
    return outer.get(path[1]) if isinstance(outer, dict) else getattr(outer, path[1], None)


def _without_id(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k != "id"}
