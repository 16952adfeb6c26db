"""Terraform, read as the deployment it describes (contracts §8): HCL source (a ``.tf`` file or a
module's folder) and the JSON of ``terraform show -json`` plans, each turned into the requests the
azurerm and azapi providers would send, in the seed's names (:mod:`auditor.sources.deployment`).

Recognised resources: ``azurerm_eventgrid_domain``, ``azurerm_hdinsight_{hadoop,spark,hbase,kafka,
interactive_query}_cluster``, ``azurerm_role_assignment`` and ``azapi_resource`` of the types
``Microsoft.EventGrid/domains``, ``Microsoft.HDInsight/clusters`` and
``Microsoft.Authorization/roleAssignments``. Resources of other types are counted in a warning,
never an error; data sources are not resources; module calls are not followed (a warning names
them).

HCL is parsed by python-hcl2 (imported when a ``.tf`` is first read) and evaluated as far as it can
be before Terraform runs: variables (defaults, ``terraform.tfvars``, ``*.auto.tfvars``, variable
files, ``-var``), locals, interpolation, simple functions, conditionals, ``count``/``for_each`` and
``dynamic`` blocks. A value that cannot be resolved is an
:class:`~auditor.expr.arm.values.Unknown`, never a guess. Comments ``# auditor:skip=RULE <reason>``
inside a resource block suppress a rule for it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from auditor.sources.deployment import DeploymentSet
from auditor.sources.terraform._hcl import module_files
from auditor.sources.terraform._plan import is_terraform_plan, plan_requests
from auditor.sources.terraform._resources import SUPPORTED_TYPES

__all__ = [
    "SUPPORTED_TYPES",
    "is_terraform_plan",
    "looks_like_terraform",
    "read_terraform",
    "read_terraform_modules",
    "read_terraform_plan",
]

_SNIFF_BYTES = 1 << 20
_PLAN_KEYS = re.compile(rb'"(?:planned_values|resource_changes)"\s*:')
_FORMAT_KEY = re.compile(rb'^\s*\{.*?"format_version"\s*:', re.DOTALL)


def looks_like_terraform(path: str | os.PathLike[str]) -> bool:
    """True for what :func:`read_terraform` or :func:`read_terraform_plan` reads: a ``.tf`` file, a
    folder holding ``.tf`` files, or the JSON of a plan (recognised by its ``format_version`` and
    ``planned_values`` or ``resource_changes`` keys in its first MiB). Variable files
    (``.tfvars``) are inputs, not resources: False."""
    name = os.fspath(path)
    lower = name.lower()
    if os.path.isdir(name):
        try:
            return bool(module_files(name))
        except Exception:
            return False
    if lower.endswith(".tf"):
        return True
    if not lower.endswith(".json") or lower.endswith((".tfvars.json", ".tf.json")):
        return False
    try:
        with open(name, "rb") as fh:
            head = fh.read(_SNIFF_BYTES)
    except OSError:
        return False
    head = head.removeprefix(b"\xef\xbb\xbf")
    return _FORMAT_KEY.match(head) is not None and _PLAN_KEYS.search(head) is not None


def read_terraform(
    path: str | os.PathLike[str],
    *,
    var_files: Sequence[str | os.PathLike[str]] = (),
    variables: Mapping[str, Any] | None = None,
    subscription_id: str | None = None,
) -> DeploymentSet:
    """The requests the Terraform configuration at ``path`` would send.

    - ``path``: a folder (its ``*.tf`` files, one module; sub-folders are not read) or one ``.tf``
      file (its resources, evaluated with the variables and locals of its folder's other files);
    - ``var_files``: ``--var-file`` files (``.tfvars`` or ``.tfvars.json``), in order, after the
      folder's ``terraform.tfvars`` and ``*.auto.tfvars``;
    - ``variables``: ``-var NAME=VALUE`` values (text, as on Terraform's command line), last;
    - ``subscription_id``: the subscription the provider deploys to, when the configuration does
      not name it (otherwise the URL holds an unknown ``{subscription}`` segment).

    Each request's ``source`` is the file, the line of the ``resource`` block and the address
    (``azurerm_eventgrid_domain.fail``, ``...[0]`` and ``...["key"]`` for ``count``/``for_each``).
    Raises :class:`~auditor.errors.InputError` for a syntax error (file, line and column), a
    suppression without a reason, or an unreadable file.
    """
    from auditor.sources.terraform._reader import read_hcl

    return read_hcl(path, var_files=var_files, variables=variables, subscription_id=subscription_id)


def read_terraform_modules(
    folders: Sequence[str | os.PathLike[str]],
    *,
    var_files: Sequence[str | os.PathLike[str]] = (),
    variables: Mapping[str, Any] | None = None,
    subscription_id: str | None = None,
    meanwhile: Callable[[], object] | None = None,
) -> list[DeploymentSet | None]:
    """:func:`read_terraform` of many module folders (a repository scan), in the order given,
    shared with a forked worker process when there is enough to read and two cores to read it
    (:mod:`._parallel`); ``None`` for a module left to the caller (read it with
    :func:`read_terraform`, which raises its error). A small set is left to the caller entirely.
    ``meanwhile`` is called here while the worker starts reading (not called without a worker)."""
    from auditor.sources.terraform import _functions, _reader  # noqa: F401  (before a fork)
    from auditor.sources.terraform._hcl import prepare_parser
    from auditor.sources.terraform._parallel import read_modules

    prepare_parser()

    def read(folder: str) -> DeploymentSet:
        return read_terraform(
            folder, var_files=var_files, variables=variables, subscription_id=subscription_id
        )

    return read_modules([os.fspath(f) for f in folders], read, meanwhile=meanwhile)


def read_terraform_plan(
    path: str | os.PathLike[str],
    *,
    data: Any = None,
    subscription_id: str | None = None,
) -> DeploymentSet:
    """The requests of a plan's JSON (``terraform show -json PLANFILE``) at ``path``; ``data``: the
    file's JSON when the caller has already decoded it. Sources name the plan file and the
    resource's address (no line)."""
    name = os.fspath(path)
    if data is None:
        from auditor.estate import decode_json, read_input_bytes

        data = decode_json(
            read_input_bytes(name, what="Terraform plan"), source=name, what="Terraform plan"
        )
    return plan_requests(data, name, subscription_id=subscription_id)
