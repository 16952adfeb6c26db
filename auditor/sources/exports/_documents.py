"""One JSON document of an export (a file, or a recorded response body) split into runs of records.

The reader only splits containers: a listing's ``value``, the vendor CLI's top-level array, a group
member wrapper, a single resource. Each run keeps its items as raw JSON (``msgspec.Raw``) where it
can, and says when its first item shows a shape the assembler decodes straight into records (a
page of role assignments); every item is recognised and converted by the assembler
(:mod:`auditor.sources.exports._assemble`).
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import msgspec

from auditor.errors import InputError, describe_value
from auditor.estate import decode_json
from auditor.sources.exports._endpoints import Endpoint
from auditor.sources.exports._seed import may_hold_vendor_names
from auditor.sources.exports._shapes import classify

if TYPE_CHECKING:
    from auditor.estate.snapshot import Snapshot

LISTING_KEYS = frozenset(
    {
        "value",
        "nextLink",
        "@odata.nextLink",
        "@odata.context",
        "@odata.count",
        "@odata.deltaLink",
        "odata.metadata",
        "odata.nextLink",
        "count",
    }
)
"""Top-level keys of a management-API or Graph listing (others are named in a note)."""

_GUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
MEMBERS_FILE = re.compile(rf"(?i)(?:^|[^a-z])members?[-_.](?P<group>{_GUID})(?![0-9a-f])")
"""A group member listing's file name names its group: ``members-<group id>.json``."""


_FIRST_BYTES = 1 << 16
_JSON = json.JSONDecoder()


@dataclass(frozen=True, slots=True)
class RawArray:
    """A JSON array left as its bytes: a page of a million-record listing is decoded into records
    in one call (:meth:`split` gives its items when it cannot be)."""

    raw: Any

    def split(self, source: str) -> list[Any]:
        try:
            return msgspec.json.decode(self.raw, type=list[msgspec.Raw])
        except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):
            decode_json(bytes(self.raw), source=source)
            raise InputError("expected an array", source=source) from None

    def head(self, size: int = 256) -> bytes:
        view = memoryview(self.raw)
        head = bytes(view[:size]).lstrip()
        if not head and len(view) > size:  # a long run of blanks
            head = bytes(view).lstrip()[:size]
        return head

    def is_array(self) -> bool:
        return self.head()[:1] == b"["

    def is_empty(self) -> bool:
        return self.head()[1:].lstrip()[:1] == b"]"

    def first(self) -> tuple[bool, Any]:
        """The first item, read from the first bytes only (False when it is longer than
        :data:`_FIRST_BYTES`, or the bytes are not plain JSON: the caller then splits the array)."""
        for size in (4096, _FIRST_BYTES):
            text = self.head(size)[1:].decode("utf-8", errors="ignore").lstrip()
            try:
                value, _ = _JSON.raw_decode(text)
            except (ValueError, RecursionError):
                if len(text) < size - 8:  # all of the array was there: not plain JSON
                    break
                continue
            return True, value
        return False, None


@dataclass(slots=True)
class Run:
    """Consecutive items of one document. ``template`` is their JSON path with ``{}`` for the item
    number; ``fast`` names the record decoder the first item's shape allows (``roleAssignments``,
    ``denyAssignments``: the REST shape; ``cli-roleAssignments``: the CLI's rows; ``principals``:
    directory objects), None to recognise each item on its own."""

    items: list[Any] | RawArray
    template: str
    data: bytes | memoryview | None
    fast: str | None = None
    listed_in: str | None = None
    group: str | None = None


