"""Warm-up for the fuzz suite: the first run of a command imports and compiles (grammars, rule
packs, report templates) and must not count against an example's deadline."""

from __future__ import annotations

import pytest

from tests.fuzz._bases import AS_OF, plans, snapshot_bytes
from tests.fuzz._harness import run_cli, workdir
from tests.fuzz._hostile import to_json

_TF = b'resource "azurerm_eventgrid_domain" "d" {\n  name = "d"\n  location = "westeurope"\n}\n'
_ARM = (
    b'{"$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",'
    b' "contentVersion": "1.0.0.0", "resources": [{"type": "Microsoft.EventGrid/domains",'
    b' "apiVersion": "2025-02-15", "name": "[concat(\'d\', \'1\')]", "location": "westeurope"}]}'
)


@pytest.fixture(scope="session", autouse=True)
def _warm_up() -> None:
    # (the test session's cache folder starts empty: the parsers' tables are built here, once)
    inputs = {
        "s.json": snapshot_bytes(),
        "p.json": to_json(plans()[0]),
        "tf/main.tf": _TF,
        "arm.json": _ARM,
    }
    with workdir() as root:
        for argv in (
            ["audit", "--snapshot", "s.json", "--as-of", AS_OF, "-o", "json=o.json", "-o", "text"],
            ["gate", "p.json", "-o", "sarif=g.sarif", "-o", "markdown=g.md"],
            ["gate", "tf", "arm.json", "-o", "json=t.json"],
            ["rules", "list", "--format", "json"],
            ["filter", "check", "name eq 'x'"],
            ["condition", "check", "@Request[a:b] StringEquals 'x'"],
        ):
            run_cli(argv, root, inputs=inputs)
