"""httpx clients of the seed's API (one module per area) over a shared transport
(:mod:`auditor.api._transport`: a time limit per request and an overall deadline, retries with
backoff and jitter honouring ``Retry-After``, credentials kept to the configured host) and paging
(:mod:`auditor.api._paging`); :mod:`auditor.api.collect` builds a snapshot from the API and
:mod:`auditor.api.apply` sends a plan's requests. The clients speak the seed's paths or, with
``namespace="vendor"``, the vendor's management API (``Microsoft.*``); :mod:`auditor.api.tokens`
gets the bearer token from the environment, a command or azure-identity."""

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
from auditor.api.tokens import (
    TokenError,
    TokenSource,
    from_azure_identity,
    from_command,
    from_environment,
)

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
    "TokenError",
    "TokenSource",
    "Transport",
    "from_azure_identity",
    "from_command",
    "from_environment",
]
