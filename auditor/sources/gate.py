"""The gate's front door: whatever paths a user gives ``auditor gate`` (plan files, ARM templates and
Bicep-compiled JSON with their parameters, Terraform files, folders and plans, or folders of all of
them), read as the one :class:`~auditor.estate.plan.Plan` the rule engine judges.

- **Recognised by shape** (contracts §8): a ``.tf`` file or a folder holding ``.tf`` files is
  Terraform (one module per folder); JSON holding ``planVersion`` is a plan file (contracts §3);
  JSON with ``format_version`` and ``resource_changes``/``planned_values`` a Terraform plan; JSON (or
  JSONC) whose ``$schema`` names ``deploymentTemplate.json`` (or with ``resources`` and
  ``contentVersion``) an ARM template. ``format`` forces one for the files given by name.
- **A folder** is read recursively like a repository scan: every recognised file; each folder with
  ``.tf`` files is one Terraform module (its ``.tfvars`` are its inputs); a template's conventional
  parameters file (``NAME.parameters.json`` beside ``NAME.json``) is used unless ``--parameters``
  files are given; parameters files are never templates. Hidden folders and files,
  ``.terraform/``, ``node_modules/`` and ``.git/`` are not entered; every other file it does not
  recognise is listed once as skipped (``{"file", "reason"}``), not an error. A file that says it is
  a template, a parameters file or a plan and cannot be read is an error.
- **Nothing auditable is an input error** (contracts §6): a file of no recognised format names the
  formats ``gate`` reads; valid JSON that is not a template says so; a folder (or a set of paths)
  in which no domain, cluster, role or deny assignment is found is exit 2 too. A plan file keeps
  its own rules (its empty ``requests`` is a plan that asks nothing).
- **Requests** (:class:`~auditor.sources.deployment.DeploymentRequest`) become plan requests through
  :func:`auditor.estate.plan.build_request`, the plan file's own request builder: every
  :class:`~auditor.expr.arm.values.Unknown` in a body is left null (or out, where the wire model
  refuses a null) and named in the request's ``unknowns`` by its body path, with a text that is
  the unresolved expression and why (redacted at a secret path) and whether it is a secret
  reference; ``source`` is the file, line and address; inline suppressions ride along (the runner
  turns them into waivers). A resource whose name is not known keeps the placeholder in its id,
  with a warning; a subscription or resource group that is not known is only a placeholder
  (``{subscriptionId}``) and never makes a finding unknown. A resource the deployment deletes has
  nothing to judge (a warning names it); role and deny assignments are plan requests of their own
  kinds. A property whose value is null is left out, as the vendor's engine leaves it out of the
  request.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from auditor.errors import InputError, clip, shown_name
from auditor.expr.arm.values import MAX_NESTING, Unknown
from auditor.sources.deployment import DeploymentRequest, DeploymentSet

if TYPE_CHECKING:
    from auditor.estate.plan import Plan, PlanRequest, UnknownInfo

# (the plan's request builder and its wire models are imported when first used: a repository's
# Terraform is read by a worker process meanwhile, which needs neither)

__all__ = [
    "ACCEPTED_FORMATS",
    "GATE_FORMATS",
    "DeploymentRead",
    "GateFormat",
    "parse_assignment",
    "read_deployment",
    "to_plan_request",
]

GateFormat = Literal["plan", "arm", "terraform", "terraform-plan"]
GATE_FORMATS: tuple[GateFormat, ...] = ("plan", "arm", "terraform", "terraform-plan")

ACCEPTED_FORMATS = (
    "a plan file (JSON with planVersion 1, contracts §3), an ARM template or Bicep-compiled JSON "
    "(.json, .jsonc), a Terraform configuration (a .tf file or a folder of them), a Terraform plan "
    "(the JSON of 'terraform show -json'), or a folder holding any of these"
)
"""What ``gate`` reads, in words, for messages."""

_NOT_ENTERED = frozenset({".terraform", "node_modules", ".git"})
_SNIFF_BYTES = 1 << 20
_STRONG_MARKERS = re.compile(rb"deploymentTemplate\.json|deploymentParameters\.json", re.IGNORECASE)
_PLAN_MARKER = re.compile(rb'"planVersion"\s*:')
_JSON_SUFFIXES = (".json", ".jsonc")
_TFVARS_SUFFIXES = (".tfvars", ".tfvars.json")
_BICEP_SUFFIXES = (".bicep", ".bicepparam")
_BICEP_REASON = (
    "Bicep source is not read: compile it ('bicep build FILE' or 'az bicep build --file FILE') "
    "and gate the JSON"
)
_CONFIGURATION_PATH = re.compile(
    r"/providers/Cloud\.(?:AnalyticsCluster/clusters|EventRouting/domains)/[^/]+/?$", re.I
)
_TEXT_LIMIT = 300


class DeploymentRead(NamedTuple):
    """What :func:`read_deployment` read: the plan, the inputs passed over (``{"file",
    "reason"}``) and the warnings for the user (both for
    :func:`~auditor.audit.runner.gate_plan`)."""

    plan: Plan
    skipped: list[dict[str, str]]
    warnings: list[str]


@dataclass
class _Options:
    parameter_files: tuple[str, ...]
    parameters: Mapping[str, Any]
    overrides: tuple[str, ...]
    tf_vars: Mapping[str, Any]
    tf_var_files: tuple[str, ...]
    subscription_id: str | None
    resource_group: str | None
    location: str | None


@dataclass
class _Scan:
    """Everything read so far, in reading order."""

    options: _Options
    found: DeploymentSet = field(default_factory=DeploymentSet)
    plans: list[Plan] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)
    used_parameters: set[str] = field(default_factory=set)
    parameter_candidates: list[str] = field(default_factory=list)
    templates: int = 0
    terraform: int = 0

    real_folders: dict[str, str] = field(default_factory=dict)
    meanwhile: Callable[[], object] | None = None

    def prepare(self) -> None:
        """The caller's ``meanwhile``, once."""
        call, self.meanwhile = self.meanwhile, None
        if call is not None:
            call()

    def real(self, path: str) -> str:
        """``os.path.realpath(path)``, its folder's resolved once (a scan asks for every file)."""
        head, tail = os.path.split(path)
        if not tail or tail in (".", "..") or os.path.islink(path):
            return os.path.realpath(path)
        base = self.real_folders.get(head)
        if base is None:
            base = self.real_folders[head] = os.path.realpath(head)
        return os.path.join(base, tail)

    def first_time(self, path: str) -> bool:
        key = self.real(path)
        if key in self.seen:
            return False
        self.seen.add(key)
        return True

    def skip(self, path: str, reason: str) -> None:
        self.found.skipped.append((path, reason))


