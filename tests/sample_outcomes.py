"""What a correct audit of the sample estate and the sample plans reports, rule by rule.

The estate layer (:mod:`auditor.estate.sample`) builds the sample and names no rule; the expected
outcomes live here, with the tests that pin them (``tests/test_audit_golden.py``,
``tests/test_estate_sample.py``). Each rule's own behaviour is pinned by the examples in its pack
(``auditor rules test``, ``tests/test_rule_examples.py``); this table pins the sample, end to end.
"""

from __future__ import annotations

from typing import Any, Final

from auditor.estate.sample import (
    CLUSTERS,
    COLLECTED_AT,
    DENY_ASSIGNMENTS,
    DEV_TOOLING_USER_ID,
    DOMAINS,
    HEALTH_EVENTS,
    METASTORE_URLS,
    MG_CORP,
    MG_LANDINGZONES,
    MG_PLATFORM,
    MG_ROOT,
    PRINCIPALS,
    ROLE_ASSIGNMENTS,
    ROLE_DEFINITIONS,
    TOKENS,
    plan_ref,
    sub_scope,
)

_C, _R, _M = "compliant-plan", "risky-plan", "metastore-plan"
_RA, _DA, _PR = ROLE_ASSIGNMENTS, DENY_ASSIGNMENTS, PRINCIPALS
_CL, _DO, _EV, _TK, _RD = CLUSTERS, DOMAINS, HEALTH_EVENTS, TOKENS, ROLE_DEFINITIONS
_META_PASS = [plan_ref(_M, i) for i, (_h, _o, ok) in enumerate(METASTORE_URLS) if ok]
_META_FAIL = [plan_ref(_M, i) for i, (_h, _o, ok) in enumerate(METASTORE_URLS) if not ok]
_META_ALL = [plan_ref(_M, i) for i in range(len(METASTORE_URLS))]
_ALL_TOKENS = list(TOKENS.values())

EXPECTED_AUDIT: Final[dict[str, Any]] = {
    "asOf": COLLECTED_AT,
    "settings": {
        "DOM-008": {"requireWithinRegion": True},
        "CLU-014": {"requireComputeIsolation": True},
    },
}
"""The audit that :data:`EXPECTED_RULE_OUTCOMES` describes: the sample snapshot and the three sample
plans, judged at the snapshot's ``collectedAt``, with the two settings-dependent rules switched on
(every other setting at its default)."""

EXPECTED_OTHER_RUNS: Final[dict[str, dict[str, dict[str, Any]]]] = {
    "TOK-001": {"pass": {"asOf": "2025-01-15T00:00:00Z"}},
    "TOK-005": {"fail": {"variant": "token-sprawl"}},
}
"""Lists of :data:`EXPECTED_RULE_OUTCOMES` that hold in a different audit than
:data:`EXPECTED_AUDIT`: TOK-001 can only pass before the retirement date, and TOK-005 judges the
one developer-tooling account, which only the ``token-sprawl`` variant fills past 90%."""

