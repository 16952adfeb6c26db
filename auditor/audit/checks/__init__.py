"""Named checks: what rule packs cannot say as a predicate, one small module per family.

=================  =====================================================================
module             checks
=================  =====================================================================
``network``        ``inbound-ip-rules`` (DOM-003), ``domain-open-to-internet`` (DOM-002)
``domain``         ``input-schema-mapping`` (DOM-009)
``cluster``        ``roles-in-virtual-network``, ``gateway-auth``, ``node-password-login``,
                   ``cluster-version``, ``default-storage-account``
``secrets``        ``literal-secrets`` (CLU-008), ``weak-passwords`` (CLU-010),
                   ``token-values`` (TOK-006)
``jdbc``           ``jdbc-tls`` (CLU-012)
``health``         ``service-issue-in-region``, ``event-affects-subscription``,
                   ``event-priority``
``tokens``         ``token-limit`` (TOK-005)
``plan``           ``plan-api-version`` (PLAN-001)
``access``         the access graph analyses (RBAC-010, -012, -013, DENY-003) over
                   :mod:`auditor.access` (the other RBAC/DENY rules are predicates over
                   the access rows of :mod:`auditor.access.views`)
``access_change``  the access change of a plan (ACC-001, -002, -003; ``gate --estate``)
=================  =====================================================================
"""

from __future__ import annotations

from auditor.audit.checks import (  # noqa: F401  (imported to register their checks)
    access,
    access_change,
    cluster,
    domain,
    health,
    jdbc,
    network,
    plan,
    secrets,
    tokens,
)
from auditor.audit.checks._registry import (
    CHECKS,
    CheckContext,
    CheckSpec,
    Outcome,
    PassMany,
    describe_secret,
    resource_check,
    run_check,
)

__all__ = [
    "CHECKS",
    "CheckContext",
    "CheckSpec",
    "Outcome",
    "PassMany",
    "describe_secret",
    "resource_check",
    "run_check",
]
