"""Network checks of domains: inbound IP rules (DOM-003) and exposure to every address (DOM-002).

Masks are parsed with :mod:`ipaddress`: host bits are tolerated (``10.1.2.3/16`` is the /16 of
10.1.0.0), a bare address counts as /32 (IPv4) or /128 (IPv6), a prefix of 0 always fails.
**Decision**: a rule whose ``action`` is missing or null takes the service's default ``Allow``;
``action`` compares case-insensitively. A rule narrows public access (DOM-002) when it is valid CIDR,
its action is Allow and its prefix is not 0 (a valid but too wide rule still narrows; DOM-003 reports
its width).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from auditor.audit.checks._registry import CheckContext, Outcome, resource_check
from auditor.audit.resources import Resource, get_path


@dataclass(frozen=True)
class IpRuleVerdict:
    index: int
    ip_mask: Any
    action: Any
    network: ipaddress.IPv4Network | ipaddress.IPv6Network | None
    problems: tuple[str, ...]

    @property
    def narrows(self) -> bool:
        """Valid CIDR, action Allow, prefix not 0 (DOM-002)."""
        return self.network is not None and self.network.prefixlen > 0 and _is_allow(self.action)


def _is_allow(action: Any) -> bool:
    return action is None or (isinstance(action, str) and action.strip().lower() == "allow")


def parse_mask(text: Any) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
    """The network of an ``ipMask`` (host bits tolerated, bare address = /32 or /128), or None."""
    if not isinstance(text, str) or not text.strip():
        return None
    value = text.strip()
    try:
        if "/" in value:
            address, _, prefix = value.partition("/")
            if not prefix.isdigit():
                return None
            return ipaddress.ip_network(f"{address}/{int(prefix)}", strict=False)
        return ipaddress.ip_network(ipaddress.ip_address(value))
    except ValueError:
        return None


def judge_rules(rules: Any, ipv4_min: int, ipv6_min: int) -> Iterator[IpRuleVerdict]:
    """A verdict for each inbound IP rule."""
    if not isinstance(rules, list):
        return
    for index, rule in enumerate(rules):
        rule = rule if isinstance(rule, Mapping) else {}
        mask = rule.get("ipMask")
        action = rule.get("action")
        network = parse_mask(mask)
        problems: list[str] = []
        if network is None:
            problems.append("is not valid CIDR")
        if not _is_allow(action):
            problems.append(f"has action {action!s}, not Allow")
        if network is not None:
            if network.prefixlen == 0:
                problems.append(
                    "opens the domain to every "
                    + ("IPv4" if network.version == 4 else "IPv6")
                    + " address"
                )
            elif network.version == 4 and network.prefixlen < ipv4_min:
                problems.append(f"is wider than the allowed /{ipv4_min} (IPv4)")
            elif network.version == 6 and network.prefixlen < ipv6_min:
                problems.append(f"is wider than the allowed /{ipv6_min} (IPv6)")
        yield IpRuleVerdict(index, mask, action, network, tuple(problems))


def _limits(ctx: CheckContext) -> tuple[int, int]:
    return int(ctx.settings["ipv4MinPrefixLength"]), int(ctx.settings["ipv6MinPrefixLength"])


@resource_check("inbound-ip-rules")
def inbound_ip_rules(resource: Resource, ctx: CheckContext) -> Iterator[Outcome]:
    """DOM-003: each inbound IP rule is valid CIDR, action Allow, and no wider than allowed. A domain
    without inbound IP rules is not judged."""
    ipv4_min, ipv6_min = _limits(ctx)
    rules = get_path(resource.doc, "properties/inboundIpRules")
    verdicts = list(judge_rules(rules, ipv4_min, ipv6_min))
    if not verdicts:
        return  # no inbound IP rule: nothing for DOM-003 to judge
    bad = [v for v in verdicts if v.problems]
    for v in bad:
        yield Outcome(
            passed=False,
            evidence={
                "ipMask": v.ip_mask,
                "action": v.action,
                "prefixLength": v.network.prefixlen if v.network is not None else None,
                "ipv4MinPrefixLength": ipv4_min,
                "ipv6MinPrefixLength": ipv6_min,
            },
            detail=f"ipMask={v.ip_mask}",
            location=f"{resource.location}.properties.inboundIpRules[{v.index}]",
            fields={"index": v.index, "problem": " and ".join(v.problems)},
        )
    if not bad:
        yield Outcome(
            passed=True,
            evidence={
                "ipMasks": [v.ip_mask for v in verdicts],
                "ipv4MinPrefixLength": ipv4_min,
                "ipv6MinPrefixLength": ipv6_min,
            },
        )


@resource_check("domain-open-to-internet")
def domain_open_to_internet(resource: Resource, ctx: CheckContext) -> Iterator[Outcome]:
    """DOM-002: public access enabled with no inbound IP rule that narrows it."""
    ipv4_min, ipv6_min = _limits(ctx)
    access = get_path(resource.doc, "properties/publicNetworkAccess")
    rules = get_path(resource.doc, "properties/inboundIpRules")
    verdicts = list(judge_rules(rules, ipv4_min, ipv6_min))
    narrowing = [v.ip_mask for v in verdicts if v.narrows]
    evidence: dict[str, Any] = {
        "publicNetworkAccess": access,
        "inboundIpRules": len(verdicts),
        "narrowingRules": narrowing,
    }
    if not (isinstance(access, str) and access.lower() == "enabled"):
        yield Outcome(True, evidence, fields={"reason": f"public network access is {access}"})
    elif narrowing:
        yield Outcome(
            True,
            evidence,
            fields={"reason": f"inbound IP rules narrow it to {', '.join(map(str, narrowing))}"},
        )
    else:
        reason = (
            "there is no inbound IP rule"
            if not verdicts
            else "no inbound IP rule narrows it (every rule is invalid or /0)"
        )
        yield Outcome(False, evidence, fields={"reason": reason})
