"""Building request paths: scopes and names percent-encoded once, subscriptions in either form."""

from __future__ import annotations

from urllib.parse import quote


def subscription_path(subscription: str) -> str:
    """``/subscriptions/{id}`` for an id given bare or as a scope."""
    text = subscription.strip().rstrip("/")
    if text.lower().startswith("/subscriptions/"):
        text = text.split("/", 2)[2]
    if not text or "/" in text:
        raise ValueError(f"not a subscription id: {subscription!r}")
    return "/subscriptions/" + quote(text, safe="")


def scope_path(scope: str) -> str:
    """A scope as a path prefix: ``""`` for ``/`` (the provider-level call), else the scope with
    each segment percent-encoded."""
    text = scope.strip().rstrip("/")
    if not text:
        return ""
    if not text.startswith("/"):
        raise ValueError(f"a scope starts with '/': {scope!r}")
    return "/".join(quote(part, safe="") for part in text.split("/"))


def segment(value: str) -> str:
    return quote(value, safe="")
