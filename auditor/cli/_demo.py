"""``auditor demo``: the whole product on the built-in sample estate.

sample estate -> sandbox on a free loopback port -> collect over HTTP -> audit -> every report format,
and the CI gate over each sample plan. Nothing here decides anything: it calls the layers in order.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Annotated, Any

import typer

DEMO_SNAPSHOT_NAME = "sample-snapshot.json"
COLLECTED_SNAPSHOT_NAME = "collected-snapshot.json"
DEMO_PLANS_FOLDER = "plans"
GATE_FOLDER = "gate"
DEV_TOOLING_TOKEN_LABEL = "user-full-laptop"
"""The sample's developer-tooling token the demo collects with (a user token with full access)."""


def register(app: typer.Typer) -> None:
    """Add ``auditor demo`` to ``app``."""

    @app.command("demo")
    def demo(
        out: Annotated[
            Path, typer.Option("--out", "-o", help="Folder for everything the demo writes.")
        ] = Path("audit-report"),
    ) -> None:
        """Run the whole pipeline on the sample estate: sandbox, collect, audit, every report."""
        run_demo(out)


def run_demo(out: Path) -> dict[str, Path]:
    """Run the demo into ``out``; return what was written, by name."""
    import asyncio
    import secrets

    import msgspec

    from auditor.api.client import ResourceManagerClient
    from auditor.api.collect import collect
    from auditor.api.devtooling import DevToolingClient
    from auditor.audit import AuditOptions, audit_snapshot, gate_plan
    from auditor.errors import InputError
    from auditor.estate import write_atomic
    from auditor.estate.plan import loads_plan
    from auditor.estate.sample import (
        SUBSCRIPTIONS,
        TOKENS,
        sample_plans,
        sample_snapshot,
        sample_snapshot_bytes,
    )
    from auditor.estate.snapshot import dumps_snapshot
    from auditor.report import RenderOptions, render, render_all
    from auditor.sandbox.config import SandboxConfig
    from auditor.sandbox.server import SandboxServer

    if out.exists() and not out.is_dir():
        raise InputError("expected a folder, found a file", source=str(out))
    written: dict[str, Path] = {}

    with _stage("Writing the sample estate and plans"):
        source = out / DEMO_SNAPSHOT_NAME
        write_atomic(source, sample_snapshot_bytes(), overwrite=True, what="snapshot file")
        written["sample snapshot"] = source
        plans: dict[str, Path] = {}
        for name, plan in sample_plans().items():
            path = out / DEMO_PLANS_FOLDER / f"{name}.json"
            data = msgspec.json.format(msgspec.json.encode(plan), indent=2) + b"\n"
            write_atomic(path, data, overwrite=True, what="plan file")
            plans[name] = path
            written[f"plan {name}"] = path

    snapshot = sample_snapshot()
    bearer = secrets.token_urlsafe(24)
    api_token = secrets.token_urlsafe(32)
    config = SandboxConfig(
        reader_token=bearer,
        api_tokens={api_token: TOKENS[DEV_TOOLING_TOKEN_LABEL]},
        async_delay=0.0,
    )
    server = SandboxServer(snapshot, config)
    with _stage("Starting the sandbox"):
        server.start()
    try:
        typer.echo(f"sandbox serving the sample estate at {server.url}", err=True)
        collected_box: list[Any] = []

        async def collect_all() -> None:
            # the result is passed out in a list rather than returned (see auditor.cli._collect)
            async with (
                ResourceManagerClient(server.url, bearer) as api,
                DevToolingClient(server.url, api_token) as dev,
            ):
                collected_box.append(
                    await collect(
                        api,
                        list(SUBSCRIPTIONS.values()),
                        devtooling=dev,
                        directory=snapshot,
                        collected_at=snapshot.collectedAt,
                    )
                )

        with _stage(f"Collecting over HTTP from {server.url}"):
            asyncio.run(collect_all())
        collected = collected_box[0]
    finally:
        server.stop()
    collected_path = out / COLLECTED_SNAPSHOT_NAME
    write_atomic(
        collected_path,
        dumps_snapshot(collected.snapshot, indent=2),
        overwrite=True,
        what="snapshot file",
    )
    written["collected snapshot"] = collected_path
    typer.echo(
        f"collected {len(collected.snapshot.roleAssignments)} role assignments, "
        f"{len(collected.snapshot.denyAssignments)} deny assignments, "
        f"{len(collected.snapshot.clusters)} clusters, {len(collected.snapshot.domains)} domains, "
        f"{len(collected.snapshot.healthEvents)} health events in {collected.requests} requests",
        err=True,
    )

    options = AuditOptions(use_config=False)
    with _stage("Auditing the collected estate"):
        result = audit_snapshot(
            collected.snapshot,
            options,
            target=str(collected_path),
            target_kind="snapshot",
            incomplete=[f"{f.what}: {f.error}" for f in collected.incomplete],
        )
    with _stage("Writing every report format"):
        paths = render_all(
            result,
            out,
            options=RenderOptions(
                title="Sample estate audit", sarif_anchor=str(collected_path), source_root=str(out)
            ),
        )
    for fmt, path in paths.items():
        written[f"{fmt} report"] = path

    gates: dict[str, tuple[int, Any]] = {}
    with _stage("Gating the sample plans"):
        for name, path in plans.items():
            gate = gate_plan(loads_plan(path.read_bytes(), source=str(path)), options)
            target = out / GATE_FOLDER / f"{name}.sarif"
            render(gate, "sarif", target, RenderOptions(source_root=str(out)))
            render(gate, "markdown", target.with_suffix(".md"))
            written[f"gate {name}"] = target
            gates[name] = (gate.exit_code, gate.summary())

    typer.echo(render(result, "text", None, RenderOptions(compact=True)).decode("utf-8"))
    for name, (code, summary) in gates.items():
        counts = ", ".join(f"{summary[s]} {s}" for s in ("critical", "high", "medium", "low"))
        verdict = "passes" if code == 0 else "fails"
        typer.echo(f"gate {name}: {verdict} (exit {code}; {counts})")
    typer.echo("")
    for label, path in written.items():
        typer.echo(f"wrote {label}: {path}")
    return written


def _stage(what: str) -> contextlib.AbstractContextManager[None]:
    from auditor.cli._progress import stage

    return stage(what, quiet_when_piped=False)
