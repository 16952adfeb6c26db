"""The sandbox: every endpoint of the seed (section 4) served from a snapshot by a Starlette app
under uvicorn, with paging, filters, asynchronous operations, the developer-tooling service,
bearer and API-token authentication, fault injection, an OpenAPI document and an offline explorer.

Entry points: :func:`create_app` (the ASGI app), :class:`SandboxServer` (a background server on a
loopback port), :class:`SandboxConfig` and :class:`FaultConfig` (its settings). The route table is
:data:`auditor.sandbox.app.ENDPOINTS`; the request pipeline is described in :mod:`auditor.sandbox.app`.

Where the seed is silent, the sandbox decides (tests pin each):

- Paging: :data:`~auditor.sandbox.config.DEFAULT_PAGE_SIZE` (200) items a page unless
  ``--page-size`` says otherwise. 4.2 pages only at provider level
  (``/providers/Cloud.Authorization/roleAssignments``), since ``$skipToken`` works only there (seed
  8); a call at any other scope returns every result in one answer, and a ``$skipToken`` there is a
  400 ``UnsupportedQueryParameter``. 4.1, 4.5, 4.6 and the cluster and domain lists page with
  ``nextLink`` = the request URL, absolute, its query kept as sent, plus ``$skipToken``. A token is
  tied to its query: another query's token is a 400. Items are only ever added at the end of a
  list (nothing is deleted), so paging while others write still returns every item that existed
  when it began exactly once.
- Deny assignments (4.1) are listed at a subscription, a resource group or a resource
  (``{scope}/providers/Cloud.Authorization/denyAssignments``, as the real API; another scope is a 400
  ``InvalidScope``), with the same filters everywhere: ``atScope()`` at or above the scope; without
  a filter at, above and below it (as role assignments).
  ``principalId``: the principal named directly or through the all-principals entry, and not excluded;
  ``gdprExportPrincipalId``: named or excluded. ``denyAssignmentName``: the display name, ignoring case,
  at the scope only.
- Health events of a subscription (4.5) are every event whose id lies under it, resource-level ones
  included; 4.6 returns the events under the resource. ``queryStartTime`` on 4.6 is a 400.
- ``tenantId``: a GUID; another tenant than the snapshot's gets an empty list; not a GUID is a 400.
- Unknown query parameters are a 400 (``InvalidQueryParameter``) so that a misspelt ``$fitler`` is not
  silently ignored; a parameter given twice is a 400 too.
- Order of checks: endpoint (404/405), faults, then 411 and ``X-API-Token`` (area E) or bearer (401) and
  ``api-version`` (400), unknown parameters (400), the read permission of 4.1/4.2 (403), the handler.
  4.3-4.6 need a valid bearer only (seed 5.1 states no permission for them).
- The access check uses concrete, empty request attributes: only ``allowed`` passes.
- The generated token of ``sandbox serve`` (no ``--bearer``) reads everything at ``/`` without a role
  assignment in the estate (so the served estate is exactly the snapshot).
- Cluster create: 200 with the Cluster as seed 3 shows it (``provisioningState`` ``Succeeded``,
  ``clusterState`` ``Running``; a GET shows the same); a PUT of an existing cluster replaces it. The
  Location (also sent as ``Azure-AsyncOperation``) answers 202 with ``Retry-After`` (whole seconds,
  rounded up) while the operation runs (``--async-delay``, default 1 s), 200 ``{"status":
  "Succeeded"}`` after (semantics 4).
- Robustness: a request body nested deeper than 64 levels is a 400 naming the JSON path (as invalid
  JSON is); an unforeseen exception is a 500 with the area's error body and a reference (logged on
  one line, without a traceback), never a plain-text 500; a ``--persist`` write that fails is a 500
  ``PersistFailed``; writes of concurrent changes are coalesced.
  vmSize is lower-cased and the aliases Small/Medium/Large/ExtraLarge resolved to A-series v2 sizes;
  ``coresUsed`` counts the cores of each size (4 for a size it does not know).
- Domain: the response carries the seed's defaults filled in, ``systemData`` (creation kept on update),
  an identity principal for SystemAssigned; values outside the seed's enumerations and a non-CIDR
  ``ipMask`` are 400 naming the JSON path.
- Developer tooling: errors use the ErrorResponse shape of areas A-C; 411 is checked before the token;
  a user token acts with its user's role in each app (the owner of a user-owned app is its admin), an
  app token as admin (full) or viewer (read only) of its app; listing app tokens needs developer or
  admin; removing a user needs admin; a token creation body is ``{"description", "accessType":
  "full"|"readOnly"}`` (or the service's ``"scope": ["all"]|["viewer"]``); the 5000-token limit is a 400
  ``TokenLimitReached``. Token values are kept as SHA-256 digests (``valueHash`` in ``--persist``ed
  files, so created tokens survive a restart). ``GET /v0.1/apps`` and ``GET .../users`` are served
  (the real service has them) so that a collection can read the apps back.
- Resources need not exist for a list: an unknown subscription lists nothing (only GET of one cluster
  or domain is a 404).
- The vendor's paths (``SandboxConfig(namespace="vendor"|"both")``, ``sandbox serve --namespace``):
  a thin layer in front of the same pipeline (:mod:`auditor.sandbox.vendor`) renames requests to the
  seed's names and answers to the vendor's (``Microsoft.*`` ids, types, actions, ``nextLink``,
  ``EventGridSchema``); ``vendor`` answers a ``Cloud.*`` path 404. ``/openapi.json`` and ``/docs``
  stay the seed's.
"""

from __future__ import annotations

from auditor.sandbox.app import ENDPOINTS, Sandbox, create_app
from auditor.sandbox.config import FaultConfig, SandboxConfig
from auditor.sandbox.server import SandboxServer

__all__ = [
    "ENDPOINTS",
    "FaultConfig",
    "Sandbox",
    "SandboxConfig",
    "SandboxServer",
    "create_app",
]
