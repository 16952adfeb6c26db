"""Secrets in plans: literal secrets (CLU-008), weak literal passwords (CLU-010), and API token
values in plans and files (TOK-006).

Values are read from the wire models' :class:`~auditor.model.secrets.Secret` and only ever described
(``a literal value of 9 characters``): never copied into evidence or messages.

A **token value** (TOK-006) is, by definition here:

- a string held by a field whose name is token-like: ``token``, ``apiToken``, ``api_token``,
  ``api-token``, ``X-API-Token``, ``APIToken``, or any name ending in ``token`` (case-insensitive),
  of at least 20 characters drawn from letters, digits and ``-_.+/=`` (the developer-tooling
  service's tokens are 40 hexadecimal characters; base64 and URL-safe forms are covered too);
- in free text (a configuration file that is not JSON or YAML, a shell script, an ``.env`` file), the
  same kind of value after ``X-API-Token``, ``apiToken`` or another token-like name and ``:`` or ``=``;
- in either, references (``<NAME>``, ``${NAME}``, ``$NAME``) and masks (``*****``) are not values.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from auditor.audit.checks._registry import (
    CheckContext,
    Outcome,
    config_get,
    describe_secret,
    resource_check,
    run_check,
)
from auditor.audit.checks.cluster import GATEWAY_GROUP, cluster_roles, configurations
from auditor.audit.resources import Resource
from auditor.audit.unknowns import request_unknowns, split_path, unknown_at, unknown_outcome
from auditor.errors import InputError
from auditor.model.secrets import Secret

if TYPE_CHECKING:
    from auditor.estate.plan import PlanRequest, UnknownInfo

GATEWAY_PASSWORD = ("gateway", "restAuthCredential.password")
METASTORE_PASSWORDS = (
    ("ambari-conf", "database-user-password"),
    ("hive-site", "javax.jdo.option.ConnectionPassword"),
    ("oozie-site", "oozie.service.JPAService.jdbc.password"),
)


def secret_fields(
    resource: Resource, *, storage_keys: bool = True
) -> Iterator[tuple[str, str, Any]]:
    """``(field label, JSON location, value)`` of every secret field of a cluster body: gateway
    password, node passwords, storage keys (optional) and metastore passwords. Values are Secrets
    (or whatever non-string the body held)."""
    for label, where, _, value in _secret_fields(resource, storage_keys=storage_keys):
        yield label, where, value


def _secret_fields(
    resource: Resource, *, storage_keys: bool = True
) -> Iterator[tuple[str, str, str, Any]]:
    """:func:`secret_fields` with each field's member path in the body (for its unknown value)."""
    configs = configurations(resource)
    base = f"{resource.location}.properties"
    for group_name, key in (GATEWAY_PASSWORD, *METASTORE_PASSWORDS):
        real_group, group = config_get(configs, group_name)
        if not isinstance(group, Mapping):
            continue
        real_key, value = config_get(group, key)
        if real_key is not None:
            yield (
                f"configurations.{real_group}[{real_key}]",
                f"{base}.clusterDefinition.configurations.{real_group}.{real_key}",
                f"{_CONFIGURATIONS}/{real_group}/{real_key}",
                value,
            )
    for label, index, role in cluster_roles(resource):
        linux = role.osProfile.linuxOperatingSystemProfile if role.osProfile else None
        if linux is not None and linux.password is not None:
            yield (
                f"roles[{label}].osProfile.linuxOperatingSystemProfile.password",
                f"{base}.computeProfile.roles[{index}].osProfile.linuxOperatingSystemProfile.password",
                f"properties/computeProfile/roles/{index}/osProfile/linuxOperatingSystemProfile/password",
                linux.password,
            )
    if storage_keys:
        profile = resource.model.properties.storageProfile
        for i, account in enumerate(profile.storageaccounts if profile is not None else []):
            if account.key is not None:
                yield (
                    f"storageaccounts[{account.name or i}].key",
                    f"{base}.storageProfile.storageaccounts[{i}].key",
                    f"properties/storageProfile/storageaccounts/{i}/key",
                    account.key,
                )


_CONFIGURATIONS = "properties/clusterDefinition/configurations"
_SECRET_PATHS: tuple[tuple[str, ...], ...] = (
    *(
        ("properties", "clusterdefinition", "configurations", group.lower(), key.lower())
        for group, key in (GATEWAY_PASSWORD, *METASTORE_PASSWORDS)
    ),
    (
        "properties", "computeprofile", "roles", "*", "osprofile", "linuxoperatingsystemprofile",
        "password",
    ),
)  # fmt: skip
_STORAGE_KEY_PATH = ("properties", "storageprofile", "storageaccounts", "*", "key")


def _touches(parts: tuple[str, ...], pattern: tuple[str, ...]) -> bool:
    """The path ``parts`` is a secret field of ``pattern`` (``*``: an array index), lies inside
    one, or holds one."""
    return all(
        want == got or (want == "*" and got.isdigit())
        for want, got in zip(pattern, parts, strict=False)
    )


