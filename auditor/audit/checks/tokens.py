"""Developer-tooling token checks: retirement (TOK-001), descriptions (TOK-004), the account's
token limit (TOK-005)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator

from auditor.audit.checks._registry import CheckContext, Outcome, resource_check, run_check
from auditor.audit.resources import Resource


@resource_check("token-after-retirement")
def token_after_retirement(resource: Resource, ctx: CheckContext) -> Iterator[Outcome]:
    """TOK-001: a token that exists at the audit's clock after the service's retirement date."""
    retirement = ctx.settings["devToolingRetirementDate"]
    assert isinstance(retirement, dt.date)
    token = resource.model
    evidence = {
        "asOf": ctx.as_of.isoformat(),
        "retirementDate": retirement.isoformat(),
        "createdAt": token.createdAt,
    }
    fields = {
        "tokenId": token.id,
        "description": token.description or "no description",
        "asOf": ctx.as_of.isoformat(),
        "retirement": retirement.isoformat(),
    }
    yield Outcome(ctx.as_of <= retirement, evidence, fields=fields)


@resource_check("token-description")
def token_description(resource: Resource, ctx: CheckContext) -> Iterator[Outcome]:
    """TOK-004: a description that is not empty, not shorter than the setting, and not generic."""
    min_length = int(ctx.settings["minTokenDescriptionLength"])
    generic = {w.strip().lower() for w in ctx.settings["genericTokenDescriptions"]}
    text = (resource.model.description or "").strip()
    if not text:
        problem = "it is empty"
    elif text.lower() in generic:
        problem = f"{text!r} is a generic word"
    elif len(text) < min_length:
        problem = f"{text!r} is shorter than {min_length} characters"
    else:
        problem = ""
    yield Outcome(
        not problem,
        {"description": resource.model.description, "minTokenDescriptionLength": min_length},
        fields={"tokenId": resource.model.id, "problem": problem},
    )


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
