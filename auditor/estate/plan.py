"""The plan file of contracts section 3: the requests a deployment is about to send.

Each request must be a cluster create (seed 4.3), a domain create-or-update (seed 4.4), or the ``PUT``
or ``DELETE`` of a role assignment or (for what-if analysis) a deny assignment at any scope; its body
is validated by the wire models. A wrong ``api-version`` is kept for the audit to report as a finding.
Plan bodies hold secrets: they are :class:`~auditor.model.secrets.Secret` in the models, and the raw body
is only written back to a plan file, never printed.

:func:`build_request` is the one way a request becomes a :class:`PlanRequest`: the plan file's
requests and the requests the template and Terraform readers produce (:mod:`auditor.sources`) both go
through it, with the same checks and the same error messages.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import parse_qs, unquote, urlsplit

import msgspec
from pydantic import ValidationError

from auditor.errors import InputError, clip, shown_name
from auditor.estate import _errors
from auditor.estate._files import read_input_bytes, write_atomic
from auditor.estate._json import decode_json
from auditor.model.access import DenyAssignment, RoleAssignment
from auditor.model.cluster import ClusterCreateRequest
from auditor.model.defaults import SEED_API_VERSIONS
from auditor.model.domain import DomainCreateRequest

PLAN_VERSION = 1

RequestKind = Literal["cluster", "domain", "roleAssignment", "denyAssignment"]

CONFIGURATION_KINDS: frozenset[str] = frozenset({"cluster", "domain"})
"""Kinds whose body is a resource's configuration, judged by the cluster and domain rules."""

_GROUP_PATH = r"^/subscriptions/(?P<sub>[^/]+)/resourceGroups/(?P<rg>[^/]+)/providers/"
_SCOPE = (
    r"(?P<scope>/providers/Cloud\.Management/managementGroups/[^/]+"
    r"|/subscriptions/(?P<sub>[^/]+)(?:/resourceGroups/(?P<rg>[^/]+))?"
    r"(?:/providers/[^/]+(?:/[^/]+/[^/]+)+)?"
    r"|/\{[^/]*\})?"
)
"""A scope of contracts section 1 (root when empty); ``/{...}`` is a scope a template leaves unknown
(its unresolved expression in braces)."""

_ENDPOINTS: dict[RequestKind, tuple[re.Pattern[str], str, type[Any], tuple[str, ...]]] = {
    "cluster": (
        re.compile(_GROUP_PATH + r"Cloud\.AnalyticsCluster/clusters/(?P<name>[^/]+)/?$", re.I),
        "clusters.create",
        ClusterCreateRequest,
        ("PUT",),
    ),
    "domain": (
        re.compile(_GROUP_PATH + r"Cloud\.EventRouting/domains/(?P<name>[^/]+)/?$", re.I),
        "domains.createOrUpdate",
        DomainCreateRequest,
        ("PUT",),
    ),
    "roleAssignment": (
        re.compile(
            "^" + _SCOPE + r"/providers/Cloud\.Authorization/roleAssignments/(?P<name>[^/]+)/?$",
            re.I,
        ),
        "roleAssignments.list",
        RoleAssignment,
        ("PUT", "DELETE"),
    ),
    "denyAssignment": (
        re.compile(
            "^" + _SCOPE + r"/providers/Cloud\.Authorization/denyAssignments/(?P<name>[^/]+)/?$",
            re.I,
        ),
        "denyAssignments.list",
        DenyAssignment,
        ("PUT", "DELETE"),
    ),
}
"""Each kind's path, the seed operation whose api-version it takes (seed 9: role and deny
assignments share area A's 2022-04-01), its body's wire model, and the methods accepted."""

_ACCEPTED = (
    "PUT /subscriptions/{id}/resourceGroups/{name}/providers/Cloud.AnalyticsCluster/clusters/{name},"
    " PUT /subscriptions/{id}/resourceGroups/{name}/providers/Cloud.EventRouting/domains/{name},"
    " or PUT or DELETE {scope}/providers/Cloud.Authorization/roleAssignments/{id} (or"
    " denyAssignments/{id})"
)
_CONDITION_VERSION = "2.0"