def unknown_secret_fields(
    resource: Resource, *, storage_keys: bool = True
) -> dict[str, UnknownInfo]:
    """The values of a plan body that are not known before deployment and hold (or are) a secret
    field of :func:`secret_fields`, by body path."""
    patterns = (*_SECRET_PATHS, _STORAGE_KEY_PATH) if storage_keys else _SECRET_PATHS
    return {
        path: info
        for path, info in request_unknowns(resource).items()
        if any(_touches(split_path(path, indexes=True), p) for p in patterns)
    }


def _as_secret(value: Any) -> Secret | None:
    if isinstance(value, Secret):
        return value
    if isinstance(value, str):
        return Secret(value)
    return None


@resource_check("literal-secrets")
def literal_secrets(resource: Resource, ctx: CheckContext) -> Iterator[Outcome]:
    """CLU-008: every secret field holds a reference (``<NAME>`` or ``${NAME}``).

    A value not known before deployment that is a secret reference (a template's ``securestring``
    parameter without a value, ``listKeys(...)``, a Key Vault reference, a Terraform variable
    without a default) is a reference; any other unknown value there makes the finding ``unknown``.
    """
    checked: list[str] = []
    failed = False
    unknown = unknown_secret_fields(resource)
    unresolved = {p: i.text for p, i in unknown.items() if not i.secret_reference}
    for label, where, path, value in _secret_fields(resource):
        if unknown and unknown_at(resource, path) is not None:
            continue  # judged from its unknown value
        checked.append(label)
        secret = _as_secret(value)
        if secret is not None and secret.is_reference:
            continue
        ctx.remember_secret(secret)
        failed = True
        description = describe_secret(secret) if secret is not None else "a non-string value"
        yield Outcome(
            False,
            {"field": label, "value": description},
            detail=label,
            location=where,
            fields={"field": label, "value": description},
        )
    references = sorted(p for p, i in unknown.items() if i.secret_reference)
    if unresolved:
        yield unknown_outcome(
            unresolved,
            detail="unresolved",
            evidence={"secretReferences": references} if references else None,
        )
    elif not failed:
        evidence: dict[str, Any] = {"secretFields": checked}
        if references:
            evidence["secretReferences"] = references
        yield Outcome(True, evidence)


def password_weaknesses(value: str, min_length: int) -> list[str]:
    """What makes a password weak (empty when strong), in words that do not reveal it."""
    out: list[str] = []
    if len(value) < min_length:
        out.append(f"shorter than {min_length} characters")
    if not any(c.isupper() for c in value):
        out.append("no upper-case letter")
    if not any(c.islower() for c in value):
        out.append("no lower-case letter")
    if not any(c.isdigit() for c in value):
        out.append("no digit")
    if all(c.isalnum() for c in value):
        out.append("no symbol")
    return out


@resource_check("weak-passwords")
def weak_passwords(resource: Resource, ctx: CheckContext) -> Iterator[Outcome]:
    """CLU-010: literal gateway, node and metastore passwords are strong (storage keys excluded).

    A password not known before deployment, secret references included, cannot be judged: the
    finding is ``unknown``."""
    min_length = int(ctx.settings["minPasswordLength"])
    checked: list[str] = []
    failed = False
    unknown = unknown_secret_fields(resource, storage_keys=False)
    for label, where, path, value in _secret_fields(resource, storage_keys=False):
        if unknown and unknown_at(resource, path) is not None:
            continue  # judged from its unknown value
        secret = _as_secret(value)
        if secret is None or secret.is_reference:
            continue
        ctx.remember_secret(secret)
        checked.append(label)
        weak = password_weaknesses(secret.reveal(), min_length)
        if weak:
            failed = True
            description = describe_secret(secret)
            yield Outcome(
                False,
                {"field": label, "value": description, "weaknesses": weak},
                detail=label,
                location=where,
                fields={"field": label, "value": description, "weakness": ", ".join(weak)},
            )
    if unknown:
        yield unknown_outcome({p: i.text for p, i in unknown.items()}, detail="unresolved")
    elif not failed:
        yield Outcome(True, {"literalPasswordsChecked": checked})


# --- TOK-006 -----------------------------------------------------------------------------------

TOKEN_KEY = re.compile(r"(?:^|[^a-z0-9])?(?:x-)?(?:api[-_]?)?token$", re.IGNORECASE)
TOKEN_VALUE = re.compile(r"^[A-Za-z0-9\-_.+/=]{20,}$")
_REFERENCE = re.compile(r"^(?:<[^<>]+>|\$\{[^{}]+\}|\$[A-Za-z_][A-Za-z0-9_]*|\*+)$")
_TEXT_ASSIGNMENT = re.compile(
    r"(?P<key>[A-Za-z0-9_\-]*token)[\"']?\s*[:=]\s*[\"']?(?P<value>[A-Za-z0-9\-_.+/=]{20,})",
    re.IGNORECASE,
)


def is_token_key(key: str) -> bool:
    """A field name that holds API tokens (``token``, ``apiToken``, ``X-API-Token``, ``*token``)."""
    return key.lower().endswith("token")


