"""schemathesis against the sandbox's OpenAPI document (a bounded number of examples per
operation): no 5xx, and every answer matches the document (status, content type, headers, body).

Two adjustments to schemathesis's defaults, both forced by the seed:

- ``positive_data_acceptance`` is off: it expects every request the schema allows to be accepted,
  but ``$filter``, ``$skipToken`` and ``queryStartTime`` are strings whose validity is semantic (the
  filter grammar, an opaque token, a date); a 400 for a schema-valid but meaningless value is the
  documented answer (ErrorResponse).
- ``negative_data_rejection`` also counts 411 as a rejection: a developer-tooling write without a
  body is answered 411 (seed 4.7)."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.config import SchemathesisConfig

from auditor.sandbox import SandboxServer
from auditor.sandbox.openapi import openapi_document
from tests.test_sandbox_helpers import sandbox

_REJECTIONS = [400, 401, 403, 404, 405, 406, 409, 411, 415, 422, 428, 429, "5XX"]
_CONFIG = SchemathesisConfig.from_dict(
    {
        "checks": {
            "positive_data_acceptance": {"enabled": False},
            "negative_data_rejection": {"expected-statuses": _REJECTIONS},
        },
        "auth": {
            "openapi": {
                "bearer": {"bearer": "t-sandbox-reader"},
                "APIToken": {"api_key": "v-user-full"},
            }
        },
    }
)
schema = schemathesis.openapi.from_dict(openapi_document(), config=_CONFIG)


@pytest.fixture(scope="module")
def server() -> Iterator[SandboxServer]:
    with sandbox(page_size=3, async_delay=0.0) as s:
        yield s


def test_the_served_document_is_the_tested_one(server: SandboxServer) -> None:
    assert httpx.get(server.url + "/openapi.json").json() == openapi_document()


@schema.parametrize()
@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
def test_api_conforms_to_its_document(case: schemathesis.Case, server: SandboxServer) -> None:
    case.call_and_validate(base_url=server.url)