@dataclass(frozen=True, slots=True)
class RequestSource:
    """Where a request's resource is defined (contracts section 6 ``source``): the file as given,
    the 1-based line of its definition when known, and its address (``requests[3]`` in a plan
    file; an ARM symbolic name or name expression, a Terraform address)."""

    file: str
    line: int | None = None
    address: str | None = None


@dataclass(frozen=True, slots=True)
class UnknownInfo:
    """A value of a request body that is not known before deployment (contracts section 6
    ``unknown``): ``text`` says what it is and why, in words that never hold a secret value
    (``parameters('tlsVersion') has no value``); ``secret_reference`` is true when the value is a
    reference to a secret (a ``securestring`` parameter without a value, ``listKeys(...)``, a Key
    Vault reference, a Terraform variable without a default), which is not a literal secret."""

    text: str
    secret_reference: bool = False
    known_parts: tuple[str | None, ...] | None = None
    """For a string of known and unknown pieces: the pieces in order, ``None`` for an unknown one
    (never kept at a secret path); None when nothing of the value is known."""


@dataclass(frozen=True)
class PlanRequest:
    """One request of a plan, recognised and validated.

    ``kind`` says what it creates: ``cluster`` and ``domain`` (a configuration the rules judge),
    ``roleAssignment`` and ``denyAssignment`` (``PUT`` or ``DELETE``; :attr:`body` is the parsed
    :class:`~auditor.model.access.RoleAssignment` or
    :class:`~auditor.model.access.DenyAssignment`, None for a ``DELETE``; :attr:`scope` the scope
    it is made at).

    ``unknowns`` names the values of the body that are not known before deployment, by their
    member path in the body (``/``-separated names as rule predicates write them, an array element
    by its index: ``properties/minimumTlsVersionAllowed``, ``properties/computeProfile/roles/0/
    osProfile/linuxOperatingSystemProfile/password``); at such a path the body holds null (or
    omits the member). A rule that reads an unknown path reports ``unknown``, never a guess."""

    index: int
    method: str
    url: str
    kind: RequestKind
    resource_id: str
    subscription_id: str
    """The subscription in the URL ("" for an assignment at the root or a management group)."""
    resource_group: str
    """The resource group in the URL ("" when there is none)."""
    name: str
    api_version: str | None
    expected_api_version: str
    body: Any
    """The validated body: ClusterCreateRequest, DomainCreateRequest, RoleAssignment or
    DenyAssignment (None for a DELETE)."""
    raw_body: dict[str, Any] | None = field(repr=False, compare=False)
    """The body exactly as given (secrets included: never print it); None for a DELETE without
    one."""
    source: RequestSource | None = field(default=None, compare=False)
    """Where the request's resource is defined (None: the plan file, at :attr:`json_path`)."""
    unknowns: Mapping[str, UnknownInfo] = field(default_factory=dict, compare=False)
    """Body paths whose values are not known before deployment (see the class docstring)."""
    scope: str | None = None
    """A role or deny assignment's scope (``/`` for the root); None for clusters and domains."""
    suppressions: Mapping[str, str] = field(default_factory=dict, compare=False)
    """Inline suppressions of the resource's source (rule id or glob -> reason): the gate turns
    its matching findings into waived ones."""

    @property
    def api_version_ok(self) -> bool:
        return self.api_version == self.expected_api_version

    @property
    def json_path(self) -> str:
        return f"requests[{self.index}]"

    @property
    def is_configuration(self) -> bool:
        """A cluster or domain body the configuration rules judge."""
        return self.kind in CONFIGURATION_KINDS


@dataclass
class Plan:
    planVersion: int = PLAN_VERSION
    requests: list[PlanRequest] = field(default_factory=list)
    extra: dict[str, bytes] = field(default_factory=dict)
    source: str | None = field(default=None, compare=False)
    inputs: list[str] = field(default_factory=list, compare=False)
    """Every file read to build the plan (templates, parameters and variable files), where it was
    built from more than the plan file :attr:`source`; listed in the run's coverage."""


