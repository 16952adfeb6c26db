"""``auditor sandbox serve``: the seed's API served from a snapshot (see :mod:`auditor.sandbox`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, cast

import typer

from auditor.cli._cache import CacheDir, NoCache
from auditor.cli._validate import host_option, port_option
from auditor.errors import InputError

if TYPE_CHECKING:
    from auditor.sandbox.config import FaultKind, SandboxNamespace


def _pairs(values: list[str], option: str, right: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for value in values:
        left, sep, target = value.partition("=")
        if not sep or not left or not target:
            # never echo the value: its left side is a token
            raise InputError(f"expected TOKEN={right}", source=option)
        out[left] = target
    return out


def _fault_kinds(text: str) -> tuple[FaultKind, ...]:
    kinds = tuple(k.strip() for k in text.split(",") if k.strip())
    known = ("429", "500", "503", "slow")
    for kind in kinds:
        if kind not in known:
            raise InputError(f"expected some of {', '.join(known)}", source="--fault-kinds")
    return cast("tuple[FaultKind, ...]", kinds)


def register(app: typer.Typer) -> None:
    """Add ``sandbox serve`` to ``app``."""
    sandbox = typer.Typer(
        name="sandbox",
        help="A local server of every endpoint of the seed's API, for tests and demos.",
        no_args_is_help=True,
    )

    @sandbox.command("serve")
    def serve(
        snapshot: Annotated[
            Path | None,
            typer.Option("--snapshot", help="Snapshot file to serve (default: the sample estate)."),
        ] = None,
        host: Annotated[
            str, typer.Option("--host", help="Address to listen on.", callback=host_option)
        ] = "127.0.0.1",
        port: Annotated[
            int,
            typer.Option("--port", help="Port to listen on (0: a free one).", callback=port_option),
        ] = 0,
        bearer: Annotated[
            list[str] | None,
            typer.Option(
                "--bearer",
                metavar="TOKEN=PRINCIPAL_ID",
                help="A bearer token for areas A-D and the principal of the snapshot it stands "
                "for (repeatable). Without any, one token reading everything at / is generated "
                "and printed once. Values given here are visible in the process list: use them "
                "for local testing only.",
            ),
        ] = None,
        api_token: Annotated[
            list[str] | None,
            typer.Option(
                "--api-token",
                metavar="VALUE=TOKEN_ID",
                help="The value of a token of the snapshot's devTooling.tokens (repeatable). "
                "Tokens created through the API work too.",
            ),
        ] = None,
        page_size: Annotated[
            int,
            typer.Option(
                "--page-size",
                min=1,
                help="Items per page of every paged list; longer lists page with nextLink.",
            ),
        ] = 200,  # SandboxConfig's DEFAULT_PAGE_SIZE (not imported: it would load the server)
        persist: Annotated[
            bool, typer.Option("--persist", help="Write changes back to --snapshot (atomically).")
        ] = False,
        fault_rate: Annotated[
            float,
            typer.Option(
                "--fault-rate",
                min=0.0,
                max=1.0,
                help="Share of API requests answered 429, 500 or 503 (for testing clients).",
            ),
        ] = 0.0,
        fault_kinds: Annotated[
            str,
            typer.Option(
                "--fault-kinds",
                help="Comma-separated faults drawn by --fault-rate: 429, 500, 503, slow (the right "
                "answer, --slow-delay seconds late).",
            ),
        ] = "429,500,503",
        slow_delay: Annotated[
            float, typer.Option("--slow-delay", min=0.0, help="Seconds a 'slow' fault waits.")
        ] = 2.0,
        fault_seed: Annotated[
            int | None, typer.Option("--fault-seed", help="Seed of the fault draws.")
        ] = None,
        latency: Annotated[
            float, typer.Option("--latency", min=0.0, help="Seconds added to every API answer.")
        ] = 0.0,
        async_delay: Annotated[
            float,
            typer.Option(
                "--async-delay",
                min=0.0,
                help="Seconds a cluster create's asynchronous operation runs (0: done at once).",
            ),
        ] = 1.0,
        access_log: Annotated[
            bool, typer.Option("--access-log", help="Log every request (method, path, status).")
        ] = False,
        namespace: Annotated[
            str,
            typer.Option(
                "--namespace",
                help="'seed': the seed's paths (Cloud.*); 'vendor': the vendor's paths, "
                "api-versions and names (Microsoft.*), as the vendor's SDKs and `collect "
                "--namespace vendor` call them; 'both': either.",
            ),
        ] = "seed",
        _no_cache: NoCache = False,
        _cache_dir: CacheDir = None,
    ) -> None:
        """Serve the seed's API (areas A-E), an OpenAPI document (/openapi.json) and an API
        explorer (/docs) from a snapshot. Stop with Ctrl-C."""
        from auditor.sandbox.config import FaultConfig, SandboxConfig
        from auditor.sandbox.server import bind, serve_forever, url_of

        if namespace not in ("seed", "vendor", "both"):
            raise InputError("expected seed, vendor or both", source="--namespace")
        if persist and snapshot is None:
            raise InputError("--persist needs --snapshot (the sample estate is not a file)")
        if snapshot is not None:
            from auditor.cli._estate import read_estate

            estate = read_estate(snapshot, snapshot_only=persist)
        else:
            from auditor.estate.sample import sample_snapshot

            estate = sample_snapshot()
        bearers = _pairs(bearer or [], "--bearer", "PRINCIPAL_ID")
        import secrets  # here, not at start-up (hmac, hashlib): only serving needs a token

        reader = None if bearers else secrets.token_urlsafe(24)
        try:
            config = SandboxConfig(
                bearer_tokens=bearers,
                api_tokens=_pairs(api_token or [], "--api-token", "TOKEN_ID"),
                reader_token=reader,
                page_size=page_size,
                async_delay=async_delay,
                faults=FaultConfig(
                    rate=fault_rate,
                    kinds=_fault_kinds(fault_kinds),
                    seed=fault_seed,
                    latency=latency,
                    slow_delay=slow_delay,
                ),
                persist_path=str(snapshot) if persist and snapshot is not None else None,
                namespace=cast("SandboxNamespace", namespace),
            )
            from auditor.sandbox.store import Store

            Store(estate, config)  # refuse unknown --api-token ids before listening
        except ValueError as exc:
            raise InputError(str(exc)) from None
        try:
            sock = bind(host, port)
        except OSError as exc:
            raise InputError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
        url = url_of(sock)
        out = sys.stdout
        names = {"vendor": " (the vendor's paths)", "both": " (the seed's and the vendor's paths)"}
        out.write(f"Serving the sandbox at {url}{names.get(namespace, '')}\n")
        out.write(f"API explorer: {url}/docs   OpenAPI: {url}/openapi.json\n")
        if reader is not None:
            out.write(f"Bearer token (read access at /): {reader}\n")
        out.write("Press Ctrl-C to stop.\n")
        out.flush()
        try:
            serve_forever(estate, config, sock, access_log=access_log)
        except KeyboardInterrupt:  # Ctrl-C is how a server is stopped: a normal end, exit 0
            pass
        finally:
            sock.close()

    app.add_typer(sandbox)
