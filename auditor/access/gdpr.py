"""The GDPR export of one data subject: every record of a snapshot that names the subject.

- Role assignments where the subject is the principal, or the creator or last updater.
- Deny assignments the way the listing's ``gdprExportPrincipalId`` filter returns them (semantics
  §3, seed 4.1): those naming the subject (directly, or every principal through the all-principals
  entry) and those excluding it; with only ``id``, ``name``, ``type`` and the properties
  ``denyAssignmentName`` and ``description``.
- Group memberships, direct and transitive (with the path), and the directory entry itself.
- Developer tooling, matched by e-mail (ignoring case): app memberships, apps the subject owns,
  the tooling account's profile when it is the subject's, and then its API tokens — metadata only,
  never a token value.
- Health events describe services, not people: they hold no personal data and are not exported.
"""

from __future__ import annotations

from typing import Any

import msgspec

from auditor.access.directory import Directory
from auditor.access.indexes import is_all_principals
from auditor.errors import InputError
from auditor.estate.snapshot import Snapshot

__all__ = ["EXPORT_VERSION", "gdpr_export"]

EXPORT_VERSION = 1
_TOKEN_FIELDS = ("id", "kind", "app", "accessType", "description", "createdAt")


def _same(left: str | None, right: str | None) -> bool:
    return left is not None and right is not None and left.strip().lower() == right.strip().lower()


def _record(snapshot: Snapshot, section: str, index: int, record: Any) -> Any:
    kept = snapshot.preserved.get(section, {}).get(index)
    return kept if kept is not None else msgspec.to_builtins(record)


def gdpr_export(
    snapshot: Snapshot,
    principal_id: str | None = None,
    email: str | None = None,
    *,
    directory: Directory | None = None,
) -> dict[str, Any]:
    """The export document (JSON-ready) for the subject named by ``principal_id`` or ``email``
    (exactly one). ``email`` resolves through the directory, ignoring case; an e-mail that more than
    one directory entry carries is refused (name the principal id instead)."""
    if (principal_id is None) == (email is None):
        raise InputError("give exactly one of a principal id and an e-mail address")
    directory = directory or Directory(snapshot.principals)
    notes: list[str] = []
    key: str | None
    if principal_id is not None:
        if not principal_id.strip():
            raise InputError("expected a principal id, found an empty string")
        key = principal_id.strip().lower()
    else:
        assert email is not None
        if not email.strip():
            raise InputError("expected an e-mail address, found an empty string")
        matches = directory.by_email(email)
        if len(matches) > 1:
            ids = ", ".join(directory.display(k) for k in sorted(matches))
            raise InputError(
                f"the e-mail address {email!r} belongs to several directory entries ({ids}); "
                "export by --principal-id instead"
            )
        key = matches[0] if matches else None
        if key is None:
            notes.append(
                "No directory entry carries this e-mail address: only developer-tooling records "
                "(matched by e-mail) can be exported."
            )
    entry = directory.entry(key) if key is not None else None
    subject_email = email.strip() if email is not None else (entry.email if entry else None)
    shown_id = directory.display(key) if key is not None else None

    return {
        "exportVersion": EXPORT_VERSION,
        "subject": {
            "principalId": shown_id,
            "email": subject_email,
            "requestedBy": "principalId" if principal_id is not None else "email",
            "inDirectory": entry is not None,
        },
        "snapshot": {
            "source": snapshot.source,
            "collectedAt": snapshot.collectedAt,
            "tenantId": snapshot.tenantId,
            # what the loader changed (duplicates merged, secret-looking unknown fields dropped)
            "warnings": list(snapshot.warnings),
        },
        "directoryEntry": msgspec.to_builtins(entry) if entry is not None else None,
        "groupMemberships": _memberships(directory, key),
        "roleAssignments": _role_assignments(snapshot, key, directory),
        "denyAssignments": _deny_assignments(snapshot, key),
        "devTooling": _dev_tooling(snapshot, subject_email),
        "healthEvents": {
            "included": False,
            "reason": (
                "Health events describe services and resources, not people; they hold no "
                "personal data of the subject."
            ),
        },
        "notes": notes,
    }