def load_plan(path: str | os.PathLike[str]) -> Plan:
    """Read and validate a plan file (exit code 2 with file and JSON path on any problem)."""
    name = os.fspath(path)
    return loads_plan(read_input_bytes(name, what="plan file"), source=name)


def loads_plan(data: bytes, *, source: str = "<plan>") -> Plan:
    """Validate plan JSON bytes (see :func:`load_plan`); nesting, numbers and encoding are checked
    as for every JSON input (:func:`~auditor.estate.decode_json`)."""
    top = decode_json(data, source=source, what="plan file")
    if not isinstance(top, dict):
        raise InputError(
            f"expected a JSON object at the top level, found "
            f"{_errors.describe_value(top, quote=False)}",
            source=source,
        )
    plan = Plan(source=source)
    for key, value in top.items():
        if key == "planVersion":
            if isinstance(value, bool) or not isinstance(value, int):
                raise InputError(
                    f"expected an integer, found {_errors.describe_value(value)}",
                    source=source,
                    location=key,
                )
            if value != PLAN_VERSION:
                raise InputError(
                    f"expected {PLAN_VERSION}, found {_errors.describe_value(value)}",
                    source=source,
                    location=key,
                )
            plan.planVersion = value
        elif key == "requests":
            if not isinstance(value, list):
                raise InputError(
                    f"expected an array, found {_errors.describe_value(value, quote=False)}",
                    source=source,
                    location=key,
                )
            plan.requests = [_request(i, item, source) for i, item in enumerate(value)]
        else:
            plan.extra[key] = msgspec.json.encode(value)
    if "planVersion" not in top:
        raise InputError(
            "expected planVersion 1, found nothing", source=source, location="planVersion"
        )
    return plan


def _request(index: int, item: Any, source: str) -> PlanRequest:
    where = f"requests[{index}]"
    if not isinstance(item, dict):
        raise InputError(
            f"expected an object, found {_errors.describe_value(item, quote=False)}",
            source=source,
            location=where,
        )
    for key, typ in (("method", str), ("url", str), ("body", dict)):
        if key == "body" and item.get(key) is None and str(item["method"]).upper() == "DELETE":
            continue  # a DELETE needs no body
        if key not in item:
            raise InputError(
                "expected a value (the field is required), found nothing",
                source=source,
                location=f"{where}.{key}",
            )
        if not isinstance(item[key], typ):
            words = "a string" if typ is str else "an object"
            found = _errors.describe_value(item[key], quote=typ is str)
            raise InputError(
                f"expected {words}, found {found}",
                source=source,
                location=f"{where}.{key}",
            )
    return build_request(
        index,
        item["method"],
        item["url"],
        item.get("body"),
        source=source,
        where=where,
        origin=RequestSource(source, None, where),
    )


