"""Handlers of area E (seed 4.7, 2.E, 5.2): the developer-tooling service under ``/v0.1``.

Rights (seed 2.E): a user token carries its user's role in each app (admin, developer, viewer; an app
owned by the user makes the user its admin); an app token is valid in its own app only, with admin
rights (full access) or viewer rights (read only). A read-only token changes nothing (403).
"""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from auditor.model.devtooling import ApiToken, DevToolingApp
from auditor.sandbox._http import Ctx, HttpError, json_response, shorten
from auditor.sandbox.resources import BodyError, decode_object

_ROLE_RANK = {"viewer": 1, "developer": 2, "admin": 3}


def _caller(ctx: Ctx) -> ApiToken:
    assert ctx.token_id is not None
    token = ctx.store.token(ctx.token_id)
    if token is None:  # revoked meanwhile
        raise HttpError(401, "Unauthorized", "The API token is not valid.")
    return token


def _read_only(token: ApiToken) -> bool:
    return (token.accessType or "").lower() != "full"


def _refuse_read_only(token: ApiToken) -> None:
    if _read_only(token):
        raise HttpError(
            403,
            "Forbidden",
            "A read-only API token cannot change anything; use a full-access token.",
        )


def _app_name(app: DevToolingApp) -> str:
    return f"{app.owner}/{app.name}"


def app_role(ctx: Ctx, token: ApiToken, app: DevToolingApp) -> str | None:
    """The caller's effective role in ``app`` (None: no access)."""
    if (token.kind or "").lower() == "app":
        if (token.app or "").lower() != _app_name(app).lower():
            return None
        return "viewer" if _read_only(token) else "admin"
    user = ctx.store.dev.user
    role: str | None = None
    if user is not None:
        if (app.ownerType or "").lower() == "user" and (app.owner or "").lower() in {
            (user.name or "").lower(),
            (user.id or "").lower(),
        } - {""}:
            role = "admin"
        else:
            email = (user.email or "").lower()
            for member in app.users:
                if email and (member.email or "").lower() == email:
                    role = (member.role or "").lower() or None
    if role is not None and _read_only(token):
        return "viewer"
    return role


def _app_or_404(ctx: Ctx, token: ApiToken) -> tuple[DevToolingApp, str]:
    owner, name = ctx.params["owner"], ctx.params["app"]
    app = ctx.store.app(owner, name)
    role = app_role(ctx, token, app) if app is not None else None
    if app is None or role is None:
        raise HttpError(404, "NotFound", f"No app {shorten(owner + '/' + name)} for this token.")
    return app, role


def _need(role: str, wanted: str, what: str) -> None:
    if _ROLE_RANK.get(role, 0) < _ROLE_RANK[wanted]:
        raise HttpError(403, "Forbidden", f"Only an app {wanted} may {what}.")


def token_view(token: ApiToken) -> dict[str, Any]:
    """A token's metadata as listed (never its value or digest)."""
    return {
        "id": token.id,
        "kind": token.kind,
        "app": token.app,
        "accessType": token.accessType,
        "description": token.description,
        "createdAt": token.createdAt,
    }


async def get_user(ctx: Ctx) -> Response:
    _caller(ctx)
    user = ctx.store.dev.user
    return json_response(200, user.to_wire() if user is not None else {})


async def list_apps(ctx: Ctx) -> Response:
    token = _caller(ctx)
    out = []
    for app in ctx.store.dev.apps:
        if app_role(ctx, token, app) is not None:
            out.append({"owner": app.owner, "ownerType": app.ownerType, "name": app.name})
    return json_response(200, out)


async def list_app_users(ctx: Ctx) -> Response:
    app, _role = _app_or_404(ctx, _caller(ctx))
    return json_response(200, [u.to_wire() for u in app.users])


async def remove_app_user(ctx: Ctx) -> Response:
    token = _caller(ctx)
    _refuse_read_only(token)
    app, role = _app_or_404(ctx, token)
    _need(role, "admin", "remove a user from an app")
    email = ctx.params["email"]
    if not ctx.store.remove_app_user(app, email):
        raise HttpError(404, "NotFound", f"{shorten(email)} is not a user of {_app_name(app)}.")
    await ctx.store.persist()
    return Response(status_code=204)


def _token_request(ctx: Ctx) -> tuple[str, str | None]:
    """(accessType, description) of a token creation body: ``accessType`` full|readOnly, or the
    service's ``scope`` form (``["all"]`` or ``["viewer"]``); full access when neither is given."""
    try:
        body = decode_object(ctx.body)
    except BodyError as exc:
        raise HttpError(400, "BadRequest", exc.describe()) from None
    description = body.get("description")
    if "description" in body and not isinstance(description, str):
        raise HttpError(400, "BadRequest", "description must be a string.", target="description")
    access = body.get("accessType")
    if "accessType" in body and not isinstance(access, str):
        raise HttpError(
            400, "BadRequest", "accessType must be full or readOnly.", target="accessType"
        )
    scope = body.get("scope")
    if access is None and scope is not None:
        if scope == ["all"]:
            access = "full"
        elif scope == ["viewer"]:
            access = "readOnly"
        else:
            raise HttpError(
                400, "BadRequest", 'scope must be ["all"] or ["viewer"].', target="scope"
            )
    access = access if access is not None else "full"
    if access not in ("full", "readOnly"):
        raise HttpError(
            400, "BadRequest", "accessType must be full or readOnly.", target="accessType"
        )
    return access, description


def _check_limit(ctx: Ctx) -> None:
    limit = ctx.store.config.max_api_tokens
    if len(ctx.store.dev.tokens) >= limit:
        raise HttpError(
            400,
            "TokenLimitReached",
            f"An account can create at most {limit} API tokens; revoke one first.",
        )


async def _created(ctx: Ctx, kind: str, app: str | None, access: str, desc: str | None) -> Response:
    token, value = ctx.store.create_token(kind=kind, app=app, access_type=access, description=desc)
    await ctx.store.persist()
    body = token_view(token)
    body["value"] = value  # shown once, here; only its digest is kept
    return json_response(201, body)


async def list_user_tokens(ctx: Ctx) -> Response:
    token = _caller(ctx)
    if (token.kind or "").lower() != "user":
        raise HttpError(403, "Forbidden", "User API tokens are listed with a user API token.")
    tokens = [token_view(t) for t in ctx.store.dev.tokens if (t.kind or "").lower() == "user"]
    return json_response(200, tokens)


async def create_user_token(ctx: Ctx) -> Response:
    token = _caller(ctx)
    _refuse_read_only(token)
    if (token.kind or "").lower() != "user":
        raise HttpError(403, "Forbidden", "User API tokens are created with a user API token.")
    access, description = _token_request(ctx)
    _check_limit(ctx)
    return await _created(ctx, "user", None, access, description)


async def list_app_tokens(ctx: Ctx) -> Response:
    app, role = _app_or_404(ctx, _caller(ctx))
    _need(role, "developer", "list the API tokens of an app")
    name = _app_name(app).lower()
    tokens = [token_view(t) for t in ctx.store.dev.tokens if (t.app or "").lower() == name]
    return json_response(200, tokens)


async def create_app_token(ctx: Ctx) -> Response:
    token = _caller(ctx)
    _refuse_read_only(token)
    app, role = _app_or_404(ctx, token)
    access, description = _token_request(ctx)
    if access == "full":
        _need(role, "admin", "create a full-access app API token")
    else:
        _need(role, "developer", "create a read-only app API token")
    _check_limit(ctx)
    return await _created(ctx, "app", _app_name(app), access, description)
