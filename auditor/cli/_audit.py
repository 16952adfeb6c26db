"""``auditor audit``, ``auditor gate`` and ``auditor rules list`` (contracts section 5).

Exit codes: 0 nothing at or above ``--fail-on``; 1 the gate failed (a blocking finding, an expired
waiver, or with ``--fail-on-unknown`` a finding no rule could judge); 2 usage or input error; 3
evaluation incomplete (a source could not be read, with ``--require-complete`` a rule that lacked
an input it needs, or, with ``gate --apply``, a request of the plan could not be applied). A run
that exits 1 or 3 says why on standard error.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from auditor.cli import _ci, _frameworks, _history, _rules
from auditor.cli._cache import CacheDir, NoCache
from auditor.cli._collect import DeadlineOpt, NamespaceOpt, TokenCommandOpt, TokenSourceOpt
from auditor.cli._validate import base_url_option
from auditor.errors import IncompleteError, InputError

if TYPE_CHECKING:
    from auditor.audit.findings import AuditResult, Severity
    from auditor.audit.runner import AuditOptions

SEVERITY_NAMES = ("critical", "high", "medium", "low", "info")

OutputOpt = Annotated[
    list[str] | None,
    typer.Option(
        "-o",
        "--output",
        metavar="FORMAT[=PATH]",
        help="Output format (text, json, sarif, junit, html, pdf, csv, markdown, ocsf), to PATH or to "
        "standard output; repeatable. Default: text to standard output.",
    ),
]
CompactOpt = Annotated[
    bool,
    typer.Option("--compact", help="Text output: the summary and one line per failing rule."),
]
IncludePassedOpt = Annotated[
    bool,
    typer.Option(
        "--include-passed",
        help="HTML and PDF: list every passing finding (by default passes are counted per rule).",
    ),
]
SarifAnchorOpt = Annotated[
    Path | None,
    typer.Option(
        "--sarif-anchor",
        metavar="PATH",
        help="Anchor every SARIF result to this file (default: the snapshot or plan the finding "
        "came from).",
    ),
]
FailOnOpt = Annotated[
    str | None,
    typer.Option(
        "--fail-on",
        metavar="SEVERITY",
        help="Fail (exit 1) on a finding at or above this severity (default high); none: no "
        "finding blocks (expired waivers and --fail-on-unknown still do).",
    ),
]
WaiversOpt = Annotated[
    Path | None, typer.Option("--waivers", metavar="FILE", help="Waivers file (YAML).")
]
CheckOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--check",
        metavar="ID|GLOB|SEVERITY",
        help="Run only these rules (id, glob such as 'RBAC-*', or severity); repeatable.",
    ),
]
SkipOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--skip-check",
        metavar="ID|GLOB|SEVERITY",
        help="Do not run these rules (id, glob or severity); repeatable.",
    ),
]
ConfigOpt = Annotated[
    Path | None,
    typer.Option(
        "--config",
        metavar="FILE",
        help="Configuration file (default: auditor.toml, or [tool.auditor] in pyproject.toml, "
        "looked up from the current directory).",
    ),
]
AsOfOpt = Annotated[
    str | None,
    typer.Option(
        "--as-of",
        metavar="DATE",
        help="The audit's clock (YYYY-MM-DD): token retirement (TOK-001) and waiver expiry.",
    ),
]
ScanOpt = Annotated[
    list[Path] | None,
    typer.Option(
        "--scan-file",
        metavar="FILE",
        help="Also scan this configuration file for API token values (TOK-006); repeatable.",
    ),
]
MaxTimeOpt = Annotated[
    float | None,
    typer.Option(
        "--max-time",
        metavar="SECONDS",
        help="Stop evaluating after this long (from the start of the command): the findings so "
        "far are reported, the rules not run are named, and the exit code is 3. Default: no "
        "limit.",
    ),
]
MaxMemoryOpt = Annotated[
    float | None,
    typer.Option(
        "--max-memory",
        metavar="MB",
        help="Stop evaluating when the process's resident memory exceeds this many MiB (exit 3, "
        "with the findings so far). Default: no limit.",
    ),
]
FailOnUnknownOpt = Annotated[
    bool,
    typer.Option(
        "--fail-on-unknown",
        help="Fail (exit 1) on a finding no rule could judge (status unknown: a value not known "
        "before deployment, or an input the rule needs is absent), unless waived.",
    ),
]
RequireCompleteOpt = Annotated[
    bool,
    typer.Option(
        "--require-complete",
        help="Exit 3 when a rule lacked an input it needs (e.g. no directory in the snapshot): "
        "the run's coverage is incomplete.",
    ),
]
MaxFindingsOpt = Annotated[
    int | None,
    typer.Option(
        "--max-findings-per-rule",
        metavar="N",
        help="List at most N failing findings of one rule (the rest are counted in the summary "
        "and named in a warning); 0 (the default) lists every one.",
    ),
]
FrameworkOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--framework",
        metavar="NAME",
        help="Run only the rules mapped to this framework (mcsb, cis, or a user pack's); the "
        "reports' compliance-by-control view shows its controls. Repeatable.",
    ),
]
RulesetOpt = Annotated[
    str | None,
    typer.Option(
        "--ruleset",
        metavar="VERSION",
        help="Refuse to run (exit 2) unless the installed rule catalogue is this version "
        "(`auditor rules list` shows it).",
    ),
]


def _budget(max_time: float | None, max_memory: float | None) -> Any:
    """The run's budget (its clock starts now), checking the values given."""
    from auditor.audit.budget import Budget

    for value, option in ((max_time, "--max-time"), (max_memory, "--max-memory")):
        if value is not None and not value > 0:
            raise InputError(f"expected a positive number, found {value:g}", source=option)
    return Budget(max_seconds=max_time, max_memory_mb=max_memory)


