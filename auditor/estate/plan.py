"""The plan file of contracts section 3: the requests a deployment is about to send.

Each request must be a cluster create (seed 4.3) or a domain create-or-update (seed 4.4); its body is
validated by the wire models. A wrong ``api-version`` is kept for the audit to report as a finding.
Plan bodies hold secrets: they are :class:`~auditor.model.secrets.Secret` in the models, and the raw body
is only written back to a plan file, never printed.
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
from auditor.model.cluster import ClusterCreateRequest
from auditor.model.defaults import SEED_API_VERSIONS
from auditor.model.domain import DomainCreateRequest

PLAN_VERSION = 1

RequestKind = Literal["cluster", "domain"]

_ENDPOINTS: dict[RequestKind, tuple[re.Pattern[str], str, type[Any]]] = {
    "cluster": (
        re.compile(
            r"^/subscriptions/(?P<sub>[^/]+)/resourceGroups/(?P<rg>[^/]+)/providers/"
            r"Cloud\.AnalyticsCluster/clusters/(?P<name>[^/]+)/?$",
            re.IGNORECASE,
        ),
        "clusters.create",
        ClusterCreateRequest,
    ),
    "domain": (
        re.compile(
            r"^/subscriptions/(?P<sub>[^/]+)/resourceGroups/(?P<rg>[^/]+)/providers/"
            r"Cloud\.EventRouting/domains/(?P<name>[^/]+)/?$",
            re.IGNORECASE,
        ),
        "domains.createOrUpdate",
        DomainCreateRequest,
    ),
}

_ACCEPTED = (
    "PUT /subscriptions/{id}/resourceGroups/{name}/providers/Cloud.AnalyticsCluster/clusters/{name}"
    " or PUT /subscriptions/{id}/resourceGroups/{name}/providers/Cloud.EventRouting/domains/{name}"
)


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


@dataclass(frozen=True)
class PlanRequest:
    """One request of a plan, recognised and validated.

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
    resource_group: str
    name: str
    api_version: str | None
    expected_api_version: str
    body: Any
    """The validated body: ClusterCreateRequest or DomainCreateRequest."""
    raw_body: dict[str, Any] = field(repr=False, compare=False)
    """The body exactly as given (secrets included: never print it)."""
    source: RequestSource | None = field(default=None, compare=False)
    """Where the request's resource is defined (None: the plan file, at :attr:`json_path`)."""
    unknowns: Mapping[str, UnknownInfo] = field(default_factory=dict, compare=False)
    """Body paths whose values are not known before deployment (see the class docstring)."""

    @property
    def api_version_ok(self) -> bool:
        return self.api_version == self.expected_api_version

    @property
    def json_path(self) -> str:
        return f"requests[{self.index}]"


@dataclass
class Plan:
    planVersion: int = PLAN_VERSION
    requests: list[PlanRequest] = field(default_factory=list)
    extra: dict[str, bytes] = field(default_factory=dict)
    source: str | None = field(default=None, compare=False)


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
    method: str = item["method"]
    url: str = item["url"]
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
    try:
        body = model.model_validate(item["body"], strict=True)
    except ValidationError as exc:
        raise _errors.from_pydantic(exc, source=source, prefix=f"{where}.body") from None
    return PlanRequest(
        index=index,
        method=method,
        url=url,
        kind=kind,
        resource_id=path.rstrip("/"),
        subscription_id=m.group("sub"),
        resource_group=m.group("rg"),
        name=m.group("name"),
        api_version=versions[0] if versions else None,
        expected_api_version=SEED_API_VERSIONS[operation],
        body=body,
        raw_body=item["body"],
        source=RequestSource(source, None, where),
    )


def _shown_request(method: str, path: str) -> str:
    """``METHOD /path`` for a message: cut short, and no part that looks like a secret."""
    shown = "/".join(shown_name(segment, 80) for segment in path.split("/"))
    return f"{shown_name(method, 20)} {clip(shown, 300)}"


def _match_endpoint(
    method: str, path: str
) -> tuple[RequestKind, re.Match[str], str, type[Any]] | None:
    if method.upper() != "PUT":
        return None
    for kind, (pattern, operation, model) in _ENDPOINTS.items():
        m = pattern.match(path)
        if m:
            return kind, m, operation, model
    return None


def dumps_plan(plan: Plan, *, indent: int = 2) -> bytes:
    """The plan as JSON bytes (bodies exactly as they were given)."""
    out: dict[str, Any] = {
        "planVersion": plan.planVersion,
        "requests": [{"method": r.method, "url": r.url, "body": r.raw_body} for r in plan.requests],
    }
    for key, raw in plan.extra.items():
        out[key] = msgspec.Raw(raw)
    return msgspec.json.format(msgspec.json.encode(out), indent=indent) + b"\n"


def dump_plan(plan: Plan, path: str | os.PathLike[str], *, overwrite: bool = False) -> None:
    write_atomic(path, dumps_plan(plan), overwrite=overwrite, what="plan file")