EXPECTED_RULE_OUTCOMES: Final[dict[str, dict[str, list[str]]]] = {
    # ---- event-routing domains (estate domains and plan requests)
    "DOM-001": {
        "fail": [
            _DO["dom-dev-telemetry"],
            _DO["dom-platform-audit"],
            plan_ref(_R, 0),
            plan_ref(_R, 1),
            plan_ref(_R, 2),
        ],
        "pass": [_DO["dom-orders"], _DO["dom-sandbox-events"], plan_ref(_C, 0)],
    },
    "DOM-002": {
        "fail": [_DO["dom-dev-telemetry"], plan_ref(_R, 0)],
        "pass": [
            _DO["dom-orders"],
            _DO["dom-platform-audit"],
            _DO["dom-sandbox-events"],
            plan_ref(_C, 0),
            plan_ref(_R, 1),
            plan_ref(_R, 2),
        ],
    },
    "DOM-003": {
        "fail": [_DO["dom-platform-audit"], plan_ref(_R, 0), plan_ref(_R, 2)],
        "pass": [_DO["dom-sandbox-events"], plan_ref(_R, 1)],
    },
    "DOM-004": {
        "fail": [_DO["dom-dev-telemetry"], _DO["dom-platform-audit"], plan_ref(_R, 0)],
        "pass": [
            _DO["dom-orders"],
            _DO["dom-sandbox-events"],
            plan_ref(_C, 0),
            plan_ref(_R, 1),
            plan_ref(_R, 2),
        ],
    },
    "DOM-005": {
        "fail": [_DO["dom-dev-telemetry"], plan_ref(_R, 0)],
        "pass": [
            _DO["dom-orders"],
            _DO["dom-platform-audit"],
            _DO["dom-sandbox-events"],
            plan_ref(_C, 0),
            plan_ref(_R, 1),
            plan_ref(_R, 2),
        ],
    },
    "DOM-006": {
        "fail": [_DO["dom-dev-telemetry"], _DO["dom-platform-audit"], plan_ref(_R, 0)],
        "pass": [
            _DO["dom-orders"],
            _DO["dom-sandbox-events"],
            plan_ref(_C, 0),
            plan_ref(_R, 1),
            plan_ref(_R, 2),
        ],
    },
    "DOM-007": {
        "fail": [_DO["dom-dev-telemetry"], _DO["dom-platform-audit"]],
        "pass": [_DO["dom-orders"], _DO["dom-sandbox-events"]],
    },
    "DOM-008": {
        "fail": [_DO["dom-dev-telemetry"], _DO["dom-platform-audit"], plan_ref(_R, 0)],
        "pass": [
            _DO["dom-orders"],
            _DO["dom-sandbox-events"],
            plan_ref(_C, 0),
            plan_ref(_R, 1),
            plan_ref(_R, 2),
        ],
    },
    "DOM-009": {
        "fail": [_DO["dom-dev-telemetry"], _DO["dom-platform-audit"], plan_ref(_R, 0)],
        "pass": [
            _DO["dom-orders"],
            _DO["dom-sandbox-events"],
            plan_ref(_C, 0),
            plan_ref(_R, 1),
            plan_ref(_R, 2),
        ],
    },
    "DOM-010": {
        "fail": [_DO["dom-sandbox-events"]],
        "pass": [_DO["dom-platform-audit"], plan_ref(_R, 0), plan_ref(_R, 1), plan_ref(_R, 2)],
    },
    "DOM-011": {
        "fail": [_DO["dom-sandbox-events"], plan_ref(_R, 1)],
        "pass": [
            _DO["dom-orders"],
            _DO["dom-dev-telemetry"],
            _DO["dom-platform-audit"],
            plan_ref(_C, 0),
            plan_ref(_R, 0),
            plan_ref(_R, 2),
        ],
    },
    "DOM-012": {
        "fail": [_DO["dom-platform-audit"], _DO["dom-sandbox-events"]],
        "pass": [_DO["dom-orders"], _DO["dom-dev-telemetry"]],
    },
    # ---- analytics clusters (estate clusters and plan requests)
    "CLU-001": {
        "fail": [_CL["hdi-dev-sandbox"], plan_ref(_R, 3)],
        "pass": [
            _CL["hdi-prod-analytics"],
            _CL["hdi-shared-etl"],
            plan_ref(_C, 1),
            plan_ref(_R, 4),
            *_META_ALL,
        ],
    },
    "CLU-002": {
        "fail": [_CL["hdi-dev-sandbox"], plan_ref(_R, 3)],
        "pass": [
            _CL["hdi-prod-analytics"],
            _CL["hdi-shared-etl"],
            plan_ref(_C, 1),
            plan_ref(_R, 4),
            *_META_ALL,
        ],
    },
    "CLU-003": {
        "fail": [_CL["hdi-dev-sandbox"], _CL["hdi-shared-etl"]],
        "pass": [_CL["hdi-prod-analytics"]],
    },
    "CLU-004": {
        "fail": [_CL["hdi-dev-sandbox"], plan_ref(_R, 3)],
        "pass": [
            _CL["hdi-prod-analytics"],
            _CL["hdi-shared-etl"],
            plan_ref(_C, 1),
            plan_ref(_R, 4),
            *_META_ALL,
        ],
    },
    "CLU-005": {
        "fail": [_CL["hdi-dev-sandbox"], _CL["hdi-shared-etl"], plan_ref(_R, 3)],
        "pass": [_CL["hdi-prod-analytics"], plan_ref(_C, 1), plan_ref(_R, 4), *_META_ALL],
    },
    "CLU-006": {
        "fail": [_CL["hdi-dev-sandbox"], _CL["hdi-shared-etl"], plan_ref(_R, 3)],
        "pass": [_CL["hdi-prod-analytics"], plan_ref(_C, 1), plan_ref(_R, 4), *_META_ALL],
    },
    "CLU-007": {
        "fail": [plan_ref(_R, 3)],
        "pass": [plan_ref(_C, 1), plan_ref(_R, 4), *_META_ALL],
    },
    "CLU-008": {
        "fail": [plan_ref(_R, 3), plan_ref(_R, 4)],
        "pass": [plan_ref(_C, 1), *_META_ALL],
    },
    "CLU-009": {
        "fail": [plan_ref(_R, 3), plan_ref(_R, 4)],
        "pass": [plan_ref(_C, 1), *_META_ALL],
    },
    "CLU-010": {
        "fail": [plan_ref(_R, 3)],
        "pass": [plan_ref(_R, 4), plan_ref(_C, 1), *_META_ALL],
    },
    "CLU-011": {
        "fail": [_CL["hdi-dev-sandbox"], plan_ref(_R, 3)],
        "pass": [
            _CL["hdi-prod-analytics"],
            _CL["hdi-shared-etl"],
            plan_ref(_C, 1),
            plan_ref(_R, 4),
            *_META_ALL,
        ],
    },
    "CLU-012": {
        "fail": [plan_ref(_R, 3), *_META_FAIL],
        "pass": [plan_ref(_C, 1), *_META_PASS],
    },
    "CLU-013": {
        "fail": [plan_ref(_R, 3), plan_ref(_R, 4)],
        "pass": [plan_ref(_C, 1), *_META_ALL],
    },
    "CLU-014": {
        "fail": [_CL["hdi-dev-sandbox"], _CL["hdi-shared-etl"], plan_ref(_R, 3)],
        "pass": [_CL["hdi-prod-analytics"], plan_ref(_C, 1), plan_ref(_R, 4), *_META_ALL],
    },
    "CLU-015": {
        "fail": [_CL["hdi-shared-etl"]],
        "pass": [_CL["hdi-prod-analytics"], _CL["hdi-dev-sandbox"]],
    },
    # ---- access control
    "RBAC-001": {
        "fail": [sub_scope("prod")],
        "pass": [sub_scope("dev"), sub_scope("shared"), sub_scope("sandbox")],
    },
    "RBAC-002": {
        "fail": [sub_scope("shared")],
        "pass": [sub_scope("prod"), sub_scope("dev"), sub_scope("sandbox")],
    },
    "RBAC-003": {
        "fail": [_RA["eve-owner-prod"], _RA["app-team-contributor-rg"]],
        "pass": [
            _RA["bob-owner-prod"],
            _RA["henry-reader-dev"],
            _RA["dave-owner-dev"],
            _RA["engineering-reader-dev"],
        ],
    },
    "RBAC-004": {
        "fail": [_RA["frank-contributor-rg"]],
        "pass": [
            _RA["bob-owner-prod"],
            _RA["backend-sp-contributor-rg"],
            _RA["app-team-contributor-rg"],
        ],
    },
    "RBAC-005": {
        "fail": [_RA["orphan-reader-shared"]],
        "pass": [_RA["peter-rbac-admin-shared"], _RA["bob-owner-prod"]],
    },
    "RBAC-006": {
        "fail": [_RD["super-operator"]],
        "pass": [
            _RD["access-delegator"],
            _RD["release-access-manager"],
            _RD["storage-key-operator"],
            _RD["blob-auditor"],
            _RD["log-container-reader"],
        ],
    },
    "RBAC-007": {
        "fail": [_RD["super-operator"], _RD["access-delegator"], _RD["release-access-manager"]],
        "pass": [_RD["storage-key-operator"], _RD["blob-auditor"], _RD["log-container-reader"]],
    },
    "RBAC-008": {
        "fail": [_RA["liam-uaa-root"]],
        "pass": [_RA["peter-uaa-sandbox-rg"]],
    },
    "RBAC-009": {
        "fail": [_RA["deploy-sp-owner-prod"]],
        "pass": [
            _RA["backend-sp-contributor-rg"],
            _RA["managed-app-sp-contributor"],
            _RA["legacy-sp-super-operator-dev"],
        ],
    },
    "RBAC-010": {
        "fail": [sub_scope("dev")],
        "pass": [
            "/",
            MG_ROOT,
            MG_PLATFORM,
            MG_LANDINGZONES,
            MG_CORP,
            sub_scope("prod"),
            sub_scope("shared"),
            sub_scope("sandbox"),
        ],
    },
    "RBAC-011": {
        "fail": [_RA["quinn-blob-reader-bad-condition"], _RA["rita-blob-reader-v1-condition"]],
        "pass": [_RA["judy-blob-reader-conditioned"], _RA["kate-blob-reader-conditioned"]],
    },
    "RBAC-012": {
        "fail": [_RA["judy-blob-reader-conditioned"]],
        "pass": [_RA["kate-blob-reader-conditioned"]],
    },
    "RBAC-013": {
        "fail": [_RA["oscar-key-operator-managed"]],
        "pass": [
            _RA["sam-reader-managed"],
            _RA["managed-app-sp-contributor"],
            _RA["mia-access-delegator-prod"],
            _RA["bob-owner-prod"],
        ],
    },
    "RBAC-014": {
        "fail": [sub_scope("prod")],
        "pass": [sub_scope("dev"), sub_scope("shared"), sub_scope("sandbox")],
    },
    "RBAC-015": {
        "fail": [_RD["blob-auditor"]],
        "pass": [_RD["log-container-reader"]],
    },
    "DENY-001": {
        "fail": [
            _DA["no-role-writes-mia"],
            _DA["protect-event-domains"],
            _DA["contractor-network-guard"],
            _DA["sandbox-cluster-guard"],
        ],
        "pass": [_DA["managed-app-lock"]],
    },
    "DENY-002": {
        "fail": [_DA["contractor-network-guard"]],
        "pass": [
            _DA["managed-app-lock"],
            _DA["no-role-writes-mia"],
            _DA["protect-event-domains"],
            _DA["sandbox-cluster-guard"],
        ],
    },
    "DENY-003": {
        "fail": [_DA["protect-event-domains"]],
        "pass": [_DA["sandbox-cluster-guard"], _DA["managed-app-lock"]],
    },
    # ---- health events
    "HLT-001": {
        "fail": [_EV["security-advisory-active"]],
        "pass": [_EV["security-advisory-resolved"]],
    },
    "HLT-002": {
        "fail": [_CL["hdi-prod-analytics"]],
        "pass": [
            _CL["hdi-dev-sandbox"],
            _CL["hdi-shared-etl"],
            _DO["dom-orders"],
            _DO["dom-dev-telemetry"],
            _DO["dom-platform-audit"],
            _DO["dom-sandbox-events"],
        ],
    },
    "HLT-003": {
        "fail": [
            _EV["service-issue-westeurope"],
            _EV["maintenance-shared-cluster"],
            _EV["health-advisory-dev"],
        ],
        "pass": [_EV["service-issue-eastus-resolved"]],
    },
    "HLT-004": {
        "fail": [_EV["emerging-issue-hir"]],
        "pass": [
            _EV["service-issue-westeurope"],
            _EV["security-advisory-active"],
            _EV["rca-out-of-range"],
        ],
    },
    "HLT-005": {
        "fail": [_EV["maintenance-shared-cluster"], _EV["rca-out-of-range"]],
        "pass": [
            _EV["service-issue-westeurope"],
            _EV["service-issue-eastus-resolved"],
            _EV["health-advisory-dev"],
            _EV["security-advisory-active"],
            _EV["security-advisory-resolved"],
            _EV["emerging-issue-hir"],
        ],
    },
    # ---- developer tooling
    "TOK-001": {
        "fail": _ALL_TOKENS,
        "pass": _ALL_TOKENS,  # as of 2025-01-15 (EXPECTED_OTHER_RUNS)
    },
    "TOK-002": {
        "fail": [_TK["user-full-laptop"], _TK["app-full-ios-release"]],
        "pass": [
            _TK["user-readonly-generic"],
            _TK["app-readonly-empty"],
            _TK["app-readonly-short"],
            _TK["app-readonly-dashboard"],
        ],
    },
    "TOK-003": {
        "fail": [_TK["user-full-laptop"], _TK["user-readonly-generic"]],
        "pass": [
            _TK["app-full-ios-release"],
            _TK["app-readonly-empty"],
            _TK["app-readonly-short"],
            _TK["app-readonly-dashboard"],
        ],
    },
    "TOK-004": {
        "fail": [
            _TK["user-readonly-generic"],
            _TK["app-readonly-empty"],
            _TK["app-readonly-short"],
        ],
        "pass": [
            _TK["user-full-laptop"],
            _TK["app-full-ios-release"],
            _TK["app-readonly-dashboard"],
        ],
    },
    "TOK-005": {
        "fail": [DEV_TOOLING_USER_ID],  # in the token-sprawl variant (EXPECTED_OTHER_RUNS)
        "pass": [DEV_TOOLING_USER_ID],
    },
    "TOK-006": {
        "fail": [plan_ref(_R, 0)],
        "pass": [
            plan_ref(_C, 0),
            plan_ref(_C, 1),
            plan_ref(_R, 1),
            plan_ref(_R, 2),
            plan_ref(_R, 3),
            plan_ref(_R, 4),
            *_META_ALL,
        ],
    },
}
"""For each rule of ``rules.md``: the resources a correct audit reports as failing and as passing.

Conventions (for the golden test):

- The audit is :data:`EXPECTED_AUDIT`, except the lists named in :data:`EXPECTED_OTHER_RUNS`.
- ``fail`` lists are complete: the audit reports exactly these failures for the rule. ``pass`` lists
  name resources that must pass; they need not be complete (a resource a rule does not apply to, such
  as a domain without IP rules for DOM-003, is in neither list).
- A resource is named by its id (a role or deny assignment, role definition, cluster, domain or
  health event id; a token id; the developer-tooling user id for TOK-005), or, for a plan request,
  by :func:`plan_ref` (``<plan name>#requests[<i>]``). Subscription-level rules (RBAC-001, -002,
  -014) name the subscription scope; RBAC-010 names the scope at which the escalation is possible
  (the principals are in :data:`EXPECTED_SHADOW_ADMINS`); RBAC-003 names the role assignment that
  gives a guest the privileged role (directly, or to a group the guest belongs to); RBAC-012 names
  the conditioned assignment that is bypassed; HLT-002 names the affected cluster or domain.
"""

EXPECTED_SHADOW_ADMINS: Final[dict[str, list[str]]] = {
    sub_scope("dev"): [
        _PR["sp-legacy-automation"],
        _PR["g-release-managers"],
        # ... and through g-release-managers: its members, transitively
        _PR["ivan"],
        _PR["g-release-bots"],
        _PR["sp-release-pipeline"],
    ],
}
"""RBAC-010 by scope: the principals that can write role assignments there without an admin role.
Mia can too at prod by her custom role, but a deny assignment blocks it (so prod passes)."""

EXPECTED_PLAN_API_VERSION_FINDINGS: Final[list[str]] = [plan_ref(_R, 0), plan_ref(_R, 3)]
"""Plan requests with an api-version other than seed section 9's (contracts 3: a finding, not a
crash). rules.md has no id for it yet."""