@dataclass
class FileRead:
    """What one input file holds: runs of records, or a whole snapshot; the sections it lists (an
    empty listing of a known endpoint counts), what was skipped and why, notes for the user."""

    file: str
    kind: str = ""
    runs: list[Run] = field(default_factory=list)
    listed: set[str] = field(default_factory=set)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    next_links: list[str] = field(default_factory=list)
    collected_at: str | None = None
    snapshot: Snapshot | None = None
    unrecognised: str | None = None
    vendor: bool = False

    def skip(self, where: str, reason: str) -> None:
        self.skipped.append((where, reason))

    def recorded_at(self, moment: Any) -> None:
        """An input's own record of when it was observed (HAR ``startedDateTime``, a snapshot's
        ``collectedAt``): the newest becomes the import's ``collectedAt``."""
        if not isinstance(moment, str) or instant(moment) is None:
            return
        if self.collected_at is None or later(moment, self.collected_at):
            self.collected_at = moment


def instant(text: str | None) -> dt.datetime | None:
    """An ISO 8601 timestamp as an aware datetime (naive ones read as UTC; fractions beyond
    microseconds dropped), or None."""
    if not isinstance(text, str) or len(text) > 64:
        return None
    t = text.strip()
    if t.endswith(("Z", "z")):
        t = t[:-1] + "+00:00"
    m = re.match(r"^(.*?\.\d{1,6})\d*(.*)$", t)
    if m is not None:
        t = m.group(1) + m.group(2)
    try:
        value = dt.datetime.fromisoformat(t)
    except ValueError:
        return None
    return value if value.tzinfo is not None else value.replace(tzinfo=dt.UTC)


def later(a: str, b: str) -> bool:
    """Whether timestamp ``a`` is later than ``b`` (an unreadable ``b`` is earlier than anything)."""
    ia, ib = instant(a), instant(b)
    return ia is not None and (ib is None or ia > ib)


class _Listing(msgspec.Struct, forbid_unknown_fields=True):
    """A listing page and nothing else: its items split in the same pass as the page."""

    value: list[msgspec.Raw]
    nextLink: Any = None
    odataNextLink: Any = msgspec.field(default=None, name="@odata.nextLink")
    odataContext: Any = msgspec.field(default=None, name="@odata.context")
    odataCount: Any = msgspec.field(default=None, name="@odata.count")
    odataDeltaLink: Any = msgspec.field(default=None, name="@odata.deltaLink")
    metadata: Any = msgspec.field(default=None, name="odata.metadata")
    odataNext: Any = msgspec.field(default=None, name="odata.nextLink")
    count: Any = None


_LISTING = msgspec.json.Decoder(_Listing)


def split_top(data: bytes | memoryview, source: str) -> dict[str, Any] | RawArray:
    """The top level of a JSON document, its values left as raw JSON (an array left whole, a
    listing's items split in the same pass); a document that is not valid JSON within the limits
    is an InputError at its line and column."""
    if bytes(data[:4096]).lstrip()[:1] == b"[":
        return RawArray(data)  # checked as it is decoded (its items, or split on the slow path)
    try:
        page = _LISTING.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        pass
    else:
        link = page.nextLink or page.odataNextLink
        return {"value": page.value, "nextLink": link} if link else {"value": page.value}
    try:
        return msgspec.json.decode(data, type=dict[str, msgspec.Raw])
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        decode_json(data, source=source)
        raise InputError("expected a JSON object or array", source=source) from None


def plain(item: Any, run_data: bytes | memoryview | None, source: str) -> Any:
    """An item as plain JSON, with the limits of every JSON input (nesting, numbers); a problem is
    reported at its line and column in the document."""
    if not isinstance(item, msgspec.Raw):
        return item
    try:
        return decode_json(bytes(item), source=source)
    except InputError:
        if run_data is not None:
            decode_json(run_data, source=source)  # the same problem, located in the document
        raise


