"""Cluster checks that data cannot say well: node roles in a virtual network (CLU-004), gateway
authentication (CLU-007), password login (CLU-009), version (CLU-011), default storage (CLU-013).

A plan's values that are not known before deployment make these ``unknown``: through the paths
each check reads (:data:`auditor.audit.unknowns.CHECK_READS`), or, for CLU-009, in the check.

Roles are named by their ``name`` (``headnode``, ...) in details and evidence, so a fingerprint does
not change when roles are reordered.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

from auditor.audit.checks._registry import (
    CheckContext,
    Outcome,
    config_get,
    config_group,
    resource_check,
)
from auditor.audit.resources import Resource
from auditor.audit.unknowns import unknown_at, unknown_outcome


def cluster_roles(resource: Resource) -> list[tuple[str, int, Any]]:
    """``(role label, index, role model)`` of a cluster's compute profile."""
    profile = resource.model.properties.computeProfile
    roles: Sequence[Any] = profile.roles if profile is not None else []
    return [(r.name or f"roles[{i}]", i, r) for i, r in enumerate(roles)]


def configurations(resource: Resource) -> dict[str, Any]:
    definition = resource.model.properties.clusterDefinition
    configs = definition.configurations if definition is not None else None
    return configs if isinstance(configs, dict) else {}


@resource_check("roles-in-virtual-network")
def roles_in_virtual_network(resource: Resource, ctx: CheckContext) -> Iterator[Outcome]:
    """CLU-004: every role has ``virtualNetworkProfile.id`` and ``.subnet``."""
    roles = cluster_roles(resource)
    failed = False
    for label, index, role in roles:
        vnet = role.virtualNetworkProfile
        missing = [
            name
            for name, value in (
                ("virtualNetworkProfile.id", vnet.id if vnet else None),
                ("virtualNetworkProfile.subnet", vnet.subnet if vnet else None),
            )
            if not value
        ]
        if missing:
            failed = True
            yield Outcome(
                False,
                {"role": label, "missing": missing},
                detail=f"role={label}",
                location=f"{resource.location}.properties.computeProfile.roles[{index}]",
                fields={"missing": " and ".join(missing)},
            )
    if not failed:
        yield Outcome(True, {"roles": [label for label, _, _ in roles]})


GATEWAY_GROUP = "gateway"
GATEWAY_ENABLED_KEY = "restAuthCredential.isEnabled"


def is_true(value: Any) -> bool:
    """True for the boolean true or the string ``"true"`` (any case, surrounding spaces ignored)."""
    if isinstance(value, bool):
        return value
    return isinstance(value, str) and value.strip().lower() == "true"


@resource_check("gateway-auth")
def gateway_auth(resource: Resource, ctx: CheckContext) -> Iterator[Outcome]:
    """CLU-007: the gateway group's ``restAuthCredential.isEnabled`` is true or ``"true"``."""
    group = config_group(configurations(resource), GATEWAY_GROUP)
    key, value = config_get(group, GATEWAY_ENABLED_KEY)
    shown = "not set" if key is None else repr(value) if isinstance(value, str) else value
    evidence = {"gateway": group is not None, GATEWAY_ENABLED_KEY: value}
    yield Outcome(
        is_true(value),
        evidence,
        location=f"{resource.location}.properties.clusterDefinition.configurations",
        fields={"isEnabled": shown},
    )


ROLES_PATH = "properties/computeProfile/roles"
LINUX_PROFILE = "osProfile/linuxOperatingSystemProfile"