def build_request(
    index: int,
    method: str,
    url: str,
    body: dict[str, Any] | None,
    *,
    source: str,
    where: str,
    origin: RequestSource | None = None,
    unknowns: Mapping[str, UnknownInfo] | None = None,
    suppressions: Mapping[str, str] | None = None,
) -> PlanRequest:
    """One request of a plan, recognised by its method and URL and its body validated by the wire
    models: the same checks and messages for a plan file's requests and for those a reader of
    templates builds.

    ``source`` is the file errors name and ``where`` the location the request has in it (errors
    are at ``{where}.url`` and ``{where}.body...``); ``origin`` is the request's
    :attr:`PlanRequest.source`. ``unknowns`` names the body's values that are not known before
    deployment (null in ``body``): where the wire model refuses a null there, the member is left
    out (an unknown required string is the placeholder ``{name}``), and an unknown element of a
    typed array makes the whole array unknown. ``body`` may be changed in place for that; it is
    kept as the request's :attr:`PlanRequest.raw_body`. Raises :class:`~auditor.errors.InputError`
    (exit code 2) for a request that is not one of the seed's or a body the models refuse."""
    try:
        parts = urlsplit(url)
    except ValueError:  # "Invalid IPv6 URL": an unclosed "[" in the host, and the like
        raise InputError(
            "expected a URL, found text that is not one (an IPv6 host without its ']'?)",
            source=source,
            location=f"{where}.url",
        ) from None
    path = unquote(parts.path)
    match = _match_endpoint(method, path)
    if match is None:
        raise InputError(
            f"expected a request of the seed: {_ACCEPTED}; found {_shown_request(method, path)}",
            source=source,
            location=f"{where}.url",
        )
    kind, m, operation, model = match
    versions = parse_qs(parts.query, keep_blank_values=True).get("api-version")
    known: Mapping[str, UnknownInfo] = unknowns or {}
    validated: Any = None
    if method.upper() != "DELETE":
        if not isinstance(body, dict):
            raise InputError(
                "expected a value (the field is required), found nothing",
                source=source,
                location=f"{where}.body",
            )
        validated, known = _validate_body(model, body, known, source=source, prefix=f"{where}.body")
    if kind not in CONFIGURATION_KINDS and validated is not None:
        _check_condition_version(validated, source, f"{where}.body")
    groups = m.groupdict()
    scope: str | None = None
    if kind not in CONFIGURATION_KINDS:
        scope = groups.get("scope") or "/"
    return PlanRequest(
        index=index,
        method=method,
        url=url,
        kind=kind,
        resource_id=path.rstrip("/"),
        subscription_id=groups.get("sub") or "",
        resource_group=groups.get("rg") or "",
        name=m.group("name"),
        api_version=versions[0] if versions else None,
        expected_api_version=SEED_API_VERSIONS[operation],
        body=validated,
        raw_body=body,
        source=origin,
        unknowns=known,
        scope=scope,
        suppressions=dict(suppressions or {}),
    )


def _check_condition_version(body: Any, source: str, prefix: str) -> None:
    """A role or deny assignment's ``conditionVersion``: '2.0' only (seed 8), when given."""
    version = body.properties.conditionVersion
    if version is not None and version != _CONDITION_VERSION:
        raise InputError(
            f"expected {_CONDITION_VERSION!r} (the only condition version), found "
            f"{_errors.describe_value(version)}",
            source=source,
            location=f"{prefix}.properties.conditionVersion",
        )


# --- bodies with values not known before deployment ----------------------------------------------

_Located = tuple[Any, str | int]


def _validate_body(
    model: type[Any],
    body: dict[str, Any],
    unknowns: Mapping[str, UnknownInfo],
    *,
    source: str,
    prefix: str,
) -> tuple[Any, Mapping[str, UnknownInfo]]:
    """``body`` validated by ``model``; where it refuses the null at an unknown path, the body is
    relaxed (:func:`_relax`) and validated again. Any other error is the input's."""
    left = dict(unknowns)
    states: dict[str, str] = {}
    rounds = 2 * len(left) + 2
    while True:
        try:
            return model.model_validate(body, strict=True), left
        except ValidationError as exc:
            errors = exc.errors(include_url=False, include_context=False)
            rounds -= 1
            if rounds < 0 or not left or not errors or _unknown_at(errors[0], left) is None:
                raise _errors.from_pydantic(exc, source=source, prefix=prefix) from None
            for error in errors:
                path = _unknown_at(error, left)
                if path is not None and not _relax(body, path, left, states, error):
                    raise _errors.from_pydantic(exc, source=source, prefix=prefix) from None


def _unknown_at(error: Any, unknowns: Mapping[str, UnknownInfo]) -> str | None:
    """The unknown path an error of the validation is at (exactly), if any."""
    loc = [str(p).lower() for p in error["loc"] if isinstance(p, int) or _errors._plain_key(p)]
    for path in unknowns:
        if [p.lower() for p in path.split("/")] == loc:
            return path
    return None