def parse_assignment(text: str, option: str) -> tuple[str, str]:
    """``NAME=VALUE`` (``-var``) as its name and its text; exit 2 naming ``option`` otherwise."""
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise InputError(f"expected NAME=VALUE, found {shown_name(text, 40)!r}", source=option)
    return name.strip(), value


def read_deployment(
    paths: Sequence[str | os.PathLike[str]],
    *,
    parameter_files: Sequence[str | os.PathLike[str]] = (),
    parameters: Mapping[str, Any] | None = None,
    parameter_overrides: Sequence[str] = (),
    tf_vars: Mapping[str, Any] | None = None,
    tf_var_files: Sequence[str | os.PathLike[str]] = (),
    subscription_id: str | None = None,
    resource_group: str | None = None,
    location: str | None = None,
    format: GateFormat | None = None,
    meanwhile: Callable[[], object] | None = None,
) -> DeploymentRead:
    """Read ``paths`` (files and folders, see the module's description) as one plan.

    ARM templates take ``parameter_files`` (deploymentParameters files, later winning; when none is
    given, each template's conventional parameters file if it has one), then ``parameters`` (values
    by name) and ``parameter_overrides`` (``-p NAME=VALUE`` texts, typed by the declaration).
    Terraform takes ``tf_var_files`` (``--var-file``) and ``tf_vars`` (``-var``, text values).
    ``subscription_id``, ``resource_group`` and ``location`` say where the deployment goes (by
    default not known: URLs hold placeholders). ``format`` forces how files given by name are read.
    ``meanwhile``: the caller's own preparation (imports, configuration), called once: while a
    worker process reads a repository's Terraform modules when one is started, else before the
    first file is read.

    One plan file alone is read exactly as :func:`~auditor.estate.plan.load_plan` reads it.
    Raises :class:`~auditor.errors.InputError` (exit code 2) for a path of no recognised format, a
    file that cannot be read, and when nothing auditable is found;
    :class:`~auditor.errors.IncompleteError` (exit code 3) when a template's evaluation ran out of
    time."""
    names = [os.fspath(p) for p in paths]
    if not names:
        raise InputError("give a path to gate: " + ACCEPTED_FORMATS)
    options = _Options(
        parameter_files=tuple(os.fspath(p) for p in parameter_files),
        parameters=dict(parameters or {}),
        overrides=tuple(parameter_overrides),
        tf_vars=dict(tf_vars or {}),
        tf_var_files=tuple(os.fspath(p) for p in tf_var_files),
        subscription_id=subscription_id or None,
        resource_group=resource_group or None,
        location=location or None,
    )
    scan = _Scan(options, meanwhile=meanwhile)
    for name in names:
        if os.path.isdir(name):
            _read_folder(scan, name)
        elif scan.first_time(name):
            scan.prepare()
            _read_file(scan, name, format)
    scan.prepare()
    for candidate in scan.parameter_candidates:
        if os.path.realpath(candidate) not in scan.used_parameters:
            scan.skip(
                candidate,
                "a deploymentParameters file without its template beside it (NAME.json for "
                "NAME.parameters.json): give it with --parameters",
            )
    warnings = _option_warnings(scan)
    if len(names) == 1 and len(scan.plans) == 1 and not scan.found.inputs:
        plan = scan.plans[0]  # a plan file alone: exactly as before
        return DeploymentRead(plan, _skipped(scan.found), [*scan.found.warnings, *warnings])
    return _assemble(scan, names, warnings)