def _fail_on(value: str | None) -> Severity | None:
    if value is None:
        return None
    low = value.strip().lower()
    if low not in SEVERITY_NAMES:
        raise InputError(
            f"expected one of {', '.join(SEVERITY_NAMES)}, found {value!r}", source="--fail-on"
        )
    return low  # type: ignore[return-value]


def parse_outputs(values: list[str] | None) -> list[tuple[str, str | None]]:
    """``-o json=out.json -o text`` -> ``[("json", "out.json"), ("text", None)]``."""
    from auditor.report import RENDERERS

    out: list[tuple[str, str | None]] = []
    for value in values or ["text"]:
        fmt, sep, path = value.partition("=")
        fmt = fmt.strip().lower()
        if fmt not in RENDERERS:
            raise InputError(
                f"unknown output format {fmt!r}; expected one of {', '.join(sorted(RENDERERS))}",
                source="-o",
            )
        if sep and not path.strip():
            raise InputError(f"expected a path after {fmt}=", source="-o")
        out.append((fmt, path.strip() if sep else None))
    return out


def _options(
    *,
    config: Path | None,
    fail_on: str | None,
    waivers: Path | None,
    checks: list[str] | None,
    skips: list[str] | None,
    as_of: str | None,
    scan: list[Path] | None,
    baseline: Path | None = None,
    create_baseline: Path | None = None,
    max_time: float | None = None,
    max_memory: float | None = None,
    max_findings: int | None = None,
    fail_on_unknown: bool = False,
    require_complete: bool = False,
    frameworks: list[str] | None = None,
    ruleset: str | None = None,
    rule_packs: list[Path] | None = None,
) -> AuditOptions:
    from auditor.audit.runner import AuditOptions
    from auditor.audit.settings import parse_date

    for path, option in ((waivers, "--waivers"), (baseline, "--baseline")):
        if path is not None and not path.is_file():
            raise InputError("no such file", source=f"{option} {path}")
    if scan:
        for path in scan:
            if not path.is_file():
                raise InputError("no such file", source=f"--scan-file {path}")
    if config is not None and not config.is_file():
        raise InputError("no such configuration file", source=f"--config {config}")
    if max_findings is not None and max_findings < 0:
        raise InputError(
            f"expected 0 or more, found {max_findings}", source="--max-findings-per-rule"
        )
    options = AuditOptions(
        config_file=os.fspath(config) if config is not None else None,
        checks=checks or [],
        skip_checks=skips or [],
        fail_on=_fail_on(fail_on),
        as_of=parse_date(as_of) if as_of else None,
        waivers=os.fspath(waivers) if waivers is not None else None,
        baseline=os.fspath(baseline) if baseline is not None else None,
        create_baseline=os.fspath(create_baseline) if create_baseline is not None else None,
        files=[os.fspath(p) for p in scan or []],
        budget=_budget(max_time, max_memory),
        fail_on_unknown=fail_on_unknown,
        require_complete=require_complete,
    )
    if rule_packs:
        options.rule_packs = _rules.checked_dirs(rule_packs)
    if max_findings is not None:
        options.max_failures_per_rule = max_findings
    _frameworks_and_ruleset(options, frameworks, ruleset)
    return options


