"""httpx clients of the seed's API (one module per area) over a shared transport
(:mod:`auditor.api._transport`: a time limit per request and an overall deadline, retries with
backoff and jitter honouring ``Retry-After``, credentials kept to the configured host) and paging
(:mod:`auditor.api._paging`); :mod:`auditor.api.collect` builds a snapshot from the API and
:mod:`auditor.api.apply` sends a plan's requests."""

from __future__ import annotations

from auditor.api._operations import OperationResult
from auditor.api._transport import (
    ApiError,
    ClientSettings,
    Credential,
    DeadlineError,
    ForeignHostError,
    OperationError,
    PagingError,
    RetryPolicy,
    Transport,
)
from auditor.api.client import ResourceManagerClient
from auditor.api.devtooling import DevToolingClient

__all__ = [
    "ApiError",
    "ClientSettings",
    "Credential",
    "DeadlineError",
    "DevToolingClient",
    "ForeignHostError",
    "OperationError",
    "OperationResult",
    "PagingError",
    "ResourceManagerClient",
    "RetryPolicy",
    "Transport",
]