def _target(names: Sequence[str]) -> str:
    if len(names) == 1:
        return names[0]
    try:
        return os.path.commonpath(names) or names[0]
    except ValueError:  # absolute and relative paths mixed
        return names[0]


def _skipped(found: DeploymentSet) -> list[dict[str, str]]:
    seen: set[str] = set()
    out: list[dict[str, str]] = []
    for file, reason in found.skipped:
        if file not in seen:
            seen.add(file)
            out.append({"file": file, "reason": reason})
    return out


def _load_plan(path: str) -> Plan:
    from auditor.estate.plan import load_plan

    return load_plan(path)


def _assemble(scan: _Scan, names: Sequence[str], warnings: list[str]) -> DeploymentRead:
    from auditor.estate.plan import Plan

    found = scan.found
    target = _target(names)
    requests: list[PlanRequest] = []
    for plan in scan.plans:
        requests.extend(plan.requests)
    deleted: list[str] = []
    for request in found.requests:
        if request.method.upper() == "DELETE" and _CONFIGURATION_PATH.search(_path(request.url)):
            deleted.append(_address(request))
            continue
        converted = to_plan_request(len(requests), request)
        requests.append(converted)
        named = _unknown_name_warning(request)
        if named is not None:
            warnings.append(named)
    if deleted:
        shown = ", ".join(clip(a, 120) for a in deleted[:10])
        more = f", and {len(deleted) - 10} more" if len(deleted) > 10 else ""
        warnings.append(
            f"{len(deleted)} resource(s) the deployment deletes are not judged (nothing is "
            f"configured): {shown}{more}"
        )
    if not requests and not scan.plans and not deleted:
        raise _nothing_auditable(scan, names, target)
    inputs = [*(p.source for p in scan.plans if p.source), *found.inputs]
    plan = Plan(requests=requests, source=target, inputs=list(dict.fromkeys(inputs)))
    return DeploymentRead(plan, _skipped(found), [*found.warnings, *warnings])


def _nothing_auditable(scan: _Scan, names: Sequence[str], target: str) -> InputError:
    read = len(dict.fromkeys(scan.found.inputs))
    skipped = len(_skipped(scan.found))
    what = "no event-routing domain, analytics cluster, role or deny assignment"
    if read:
        detail = f"{what} is deployed by the {read} file(s) read"
        if scan.found.warnings:
            detail += f" ({clip(scan.found.warnings[-1], 300)})"
    elif len(names) == 1 and os.path.isdir(names[0]):
        detail = f"no file gate reads was found in this directory; expected {ACCEPTED_FORMATS}"
    else:
        detail = f"nothing gate reads was found; expected {ACCEPTED_FORMATS}"
    if skipped:
        detail += f"; {skipped} file(s) skipped"
    return InputError(f"nothing to audit: {detail}", source=target)