def _frameworks_and_ruleset(
    options: AuditOptions, frameworks: list[str] | None, ruleset: str | None
) -> None:
    """``--framework`` and ``--ruleset``, checked before anything is loaded (a wrong pin or name
    is exit 2 at once, not after reading a large estate)."""
    from auditor.audit.ruleset import check_pin

    check_pin(ruleset)
    options.ruleset = ruleset
    if frameworks:
        from auditor.audit.frameworks import frameworks_for, select_frameworks
        from auditor.audit.packs import catalogue_with
        from auditor.audit.settings import config_rule_packs

        use_config = options.config_file is not None or options.use_config
        dirs = [
            *(config_rule_packs(options.config_file) if use_config else ()),
            *options.rule_packs,
        ]
        catalogue = catalogue_with(dirs)
        select_frameworks(frameworks_for([r.id for r in catalogue.rules], dirs), frameworks)
        options.frameworks = list(frameworks)


def emit(
    result: AuditResult,
    outputs: list[tuple[str, str | None]],
    sarif_anchor: Path | None = None,
    compact: bool = False,
    include_passed: bool = False,
) -> None:
    """Write every requested output: files atomically, the rest to standard output."""
    from auditor.errors import InputError
    from auditor.report import RenderOptions, stream, write

    options = RenderOptions(
        sarif_anchor=os.fspath(sarif_anchor) if sarif_anchor else None,
        compact=compact,
        include_passed=include_passed,
    )
    for fmt, path in outputs:
        if fmt == "pdf" and path is None:
            raise InputError("a PDF needs a file: use -o pdf=PATH", source="-o")
    quiet = _ci.mode.quiet
    for warning in result.warnings if not quiet else ():
        sys.stderr.write(f"auditor: warning: {warning}\n")
    for fmt, path in outputs:
        if path is not None:
            write(result, fmt, path, options)  # JSON, CSV and JUnit streamed (every pass)
            if not quiet:
                sys.stderr.write(f"wrote {fmt} report to {path}\n")
        elif fmt == "text" and sys.stdout.isatty() and not compact:
            from rich.console import Console

            from auditor.report.text import print_rich

            print_rich(result, Console(no_color=_ci.mode.no_color or None))
        else:
            for part in stream(result, fmt, options):
                sys.stdout.write(part.decode("utf-8"))
            sys.stdout.flush()


def _exit(code: int) -> None:
    if code:
        raise SystemExit(code)


def _finish(result: AuditResult) -> None:
    """Exit with the result's code (under --soft-fail and --fail-on none), saying why in the
    one-line summary on standard error (docs/ci.md)."""
    _ci.finish(result)


def _ci_outputs(
    output: list[str] | None,
    fail_on: str | None,
    *,
    soft_fail: bool,
    quiet: bool,
    no_color: bool,
) -> tuple[list[tuple[str, str | None]], str | None]:
    """The outputs asked for (none by default under --quiet) and the --fail-on to use, with the
    run's CI options set."""
    fail_on_none = fail_on is not None and fail_on.strip().lower() == "none"
    outputs = parse_outputs(output) if output or not quiet else []
    ci = _ci.configure(
        soft_fail=soft_fail, fail_on_none=fail_on_none, quiet=quiet, no_color=no_color
    )
    ci.text_on_terminal = any(fmt == "text" and path is None for fmt, path in outputs)
    return outputs, (None if fail_on_none else fail_on)


