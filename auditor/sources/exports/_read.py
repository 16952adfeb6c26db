"""One input file recognised by its shape (contracts §8), or read as the format ``--format`` names.

Recognition reads the file once: a snapshot written by the tool starts with ``{"snapshotVersion":``,
seen in its first bytes, and goes straight to the snapshot loader (a million role assignments are
never parsed twice); anything else is split at its top level without building objects
(``msgspec.Raw``), and its keys tell what it is.
"""

from __future__ import annotations

import os
import re
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from auditor.errors import InputError, shown_name
from auditor.estate import check_utf8, open_input, read_input_text
from auditor.estate.snapshot import SECTION_ORDER
from auditor.sources.exports._documents import (
    MEMBERS_FILE,
    FileRead,
    RawArray,
    read_document,
    split_top,
)
from auditor.sources.exports._traffic import read_cassette, read_har
from auditor.sources.exports._yaml import load_yaml_document

if TYPE_CHECKING:
    from auditor.estate.snapshot import Snapshot


class ExportFormat(StrEnum):
    """What ``--format`` can force (recognised by shape when not given)."""

    snapshot = "snapshot"
    rest = "rest"
    cli = "cli"
    group_members = "group-members"
    har = "har"
    vcr = "vcr"


EXPECTED = (
    'a snapshot (contracts §2); a management-API listing ({"value": [...]}) or resource (role '
    "and deny assignments, role definitions, clusters, domains, health events; Microsoft.* or "
    "Cloud.* names); the vendor CLI's JSON output (role assignment, role definition, user, "
    "group, member and resource lists); health events in the SDK's flattened shape; a HAR file "
    "or VCR cassette of management-API calls"
)
"""What an input may be, for messages."""

_SNAPSHOT_HEAD = re.compile(rb'^\s*\{\s*"snapshotVersion"\s*:')
_SNAPSHOT_KEYS = frozenset({"snapshotVersion", "collectedAt", "tenantId", *SECTION_ORDER})
KNOWN_EXTRA_KEYS = frozenset({"incomplete"})
"""Top-level keys the tool itself writes beside the sections (``collect``'s list of what it could
not read): not unknown."""
_YAML_SUFFIXES = (".yaml", ".yml")
_LARGE = 64 << 20
"""A file larger than this is peeked at before it is read (a snapshot goes to its loader)."""
MAX_YAML = 256 << 20


def read_path(path: str, forced: ExportFormat | None = None) -> FileRead:
    """Read and recognise one file. ``unrecognised`` says why nothing was found in it."""
    fr = FileRead(file=path)
    suffix = os.path.splitext(path)[1].lower()
    if suffix in _YAML_SUFFIXES and forced in (None, ExportFormat.vcr):
        return _yaml_cassette(fr, forced)
    fd = open_input(path, what="input file")
    try:
        if os.fstat(fd).st_size > _LARGE:
            head = _unmarked(os.pread(fd, 4096, 0))
            if forced is ExportFormat.snapshot or (forced is None and _SNAPSHOT_HEAD.match(head)):
                # a large snapshot is left to its loader: mapped, its pages given back as they
                # are decoded, never read twice
                return _snapshot(fr, _load_snapshot(path))
        data = _read_all(fd, path)
    finally:
        os.close(fd)
    head = data[:4096]
    if forced is ExportFormat.snapshot or (forced is None and _SNAPSHOT_HEAD.match(head)):
        # a small snapshot is read again from the page cache by its loader, not parsed twice
        del data
        return _snapshot(fr, _load_snapshot(path))
    if head.lstrip()[:1] not in (b"{", b"["):
        if forced is ExportFormat.vcr:
            return _yaml_cassette(fr, forced)
        fr.unrecognised = "not JSON (a YAML cassette must be named .yaml or .yml)"
        return fr
    top = split_top(data, path)
    if isinstance(top, dict):
        keys = set(top)
        if forced is None and keys & _SNAPSHOT_KEYS:
            from auditor.estate.snapshot import loads_snapshot

            return _snapshot(fr, loads_snapshot(data, source=path))
        if forced in (None, ExportFormat.har) and "log" in keys:
            return read_har(fr, data)
        if forced in (None, ExportFormat.vcr) and keys & {"interactions", "http_interactions"}:
            return read_cassette(fr, data)
    mismatch = _mismatch(forced, top)
    if mismatch is not None:
        fr.unrecognised = mismatch
        return fr
    group = None
    named = MEMBERS_FILE.search(os.path.basename(path))
    if named is not None and (isinstance(top, RawArray) or "value" in top):
        group = named.group("group")
    if (
        forced is ExportFormat.group_members
        and group is None
        and not (isinstance(top, dict) and "groupId" in top)
    ):
        fr.unrecognised = (
            "a group member listing needs its group: name the file members-<group id>.json, or "
            'wrap it as {"groupId": "<group id>", "members": [...]}'
        )
        return fr
    reason = read_document(fr, top, data=data, prefix="", whole="(the whole file)", group=group)
    if reason is not None:
        fr.unrecognised = other_format(top) or reason
        return fr
    if group is not None or (isinstance(top, dict) and "groupId" in top):
        fr.kind = "group member listing"
    elif isinstance(top, RawArray):
        fr.kind = "vendor CLI output"
    else:
        fr.kind = "management-API listing" if "value" in top else "management-API resource"
    if fr.vendor:
        fr.kind += " (Microsoft.* names)"
    return fr