def _memberships(directory: Directory, key: str | None) -> dict[str, Any]:
    if key is None:
        return {"direct": [], "transitive": []}
    direct = [
        {"id": directory.display(g), "displayName": _name(directory, g)}
        for g in directory.direct_groups(key)
    ]
    transitive = []
    for group in sorted(directory.groups_of(key)):
        path = directory.group_path(key, group)
        transitive.append(
            {
                "id": directory.display(group),
                "displayName": _name(directory, group),
                "direct": len(path) == 2,
                "path": [directory.display(k) for k in path],
            }
        )
    return {"direct": direct, "transitive": transitive}


def _name(directory: Directory, key: str) -> str | None:
    entry = directory.entry(key)
    return entry.displayName if entry is not None else None


def _role_assignments(
    snapshot: Snapshot, key: str | None, directory: Directory
) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {"asPrincipal": [], "asCreatedBy": [], "asUpdatedBy": []}
    if key is None:
        return out
    from auditor.estate.roles import role_catalogue, role_guid

    roles = role_catalogue(snapshot.roleDefinitions)
    for index, record in enumerate(snapshot.roleAssignments):
        props = record.properties
        hits = (
            ("asPrincipal", props.principalId),
            ("asCreatedBy", props.createdBy),
            ("asUpdatedBy", props.updatedBy),
        )
        for bucket, value in hits:
            if _same(value, key):
                item = _record(snapshot, "roleAssignments", index, record)
                role = roles.get(role_guid(props.roleDefinitionId))
                if isinstance(item, dict) and role is not None and role.properties is not None:
                    # the role by name next to its GUID (the record itself is unchanged)
                    item = {**item, "roleName": role.properties.roleName}
                if isinstance(item, dict):
                    # who granted it, by name when the directory knows them (for the PDF)
                    named = (
                        ("createdByName", props.createdBy),
                        ("updatedByName", props.updatedBy),
                        ("principalName", props.principalId),
                    )
                    for field, who in named:
                        name = _name(directory, who.lower()) if who else None
                        if name:
                            item = {**item, field: name}
                out[bucket].append(item)
    return out


def _deny_assignments(snapshot: Snapshot, key: str | None) -> list[dict[str, Any]]:
    if key is None:
        return []
    out: list[dict[str, Any]] = []
    for record in snapshot.denyAssignments:
        props = record.properties
        roles: list[str] = []
        if any(_same(p.id, key) for p in props.principals if not is_all_principals(p)):
            roles.append("named")
        elif any(is_all_principals(p) for p in props.principals):
            roles.append("allPrincipals")
        if any(_same(p.id, key) for p in props.excludePrincipals):
            roles.append("excluded")
        if not roles:
            continue
        out.append(
            {
                "id": record.id,
                "name": record.name,
                "type": record.type,
                "properties": {
                    "denyAssignmentName": props.denyAssignmentName,
                    "description": props.description,
                },
                "subjectIs": roles,
            }
        )
    return out


def _dev_tooling(snapshot: Snapshot, email: str | None) -> dict[str, Any]:
    dev = snapshot.devTooling
    out: dict[str, Any] = {"user": None, "appMemberships": [], "ownedApps": [], "tokens": []}
    if dev is None:
        out["note"] = "The snapshot holds no developer-tooling data."
        return out
    if email is None:
        out["note"] = "The subject has no e-mail address, so no developer-tooling record matches."
        return out
    user = dev.user
    is_account = user is not None and _same(user.email, email)
    for app in dev.apps:
        for member in app.users:
            if _same(member.email, email):
                out["appMemberships"].append(
                    {
                        "app": f"{app.owner}/{app.name}",
                        "ownerType": app.ownerType,
                        "role": member.role,
                    }
                )
    if is_account and user is not None:
        out["user"] = user.to_wire()
        account_names = {n.lower() for n in (user.name, user.id) if n}
        out["ownedApps"] = [
            f"{app.owner}/{app.name}"
            for app in dev.apps
            if (app.ownerType or "").lower() == "user"
            and app.owner is not None
            and app.owner.lower() in account_names
        ]
        out["tokens"] = [
            {name: getattr(token, name) for name in _TOKEN_FIELDS} for token in dev.tokens
        ]
        out["note"] = (
            "API tokens are listed by their metadata only; token values are never exported."
        )
    else:
        out["note"] = (
            "The developer-tooling account of this snapshot is not the subject's, so its API "
            "tokens are not the subject's and are not exported."
        )
    return out
