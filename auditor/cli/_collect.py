"""``auditor collect``: build a snapshot from the API (see :mod:`auditor.api.collect`)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, cast

import typer

from auditor.cli._cache import CacheDir, NoCache
from auditor.cli._validate import base_url_option, devtooling_url_option
from auditor.errors import InputError

if TYPE_CHECKING:
    from auditor.api import Credential
    from auditor.api.collect import CollectResult, ProgressCallback, RoleAssignmentMode

DEFAULT_TOKEN_ENV = "AUDITOR_TOKEN"
DEFAULT_API_TOKEN_ENV = "AUDITOR_API_TOKEN"
VENDOR_BASE_URL = "https://management.azure.com"
"""The vendor's management API: ``--base-url`` when ``--namespace vendor`` gives none."""
TOKEN_SOURCES = ("env", "azure-identity")


def _check_url(url: str, option: str, allow_http: bool) -> None:
    from auditor.cli._validate import check_url  # one place for every URL option

    check_url(url, option, allow_http)


DEFAULT_MAX_PAGES = 10_000

DeadlineOpt = Annotated[
    float | None,
    typer.Option(
        "--deadline",
        metavar="SECONDS",
        min=0.001,
        help="Seconds for the whole collection (every request, retry and wait); when they have "
        "passed, collecting stops, what was read is kept, and the exit code is 3.",
    ),
]
MaxPagesOpt = Annotated[
    int,
    typer.Option(
        "--max-pages",
        metavar="N",
        min=1,
        help="Pages of one listing, at most; a listing with more ends incomplete (exit 3).",
    ),
]
NamespaceOpt = Annotated[
    str,
    typer.Option(
        "--namespace",
        metavar="seed|vendor",
        help="'seed': the seed's paths (Cloud.*); 'vendor': the vendor's management API "
        f"(Microsoft.* paths and api-versions; {VENDOR_BASE_URL} unless --base-url gives "
        "another), its records mapped to the seed's names as `estate import` maps them.",
    ),
]
TokenCommandOpt = Annotated[
    str | None,
    typer.Option(
        "--token-command",
        metavar="CMD",
        help="A command printing the bearer token (run without a shell), for example "
        '"az account get-access-token --query accessToken -o tsv"; run again once if '
        "the token expires during the collection. The token is never shown.",
    ),
]
TokenSourceOpt = Annotated[
    str,
    typer.Option(
        "--token-source",
        metavar="env|azure-identity",
        help="Where the bearer token comes from without --token-command: 'env' (the "
        "variable of --token-env) or 'azure-identity' (DefaultAzureCredential; needs "
        "auditor[azure]).",
    ),
]
"""``--namespace``, ``--token-command`` and ``--token-source``: one definition for ``collect``
and ``audit --base-url`` (checked by :func:`check_live_options`)."""


def check_live_options(namespace: str, token_command: str | None, token_source: str) -> None:
    """Exit 2 on a ``--namespace`` or ``--token-source`` that is not known, or both
    ``--token-command`` and ``--token-source``."""
    if namespace not in ("seed", "vendor"):
        raise InputError("expected seed or vendor", source="--namespace")
    if token_source not in TOKEN_SOURCES:
        raise InputError(f"expected {' or '.join(TOKEN_SOURCES)}", source="--token-source")
    if token_command is not None and token_source != "env":
        raise InputError("give --token-command or --token-source, not both")


def live_base_url(base_url: str | None, namespace: str) -> str:
    """``--base-url``, or the vendor's management API under ``--namespace vendor``."""
    if base_url is not None:
        return base_url
    if namespace != "vendor":
        raise InputError(
            "--base-url is needed (the vendor's API is the default of --namespace vendor only)"
        )
    return VENDOR_BASE_URL


_WARNINGS_SHOWN = 20