def _live_target(
    snapshot: Path | None,
    base_url: str | None,
    deadline: float | None,
    namespace: str,
    token_command: str | None,
    token_source: str,
) -> str | None:
    """The API to collect from (None: audit ``--snapshot``), the live options checked: the
    options of ``collect`` (:mod:`auditor.cli._collect`), --namespace vendor meaning the vendor's
    management API unless --base-url names another."""
    from auditor.cli._collect import check_live_options, live_base_url

    check_live_options(namespace, token_command, token_source)
    if snapshot is not None:
        if base_url is not None:
            raise InputError("give exactly one of --snapshot FILE and --base-url URL")
        given = (
            ("--deadline", deadline is not None),
            ("--namespace vendor", namespace != "seed"),
            ("--token-command", token_command is not None),
            ("--token-source", token_source != "env"),
        )
        for option, used in given:
            if used:
                raise InputError(f"{option} is only used with --base-url")
        return None
    if base_url is None and namespace != "vendor":
        raise InputError("give exactly one of --snapshot FILE and --base-url URL")
    return live_base_url(base_url, namespace)


def _collect(
    base_url: str,
    subscriptions: list[str],
    token_env: str,
    api_token_env: str,
    directory: Path | None,
    allow_http: bool,
    deadline: float | None = None,
    *,
    namespace: str = "seed",
    token_command: str | None = None,
    token_source: str = "env",
) -> tuple[Any, list[str]]:
    """The snapshot read from the API (the seed's or, with ``namespace`` vendor, the vendor's
    names), and what could not be read. The bearer token comes as for ``collect``."""
    import asyncio

    from auditor.api import ClientSettings, DevToolingClient, ResourceManagerClient
    from auditor.api.collect import CollectResult
    from auditor.api.collect import collect as run_collect
    from auditor.cli._collect import _check_url, live_credential
    from auditor.model.secrets import Secret

    _check_url(base_url, "--base-url", allow_http)
    if not subscriptions:
        raise InputError(
            "give the subscriptions to audit with --subscription ID", source="--base-url"
        )
    credential = live_credential(token_command, token_source, token_env)
    api_token = os.environ.get(api_token_env)
    estate_directory = None
    if directory is not None:
        from auditor.cli._estate import read_estate

        estate_directory = read_estate(directory)
    settings = ClientSettings(deadline=deadline)

    async def main() -> CollectResult:
        client = ResourceManagerClient(
            base_url, credential, settings, namespace="vendor" if namespace == "vendor" else "seed"
        )
        async with client as api:
            if not api_token:
                return await run_collect(api, subscriptions, directory=estate_directory)
            async with DevToolingClient(base_url, Secret(api_token), settings) as dev:
                return await run_collect(
                    api, subscriptions, devtooling=dev, directory=estate_directory
                )

    result = asyncio.run(main())
    return result.snapshot, [f"{f.what}: {f.error}" for f in result.incomplete]