def _unmarked(data: bytes) -> bytes:
    return data[3:] if data[:3] == b"\xef\xbb\xbf" else data


def _read_all(fd: int, path: str) -> bytes:
    """The bytes of an open input file (a byte-order mark dropped), refusing an empty file and
    text that is not UTF-8 (line and column). Like :func:`~auditor.estate.read_input_bytes` on
    the descriptor :func:`~auditor.estate.open_input` gave: one open a file (an import reads
    thousands of pages) and no copy of a large file to test it for emptiness."""
    try:
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = _unmarked(fh.read())
    except OSError as exc:
        raise InputError(f"cannot read the input file: {exc.strerror}", source=path) from None
    if not data[:4096].strip() and not data.strip():
        raise InputError("the input file is empty; expected JSON", source=path)
    check_utf8(data, path)
    return data


def _load_snapshot(path: str) -> Snapshot:
    from auditor.estate import snapshot as snapshot_files

    return snapshot_files.load_snapshot(path)


def _mismatch(forced: ExportFormat | None, top: Any) -> str | None:
    if forced is ExportFormat.har:
        return "expected a HAR file (an object with log.entries)"
    if forced is ExportFormat.vcr:
        return "expected a VCR cassette (an object with interactions)"
    if forced is ExportFormat.cli and not isinstance(top, RawArray):
        return "expected the vendor CLI's JSON output (an array), found an object"
    if forced is ExportFormat.rest and not isinstance(top, dict):
        return "expected a management-API response (an object), found an array"
    return None


def _snapshot(fr: FileRead, snap: Snapshot) -> FileRead:
    unknown = [key for key in snap.extra if key not in KNOWN_EXTRA_KEYS]
    if unknown:
        shown = ", ".join(repr(shown_name(k, 40)) for k in unknown[:10])
        more = f" and {len(unknown) - 10:,} more" if len(unknown) > 10 else ""
        snap.warnings.append(
            f"{shown_name(fr.file, 200)}: unknown top-level key(s) {shown}{more}: not read by any "
            "rule (a snapshot has snapshotVersion, collectedAt, tenantId, hierarchy, principals, "
            "roleDefinitions, roleAssignments, denyAssignments, clusters, domains, healthEvents, "
            "devTooling)"
        )
    fr.kind = "snapshot"
    fr.snapshot = snap
    return fr


def _yaml_cassette(fr: FileRead, forced: ExportFormat | None) -> FileRead:
    text = read_input_text(fr.file, what="input file", limit=MAX_YAML)
    document = load_yaml_document(text, source=fr.file)
    if not isinstance(document, dict) or not (
        "interactions" in document or "http_interactions" in document
    ):
        fr.unrecognised = "a YAML file that is not a VCR cassette (no interactions)"
        return fr
    return read_cassette(fr, document)


def other_format(top: Any) -> str | None:
    """What a document that is not an export looks like, with the command that reads it."""
    if not isinstance(top, dict):
        return None
    schema = top.get("$schema")
    schema_text = bytes(schema).decode("utf-8", "replace") if schema is not None else ""
    if "deploymentparameters" in schema_text.lower():
        return (
            "this looks like an ARM deployment parameters file: give it to `auditor gate` with "
            "its template"
        )
    if "deploymenttemplate" in schema_text.lower() or (
        "resources" in top and ("contentVersion" in top or "$schema" in top)
    ):
        return "this looks like an ARM template (a deployment, not a deployed estate): use `auditor gate`"
    if "planVersion" in top:
        return "this looks like a plan file (contracts §3): use `auditor gate`"
    if "resource_changes" in top or "terraform_version" in top:
        return "this looks like a Terraform plan: use `auditor gate`"
    return None
