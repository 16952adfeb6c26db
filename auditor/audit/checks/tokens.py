"""Developer-tooling token checks: the account's token limit (TOK-005). Retirement (TOK-001) and
descriptions (TOK-004) are predicates (``rules/tokens.yaml``: ``@asOf``, ``@settings/NAME``)."""

from __future__ import annotations

from collections.abc import Iterator

from auditor.audit.checks._registry import CheckContext, Outcome, run_check


@run_check("token-limit")
def token_limit(ctx: CheckContext) -> Iterator[Outcome]:
    """TOK-005: the account holds more than ``tokenLimitRatio`` of its ``tokenLimit`` tokens.

    The snapshot's ``devTooling`` section is one account (its ``user``); its resource id is
    the user's ``id`` (else its email or name).
    """
    snap = ctx.snapshot
    if snap is None or snap.devTooling is None:
        return
    dev = snap.devTooling
    user = dev.user
    account = (user.id or user.email or user.name or user.displayName) if user else None
    account = account or "account"
    limit = int(ctx.settings["tokenLimit"])
    ratio = float(ctx.settings["tokenLimitRatio"])
    count = len(dev.tokens)
    yield Outcome(
        count <= limit * ratio,
        {"tokens": count, "tokenLimit": limit, "tokenLimitRatio": ratio},
        resource_id=account,
        resource_type="DevTooling/account",
        resource_name=account,
        location="devTooling",
        fields={
            "account": account,
            "count": count,
            "limit": limit,
            "percent": f"{ratio * 100:g}",
        },
    )
