"""Area C client: event-routing domains (seed 4.4; read and list as the sandbox serves them)."""

from __future__ import annotations

from auditor.api._resources import ResourceClient
from auditor.model.defaults import SEED_API_VERSIONS


class DomainClient(ResourceClient):
    provider = "Cloud.EventRouting"
    collection = "domains"
    api_version = SEED_API_VERSIONS["domains.createOrUpdate"]
    operation = "domains.createOrUpdate"
    created_status = (200, 201)
