"""Area E client: the developer-tooling service under ``/v0.1`` (seed 4.7, 5.2).

Every request carries ``X-API-Token`` (only to the configured host); every POST, PUT or PATCH
carries a body, ``{}`` when there is nothing to send (the 411 rule). A token value returned by a
creation is handed back as a :class:`~auditor.model.secrets.Secret`.
"""

from __future__ import annotations

from typing import Any

from auditor.api._paths import segment
from auditor.api._transport import (
    ApiError,
    ClientSettings,
    Credential,
    Transport,
    json_kind,
    json_of,
)
from auditor.model.secrets import Secret

PREFIX = "/v0.1"


class DevToolingClient:
    """``async with DevToolingClient(base_url, token) as dev: await dev.get_user()``"""

    def __init__(
        self,
        base_url: str,
        api_token: Secret | str,
        settings: ClientSettings | None = None,
        *,
        transport: Any = None,
    ) -> None:
        self.transport = Transport(
            base_url, Credential.api_token(api_token), settings, transport=transport
        )

    async def __aenter__(self) -> DevToolingClient:
        await self.transport.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.transport.__aexit__(None, None, None)

    async def _call(
        self, method: str, path: str, body: Any = None, ok: tuple[int, ...] = (200,)
    ) -> Any:
        if method.upper() in ("POST", "PUT", "PATCH") and body is None:
            body = {}
        return await self.transport.request_parsed(method, PREFIX + path, json_of, json=body, ok=ok)

    @staticmethod
    def _app(owner: str, app: str) -> str:
        return f"/apps/{segment(owner)}/{segment(app)}"

    async def get_user(self) -> dict[str, Any]:
        result = await self._call("GET", "/user")
        return result if isinstance(result, dict) else {}

    async def list_apps(self) -> list[dict[str, Any]]:
        return _objects(await self._call("GET", "/apps"), "/apps")

    async def list_app_users(self, owner: str, app: str) -> list[dict[str, Any]]:
        return _objects(
            await self._call("GET", self._app(owner, app) + "/users"),
            self._app(owner, app) + "/users",
        )

    async def remove_app_user(self, owner: str, app: str, email: str) -> None:
        path = self._app(owner, app) + "/users/" + segment(email)
        await self._call("DELETE", path, ok=(200, 204))

    async def list_user_tokens(self) -> list[dict[str, Any]]:
        return _objects(await self._call("GET", "/api_tokens"), "/api_tokens")

    async def list_app_tokens(self, owner: str, app: str) -> list[dict[str, Any]]:
        return _objects(
            await self._call("GET", self._app(owner, app) + "/api_tokens"),
            self._app(owner, app) + "/api_tokens",
        )

    async def create_user_token(
        self, description: str | None = None, access_type: str = "full"
    ) -> tuple[dict[str, Any], Secret]:
        """A new user token: its metadata, and its value (shown once; keep it safe)."""
        return self._created(await self._create("/api_tokens", description, access_type))

    async def create_app_token(
        self, owner: str, app: str, description: str | None = None, access_type: str = "full"
    ) -> tuple[dict[str, Any], Secret]:
        path = self._app(owner, app) + "/api_tokens"
        return self._created(await self._create(path, description, access_type))

    async def _create(self, path: str, description: str | None, access_type: str) -> Any:
        body: dict[str, Any] = {"accessType": access_type}
        if description is not None:
            body["description"] = description
        return await self._call("POST", path, body, ok=(200, 201))

    @staticmethod
    def _created(result: Any) -> tuple[dict[str, Any], Secret]:
        meta = dict(result) if isinstance(result, dict) else {}
        value = meta.pop("value", None)
        return meta, Secret(value if isinstance(value, str) else "")


def _objects(value: Any, path: str) -> list[dict[str, Any]]:
    """The objects of an answer that should be an array of them; anything else is an error (an
    empty answer is an empty array)."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise ApiError(
            f"expected an array, found {json_kind(value)}", method="GET", url=PREFIX + path
        )
    for index, item in enumerate(value):
        if not isinstance(item, dict):
            raise ApiError(
                f"[{index}]: expected an object, found {json_kind(item)}",
                method="GET",
                url=PREFIX + path,
            )
    return value
