"""The audit: rule packs, the rule engine, waivers, baselines and the findings model.

Library entry points (imported lazily, so ``auditor.audit.findings`` stays light for renderers)::

    from auditor.audit import AuditOptions, audit_snapshot, gate_plan
    result = audit_snapshot(load_snapshot("estate.json"), AuditOptions(checks=["DOM-*"]))
    result.exit_code            # 0, 1 (gate failed) or 3 (incomplete)
"""

from __future__ import annotations

from auditor._lazy import lazy_exports

_LAZY = {
    "AuditOptions": "auditor.audit.runner",
    "audit_snapshot": "auditor.audit.runner",
    "gate_plan": "auditor.audit.runner",
    "rule_catalogue_json": "auditor.audit.runner",
    "shipped_catalogue": "auditor.audit.packs",
    "load_catalogue": "auditor.audit.packs",
    "catalogue_with": "auditor.audit.packs",
    "run_examples": "auditor.audit.examples",
    "lint_packs": "auditor.audit.lint",
    "load_frameworks": "auditor.audit.frameworks",
    "shipped_frameworks": "auditor.audit.frameworks",
    "control_view": "auditor.audit.frameworks",
    "catalogue_version": "auditor.audit.ruleset",
}

__all__ = sorted(_LAZY)


__getattr__ = lazy_exports(__name__, _LAZY)
