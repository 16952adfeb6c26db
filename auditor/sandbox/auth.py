"""Who is calling: bearer tokens (areas A-D, seed 5.1), developer-tooling API tokens (area E, seed
5.2), and the read permissions of seed 5.1 asked of the product's access engine.

Token values are hashed on arrival and never kept, logged or echoed; lookups compare digests.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from auditor.estate.snapshot import Snapshot
from auditor.model.devtooling import ApiToken

HASH_PREFIX = "sha256:"
VALUE_HASH_FIELD = "valueHash"
"""Extra field of a ``devTooling.tokens`` entry holding the digest of its value (written by the
sandbox for tokens created through the API, so that ``--persist`` keeps them usable)."""


def token_digest(value: str) -> str:
    """The stored form of a token value: a SHA-256 digest (the values are long random strings)."""
    return HASH_PREFIX + hashlib.sha256(value.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class BearerIdentity:
    """The principal a bearer token stands for. ``reads_everything``: the generated token of
    ``sandbox serve`` without ``--bearer`` (read access at ``/``, not part of the estate)."""

    principal_id: str
    reads_everything: bool = False


class BearerRegistry:
    def __init__(self) -> None:
        self._by_digest: dict[str, BearerIdentity] = {}

    def add(self, value: str, identity: BearerIdentity) -> None:
        if not value:
            raise ValueError("a bearer token cannot be empty")
        self._by_digest[token_digest(value)] = identity

    def __len__(self) -> int:
        return len(self._by_digest)

    def lookup(self, authorization: str | None) -> tuple[BearerIdentity | None, str]:
        """The identity of an ``Authorization`` header, and the reason when there is none
        (``missing``, ``scheme`` or ``unknown``)."""
        if not authorization:
            return None, "missing"
        scheme, _, value = authorization.strip().partition(" ")
        if scheme.lower() != "bearer" or not value.strip():
            return None, "scheme"
        found = self._by_digest.get(token_digest(value.strip()))
        return found, "" if found else "unknown"


class ApiTokenRegistry:
    """Digest -> token id, for the tokens of ``devTooling.tokens``."""

    def __init__(self) -> None:
        self._by_digest: dict[str, str] = {}

    def add_digest(self, digest: str, token_id: str) -> None:
        self._by_digest[digest] = token_id

    def add(self, value: str, token_id: str) -> None:
        if not value:
            raise ValueError("an API token cannot be empty")
        self.add_digest(token_digest(value), token_id)

    def remove_token(self, token_id: str) -> None:
        for digest in [d for d, t in self._by_digest.items() if t == token_id]:
            del self._by_digest[digest]

    def lookup(self, value: str | None) -> str | None:
        if not value:
            return None
        return self._by_digest.get(token_digest(value.strip()))


def stored_digest(token: ApiToken) -> str | None:
    """The digest a token entry carries in its extra ``valueHash`` field, if any."""
    extra = token.model_extra or {}
    value = extra.get(VALUE_HASH_FIELD)
    if isinstance(value, str) and value.startswith(HASH_PREFIX):
        return value
    return None


class Authorizer:
    """The read permissions of seed 5.1, decided by the product's access engine (contracts 4).

    The request is evaluated with concrete, empty attributes (the service knows its request): a
    condition that reads an attribute the sandbox does not supply is false, so only an ``allowed``
    decision lets the call through.
    """

    def __init__(self, snapshot: Snapshot) -> None:
        from auditor.access import AccessEngine

        self._engine = AccessEngine.from_snapshot(snapshot)

    def allowed(self, principal_id: str, action: str, scope: str) -> bool:
        from auditor.access import AccessRequest

        request = AccessRequest(principal_id, action, scope, attributes={})
        return self._engine.check(request).decision == "allowed"