def register(app: typer.Typer) -> None:
    """Add ``audit``, ``gate`` and ``rules`` to ``app``."""

    @app.command("audit")
    def audit(
        snapshot: Annotated[
            Path | None, typer.Option("--snapshot", metavar="FILE", help="Snapshot file to audit.")
        ] = None,
        base_url: Annotated[
            str | None,
            typer.Option(
                "--base-url",
                metavar="URL",
                help="Collect the estate from the API (with --namespace vendor: "
                "https://management.azure.com unless given).",
                callback=base_url_option,
            ),
        ] = None,
        output: OutputOpt = None,
        sarif_anchor: SarifAnchorOpt = None,
        compact: CompactOpt = False,
        include_passed: IncludePassedOpt = False,
        fail_on: FailOnOpt = None,
        waivers: WaiversOpt = None,
        baseline: Annotated[
            Path | None,
            typer.Option(
                "--baseline",
                metavar="FILE",
                help="Gate on new findings only: failures in this baseline are 'baselined'.",
            ),
        ] = None,
        create_baseline: Annotated[
            Path | None,
            typer.Option(
                "--create-baseline",
                metavar="FILE",
                help="Write today's failing findings to FILE (they count as baselined in this run).",
            ),
        ] = None,
        check: CheckOpt = None,
        skip_check: SkipOpt = None,
        config: ConfigOpt = None,
        as_of: AsOfOpt = None,
        scan_file: ScanOpt = None,
        max_time: MaxTimeOpt = None,
        max_memory: MaxMemoryOpt = None,
        max_findings: MaxFindingsOpt = None,
        fail_on_unknown: FailOnUnknownOpt = False,
        require_complete: RequireCompleteOpt = False,
        framework: FrameworkOpt = None,
        ruleset: RulesetOpt = None,
        rules: _rules.RulesOpt = None,
        soft_fail: _ci.SoftFailOpt = False,
        quiet: _ci.QuietOpt = False,
        no_color: _ci.NoColorOpt = False,
        history: _history.HistoryOpt = None,
        fail_on_new: _history.FailOnNewOpt = False,
        subscription: Annotated[
            list[str] | None,
            typer.Option(
                "--subscription", metavar="ID", help="With --base-url: subscription to collect."
            ),
        ] = None,
        token_env: Annotated[
            str,
            typer.Option(
                "--token-env", metavar="VAR", help="With --base-url: bearer token variable."
            ),
        ] = "AUDITOR_TOKEN",
        api_token_env: Annotated[
            str,
            typer.Option(
                "--api-token-env",
                metavar="VAR",
                help="With --base-url: developer-tooling API token variable (optional).",
            ),
        ] = "AUDITOR_API_TOKEN",
        directory: Annotated[
            Path | None,
            typer.Option(
                "--directory",
                metavar="FILE",
                help="With --base-url: snapshot supplying hierarchy, principals, roleDefinitions.",
            ),
        ] = None,
        allow_http: Annotated[
            bool, typer.Option("--allow-http", help="Allow plain http to a remote host.")
        ] = False,
        deadline: DeadlineOpt = None,
        namespace: NamespaceOpt = "seed",
        token_command: TokenCommandOpt = None,
        token_source: TokenSourceOpt = "env",
        _no_cache: NoCache = False,
        _cache_dir: CacheDir = None,
    ) -> None:
        """Audit an estate (a snapshot file, or the live API: --base-url, or the vendor's
        management API with --namespace vendor) with every rule of the catalogue."""
        from auditor.audit.runner import audit_snapshot
        from auditor.cli._estate import read_estate

        base_url = _live_target(
            snapshot, base_url, deadline, namespace, token_command, token_source
        )
        outputs, fail_on = _ci_outputs(
            output, fail_on, soft_fail=soft_fail, quiet=quiet, no_color=no_color
        )
        options = _options(
            config=config,
            fail_on=fail_on,
            waivers=waivers,
            checks=check,
            skips=skip_check,
            as_of=as_of,
            scan=scan_file,
            baseline=baseline,
            create_baseline=create_baseline,
            max_time=max_time,
            max_memory=max_memory,
            max_findings=max_findings,
            fail_on_unknown=fail_on_unknown,
            require_complete=require_complete,
            frameworks=framework,
            ruleset=ruleset,
            rule_packs=rules,
        )
        history_file = _history.start(history, options, fail_on_new)
        from auditor.cli import collector_paused
        from auditor.cli._progress import stage

        if snapshot is not None:
            # the estate and the findings make no cycles: no collection walks them (frozen after)
            with stage(f"Loading {snapshot}"), collector_paused():
                estate = read_estate(snapshot, warn=False, config=config)
            with (
                stage(f"Auditing {len(estate.roleAssignments):,} role assignments and the rest"),
                collector_paused(),
            ):
                result = audit_snapshot(estate, options, target=os.fspath(snapshot))
        else:
            assert base_url is not None
            estate, incomplete = _collect(
                base_url,
                subscription or [],
                token_env,
                api_token_env,
                directory,
                allow_http,
                deadline,
                namespace=namespace,
                token_command=token_command,
                token_source=token_source,
            )
            with stage("Auditing the collected estate"):
                result = audit_snapshot(
                    estate, options, target=base_url, target_kind="api", incomplete=incomplete
                )
        from auditor.cli import hold_until_exit

        hold_until_exit(estate, result)  # the process ends without freeing them one by one
        run_id = _history.record(result, history_file, options, estate)  # before the reports
        if _ci.mode.text_on_terminal:  # no spinner beside a report on the terminal
            emit(result, outputs, sarif_anchor, compact, include_passed)
        else:
            with stage("Writing the reports"):
                emit(result, outputs, sarif_anchor, compact, include_passed)
        _history.finish(result, history_file, options, estate, fail_on_new, run_id)

    @app.command("gate")
    def gate(
        paths: Annotated[
            list[Path],
            typer.Argument(
                metavar="PATH",
                help="Plan files (contracts 3), ARM templates or Bicep-compiled JSON, Terraform "
                "files or folders, Terraform plan JSON, or folders of them (read recursively).",
            ),
        ],
        parameters_file: Annotated[
            list[Path] | None,
            typer.Option(
                "--parameters",
                metavar="FILE",
                help="ARM deploymentParameters file, for every template read (later files win); "
                "repeatable. Default: each template's NAME.parameters.json beside it, if any.",
            ),
        ] = None,
        parameter: Annotated[
            list[str] | None,
            typer.Option(
                "-p",
                "--parameter",
                metavar="NAME=VALUE",
                help="ARM template parameter value (wins over parameters files); repeatable.",
            ),
        ] = None,
        tf_var: Annotated[
            list[str] | None,
            typer.Option(
                "-var",
                "--var",
                metavar="NAME=VALUE",
                help="Terraform variable value (wins over variable files); repeatable.",
            ),
        ] = None,
        tf_var_file: Annotated[
            list[Path] | None,
            typer.Option(
                "--var-file",
                metavar="FILE",
                help="Terraform variables file (.tfvars or .tfvars.json); repeatable.",
            ),
        ] = None,
        gate_subscription: Annotated[
            str | None,
            typer.Option(
                "--subscription",
                metavar="ID",
                help="Templates: the subscription deployed to (default: not known; resource ids "
                "show {subscriptionId}).",
            ),
        ] = None,
        resource_group: Annotated[
            str | None,
            typer.Option(
                "--resource-group",
                metavar="NAME",
                help="ARM templates: the resource group deployed to (default: not known).",
            ),
        ] = None,
        input_format: Annotated[
            str | None,
            typer.Option(
                "--format",
                metavar="plan|arm|terraform|terraform-plan",
                help="Read the files given by name as this format (default: recognised by shape).",
            ),
        ] = None,
        output: OutputOpt = None,
        sarif_anchor: SarifAnchorOpt = None,
        compact: CompactOpt = False,
        include_passed: IncludePassedOpt = False,
        fail_on: FailOnOpt = None,
        waivers: WaiversOpt = None,
        check: CheckOpt = None,
        skip_check: SkipOpt = None,
        config: ConfigOpt = None,
        as_of: AsOfOpt = None,
        scan_file: ScanOpt = None,
        max_time: MaxTimeOpt = None,
        max_memory: MaxMemoryOpt = None,
        max_findings: MaxFindingsOpt = None,
        fail_on_unknown: FailOnUnknownOpt = False,
        require_complete: RequireCompleteOpt = False,
        framework: FrameworkOpt = None,
        ruleset: RulesetOpt = None,
        rules: _rules.RulesOpt = None,
        soft_fail: _ci.SoftFailOpt = False,
        quiet: _ci.QuietOpt = False,
        no_color: _ci.NoColorOpt = False,
        history: _history.HistoryOpt = None,
        estate: Annotated[
            Path | None,
            typer.Option(
                "--estate",
                metavar="SNAPSHOT",
                help="The estate the plan deploys to (a snapshot or exports): the access change "
                "of the plan's role and deny assignments is computed against it, judged by "
                "ACC-001..003 and written as accessDelta in the JSON (without it those rules are "
                "unknown).",
            ),
        ] = None,
        apply: Annotated[
            bool,
            typer.Option("--apply", help="When the gate passes, send the plan to --base-url."),
        ] = False,
        base_url: Annotated[
            str | None,
            typer.Option(
                "--base-url", metavar="URL", help="With --apply: the API.", callback=base_url_option
            ),
        ] = None,
        token_env: Annotated[
            str,
            typer.Option("--token-env", metavar="VAR", help="With --apply: bearer token variable."),
        ] = "AUDITOR_TOKEN",
        allow_http: Annotated[
            bool, typer.Option("--allow-http", help="Allow plain http to a remote host.")
        ] = False,
        _no_cache: NoCache = False,
        _cache_dir: CacheDir = None,
    ) -> None:
        """Judge a deployment before it happens (every plan rule): plan files, ARM templates with
        their parameters, Bicep-compiled JSON, Terraform configurations and plans, or folders of
        them; with --estate, also what their role and deny assignments grant and take away
        (ACC-001..003, accessDelta); with --apply, send a plan file's requests when the gate
        passes."""
        from auditor.sources import GATE_FORMATS, parse_assignment, read_deployment

        if input_format is not None and input_format not in GATE_FORMATS:
            raise InputError(
                f"expected one of {', '.join(GATE_FORMATS)}, found {input_format!r}",
                source="--format",
            )
        if apply and not base_url:
            raise InputError("--apply needs --base-url URL")
        if base_url and not apply:
            raise InputError("--base-url is only used with --apply")
        outputs, fail_on = _ci_outputs(
            output, fail_on, soft_fail=soft_fail, quiet=quiet, no_color=no_color
        )
        prepared: list[Any] = []

        def prepare() -> None:  # (run while a worker process reads a repository's Terraform)
            options = _options(
                config=config,
                fail_on=fail_on,
                waivers=waivers,
                checks=check,
                skips=skip_check,
                as_of=as_of,
                scan=scan_file,
                max_time=max_time,
                max_memory=max_memory,
                max_findings=max_findings,
                fail_on_unknown=fail_on_unknown,
                require_complete=require_complete,
                frameworks=framework,
                ruleset=ruleset,
                rule_packs=rules,
            )
            prepared.extend((options, _history.start(history, options)))

        read = read_deployment(
            paths,
            parameter_files=parameters_file or (),
            parameter_overrides=parameter or (),
            tf_vars=dict(parse_assignment(text, "-var") for text in tf_var or ()),
            tf_var_files=tf_var_file or (),
            subscription_id=gate_subscription,
            resource_group=resource_group,
            format=input_format,
            meanwhile=prepare,
        )
        options, history_file = prepared
        from auditor.audit.runner import gate_plan

        loaded = read.plan
        if apply:
            _check_appliable(loaded, paths)
        before = None
        if estate is not None:
            from auditor.cli._estate import read_estate

            before = read_estate(estate, warn=False, config=config)
        result = gate_plan(
            loaded, options, skipped=read.skipped, warnings=read.warnings, estate=before
        )
        _history.record(result, history_file, options)  # before the reports: their trend
        emit(result, outputs, sarif_anchor, compact, include_passed)
        if result.exit_code or not apply:
            if apply and result.exit_code:
                sys.stderr.write("the gate failed: the plan was not applied\n")
            _finish(result)
            return
        assert base_url is not None
        _apply(loaded, base_url, token_env, allow_http)

    rules_app = typer.Typer(help="The rule catalogue.", no_args_is_help=True)

    @rules_app.command("list")
    def rules_list(
        fmt: Annotated[
            str, typer.Option("--format", metavar="table|json", help="Output format.")
        ] = "table",
        config: ConfigOpt = None,
        framework: Annotated[
            list[str] | None,
            typer.Option(
                "--framework",
                metavar="NAME",
                help="Show this framework's controls and the rules mapped to each; repeatable.",
            ),
        ] = None,
        rules: _rules.RulesOpt = None,
    ) -> None:
        """List every rule (id, severity, where it runs, resource type, title) and every setting
        with its default (and its configured value with --config or a found configuration file),
        after the catalogue's version; with --framework, the framework's controls and rules."""
        from auditor.audit.packs import jsonable
        from auditor.audit.runner import rule_catalogue_json
        from auditor.audit.settings import load_config

        if fmt not in ("table", "json"):
            raise InputError(f"expected table or json, found {fmt!r}", source="--format")
        catalogue = _rules.load(rules, config)
        cfg = load_config(os.fspath(config) if config is not None else None, catalogue.settings)
        doc = rule_catalogue_json(catalogue, cfg.settings)
        for name, value in cfg.settings.items():
            doc["settings"][name]["value"] = jsonable(value)
        for entry in doc["settings"].values():
            entry.setdefault("value", entry["default"])
        _frameworks.annotate(doc, catalogue, framework, _rules.rule_pack_dirs(rules, config))
        if fmt == "json":
            import json

            sys.stdout.write(json.dumps(doc, indent=2) + "\n")
            return
        _frameworks.header(doc)
        if framework:
            _frameworks.controls_table(doc)
            return
        _rules_table(doc)
        _frameworks.footer(doc)

    @rules_app.command("show")
    def rules_show(
        rule_id: Annotated[str, typer.Argument(metavar="ID", help="The rule, e.g. CLU-001.")],
        fmt: Annotated[
            str, typer.Option("--format", metavar="text|json", help="Output format.")
        ] = "text",
        rules: _rules.RulesOpt = None,
        config: ConfigOpt = None,
    ) -> None:
        """Show one rule: what it checks, how to fix it, its settings with their defaults, its
        references and its documentation page."""
        from auditor.audit.rule_docs import find_rule, rule_doc, rule_text

        if fmt not in ("text", "json"):
            raise InputError(f"expected text or json, found {fmt!r}", source="--format")
        catalogue = _rules.load(rules, config, examples=True)
        rule = find_rule(rule_id, catalogue)
        if rule is None:
            raise InputError(
                f"no rule {rule_id!r}; `auditor rules list` names every rule", source="ID"
            )
        doc = rule_doc(rule, catalogue)
        if fmt == "json":
            import json

            sys.stdout.write(json.dumps(doc, indent=2) + "\n")
        else:
            sys.stdout.write(rule_text(doc))

    @rules_app.command("docs")
    def rules_docs(
        out: Annotated[
            Path,
            typer.Option("--out", metavar="DIR", help="Folder of the pages (default docs/rules)."),
        ] = Path("docs/rules"),
    ) -> None:
        """Write a Markdown page per rule and an index (README.md) from the rule packs."""
        from auditor.audit.rule_docs import write_rule_docs

        written = write_rule_docs(out)
        sys.stderr.write(f"wrote {len(written)} pages to {out}\n")

    _frameworks.register(rules_app)
    _rules.register(rules_app)
    del audit, gate, rules_list, rules_show, rules_docs
    app.add_typer(rules_app, name="rules")