def warn_incomplete(result: CollectResult) -> None:
    """One warning on stderr per part that could not be read in full (the first few), inert."""
    from auditor.inert import inert_message

    for failure in result.incomplete[:_WARNINGS_SHOWN]:
        text = inert_message(f"incomplete: {failure.what}: {failure.error}")
        sys.stderr.write(f"auditor: warning: {text}\n")
    more = len(result.incomplete) - _WARNINGS_SHOWN
    if more > 0:
        sys.stderr.write(f"auditor: warning: and {more:,} more incomplete parts\n")


def register(app: typer.Typer) -> None:
    """Add ``collect`` to ``app``."""

    @app.command("collect")
    def collect(
        subscription: Annotated[
            list[str],
            typer.Option(
                "--subscription", metavar="ID", help="Subscription to collect (repeatable)."
            ),
        ],
        out: Annotated[Path, typer.Option("--out", metavar="FILE", help="Snapshot file to write.")],
        base_url: Annotated[
            str | None,
            typer.Option(
                "--base-url",
                help=f"The API's base URL (areas A-D); with --namespace vendor, {VENDOR_BASE_URL} "
                "unless given.",
                callback=base_url_option,
            ),
        ] = None,
        namespace: NamespaceOpt = "seed",
        token_command: TokenCommandOpt = None,
        token_source: TokenSourceOpt = "env",
        token_env: Annotated[
            str,
            typer.Option(
                "--token-env", metavar="VAR", help="Environment variable holding the bearer token."
            ),
        ] = DEFAULT_TOKEN_ENV,
        api_token_env: Annotated[
            str,
            typer.Option(
                "--api-token-env",
                metavar="VAR",
                help="Environment variable holding a developer-tooling API token; when it is "
                "set, the developer-tooling service is collected too.",
            ),
        ] = DEFAULT_API_TOKEN_ENV,
        devtooling_url: Annotated[
            str | None,
            typer.Option(
                "--devtooling-url",
                help="Base URL of the developer-tooling service (default: --base-url).",
                callback=devtooling_url_option,
            ),
        ] = None,
        directory: Annotated[
            Path | None,
            typer.Option(
                "--directory",
                metavar="FILE",
                help="A snapshot supplying hierarchy, principals and roleDefinitions (and "
                "tenantId), which the seed's API does not serve.",
            ),
        ] = None,
        role_assignments: Annotated[
            str,
            typer.Option(
                "--role-assignments",
                help="'subscription': per subscription (at, above and below each); 'provider': "
                "the paged provider-level call (the whole tenant).",
            ),
        ] = "subscription",
        concurrency: Annotated[
            int, typer.Option("--concurrency", min=1, help="Requests in flight at once.")
        ] = 8,
        timeout: Annotated[
            float,
            typer.Option(
                "--timeout",
                min=0.1,
                help="Seconds per request, its whole answer read (however slowly it arrives).",
            ),
        ] = 30.0,
        retries: Annotated[
            int, typer.Option("--retries", min=0, help="Retries of a failed request.")
        ] = 4,
        deadline: DeadlineOpt = None,
        max_pages: MaxPagesOpt = DEFAULT_MAX_PAGES,
        force: Annotated[
            bool, typer.Option("--force", help="Overwrite --out if it exists.")
        ] = False,
        allow_http: Annotated[
            bool,
            typer.Option(
                "--allow-http", help="Allow plain http to a host other than this machine."
            ),
        ] = False,
        _no_cache: NoCache = False,
        _cache_dir: CacheDir = None,
    ) -> None:
        """Collect a snapshot (contracts 2) from the API. A part that cannot be read in full (an
        error answer, --deadline passed, more than --max-pages pages, an item the snapshot cannot
        hold) is listed under "incomplete" in the written file, what was read of it is kept, and
        the exit code is 3.

        hierarchy, principals and roleDefinitions are not served by the seed's API: they stay
        empty unless --directory supplies them."""
        import asyncio

        from auditor.api import ClientSettings, DevToolingClient, ResourceManagerClient, RetryPolicy
        from auditor.api.collect import collect as run_collect
        from auditor.api.collect import write_snapshot
        from auditor.model.secrets import Secret

        if role_assignments not in ("subscription", "provider"):
            raise InputError("expected subscription or provider", source="--role-assignments")
        check_live_options(namespace, token_command, token_source)
        base_url = live_base_url(base_url, namespace)
        _check_url(base_url, "--base-url", allow_http)
        dev_url = devtooling_url or base_url
        if devtooling_url:
            _check_url(devtooling_url, "--devtooling-url", allow_http)
        if out.exists() and not force:
            raise InputError(
                "the file exists already; choose another name or add --force", source=str(out)
            )
        credential = live_credential(token_command, token_source, token_env)
        api_token = os.environ.get(api_token_env)
        estate_directory = None
        if directory is not None:
            from auditor.cli._estate import read_estate

            estate_directory = read_estate(directory)
        elif namespace == "vendor":
            sys.stderr.write(
                "note: hierarchy, principals and roleDefinitions are not collected from the "
                "vendor's API and stay empty; --directory FILE supplies them (a snapshot, or "
                "`az role definition list` and `az ad` exports)\n"
            )
        else:
            sys.stderr.write(
                "note: hierarchy, principals and roleDefinitions are not served by the seed's API "
                "and stay empty; --directory FILE supplies them\n"
            )
        settings = ClientSettings(
            timeout=timeout,
            concurrency=concurrency,
            retry=RetryPolicy(attempts=retries + 1),
            deadline=deadline,
            max_pages=max_pages,
        )
        from auditor.api._paths import subscription_path

        subscriptions = [s for s in subscription if s.strip()]
        try:
            for s in subscriptions:
                subscription_path(s)
        except ValueError as exc:
            raise InputError(str(exc), source="--subscription") from None

        mode = cast("RoleAssignmentMode", role_assignments)
        progress, finish = _progress()

        collected: list[CollectResult] = []

        async def main() -> None:
            # the result is handed over in a list, not returned: on Python 3.11, asyncio.run()
            # builds a repr of its main task (and so of a returned value) while shutting down,
            # which for a large estate costs seconds
            api_client = ResourceManagerClient(
                base_url,
                credential,
                settings,
                namespace="vendor" if namespace == "vendor" else "seed",
            )
            async with api_client as api:
                if not api_token:
                    collected.append(
                        await run_collect(
                            api,
                            subscriptions,
                            directory=estate_directory,
                            role_assignments=mode,
                            progress=progress,
                        )
                    )
                    return
                async with DevToolingClient(dev_url, Secret(api_token), settings) as dev:
                    collected.append(
                        await run_collect(
                            api,
                            subscriptions,
                            devtooling=dev,
                            directory=estate_directory,
                            role_assignments=mode,
                            progress=progress,
                        )
                    )

        try:
            asyncio.run(main())
        finally:
            finish()
        result = collected[0]
        counts = result.counts()
        shown = ", ".join(f"{k} {v}" for k, v in counts.items() if v)
        typer.echo(
            f"collected {shown or 'nothing'} in {result.seconds:.1f} s "
            f"({result.requests} requests, {result.retries} retried)"
        )
        warn_incomplete(result)
        write_snapshot(result, out, force=force)
        typer.echo(f"wrote {out}")

    del collect


def live_credential(command: str | None, source: str, variable: str) -> Credential:
    """The bearer credential: from ``--token-command``, azure-identity or the environment
    (the token is read now; a command's or azure-identity's is renewed once after a 401)."""
    from auditor.api.tokens import from_azure_identity, from_command, from_environment

    if command is not None:
        return from_command(command).credential()
    if source == "azure-identity":
        return from_azure_identity().credential()
    return from_environment(variable).credential()


def _progress() -> tuple[ProgressCallback | None, Callable[[], None]]:
    """A rich progress bar on a terminal; nothing otherwise."""
    if not sys.stderr.isatty():
        return None, lambda: None
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    bar = Progress(
        TextColumn("collecting"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.description}"),
        console=Console(stderr=True),
        transient=True,
    )
    task = bar.add_task("", total=None)
    bar.start()

    def update(what: str, done: int, total: int) -> None:
        bar.update(task, completed=done, total=total, description=what)

    return update, bar.stop
