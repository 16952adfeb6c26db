"""The plan file of contracts section 3: the requests a deployment is about to send.

Each request must be a cluster create (seed 4.3) or a domain create-or-update (seed 4.4); its body is
validated by the wire models. A wrong ``api-version`` is kept for the audit to report as a finding.
Plan bodies hold secrets: they are :class:`~auditor.model.secrets.Secret` in the models, and the raw body
is only written back to a plan file, never printed.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import parse_qs, unquote, urlsplit

import msgspec
from pydantic import ValidationError

from auditor.errors import InputError
from auditor.estate import _errors
from auditor.estate._files import read_input_bytes, write_atomic
from auditor.estate.snapshot import _decode_top
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


@dataclass(frozen=True)
class PlanRequest:
    """One request of a plan, recognised and validated."""

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
    top = _decode_top(data, source)
    plan = Plan(source=source)
    for key, raw in top.items():
        if key == "planVersion":
            try:
                version = msgspec.json.decode(raw, type=int)
            except msgspec.ValidationError as exc:
                raise _errors.from_msgspec(exc, source=source, prefix=key, raw=bytes(raw)) from None
            if version != PLAN_VERSION:
                raise InputError(
                    f"expected {PLAN_VERSION}, found {_errors.describe_value(version)}",
                    source=source,
                    location=key,
                )
            plan.planVersion = version
        elif key == "requests":
            items = msgspec.json.decode(raw)
            if not isinstance(items, list):
                raise InputError(
                    f"expected an array, found {_errors.describe_value(items)}",
                    source=source,
                    location=key,
                )
            plan.requests = [_request(i, item, source) for i, item in enumerate(items)]
        else:
            plan.extra[key] = bytes(raw)
    if "planVersion" not in top:
        raise InputError(
            "expected planVersion 1, found nothing", source=source, location="planVersion"
        )
    return plan


def _request(index: int, item: Any, source: str) -> PlanRequest:
    where = f"requests[{index}]"
    if not isinstance(item, dict):
        raise InputError(
            f"expected an object, found {_errors.describe_value(item)}",
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
            raise InputError(
                f"expected {words}, found {_errors.describe_value(item[key])}",
                source=source,
                location=f"{where}.{key}",
            )
    method: str = item["method"]
    url: str = item["url"]
    parts = urlsplit(url)
    path = unquote(parts.path)
    match = _match_endpoint(method, path)
    if match is None:
        raise InputError(
            f"expected a request of the seed: {_ACCEPTED}; found {method} {path}",
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
    )


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