def read_document(
    fr: FileRead,
    top: Any,
    *,
    data: bytes | memoryview | None,
    prefix: str,
    whole: str,
    endpoint: Endpoint | None = None,
    group: str | None = None,
) -> str | None:
    """Add the runs of one document (``top``: its top level split into raw values, or plain JSON)
    to ``fr``; None when it holds something the audit reads, else why not."""
    if data is not None and not fr.vendor:
        fr.vendor = may_hold_vendor_names(data)  # for the summary: "(Microsoft.* names)"
    listed_in = endpoint.listed_in if endpoint is not None else None
    group = group or (endpoint.group if endpoint is not None else None)
    if endpoint is not None and endpoint.listing:
        fr.listed.add(endpoint.section)
    if isinstance(top, RawArray | list):
        if not top or (isinstance(top, RawArray) and top.is_empty()):
            return None if endpoint is not None else "an empty array"
        _add_run(fr, top, prefix + "[{}]", data, listed_in, group)
        return None
    if not isinstance(top, dict):
        return f"expected an object or an array, found {describe_value(top, quote=False)}"
    if "value" in top:
        items = _array(top["value"])
        if items is None:
            return "its value is not an array"
        unknown = sorted(k for k in top if k not in LISTING_KEYS)
        if unknown:
            fr.notes.append(f"{prefix}unknown top-level key(s) not read: {_names(unknown)}")
        link = _plain_value(top.get("nextLink") or top.get("@odata.nextLink"), fr.file)
        if isinstance(link, str) and link:
            fr.next_links.append(link)
        if not items or (isinstance(items, RawArray) and items.is_empty()):
            if endpoint is not None:
                return None
            return "an empty listing (value []): what it lists cannot be told from the file"
        _add_run(fr, items, prefix + "value[{}]", data, listed_in, group)
        return None
    if "members" in top and "groupId" in top:
        group_id = _plain_value(top["groupId"], fr.file)
        items = _array(top["members"])
        if not isinstance(group_id, str) or not group_id.strip() or items is None:
            return "a group member listing needs a groupId (a string) and members (an array)"
        if items and not (isinstance(items, RawArray) and items.is_empty()):
            _add_run(fr, items, prefix + "members[{}]", data, None, group_id.strip())
        return None
    obj = {k: _plain_value(v, fr.file) for k, v in top.items()}
    found = classify(obj)
    if isinstance(found, str):
        keys = sorted(obj)
        if "type" in obj or not keys:
            return found if keys else "an empty object"
        return f"no key the tool reads at the top level (found {_names(keys)})"
    _add_run(fr, [obj], prefix + whole, data, listed_in, group)
    return None


def _names(keys: list[str]) -> str:
    from auditor.errors import shown_name

    shown = ", ".join(repr(shown_name(k, 40)) for k in keys[:10])
    return shown + (f" and {len(keys) - 10:,} more" if len(keys) > 10 else "")


def _plain_value(value: Any, source: str) -> Any:
    if isinstance(value, msgspec.Raw):
        return decode_json(bytes(value), source=source)
    return value


def _array(value: Any) -> list[Any] | RawArray | None:
    if isinstance(value, msgspec.Raw):
        array = RawArray(value)
        return array if array.is_array() else None
    return value if isinstance(value, list) else None


def _add_run(
    fr: FileRead,
    items: list[Any] | RawArray,
    template: str,
    data: bytes | memoryview | None,
    listed_in: str | None,
    group: str | None,
) -> None:
    fast: str | None = None
    if isinstance(items, RawArray):
        known, first = items.first()
        if not known:
            items = items.split(fr.file)
            if not items:
                return
            first = plain(items[0], data, fr.file)
    else:
        first = plain(items[0], data, fr.file)
    if isinstance(items, RawArray) or isinstance(items[0], msgspec.Raw):
        found = classify(first)
        if isinstance(found, tuple):
            section, shape = found
            if section in ("roleAssignments", "denyAssignments") and shape == "rest":
                fast = section
            elif section == "roleAssignments" and shape == "flat":
                fast = "cli-roleAssignments"
            elif section == "principals":
                fast = "principals"
    fr.runs.append(Run(items, template, data, fast, listed_in, group))