def _option_warnings(scan: _Scan) -> list[str]:
    options = scan.options
    out: list[str] = []
    arm_given = options.parameter_files or options.parameters or options.overrides
    if arm_given and not scan.templates:
        out.append("--parameters and -p are for ARM templates; no template was read")
    if (options.tf_vars or options.tf_var_files) and not scan.terraform:
        out.append("-var and --var-file are for Terraform; no Terraform configuration was read")
    return out


# --- files and folders ------------------------------------------------------------------------------


def _read_folder(scan: _Scan, folder: str) -> None:
    walked: list[tuple[str, list[str], bool]] = []
    for here, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _NOT_ENTERED)
        visible = sorted(f for f in files if not f.startswith("."))
        walked.append((here, visible, any(f.lower().endswith(".tf") for f in visible)))
    modules = _read_modules(scan, [here for here, _, has_tf in walked if has_tf])
    scan.prepare()
    templates: list[str] = []
    for here, visible, has_tf in walked:
        if has_tf and scan.first_time(here):
            _read_terraform(scan, here, modules.get(here))
        for name in visible:
            path = os.path.join(here, name)
            if not scan.first_time(path):
                continue
            kind = _folder_entry(scan, path, name.lower(), has_tf)
            if kind == "template":
                templates.append(path)
    for template in templates:
        _read_template(scan, template, conventional=True)


def _folder_entry(scan: _Scan, path: str, lower: str, has_tf: bool) -> str | None:
    """Read or classify one file of a folder scan; "template" for a template read afterwards
    (once every parameters file is known)."""
    if not os.path.isfile(path):
        scan.skip(path, "not a regular file")
        return None
    if lower.endswith(".tf"):
        return None  # read with its folder's module
    if lower.endswith(_TFVARS_SUFFIXES):
        if not has_tf:
            scan.skip(path, "Terraform variables without a configuration (.tf) beside them")
        return None
    if lower.endswith(".tf.json"):
        if not has_tf:
            scan.skip(path, "Terraform's JSON syntax (.tf.json) is not read")
        return None
    if lower.endswith(_BICEP_SUFFIXES):
        scan.skip(path, _BICEP_REASON)
        return None
    if not lower.endswith(_JSON_SUFFIXES):
        scan.skip(path, "not a format gate reads")
        return None
    return _json_entry(scan, path)


def _json_entry(scan: _Scan, path: str) -> str | None:
    from auditor.sources.arm import is_arm_template, is_parameters_file, read_jsonc
    from auditor.sources.terraform import is_terraform_plan, looks_like_terraform

    head = _head(path)
    if looks_like_terraform(path):
        _read_terraform_plan(scan, path)
        return None
    if _PLAN_MARKER.search(head):
        scan.plans.append(_load_plan(path))
        return None
    strong = _STRONG_MARKERS.search(head) is not None
    try:
        document = read_jsonc(path, what="JSON file")
    except InputError as exc:
        if strong:
            raise
        scan.skip(path, f"not JSON gate reads ({clip(exc.detail, 200)})")
        return None
    value = document.value
    if is_parameters_file(value):
        scan.parameter_candidates.append(path)
        return None
    if is_arm_template(value):
        return "template"
    if is_terraform_plan(value):
        _read_terraform_plan(scan, path, data=value)
        return None
    scan.skip(path, "JSON that is not an ARM template, a parameters file or a plan")
    return None


def _read_file(scan: _Scan, path: str, format: GateFormat | None) -> None:
    if not os.path.isfile(path):
        # missing, or not a regular file (a pipe, a device): the plan reader's message
        scan.plans.append(_load_plan(path))
        return
    lower = path.lower()
    if format is not None:
        _read_as(scan, path, format)
    elif lower.endswith(".tf"):
        _read_terraform(scan, path)
    elif lower.endswith(_TFVARS_SUFFIXES):
        raise InputError(
            "a Terraform variables file is not a configuration: give it with --var-file and gate "
            "the configuration's folder",
            source=path,
        )
    elif lower.endswith(_BICEP_SUFFIXES):
        raise InputError(_BICEP_REASON, source=path)
    else:
        _read_json_file(scan, path)