def _locate(body: Any, segments: list[str]) -> _Located | None:
    """The container of the value at ``segments`` and its key there (None if not found)."""
    node = body
    for segment in segments[:-1]:
        if isinstance(node, dict) and segment in node:
            node = node[segment]
        elif isinstance(node, list) and segment.isdigit() and int(segment) < len(node):
            node = node[int(segment)]
        else:
            return None
    last = segments[-1]
    if isinstance(node, dict) and last in node:
        return node, last
    if isinstance(node, list) and last.isdigit() and int(last) < len(node):
        return node, int(last)
    if isinstance(node, dict):
        return node, last  # left out already
    return None


def _relax(
    body: dict[str, Any],
    path: str,
    unknowns: dict[str, UnknownInfo],
    states: dict[str, str],
    error: Any,
) -> bool:
    """Make the unknown at ``path`` acceptable to the wire model: a member whose null is refused
    is left out; a required string left out is the placeholder ``{name}``; an element of a typed
    array is dropped, with the whole array unknown. False when nothing more can be done."""
    segments = path.split("/")
    located = _locate(body, segments)
    if located is None:
        return False
    container, key = located
    if isinstance(container, list):
        _lift(container, segments[:-1], unknowns)
        return True
    state = states.get(path, "null")
    if state == "null" and key in container:
        del container[key]
        states[path] = "absent"
        return True
    if state == "absent" and error["type"] == "missing":
        container[key] = "{" + str(key) + "}"
        states[path] = "placeholder"
        return True
    return False


def _lift(array: list[Any], segments: list[str], unknowns: dict[str, UnknownInfo]) -> None:
    """The unknown elements of ``array`` (at ``segments``) dropped, and the array itself unknown
    (with the texts of every unknown in it), since what it will hold is not known."""
    prefix = "/".join(segments)
    inside = [p for p in unknowns if p.startswith(prefix + "/")]
    gone = {
        int(p.split("/")[len(segments)])
        for p in inside
        if len(p.split("/")) == len(segments) + 1 and p.split("/")[-1].isdigit()
    }
    infos = [unknowns.pop(p) for p in inside]
    texts = list(dict.fromkeys(i.text for i in infos))
    text = texts[0] if len(texts) == 1 else f"{texts[0]}; and {len(texts) - 1} more"
    secret = bool(infos) and all(i.secret_reference for i in infos)
    unknowns[prefix] = UnknownInfo(f"an element is not known: {text}", secret)
    array[:] = [item for i, item in enumerate(array) if i not in gone]


def _shown_request(method: str, path: str) -> str:
    """``METHOD /path`` for a message: cut short, and no part that looks like a secret."""
    shown = "/".join(shown_name(segment, 80) for segment in path.split("/"))
    return f"{shown_name(method, 20)} {clip(shown, 300)}"


def _match_endpoint(
    method: str, path: str
) -> tuple[RequestKind, re.Match[str], str, type[Any]] | None:
    verb = method.upper()
    for kind, (pattern, operation, model, methods) in _ENDPOINTS.items():
        if verb not in methods:
            continue
        m = pattern.match(path)
        if m:
            return kind, m, operation, model
    return None


def dumps_plan(plan: Plan, *, indent: int = 2) -> bytes:
    """The plan as JSON bytes (bodies exactly as they were given)."""
    requests: list[dict[str, Any]] = []
    for r in plan.requests:
        entry: dict[str, Any] = {"method": r.method, "url": r.url}
        if r.raw_body is not None:
            entry["body"] = r.raw_body
        requests.append(entry)
    out: dict[str, Any] = {"planVersion": plan.planVersion, "requests": requests}
    for key, raw in plan.extra.items():
        out[key] = msgspec.Raw(raw)
    return msgspec.json.format(msgspec.json.encode(out), indent=indent) + b"\n"


def dump_plan(plan: Plan, path: str | os.PathLike[str], *, overwrite: bool = False) -> None:
    write_atomic(path, dumps_plan(plan), overwrite=overwrite, what="plan file")
