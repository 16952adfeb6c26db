"""Area B client: analytics clusters (seed 4.3; read and list as the sandbox serves them)."""

from __future__ import annotations

from auditor.api._resources import ResourceClient
from auditor.model.defaults import SEED_API_VERSIONS


class ClusterClient(ResourceClient):
    provider = "Cloud.AnalyticsCluster"
    collection = "clusters"
    api_version = SEED_API_VERSIONS["clusters.create"]
    operation = "clusters.create"
    created_status = (200, 201)
