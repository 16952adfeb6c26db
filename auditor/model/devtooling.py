"""Area E of the seed: the developer-tooling service as the snapshot's ``devTooling`` section holds
it (contracts 2; seed 2.E, 5.2)."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from auditor.model._base import WireModel
from auditor.model.secrets import Secret

DEV_TOOLING_PATH_PREFIX = "/v0.1"
"""The service's version is its path prefix (seed 9)."""

API_TOKEN_HEADER = "X-API-Token"
"""The request header that carries the API token (seed 5.2)."""


class OwnerType(StrEnum):
    USER = "user"
    ORG = "org"


class AppUserRole(StrEnum):
    ADMIN = "admin"
    DEVELOPER = "developer"
    VIEWER = "viewer"


class TokenKind(StrEnum):
    USER = "user"
    APP = "app"


class TokenAccessType(StrEnum):
    FULL = "full"
    READ_ONLY = "readOnly"


class DevToolingUser(WireModel):
    """The profile of ``GET /v0.1/user`` (seed 4.7: shape not shown). Conventional fields are typed;
    anything else is kept."""

    id: str | None = None
    email: str | None = None
    displayName: str | None = None
    name: str | None = None


class DevToolingAppUser(WireModel):
    email: str | None = None
    role: str | None = None


class DevToolingApp(WireModel):
    """An app, named ``{owner}/{name}`` (seed 2.E)."""

    owner: str | None = None
    ownerType: str | None = None
    name: str | None = None
    users: list[DevToolingAppUser] = Field(default_factory=list)


class ApiToken(WireModel):
    """An API token's metadata. ``app`` is ``"<owner>/<name>"`` for an app token, null for a user
    token.

    ``value`` is normally absent (shown once at creation, seed 2.E); when present it is a Secret.
    """

    id: str | None = None
    kind: str | None = None
    app: str | None = None
    accessType: str | None = None
    description: str | None = None
    createdAt: str | None = None
    value: Secret | None = None


class DevTooling(WireModel):
    """The snapshot's ``devTooling`` section (contracts 2)."""

    user: DevToolingUser | None = None
    apps: list[DevToolingApp] = Field(default_factory=list)
    tokens: list[ApiToken] = Field(default_factory=list)