def _read_as(scan: _Scan, path: str, format: GateFormat) -> None:
    if format == "plan":
        scan.plans.append(_load_plan(path))
    elif format == "terraform":
        _read_terraform(scan, path)
    elif format == "terraform-plan":
        _read_terraform_plan(scan, path)
    else:
        _read_template(scan, path, conventional=True)


def _read_json_file(scan: _Scan, path: str) -> None:
    """A file given by name that is not Terraform source: recognised by its content."""
    from auditor.sources.arm import is_arm_template, is_parameters_file, read_jsonc
    from auditor.sources.terraform import looks_like_terraform

    head = _head(path)
    if looks_like_terraform(path):
        _read_terraform_plan(scan, path)
        return
    if _PLAN_MARKER.search(head):
        scan.plans.append(_load_plan(path))
        return
    if not path.lower().endswith(_JSON_SUFFIXES) and not _looks_like_json(head):
        raise InputError(f"not a format gate reads: expected {ACCEPTED_FORMATS}", source=path)
    document = read_jsonc(path, what="JSON file")
    value = document.value
    if is_arm_template(value) or is_parameters_file(value):
        _read_template(scan, path, conventional=True, document=document)
        return
    if isinstance(value, dict) and (not value or "requests" in value):
        scan.plans.append(_load_plan(path))  # a plan file without planVersion: its message
        return
    keys = (
        ", ".join(shown_name(str(k), 40) for k in list(value)[:6])
        if isinstance(value, dict)
        else ""
    )
    found = f"an object with {keys}" if keys else "JSON of another shape"
    raise InputError(
        f"valid JSON, but not a template: expected {ACCEPTED_FORMATS}; found {clip(found, 300)}",
        source=path,
    )


def _head(path: str) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.read(_SNIFF_BYTES)
    except OSError:
        return b""


def _looks_like_json(head: bytes) -> bool:
    text = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    return text[:1] in (b"{", b"[") or text[:2] in (b"//", b"/*")


# --- readers ----------------------------------------------------------------------------------------


def _read_template(scan: _Scan, path: str, *, conventional: bool, document: Any = None) -> None:
    from auditor.expr.arm import Deployment
    from auditor.sources.arm import find_parameters_file, read_arm_template

    options = scan.options
    files: list[str] = list(options.parameter_files)
    if not files and conventional:
        beside = find_parameters_file(path)
        if beside is not None:
            files.append(os.fspath(beside))
            scan.used_parameters.add(os.path.realpath(beside))
    deployment = Deployment(
        subscription_id=options.subscription_id,
        resource_group=options.resource_group,
        location=options.location,
    )
    found = read_arm_template(
        document if document is not None else path,
        parameter_files=files,
        parameters=options.parameters,
        overrides=options.overrides,
        deployment=deployment,
    )
    scan.templates += 1
    scan.found.extend(found)


def _read_modules(scan: _Scan, folders: list[str]) -> dict[str, DeploymentSet]:
    """The Terraform modules of a folder scan read ahead, two processes sharing them when it pays
    (:func:`~auditor.sources.terraform.read_terraform_modules`); a module missing from the answer
    is read when the scan comes to it (its error raised there)."""
    if len(folders) < 2:
        return {}
    from auditor.sources.terraform import read_terraform_modules

    options = scan.options
    found = read_terraform_modules(
        folders,
        var_files=options.tf_var_files,
        variables=options.tf_vars,
        subscription_id=options.subscription_id,
        meanwhile=scan.prepare,
    )
    return {folder: ds for folder, ds in zip(folders, found, strict=True) if ds is not None}


def _read_terraform(scan: _Scan, path: str, found: DeploymentSet | None = None) -> None:
    from auditor.sources.terraform import read_terraform

    options = scan.options
    if found is None:
        found = read_terraform(
            path,
            var_files=options.tf_var_files,
            variables=options.tf_vars,
            subscription_id=options.subscription_id,
        )
    scan.terraform += 1
    for file in found.inputs:
        scan.seen.add(scan.real(file))
    scan.found.extend(found)


