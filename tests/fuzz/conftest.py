"""Warm-up for the fuzz suite: the first run of a command imports and compiles (grammars, rule
packs, report templates) and must not count against an example's deadline."""

from __future__ import annotations

import pytest

from tests.fuzz._bases import AS_OF, snapshot_bytes
from tests.fuzz._harness import run_cli, workdir


@pytest.fixture(scope="session", autouse=True)
def _warm_up() -> None:
    with workdir() as root:
        for argv in (
            ["audit", "--snapshot", "s.json", "--as-of", AS_OF, "-o", "json=o.json", "-o", "text"],
            ["filter", "check", "name eq 'x'"],
            ["condition", "check", "@Request[a:b] StringEquals 'x'"],
        ):
            run_cli(argv, root, inputs={"s.json": snapshot_bytes()})
