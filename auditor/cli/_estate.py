"""``auditor estate show|generate|import`` and ``auditor demo``; :func:`read_estate`, what every
``--snapshot`` option reads.

Heavy modules (the snapshot loader, the models, rich) are imported inside the commands so that
``auditor --help`` stays fast.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from auditor.cli._cache import CacheDir, NoCache

if TYPE_CHECKING:
    from auditor.estate.snapshot import Snapshot


class ShowFormat(StrEnum):
    table = "table"
    json = "json"


class ImportFormat(StrEnum):
    """``estate import --format``: the values of :class:`auditor.sources.ExportFormat` (kept here
    so that the command line starts without importing the readers)."""

    snapshot = "snapshot"
    rest = "rest"
    cli = "cli"
    group_members = "group-members"
    har = "har"
    vcr = "vcr"


def read_estate(
    path: str | os.PathLike[str],
    *,
    warn: bool = True,
    snapshot_only: bool = False,
    config: str | os.PathLike[str] | None = None,
) -> Snapshot:
    """The estate a ``--snapshot`` (or ``--directory``) option names: a snapshot file, or any
    export auditor recognises (:func:`auditor.sources.load_estate`). With ``warn`` the warnings
    (unknown top-level keys, what an import skipped or merged) go to standard error. A large
    snapshot file goes through the persistent cache unless the command says otherwise
    (:mod:`auditor.cli._cache`; ``config``: the command's ``--config``)."""
    from auditor.cli._cache import estate_cache

    cache = estate_cache(path, config)
    if cache is None:
        snapshot = _small_snapshot(path) or _load_estate(path, snapshot_only)
    else:
        from auditor.sources import load_estate

        snapshot = cache.load(path, lambda name: load_estate(name, snapshot_only=snapshot_only))
    if warn:
        print_warnings(snapshot.warnings)
    return snapshot


def print_warnings(warnings: Iterable[str]) -> None:
    """What a loader said about its input, a line each on standard error, inert and bounded."""
    from auditor.inert import inert

    for warning in warnings:
        sys.stderr.write(f"auditor: warning: {inert(warning, limit=2_000)}\n")


def _small_snapshot(path: str | os.PathLike[str]) -> Snapshot | None:
    """A small snapshot file read without pydantic (its small sections become wire models when
    first read), or None: then the readers decide what the file is (:mod:`auditor.estate.light`:
    the same snapshot, the same warnings and errors, in a fraction of the start-up)."""
    from auditor.estate.light import light_snapshot

    return light_snapshot(path)


def _load_estate(path: str | os.PathLike[str], snapshot_only: bool) -> Snapshot:
    from auditor.sources import load_estate

    return load_estate(path, snapshot_only=snapshot_only)


def _is_stdout(name: str) -> bool:
    """Whether the output path is this process's standard output (the summary then goes to
    standard error)."""
    if name in ("-", "/dev/stdout"):
        return True
    try:
        target, out = os.stat(name), os.fstat(sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        return False
    return (target.st_dev, target.st_ino) == (out.st_dev, out.st_ino)


_SUBSCRIPTION = re.compile(r"^/subscriptions/([^/]+)", re.IGNORECASE)

PER_SUBSCRIPTION_KINDS = (
    "roleAssignments",
    "denyAssignments",
    "clusters",
    "domains",
    "healthEvents",
)
"""What ``estate show`` counts per subscription."""


def subscription_of(resource_id: str | None) -> str | None:
    """The subscription GUID an id or scope lies in (None above subscriptions)."""
    if not resource_id:
        return None
    m = _SUBSCRIPTION.match(resource_id)
    return m.group(1) if m else None


def summarize_snapshot(snapshot: Snapshot) -> dict[str, Any]:
    """Counts per section and per subscription (``estate show --format json`` prints this).

    Subscriptions compare case-insensitively and keep the casing first seen; those of the hierarchy
    come first, in its order, then any others in the order their ids appear. Scopes above every
    subscription (management groups, ``/``) are counted under ``aboveSubscriptions``.
    """
    rows: dict[str, dict[str, Any]] = {}

    def row(sub: str) -> dict[str, Any]:
        key = sub.lower()
        found = rows.get(key)
        if found is None:
            found = rows[key] = {"subscriptionId": sub, "displayName": None}
            found.update(dict.fromkeys(PER_SUBSCRIPTION_KINDS, 0))
        return found

    for entry in snapshot.hierarchy:
        sub = subscription_of(entry.id)
        if sub is not None and entry.id is not None and entry.id.rstrip("/").count("/") == 2:
            row(sub)["displayName"] = entry.displayName
    above = dict.fromkeys(PER_SUBSCRIPTION_KINDS, 0)
    sources: dict[str, list[str | None]] = {
        "roleAssignments": [ra.properties.scope for ra in snapshot.roleAssignments],
        "denyAssignments": [da.properties.scope for da in snapshot.denyAssignments],
        "clusters": [c.id for c in snapshot.clusters],
        "domains": [d.id for d in snapshot.domains],
        "healthEvents": [e.id for e in snapshot.healthEvents],
    }
    for kind, ids in sources.items():
        for rid in ids:
            sub = subscription_of(rid)
            if sub is None:
                above[kind] += 1
            else:
                row(sub)[kind] += 1
    hierarchy_mgs = sum(
        1 for h in snapshot.hierarchy if h.id and "/managementgroups/" in h.id.lower()
    )
    return {
        "file": snapshot.source,
        "snapshotVersion": snapshot.snapshotVersion,
        "collectedAt": snapshot.collectedAt,
        "tenantId": snapshot.tenantId,
        "counts": snapshot.counts(),
        "managementGroups": hierarchy_mgs,
        "subscriptionCount": len(rows),
        "subscriptions": list(rows.values()),
        "aboveSubscriptions": above,
    }


_KIND_TITLES = {
    "hierarchy": "Hierarchy entries",
    "principals": "Principals",
    "roleDefinitions": "Role definitions",
    "roleAssignments": "Role assignments",
    "denyAssignments": "Deny assignments",
    "clusters": "Clusters",
    "domains": "Domains",
    "healthEvents": "Health events",
    "devTooling.apps": "Developer-tooling apps",
    "devTooling.tokens": "API tokens",
}
_COLUMN_TITLES = {
    "roleAssignments": "Roles",
    "denyAssignments": "Denies",
    "clusters": "Clusters",
    "domains": "Domains",
    "healthEvents": "Events",
}


def print_summary(summary: dict[str, Any], output_format: ShowFormat) -> None:
    """Print a :func:`summarize_snapshot` result as rich tables or as JSON on stdout."""
    if output_format is ShowFormat.json:
        import msgspec

        from auditor.inert import inert_json

        text = msgspec.json.format(msgspec.json.encode(summary), indent=2).decode()
        typer.echo(inert_json(text))
        return
    from rich import box
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from auditor.inert import TERMINAL_LIMIT, inert

    def shown(value: object) -> Text:  # inert, bounded, and never read as rich markup
        return Text(inert(value, limit=TERMINAL_LIMIT))

    console = Console(highlight=False)
    if not console.is_terminal:  # a file or a pipe: no need to squeeze into 80 columns
        console = Console(highlight=False, width=120)
    console.print(shown(summary["file"]), style="bold")
    details = [f"snapshot version {inert(summary['snapshotVersion'], limit=TERMINAL_LIMIT)}"]
    if summary["collectedAt"]:
        details.append(f"collected {inert(summary['collectedAt'], limit=TERMINAL_LIMIT)}")
    if summary["tenantId"]:
        details.append(f"tenant {inert(summary['tenantId'], limit=TERMINAL_LIMIT)}")
    console.print(Text(", ".join(details)), soft_wrap=True)

    kinds = Table(title="Records per kind", box=box.SIMPLE_HEAD, title_justify="left")
    kinds.add_column("Kind")
    kinds.add_column("Count", justify="right")
    for key, count in summary["counts"].items():
        kinds.add_row(_KIND_TITLES.get(key, key), f"{count:,}")
        if key == "hierarchy":
            kinds.add_row("  of which management groups", f"{summary['managementGroups']:,}")
    kinds.add_row("Subscriptions (hierarchy and ids)", f"{summary['subscriptionCount']:,}")
    console.print(kinds)

    subs = Table(
        title="Per subscription",
        caption="Roles: role assignments; Denies: deny assignments; Events: health events",
        box=box.SIMPLE_HEAD,
        title_justify="left",
        caption_justify="left",
    )
    subs.add_column("Subscription", no_wrap=True)
    subs.add_column("Name", overflow="fold", min_width=16)
    for kind in PER_SUBSCRIPTION_KINDS:
        subs.add_column(_COLUMN_TITLES[kind], justify="right")
    for entry in summary["subscriptions"]:
        subs.add_row(
            shown(entry["subscriptionId"]),
            shown(entry["displayName"] or ""),
            *(f"{entry[k]:,}" for k in PER_SUBSCRIPTION_KINDS),
        )
    above = summary["aboveSubscriptions"]
    if any(above.values()):
        subs.add_row(
            "[italic](above subscriptions)[/italic]",
            "",
            *(f"{above[k]:,}" for k in PER_SUBSCRIPTION_KINDS),
        )
    if summary["subscriptions"] or any(above.values()):
        console.print(subs)
    else:
        console.print("No subscriptions.")


def register(app: typer.Typer) -> None:
    """Add the estate commands to ``app``."""
    estate = typer.Typer(
        help="Look into snapshot files, make synthetic ones, import real exports.",
        no_args_is_help=True,
    )
    app.add_typer(estate, name="estate")

    @estate.command("show")
    def show(
        file: Annotated[Path, typer.Argument(help="Snapshot file (contracts section 2).")],
        output_format: Annotated[
            ShowFormat, typer.Option("--format", "-f", help="table (rich tables) or json.")
        ] = ShowFormat.table,
        _no_cache: NoCache = False,
        _cache_dir: CacheDir = None,
    ) -> None:
        """Count the records of a snapshot (or an export), per kind and per subscription."""
        print_summary(summarize_snapshot(read_estate(file)), output_format)

    @estate.command("import")
    def import_exports(
        inputs: Annotated[
            list[Path],
            typer.Argument(
                help="Files and folders: management-API responses (listings, pages, single "
                "resources), the vendor CLI's JSON output, HAR files, VCR cassettes, snapshots.",
                metavar="FILE|FOLDER...",
            ),
        ],
        out: Annotated[
            str,
            typer.Option("--out", "-o", help="Snapshot file to write (- for standard output)."),
        ],
        input_format: Annotated[
            ImportFormat | None,
            typer.Option(
                "--format", help="Read every input as this kind instead of recognising it."
            ),
        ] = None,
        force: Annotated[
            bool, typer.Option("--force", help="Overwrite an existing output file.")
        ] = False,
    ) -> None:
        """Build one snapshot from real exports (contracts section 8), each file recognised by its
        shape; print what was read from which file and what was skipped."""
        from auditor.estate import write_atomic
        from auditor.estate.snapshot import dumps_snapshot
        from auditor.inert import inert
        from auditor.sources.exports import check_output, import_estate

        check_output(out, inputs, force=force)
        fmt = input_format.value if input_format is not None else None
        snapshot = import_estate(inputs, format=fmt)
        data = dumps_snapshot(snapshot)
        to_stdout = _is_stdout(out)
        if out == "-":
            sys.stdout.buffer.write(data)
            sys.stdout.flush()
        else:
            write_atomic(out, data, overwrite=force, what="snapshot file")
        report = sys.stderr if to_stdout else sys.stdout
        report.write(snapshot.summary.table())
        if out != "-":
            report.write(f"wrote {inert(out, limit=500)} ({len(data):,} bytes)\n")
        print_warnings(snapshot.warnings)

    @estate.command("generate")
    def generate(
        role_assignments: Annotated[
            int, typer.Option("--role-assignments", help="How many role assignments.")
        ],
        seed: Annotated[int, typer.Option("--seed", help="Same seed, same bytes.")],
        out: Annotated[Path, typer.Option("--out", "-o", help="Snapshot file to write.")],
        principals: Annotated[
            int | None,
            typer.Option("--principals", help="Directory size [default: role assignments / 10]."),
        ] = None,
        deny_assignments: Annotated[
            int | None,
            typer.Option(
                "--deny-assignments",
                help="Deny assignments [default: 1% of the role assignments].",
            ),
        ] = None,
        force: Annotated[bool, typer.Option("--force", help="Overwrite an existing file.")] = False,
    ) -> None:
        """Write a synthetic estate of the given size (seeded, streaming, bounded memory)."""
        import time

        from auditor.estate.generate import generate_estate

        started = time.perf_counter()
        result = generate_estate(
            role_assignments,
            seed=seed,
            principals=principals,
            deny_assignments=deny_assignments,
            out=out,
            overwrite=force,
        )
        seconds = time.perf_counter() - started
        counts = result.counts
        typer.echo(
            f"wrote {out}: {counts['roleAssignments']:,} role assignments, "
            f"{counts['denyAssignments']:,} deny assignments, {counts['principals']:,} principals, "
            f"{result.subscriptions:,} subscriptions (at most "
            f"{result.max_role_assignments_per_subscription:,} role assignments each); "
            f"{result.bytes_written / 1e6:,.1f} MB in {seconds:.1f} s"
        )