def is_token_value(value: Any) -> bool:
    """A string that looks like an API token value (see the module docstring)."""
    if isinstance(value, Secret):
        value = value.reveal()
    if not isinstance(value, str):
        return False
    text = value.strip()
    if text.lower().startswith("bearer "):
        text = text[7:].strip()
    return bool(TOKEN_VALUE.match(text)) and not _REFERENCE.match(text)


def scan_json(node: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """``(JSON path, value)`` of every token value in a JSON-like document."""
    if isinstance(node, Mapping):
        for key, value in node.items():
            here = f"{path}.{key}" if path else str(key)
            if isinstance(key, str) and is_token_key(key) and is_token_value(value):
                yield here, value
            else:
                yield from scan_json(value, here)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from scan_json(value, f"{path}[{i}]")


def scan_text(text: str) -> Iterator[tuple[str, str]]:
    """``(line N, value)`` of every token assignment in free text."""
    for number, line in enumerate(text.splitlines(), start=1):
        for m in _TEXT_ASSIGNMENT.finditer(line):
            if is_token_value(m.group("value")):
                yield f"line {number} ({m.group('key')})", m.group("value")


def scan_file(path: str) -> list[tuple[str, str]]:
    """Token values in a file: JSON and YAML are walked by key, anything else is read as text."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read the file to scan: {exc.strerror}", source=path) from None
    text = data.decode("utf-8", errors="replace")
    document: Any = None
    if path.lower().endswith(".json"):
        try:
            document = json.loads(text)
        except ValueError:
            document = None
    elif path.lower().endswith((".yaml", ".yml")):
        try:
            document = yaml.safe_load(text)
        except yaml.YAMLError:
            document = None
    found = [(p, str(v)) for p, v in scan_json(document)] if document is not None else []
    seen = {v for _, v in found}
    found += [(w, v) for w, v in scan_text(text) if v not in seen]
    return found


def _where(request: PlanRequest, field: str) -> str:
    """Where in its file a request's field is: the template resource's address
    (``azurerm_eventgrid_domain.d``) or the plan file's JSON path (``requests[0].body``)."""
    source = request.source
    if source is not None and source.address:
        return f"{source.address} ({field})"
    return f"{request.json_path}.body.{field}"


@run_check("token-values")
def token_values(ctx: CheckContext) -> Iterator[Outcome]:
    """TOK-006: no API token value in the plan's bodies, the snapshot's tokens, or files given."""
    if ctx.plan is not None:
        # each request's own resource: a finding names the template file and line the request
        # came from (its source), not the gate's target
        resources = {id(r.request): r for r in ctx.resources.get("request", ())}
        for request in ctx.plan.requests:
            file = request.source.file if request.source is not None else ctx.plan.source
            file = file or "<plan>"
            resource = resources.get(id(request))
            found = list(scan_json(request.raw_body))
            for where, value in found:
                ctx.remember_secret(str(value))
                desc = describe_secret(str(value))
                yield Outcome(
                    False,
                    {"file": file, "field": where, "value": desc},
                    detail=where,
                    resource=resource,
                    resource_id=request.resource_id,
                    resource_type="Plan/requests",
                    resource_name=request.name,
                    location=f"{request.json_path}.body.{where}",
                    fields={"where": _where(request, where), "value": desc},
                )
            if not found:
                yield Outcome(
                    True,
                    {"file": file},
                    resource=resource,
                    resource_id=request.resource_id,
                    resource_type="Plan/requests",
                    resource_name=request.name,
                    location=f"{request.json_path}.body",
                )
    if ctx.snapshot is not None and ctx.snapshot.devTooling is not None:
        from auditor.audit.resources import token_resource_id

        file = ctx.snapshot.source or "<snapshot>"
        for i, token in enumerate(ctx.snapshot.devTooling.tokens):
            if token.value is not None and not token.value.is_empty:
                ctx.remember_secret(token.value)
                desc = describe_secret(token.value)
                yield Outcome(
                    False,
                    {"file": file, "field": f"devTooling.tokens[{i}].value", "value": desc},
                    detail="value",
                    resource_id=token_resource_id(token.id, i),
                    resource_type="DevTooling/apiTokens",
                    resource_name=token.id,
                    location=f"devTooling.tokens[{i}].value",
                    fields={"where": f"devTooling.tokens[{i}].value", "value": desc},
                )
    for path in ctx.files:
        found = scan_file(path)
        for where, value in found:
            ctx.remember_secret(value)
            desc = describe_secret(value)
            yield Outcome(
                False,
                {"file": path, "field": where, "value": desc},
                detail=where,
                resource_id=path,
                resource_type="File",
                resource_name=path,
                location=where,
                fields={"where": where, "value": desc},
            )
        if not found:
            yield Outcome(
                True, {"file": path}, resource_id=path, resource_type="File", resource_name=path
            )


__all__ = ["GATEWAY_GROUP", "is_token_key", "is_token_value", "scan_file", "scan_json", "scan_text"]
