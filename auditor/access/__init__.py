"""Effective access: deny-aware, condition-aware decisions with reasons (semantics §1-2, contracts
§4); who-can, what-can, escalation paths and the other access analyses; the GDPR export.

Modules, one concern each: ``scopes`` (scope tree), ``directory`` (groups), ``catalogue`` (roles),
``globs`` (operation patterns), ``conditions`` (condition adapter), ``indexes``, ``decision`` (the
one decision function), ``requests`` (reading requests), ``queries`` (who/what), ``analysis``
(escalation, bypassed conditions, dead grants, weak denies, owners, guests), ``gdpr``, ``engine``,
``principals`` (a principal named by id, e-mail or name), ``advice`` (warnings about what a request
names that the estate does not know) with ``operations`` (the shipped operation list), ``delta``
(what a change of the estate grants and takes away), ``plan_change`` (the estate after a plan's
role and deny assignment requests, and what the gate's access-change rules judge in it),
``views`` (role assignments, role definitions, deny assignments and subscriptions as rows for the
rule packs' predicates), ``partial`` (one question answered from a cache entry of
:mod:`auditor.estate.cache`, decoding only what it needs).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from auditor._lazy import lazy_exports
from auditor.access.advice import request_warnings
from auditor.access.decision import (
    AccessRequest,
    Decision,
    Verdict,
    decide,
    decide_batch,
    decisions_to_json_lines,
)
from auditor.access.engine import BATCH_WINDOW, AccessEngine
from auditor.access.indexes import Indexes
from auditor.access.principals import ResolvedPrincipal, resolve_principal
from auditor.access.requests import parse_request, parse_requests, read_request_lines, request_lines
from auditor.access.scopes import scope_key

if TYPE_CHECKING:
    from auditor.access.analysis import (
        ADMIN_ROLES,
        ESCALATION_ACTIONS,
        PRIVILEGED_ROLES,
        BypassedCondition,
        DeadGrant,
        Escalation,
        EscalationStep,
        GuestPrivilege,
        OwnerHolder,
        SubscriptionOwners,
        WeakChildDeny,
    )
    from auditor.access.delta import (
        PRIVILEGED_ACTIONS,
        AccessChange,
        AccessDelta,
        DeltaStats,
        access_delta,
        delta_universe,
    )
    from auditor.access.gdpr import gdpr_export
    from auditor.access.partial import PartialEstate, cache_tables
    from auditor.access.plan_change import (
        PlanAccessChange,
        apply_plan_to_estate,
        plan_access_change,
    )
    from auditor.access.queries import (
        HeldPattern,
        HeldPermission,
        Holding,
        WhatResult,
        WhoEntry,
        WhoPath,
        WhoResult,
    )
    from auditor.access.views import (
        AssignmentRows,
        condition_problems,
        deny_assignment_rows,
        role_definition_rows,
        subscription_rows,
    )

_LAZY_MODULES = {
    "analysis": (
        "ADMIN_ROLES",
        "ESCALATION_ACTIONS",
        "PRIVILEGED_ROLES",
        "BypassedCondition",
        "DeadGrant",
        "Escalation",
        "EscalationStep",
        "GuestPrivilege",
        "OwnerHolder",
        "SubscriptionOwners",
        "WeakChildDeny",
    ),
    "delta": (
        "PRIVILEGED_ACTIONS",
        "AccessChange",
        "AccessDelta",
        "DeltaStats",
        "access_delta",
        "delta_universe",
    ),
    "gdpr": ("gdpr_export",),
    "partial": ("PartialEstate", "cache_tables"),
    "plan_change": (
        "PlanAccessChange",
        "apply_plan_to_estate",
        "plan_access_change",
    ),
    "queries": (
        "HeldPattern",
        "HeldPermission",
        "Holding",
        "WhatResult",
        "WhoEntry",
        "WhoPath",
        "WhoResult",
    ),
    "views": (
        "AssignmentRows",
        "condition_problems",
        "deny_assignment_rows",
        "role_definition_rows",
        "subscription_rows",
    ),
}
_LAZY = {name: module for module, names in _LAZY_MODULES.items() for name in names}
"""What a decision does not need, imported on first use (``auditor access check`` starts
without the analyses, the delta and the plan change)."""

__all__ = [
    "ADMIN_ROLES",
    "BATCH_WINDOW",
    "ESCALATION_ACTIONS",
    "PRIVILEGED_ACTIONS",
    "PRIVILEGED_ROLES",
    "AccessChange",
    "AccessDelta",
    "AccessEngine",
    "AccessRequest",
    "AssignmentRows",
    "BypassedCondition",
    "DeadGrant",
    "Decision",
    "DeltaStats",
    "Escalation",
    "EscalationStep",
    "GuestPrivilege",
    "HeldPattern",
    "HeldPermission",
    "Holding",
    "Indexes",
    "OwnerHolder",
    "PartialEstate",
    "PlanAccessChange",
    "ResolvedPrincipal",
    "SubscriptionOwners",
    "Verdict",
    "WeakChildDeny",
    "WhatResult",
    "WhoEntry",
    "WhoPath",
    "WhoResult",
    "access_delta",
    "apply_plan_to_estate",
    "cache_tables",
    "condition_problems",
    "decide",
    "decide_batch",
    "decisions_to_json_lines",
    "delta_universe",
    "deny_assignment_rows",
    "gdpr_export",
    "parse_request",
    "parse_requests",
    "plan_access_change",
    "read_request_lines",
    "request_lines",
    "request_warnings",
    "resolve_principal",
    "role_definition_rows",
    "scope_key",
    "subscription_rows",
]


__getattr__ = lazy_exports(__name__, _LAZY)
