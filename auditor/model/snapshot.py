"""The small parts of the snapshot file (contracts 2) and the plan file (contracts 3) that are
validated with pydantic. The bulk sections of a snapshot are read elsewhere (``auditor.estate``)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, PlainSerializer, SerializationInfo

from auditor.model._base import WireModel
from auditor.model.secrets import MASK, Secret, is_secret_key

PLAN_VERSION = 1


class HierarchyEntry(WireModel):
    """A management group or subscription and its parent scope (contracts 2 ``hierarchy``)."""

    id: str
    parent: str | None = None
    displayName: str | None = None


class DirectoryPrincipal(WireModel):
    """A directory entry of the snapshot's ``principals`` (contracts 2)."""

    id: str
    type: str | None = None
    displayName: str | None = None
    email: str | None = None
    userType: str | None = None
    accountEnabled: bool | None = None
    memberOf: list[str] = Field(default_factory=list)


# Besides the keys of `is_secret_key`: SSH key material is never echoed either (contracts 3).
_ALSO_MASKED_KEYS = frozenset({"certificatedata"})


def is_masked_body_key(key: str) -> bool:
    """True when a plan body value under ``key`` is masked in dumps (secrets, SSH key material)."""
    return is_secret_key(key) or key.lower() in _ALSO_MASKED_KEYS


def _mask_body(value: Any, reveal: bool, masked: bool = False) -> Any:
    if isinstance(value, Secret):
        return value.reveal() if reveal else MASK
    if isinstance(value, dict):
        return {k: _mask_body(v, reveal, masked or is_masked_body_key(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [_mask_body(v, reveal, masked) for v in value]
    if masked and not reveal and isinstance(value, str):
        return MASK
    return value


def _dump_body(value: dict[str, Any], info: SerializationInfo) -> Any:
    context = info.context
    reveal = isinstance(context, dict) and context.get("reveal_secrets") is True
    return _mask_body(value, reveal)


# A raw JSON object: kept as given in memory, with secret-looking values masked in every dump unless
# the dump reveals secrets (``to_wire(reveal_secrets=True)``).
RawBody = Annotated[dict[str, Any], PlainSerializer(_dump_body, when_used="always")]


class PlanRequest(WireModel):
    """One request of a plan (contracts 3). ``body`` is raw: the plan loader validates it by
    endpoint (``ClusterCreateRequest``, ``DomainCreateRequest``). It never shows in a repr, and its
    secret values are masked in dumps unless secrets are revealed."""

    method: str
    url: str
    body: RawBody = Field(default_factory=dict, repr=False)


class PlanFile(WireModel):
    """A plan file (contracts 3)."""

    planVersion: int
    requests: list[PlanRequest] = Field(default_factory=list)