def _read_terraform_plan(scan: _Scan, path: str, data: Any = None) -> None:
    from auditor.sources.terraform import read_terraform_plan

    found = read_terraform_plan(path, data=data, subscription_id=scan.options.subscription_id)
    scan.terraform += 1
    scan.found.extend(found)


# --- requests ---------------------------------------------------------------------------------------


def to_plan_request(index: int, request: DeploymentRequest) -> PlanRequest:
    """A reader's request as a plan request (see the module's description): unknown values null
    and named in ``unknowns``, the source kept, validated by the plan's request builder (a body
    the wire models refuse is exit 2 naming the file, line, address and JSON path)."""
    from auditor.estate.plan import RequestSource, build_request

    body: dict[str, Any] | None = None
    unknowns: dict[str, UnknownInfo] = {}
    if request.body is not None:
        body = _strip(request.body, (), unknowns, 0)
    src = request.source
    address = clip(src.address, 120) if src.address else None
    parts = [f"line {src.line}" if src.line is not None else "", address or ""]
    where = ", ".join(p for p in parts if p) or "request"
    return build_request(
        index,
        request.method,
        _url(request.url),
        body,
        source=src.file,
        where=f"{where}: request",
        origin=RequestSource(src.file, src.line, src.address),
        unknowns=unknowns,
        suppressions=request.suppressions,
    )


def _strip(
    value: dict[str, Any], path: tuple[str, ...], unknowns: dict[str, UnknownInfo], depth: int
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, item in value.items():
        if item is None:
            continue  # a null property is not sent (a nullable parameter without a value)
        out[key] = _stripped(item, (*path, str(key)), unknowns, depth + 1)
    return out


def _stripped(
    value: Any, path: tuple[str, ...], unknowns: dict[str, UnknownInfo], depth: int
) -> Any:
    if isinstance(value, Unknown):
        unknowns["/".join(path)] = _info(value, path)
        return None
    if depth > MAX_NESTING:
        return value
    if isinstance(value, dict):
        return _strip(value, path, unknowns, depth)
    if isinstance(value, list):
        return [
            _stripped(item, (*path, str(i)), unknowns, depth + 1) for i, item in enumerate(value)
        ]
    return value


def _info(unknown: Unknown, path: Iterable[str]) -> UnknownInfo:
    """What an unknown value is, in words that never hold a value: the unresolved expression (its
    string literals hidden at a secret path) and why."""
    from auditor.estate.plan import UnknownInfo

    if any(_secret_segment(segment) for segment in path):
        unknown = unknown.redacted()  # (drops the known pieces too)
    expression = " ".join((unknown.origin or unknown.expression).split())
    text = f"{expression}: {unknown.reason}" if expression else unknown.reason
    return UnknownInfo(clip(text, _TEXT_LIMIT), unknown.is_secret_reference, unknown.known_parts)


@functools.lru_cache(maxsize=4096)
def _secret_segment(segment: str) -> bool:
    """:func:`~auditor.model.secrets.is_secret_key`, remembered (bodies repeat their keys)."""
    from auditor.model.secrets import is_secret_key

    return is_secret_key(segment)


def _path(url: str) -> str:
    return url.partition("?")[0]


def _url(url: str) -> str:
    """The URL with a ``/`` inside an unknown segment (``{format('{0}/{1}', ...)}``) kept inside
    it, so the segment stays one."""
    return re.sub(
        r"\{[^/{}]*\}",
        lambda m: m.group(0).replace("%2F", "%252F").replace("%2f", "%252F"),
        url,
    )


def _address(request: DeploymentRequest) -> str:
    src = request.source
    where = f"{src.file}:{src.line}" if src.line is not None else src.file
    return f"{src.address} ({where})" if src.address else where


def _unknown_name_warning(request: DeploymentRequest) -> str | None:
    """A warning when the resource's own name is not known (its id keeps the placeholder)."""
    last = _path(request.url).rstrip("/").rsplit("/", 1)[-1]
    if not (last.startswith("{") and last.endswith("}")):
        return None
    why = ""
    if request.unknown_url is not None:
        why = f" ({clip(request.unknown_url.reason, 200)})"
    return (
        f"{_address(request)}: the resource's name is not known before deployment{why}; its "
        f"findings name it {clip(last, 120)}"
    )
