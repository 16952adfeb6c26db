"""Names, not ids: the display names a snapshot holds for the ids the reports show.

:func:`estate_names` collects them once per run (lower-case id -> name): subscriptions and
management groups (the hierarchy's ``displayName``), principals (the directory's ``displayName``),
roles (``roleName``, by GUID) and, for the role assignments the reports list, "principal as role".
Only what is asked for is looked up, so a run over a million assignments stays fast.

:func:`describe` turns a resource id into the words a reviewer reads ("Payments prod › resource
group rg-edge › Kofi Berg as Contributor"); the id itself is kept beside it for machines.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from itertools import compress
from operator import attrgetter
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from auditor.estate.records import RoleAssignmentRecord
    from auditor.estate.snapshot import Snapshot

_SUBSCRIPTION = re.compile(r"^/subscriptions/([^/]+)", re.IGNORECASE)
_MANAGEMENT_GROUP = re.compile(
    r"^/providers/[^/]+\.Management/managementGroups/([^/]+)", re.IGNORECASE
)
_RESOURCE_GROUP = re.compile(r"/resourceGroups/([^/]+)", re.IGNORECASE)
_TOP = re.compile(
    r"^(?:/subscriptions/[^/]+|/providers/[^/]+\.Management/managementGroups/[^/]+)", re.IGNORECASE
)
""":data:`_SUBSCRIPTION` or :data:`_MANAGEMENT_GROUP` in one match (they cannot both match)."""
_GROUPS = "/resourcegroups/"
_SUBSCRIPTIONS = "/subscriptions/"
_ASSIGNMENT = "/providers/cloud.authorization/roleassignments/"
_ID = attrgetter("id")
_DISPLAY_NAME = attrgetter("displayName")
_AT = "roleAssignments["


def estate_names(
    snapshot: Snapshot,
    resource_ids: Iterable[str] = (),
    *,
    located: Iterable[tuple[str, str | None]] = (),
) -> dict[str, str]:
    """The names of the hierarchy, the roles and principals, and of the role assignments among
    ``resource_ids``, by lower-case id (principals and roles also by their GUID).

    ``located``: ``(resource id, location)`` pairs (a finding's): a role assignment at
    ``roleAssignments[i]`` whose record ``i`` has that very id is found there, without a pass
    over every record (the others are looked for as without it)."""
    from auditor.estate.roles import role_catalogue

    names: dict[str, str] = {}
    for entry in snapshot.hierarchy:
        if entry.displayName:
            names[entry.id.lower()] = entry.displayName
    for role in snapshot.roleDefinitions:
        if role.id and role.properties is not None and role.properties.roleName:
            names[role.id.lower()] = role.properties.roleName
    roles = {
        key: role.properties.roleName
        for key, role in role_catalogue(snapshot.roleDefinitions).items()
        if role.properties is not None and role.properties.roleName
    }
    principals = snapshot.principals
    shown = list(map(_DISPLAY_NAME, principals))  # (a large directory's every entry: in C)
    named = compress(principals, shown)
    people = dict(zip(map(str.lower, map(_ID, named)), filter(None, shown), strict=True))
    wanted = set(resource_ids)
    if wanted:
        name_assignment = _assignment_namer(names, people, roles)
        records = snapshot.roleAssignments
        count = len(records)
        done: set[str] = set()  # the ids found at their location
        # each record is named as soon as it is found, while it is in the processor's caches (a
        # large estate's assignments are spread over a gigabyte)
        for rid, location in located:
            if location is None or not location.startswith(_AT) or rid in done:
                continue
            index = location[len(_AT) : -1]
            if index.isdigit() and int(index) < count and rid in wanted:
                record = records[int(index)]
                if record.id == rid and _ASSIGNMENT in (low := rid.lower()):
                    done.add(rid)
                    name_assignment(low, record)
        rest = {rid for rid in wanted.difference(done) if _ASSIGNMENT in rid.lower()}
        if rest:
            # the ids findings show are the records' own: matched as given, in C; ids are
            # distinct without case (merged on load), so this finds what a case-insensitive
            # pass would
            more = list(compress(records, map(rest.__contains__, map(_ID, records))))
            lowered = {rid.lower() for rid in rest}
            if {ra.id.lower() for ra in more} != lowered:  # an id given in another case
                more = [ra for ra in records if ra.id.lower() in lowered]
            for ra in more:
                name_assignment(ra.id.lower(), ra)
    names.update(people)
    names.update(roles)
    return names


def _assignment_namer(
    names: dict[str, str], people: Mapping[str, str], roles: Mapping[str, str]
) -> Callable[[str, RoleAssignmentRecord], None]:
    """What names a role assignment ("principal as role") by its lower-case id into ``names``,
    when the principal or the role has a name (each role definition id's GUID found once)."""
    from auditor.estate.roles import role_guid

    guids: dict[str, str] = {}

    def name_assignment(key: str, record: RoleAssignmentRecord) -> None:
        props = record.properties
        principal_id = props.principalId.lower()
        role_id = guids.get(props.roleDefinitionId)
        if role_id is None:
            role_id = guids[props.roleDefinitionId] = role_guid(props.roleDefinitionId)
        who = people.get(principal_id)
        what = roles.get(role_id)
        if who or what:
            names[key] = f"{who or principal_id} as {what or role_id}"

    return name_assignment


def describe(resource_id: str, names: Mapping[str, str]) -> str:
    """``resource_id`` in the names ``names`` holds: its subscription or management group, its
    resource group, and its own name when known ("" when there is nothing to add to the id)."""
    if not names or not resource_id:
        return ""
    parts: list[str] = []
    m = _SUBSCRIPTION.match(resource_id) or _MANAGEMENT_GROUP.match(resource_id)
    if m is not None:
        top = names.get(m.group(0).lower())
        if top:
            parts.append(top)
    g = _RESOURCE_GROUP.search(resource_id)
    if g is not None and parts:
        parts.append(f"resource group {g.group(1)}")
    own = names.get(resource_id.lower())
    if own and (m is None or len(m.group(0)) != len(resource_id)):
        parts.append(own)
    return " › ".join(parts)


def describer(names: Mapping[str, str]) -> Callable[[str], str]:
    """``describe(resource_id, names)`` as a function of the id, for a report's every finding:
    the same words, with each subscription's or management group's name looked up once."""
    if not names:
        return _nothing
    tops: dict[str, str | None] = {}  # the id's start in lower case -> its name
    get = names.get
    top_of = _TOP.match
    group_of = _RESOURCE_GROUP.search

    def name_of(resource_id: str) -> str:
        if not resource_id:
            return ""
        low = resource_id.lower()
        if resource_id.isascii() and low.startswith(_SUBSCRIPTIONS):
            # (most ids: the pattern's case-insensitive match found in the lower-case id, by
            # plain string operations rather than the pattern's engine)
            end = low.find("/", len(_SUBSCRIPTIONS))
            if end < 0:
                end = len(low)
            if end == len(_SUBSCRIPTIONS):  # (an empty subscription id: no match)
                return get(low) or ""
            start = low[:end]
        else:
            m = top_of(resource_id)
            if m is None:
                return get(low) or ""
            start = m.group(0).lower()
            end = m.end()
        if start in tops:
            top = tops[start]
        else:
            top = tops[start] = get(start) or None
        own = get(low) if end != len(resource_id) else None
        if top is None:
            return own or ""
        group: str | None = ""
        if resource_id.isascii():  # the pattern's case-insensitive match is the lower-case one
            at = low.find(_GROUPS)
            if at < 0:
                group = None
            else:
                at += len(_GROUPS)
                end = resource_id.find("/", at)
                group = resource_id[at:] if end < 0 else resource_id[at:end]
        if group == "":  # not ASCII, or an empty name (the pattern looks further on)
            g = group_of(resource_id)
            group = None if g is None else g.group(1)
        out = top if group is None else f"{top} › resource group {group}"
        return f"{out} › {own}" if own else out

    return name_of


def _nothing(resource_id: str) -> str:
    return ""
