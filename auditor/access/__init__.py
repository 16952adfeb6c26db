"""Effective access: deny-aware, condition-aware decisions with reasons (semantics §1-2, contracts
§4); who-can, what-can, escalation paths and the other access analyses; the GDPR export.

Modules, one concern each: ``scopes`` (scope tree), ``directory`` (groups), ``catalogue`` (roles),
``globs`` (operation patterns), ``conditions`` (condition adapter), ``indexes``, ``decision`` (the
one decision function), ``requests`` (reading requests), ``queries`` (who/what), ``analysis``
(escalation, bypassed conditions, dead grants, weak denies, owners, guests), ``gdpr``, ``engine``.
"""

from __future__ import annotations

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
from auditor.access.decision import AccessRequest, Decision, Verdict, decide, decide_batch
from auditor.access.engine import BATCH_WINDOW, AccessEngine
from auditor.access.gdpr import gdpr_export
from auditor.access.indexes import Indexes
from auditor.access.queries import (
    HeldPattern,
    HeldPermission,
    Holding,
    WhatResult,
    WhoEntry,
    WhoPath,
    WhoResult,
)
from auditor.access.requests import parse_request, parse_requests, read_request_lines
from auditor.access.scopes import scope_key

__all__ = [
    "ADMIN_ROLES",
    "BATCH_WINDOW",
    "ESCALATION_ACTIONS",
    "PRIVILEGED_ROLES",
    "AccessEngine",
    "AccessRequest",
    "BypassedCondition",
    "DeadGrant",
    "Decision",
    "Escalation",
    "EscalationStep",
    "GuestPrivilege",
    "HeldPattern",
    "HeldPermission",
    "Holding",
    "Indexes",
    "OwnerHolder",
    "SubscriptionOwners",
    "Verdict",
    "WeakChildDeny",
    "WhatResult",
    "WhoEntry",
    "WhoPath",
    "WhoResult",
    "decide",
    "decide_batch",
    "gdpr_export",
    "parse_request",
    "parse_requests",
    "read_request_lines",
    "scope_key",
]