@resource_check("node-password-login")
def node_password_login(resource: Resource, ctx: CheckContext) -> Iterator[Outcome]:
    """CLU-009: no role sets a password, and every role has SSH public keys.

    **Decision** (a template's values not known before deployment, :mod:`auditor.audit.unknowns`):
    a password whose value is unknown is set all the same (a reference enables password login as
    much as a literal); SSH public keys that are unknown cannot be counted, so a role with no
    password and unknown keys is ``unknown``, as is a cluster whose roles are unknown."""
    whole = unknown_at(resource, ROLES_PATH)
    if whole is not None:
        yield unknown_outcome({ROLES_PATH: whole.text})
        return
    failed = False
    unresolved: dict[str, str] = {}
    for label, index, role in cluster_roles(resource):
        linux = role.osProfile.linuxOperatingSystemProfile if role.osProfile else None
        password = linux.password if linux is not None else None
        ssh = linux.sshProfile if linux is not None else None
        keys = len(ssh.publicKeys) if ssh is not None else 0
        base = f"{ROLES_PATH}/{index}/{LINUX_PROFILE}"
        profile_unknown = unknown_at(resource, base)
        if profile_unknown is not None:  # the role or its whole profile
            unresolved[base] = profile_unknown.text
            continue
        password_unknown = unknown_at(resource, f"{base}/password") is not None
        keys_unknown = unknown_at(resource, f"{base}/sshProfile/publicKeys")
        reasons = []
        if password is not None or password_unknown:
            reasons.append("a password is set")
        if keys == 0 and keys_unknown is not None:
            if not reasons:
                unresolved[f"{base}/sshProfile/publicKeys"] = keys_unknown.text
                continue
        elif keys == 0:
            reasons.append("no SSH public key is given")
        if reasons:
            failed = True
            yield Outcome(
                False,
                {
                    "role": label,
                    "passwordSet": password is not None or password_unknown,
                    "sshPublicKeys": keys,
                },
                detail=f"role={label}",
                location=f"{resource.location}.properties.computeProfile.roles[{index}]",
                fields={"reason": " and ".join(reasons)},
            )
    if unresolved:
        yield unknown_outcome(unresolved, detail="unresolved")
    elif not failed:
        yield Outcome(True, {"roles": [label for label, _, _ in cluster_roles(resource)]})


_VERSION = re.compile(r"^\s*(\d{1,18}(?:\.\d{1,18})*)\s*$")


def parse_version(text: Any) -> tuple[int, ...] | None:
    """``"5.1"`` -> ``(5, 1)``; ``"5.1.3000.0.2308052231"`` -> ``(5, 1, 3000, 0, 2308052231)``.

    A part of more than 18 digits is no version (None): no real one has such a part, and ``int``
    of a 10,000-digit string raises."""
    if not isinstance(text, str):
        return None
    m = _VERSION.match(text)
    return tuple(int(p) for p in m.group(1).split(".")) if m else None


def version_below(version: tuple[int, ...], minimum: tuple[int, ...]) -> bool:
    """Compared part by part on the parts the minimum gives (``5.1.3000`` is not below ``5.1``)."""
    return version[: len(minimum)] < minimum


@resource_check("cluster-version")
def cluster_version(resource: Resource, ctx: CheckContext) -> Iterator[Outcome]:
    """CLU-011: ``clusterVersion`` at or above the supported minimum (numeric, part by part).

    **Decision**: a cluster without ``clusterVersion`` passes (the service picks its current default
    version); a version that is not dotted numbers fails (it cannot be shown to be supported).
    """
    minimum_text = str(ctx.settings["minimumClusterVersion"])
    minimum = parse_version(minimum_text) or (0,)
    value = resource.model.properties.clusterVersion
    evidence = {"clusterVersion": value, "minimumClusterVersion": minimum_text}
    fields = {"clusterVersion": value if value is not None else "not set", "minimum": minimum_text}
    if value is None:
        yield Outcome(True, evidence, fields=fields)
        return
    parsed = parse_version(value)
    yield Outcome(
        parsed is not None and not version_below(parsed, minimum), evidence, fields=fields
    )


@resource_check("default-storage-account")
def default_storage_account(resource: Resource, ctx: CheckContext) -> Iterator[Outcome]:
    """CLU-013: exactly one storage account has ``isDefault: true``."""
    profile = resource.model.properties.storageProfile
    accounts = profile.storageaccounts if profile is not None else []
    defaults = [
        a.name or f"storageaccounts[{i}]" for i, a in enumerate(accounts) if a.isDefault is True
    ]
    yield Outcome(
        len(defaults) == 1,
        {"storageAccounts": len(accounts), "defaults": defaults},
        location=f"{resource.location}.properties.storageProfile",
        fields={"count": len(defaults), "defaults": ", ".join(defaults)},
    )