def _rules_table(doc: dict[str, Any]) -> None:
    rows = [
        (r["id"], r["severity"], ",".join(r["runsOn"]), r["resourceType"], r["title"])
        for r in doc["rules"]
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    header = ("ID", "SEVERITY", "RUNS ON", "RESOURCE TYPE", "TITLE")
    widths = [max(w, len(h)) for w, h in zip(widths, header, strict=False)]
    lines = []
    for row in [header, *rows]:
        lines.append(
            "  ".join(cell.ljust(widths[i]) if i < 4 else cell for i, cell in enumerate(row))
        )
    lines.append("")
    lines.append("Settings (name = value; default):")
    for name, s in doc["settings"].items():
        lines.append(
            f"  {name} = {s['value']!r}; default {s['default']!r} ({', '.join(s['rules'])})"
        )
    sys.stdout.write("\n".join(lines) + "\n")


def _check_appliable(plan: Any, paths: list[Path]) -> None:
    """``--apply`` sends one plan file's cluster and domain requests, nothing a template gave."""
    if len(paths) != 1 or plan.inputs or plan.source != os.fspath(paths[0]):
        raise InputError(
            "only the requests of one plan file (contracts 3) are sent; templates and Terraform "
            "are gated, not applied: deploy them with their own tools",
            source="--apply",
        )
    if any(not request.is_configuration for request in plan.requests):
        raise InputError(
            "only cluster and domain requests are sent; this plan also has role or deny "
            "assignment requests",
            source="--apply",
        )


def _apply(plan: Any, base_url: str, token_env: str, allow_http: bool) -> None:
    try:
        from auditor.api.apply import run_apply
    except ImportError:
        raise InputError("--apply is not available in this installation") from None
    from auditor.cli._collect import _check_url

    _check_url(base_url, "--base-url", allow_http)
    token = os.environ.get(token_env)
    if not token:
        raise InputError(
            f"the environment variable {token_env} is not set; put the bearer token there "
            "(or name another variable with --token-env)"
        )
    results = run_apply(plan, base_url, token)
    failed = 0
    from auditor.inert import inert_message  # the server's words and ids, shown inert

    for r in results:
        line = f"{r.status}: {r.kind} {r.resource_id}" + (f" ({r.error})" if r.error else "")
        sys.stderr.write(inert_message(line) + "\n")
        failed += r.status != "succeeded"
    if failed:
        raise IncompleteError(f"{failed} request(s) of the plan were not applied")
