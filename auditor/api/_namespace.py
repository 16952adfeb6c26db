"""Which names the API speaks: the seed's (``Cloud.*`` paths, seed 9's api-versions) or the vendor's
(``Microsoft.*`` paths, :data:`auditor.sources.names.VENDOR_API_VERSIONS`); contracts §8.

The names come from :mod:`auditor.sources.names`, the one table of vendor <-> seed names (the api
layer reads it, and the export readers' record mapping for ``collect --namespace vendor``; neither
imports the api layer, so the flow stays one-way). They are imported only for the vendor's
namespace: a client of the seed's loads nothing of ``auditor.sources``."""

from __future__ import annotations

from typing import Literal

from auditor.model.defaults import SEED_API_VERSIONS

Namespace = Literal["seed", "vendor"]
NAMESPACES: tuple[Namespace, ...] = ("seed", "vendor")


def check_namespace(namespace: str) -> Namespace:
    if namespace not in NAMESPACES:
        raise ValueError(f"expected a namespace of {', '.join(NAMESPACES)}, found {namespace!r}")
    return "seed" if namespace == "seed" else "vendor"


def provider(seed_name: str, namespace: Namespace) -> str:
    """A provider namespace (``Cloud.Authorization``) as ``namespace`` spells it."""
    if namespace == "seed":
        return seed_name
    from auditor.sources.names import to_vendor

    return to_vendor(seed_name)


def api_version(operation: str, namespace: Namespace) -> str:
    """The api-version of ``operation`` (a key of ``SEED_API_VERSIONS``) in ``namespace``."""
    seed = SEED_API_VERSIONS[operation]
    if namespace == "seed":
        return seed
    from auditor.sources.names import vendor_api_version

    return vendor_api_version(operation, seed)
