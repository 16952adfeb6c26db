"""The HTTP layer every client shares: one configured origin, credentials that never leave it,
timeouts, bounded retries with exponential backoff and jitter honouring ``Retry-After``, bounded
concurrency, and errors that never carry a token.

Time is bounded twice: each request (connecting, waiting for a turn excluded, and reading the whole
answer) by ``ClientSettings.timeout`` -- so a server that trickles its answer a byte at a time cannot
hold a request longer than that, whatever httpx's per-read timeout sees -- and every request of the
transport together by ``ClientSettings.deadline``, counted from ``async with``.
"""

from __future__ import annotations

import asyncio
import email.utils
import logging
import random
import time
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, TypeVar
from urllib.parse import urlsplit

import httpx
import msgspec

from auditor.model.secrets import Secret

log = logging.getLogger("auditor.api")

IDEMPOTENT = frozenset({"GET", "HEAD", "PUT", "DELETE", "OPTIONS"})

QUOTED_MAX = 200
"""The most characters of a server's own text (an error message or code) a message quotes."""

T = TypeVar("T")


def bounded(text: str, limit: int = QUOTED_MAX) -> str:
    """``text`` cut to ``limit`` characters, saying how much was left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text) - limit:,} more characters)"


class ApiError(Exception):
    """A call that did not succeed. ``status`` is the HTTP status (None: no answer); ``code`` and
    ``message`` come from the error body (seed 7). Never holds a credential."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: str | None = None,
        method: str | None = None,
        url: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code
        self.method = method
        self.url = url

    def __str__(self) -> str:
        where = f"{self.method} {self.url}: " if self.method and self.url else ""
        status = f"HTTP {self.status} " if self.status is not None else ""
        code = f"{self.code}: " if self.code else ""
        return f"{where}{status}{code}{self.message}"


class ForeignHostError(ApiError):
    """A link pointing to another origin than the configured one (credentials are never sent)."""


class PagingError(ApiError):
    """Paging that cannot go on: a repeated ``nextLink``, a page without ``value``, too many pages."""


class OperationError(ApiError):
    """An asynchronous operation that failed, was canceled or did not finish in time."""


class DeadlineError(ApiError):
    """The transport's overall deadline (``ClientSettings.deadline``) passed: no more requests."""


class BodyError(Exception):
    """Raised by a ``parse`` function of :meth:`Transport.request` when a 200 answer's body is
    unusable in a way a new attempt may cure (cut short, not JSON): retried like a 5xx."""


@dataclass(frozen=True)
class RetryPolicy:
    """Bounded retries of 429 and 5xx answers and of failed connections.

    The n-th retry waits ``backoff * 2**(n-1)`` seconds (at most ``backoff_max``) times a random
    factor in ``[1 - jitter, 1 + jitter]``; a ``Retry-After`` answer waits what it says instead, up
    to ``retry_after_max`` seconds. A POST is retried only when the server cannot have acted on it
    (429, 503, or no connection).
    """

    attempts: int = 5
    backoff: float = 0.5
    backoff_max: float = 30.0
    jitter: float = 0.25
    retry_after_max: float = 120.0
    statuses: frozenset[int] = frozenset({429, 500, 502, 503, 504})

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise ValueError("at least one attempt is needed")

    def delay(self, retry: int, retry_after: float | None, rng: random.Random) -> float:
        if retry_after is not None:
            return max(0.0, min(retry_after, self.retry_after_max))
        base = min(self.backoff_max, self.backoff * (2.0 ** (retry - 1)))
        factor: float = 1.0 + rng.uniform(-self.jitter, self.jitter)
        return max(0.0, base * factor)


@dataclass(frozen=True)
class ClientSettings:
    """How a client talks to the service."""

    timeout: float = 30.0
    connect_timeout: float = 10.0
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    concurrency: int = 8
    """Requests in flight at once, at most."""
    poll_interval: float = 5.0
    """Wait between polls of an asynchronous operation when the service gives no Retry-After."""
    poll_interval_max: float = 60.0
    """The longest wait between two polls, whatever Retry-After says."""
    operation_timeout: float = 3600.0
    max_pages: int = 10_000
    """Pages of one listing, at most; a listing with more ends incomplete."""
    deadline: float | None = None
    """Seconds for every request of the transport together, counted from ``async with`` (None: no
    limit). When they have passed, requests fail with :class:`DeadlineError`; each request's own
    time is cut to what is left."""
    user_agent: str = "auditor"

    def __post_init__(self) -> None:
        if not self.timeout > 0:
            raise ValueError("the timeout must be positive")
        if self.deadline is not None and not self.deadline > 0:
            raise ValueError("the deadline must be positive")
        if self.max_pages < 1:
            raise ValueError("at least one page is needed")


def parse_retry_after(value: str | None) -> float | None:
    """Seconds of a ``Retry-After`` header (delta-seconds or an HTTP date)."""
    if value is None:
        return None
    text = value.strip()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _origin(url: str) -> tuple[str, str, int]:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    default = 443 if scheme == "https" else 80
    return scheme, (parts.hostname or "").lower(), parts.port or default


class _HeaderCredential(httpx.Auth):
    """Adds the credential header only to requests for the configured origin (``value`` is
    replaced when the token is renewed)."""

    def __init__(self, header: str, value: str, origin: tuple[str, str, int]) -> None:
        self._header = header
        self.value = value
        self._origin = origin

    def __repr__(self) -> str:
        return f"_HeaderCredential({self._header!r}, ***)"

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        if _origin(str(request.url)) == self._origin:
            request.headers[self._header] = self.value
        yield request


@dataclass(frozen=True)
class Credential:
    """A header carrying a secret: ``Authorization: Bearer <token>`` or ``X-API-Token``.

    ``renew`` (a bearer token from a command or azure-identity) gets a new token: when an answer
    is 401, the transport calls it once (in a worker thread) and sends the request again with the
    new token; a second 401, or a renewal that fails, is the call's error."""

    header: str
    secret: Secret
    prefix: str = ""
    renew: Callable[[], Secret] | None = field(default=None, compare=False)

    @classmethod
    def bearer(cls, token: Secret | str, renew: Callable[[], Secret] | None = None) -> Credential:
        return cls(
            "Authorization",
            token if isinstance(token, Secret) else Secret(token),
            "Bearer ",
            renew,
        )

    @classmethod
    def api_token(cls, token: Secret | str) -> Credential:
        return cls("X-API-Token", token if isinstance(token, Secret) else Secret(token))

    def __repr__(self) -> str:
        return f"Credential({self.header!r}, ***)"


def error_from_response(response: httpx.Response) -> ApiError:
    """An ApiError from an error answer: the ErrorResponse of seed 7 (areas A-C and E) or the flat
    body of area D; anything else by its status alone."""
    code: str | None = None
    message = bounded(response.reason_phrase or "request failed")
    try:
        body = msgspec.json.decode(response.content) if response.content else None
    except (msgspec.MsgspecError, UnicodeDecodeError, RecursionError):
        body = None  # not JSON, a number out of range, not UTF-8: the status says it all
    if isinstance(body, dict):
        inner = body.get("error")
        detail: dict[str, Any] = inner if isinstance(inner, dict) else body
        if isinstance(detail.get("code"), str):
            code = bounded(detail["code"], 64)
        if isinstance(detail.get("message"), str):
            message = bounded(detail["message"])
    request = response.request
    return ApiError(
        message,
        status=response.status_code,
        code=code,
        method=request.method,
        url=_shown_url(str(request.url)),
    )


def json_kind(value: Any) -> str:
    """What a decoded JSON value is, for messages (never the value itself)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def json_of(response: httpx.Response) -> Any:
    """The JSON body of an answer (None when it is empty). A body cut short or not JSON raises
    :class:`BodyError` (so it is asked for again); one nested too deeply, :class:`ApiError`."""
    if not response.content:
        return None
    try:
        return msgspec.json.decode(response.content)
    except msgspec.DecodeError as exc:
        raise BodyError(f"the answer is not complete JSON ({bounded(str(exc))})") from None
    except (RecursionError, msgspec.ValidationError, UnicodeDecodeError) as exc:
        request = response.request
        why = (
            "nests too deeply"
            if isinstance(exc, RecursionError)
            else "is not UTF-8 text"
            if isinstance(exc, UnicodeDecodeError)
            else "holds a number out of range"
        )
        raise ApiError(
            f"the answer {why} to be read" if why == "nests too deeply" else f"the answer {why}",
            status=response.status_code,
            method=request.method,
            url=_shown_url(str(request.url)),
        ) from None


def _shown_url(url: str) -> str:
    """A URL for messages: path and query (never credentials; they are never in URLs anyway)."""
    parts = urlsplit(url)
    return bounded(parts.path + (f"?{parts.query}" if parts.query else ""))


class Transport:
    """One origin, one credential, retries and a concurrency bound; use ``async with``."""

    def __init__(
        self,
        base_url: str,
        credential: Credential | None,
        settings: ClientSettings | None = None,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        seed: int | None = None,
    ) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("the base URL must be an absolute http:// or https:// URL")
        self.base_url = base_url.rstrip("/")
        self.origin = _origin(self.base_url)
        self.settings = settings or ClientSettings()
        self._credential = credential
        self._transport = transport
        self._client: httpx.AsyncClient | None = None
        self._semaphore: asyncio.Semaphore | None = None
        self._rng = random.Random(seed)
        self._deadline_at: float | None = None
        self._auth: _HeaderCredential | None = None
        self._renew_lock: asyncio.Lock | None = None
        self._renewed = False
        self._renew_failed: str | None = None
        self.requests = 0
        self.retries = 0
        self.renewals = 0
        """Times the credential was renewed after a 401 (at most once)."""

    async def __aenter__(self) -> Transport:
        s = self.settings
        auth = None
        if self._credential is not None:
            c = self._credential
            auth = _HeaderCredential(c.header, c.prefix + c.secret.reveal(), self.origin)
        self._auth = auth
        self._renew_lock = asyncio.Lock()
        self._client = httpx.AsyncClient(
            auth=auth,
            timeout=httpx.Timeout(s.timeout, connect=s.connect_timeout),
            limits=httpx.Limits(
                max_connections=max(1, s.concurrency), max_keepalive_connections=s.concurrency
            ),
            follow_redirects=False,
            # a plain-http origin never needs certificates (loading them costs ~0.1 s)
            verify=self.origin[0] == "https",
            headers={"User-Agent": s.user_agent, "Accept": "application/json"},
            transport=self._transport,
        )
        self._semaphore = asyncio.Semaphore(max(1, s.concurrency))
        if s.deadline is not None:
            self._deadline_at = asyncio.get_running_loop().time() + s.deadline
        return self

    def time_left(self) -> float | None:
        """Seconds until the deadline (None: no deadline; 0 or less: it has passed)."""
        if self._deadline_at is None:
            return None
        return self._deadline_at - asyncio.get_running_loop().time()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    def url(self, target: str) -> str:
        """An absolute URL on the configured origin: a path is joined to the base URL, an
        absolute URL must be on the same origin (else :class:`ForeignHostError`)."""
        if "://" in target:
            return self._same_origin(target)
        if not target.startswith("/"):
            target = "/" + target
        return self.base_url + target

    def link(self, link: str) -> str:
        """An absolute URL for a link the service returned (``nextLink``, ``Location``): an
        absolute URL on the same origin, or a path from the origin's root."""
        if "://" in link:
            return self._same_origin(link)
        scheme, host, port = self.origin
        shown = f"[{host}]" if ":" in host else host
        return f"{scheme}://{shown}:{port}" + ("" if link.startswith("/") else "/") + link

    def _same_origin(self, url: str) -> str:
        try:
            origin = _origin(url)
            host = bounded(urlsplit(url).hostname or "?", 64)
        except ValueError:  # a bracketed host not closed, a port out of range
            raise ApiError(
                f"the service gave a link that is not a valid URL: {bounded(url)}"
            ) from None
        if origin != self.origin:
            raise ForeignHostError(
                f"refusing to follow a link to another host ({host}); credentials are sent to "
                f"{self.origin[1]} only"
            )
        return url

    async def request(
        self,
        method: str,
        target: str,
        *,
        params: Mapping[str, str] | None = None,
        json: Any = None,
        content: bytes | None = None,
        headers: Mapping[str, str] | None = None,
        ok: tuple[int, ...] = (200,),
    ) -> httpx.Response:
        """Send with retries; an answer whose status is not in ``ok`` raises :class:`ApiError`."""
        return await self.request_parsed(
            method,
            target,
            _as_is,
            params=params,
            json=json,
            content=content,
            headers=headers,
            ok=ok,
        )

    async def request_parsed(
        self,
        method: str,
        target: str,
        parse: Callable[[httpx.Response], T],
        *,
        params: Mapping[str, str] | None = None,
        json: Any = None,
        content: bytes | None = None,
        headers: Mapping[str, str] | None = None,
        ok: tuple[int, ...] = (200,),
    ) -> T:
        """:meth:`request`, returning ``parse(answer)``; when ``parse`` raises :class:`BodyError`
        (a body cut short, say) the request is retried like a 5xx, then fails with
        :class:`ApiError`. Time: see the module's description; when the deadline has passed, or
        would pass during the wait before a retry, :class:`DeadlineError` is raised."""
        client, semaphore = self._client, self._semaphore
        if client is None or semaphore is None:
            raise RuntimeError("use the transport inside 'async with'")
        url = self.url(target)
        method = method.upper()
        policy = self.settings.retry
        if json is not None and content is None:
            content = msgspec.json.encode(json)
            headers = {"Content-Type": "application/json", **(headers or {})}
        attempt = 0
        while True:
            attempt += 1
            retry_after: float | None = None
            try:
                response = await self._attempt(
                    client, semaphore, method, url, params, content, headers
                )
            except httpx.InvalidURL:
                raise ApiError("not a valid URL", method=method, url=_shown_url(url)) from None
            except (httpx.TransportError, _TooSlow) as exc:
                sent = not isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout)
                last = (
                    str(exc) if isinstance(exc, _TooSlow) else f"no answer ({type(exc).__name__})"
                )
                if attempt >= policy.attempts or (sent and method not in IDEMPOTENT):
                    raise ApiError(last, method=method, url=_shown_url(url)) from None
            else:
                status = response.status_code
                if status in ok:
                    try:
                        return parse(response)
                    except BodyError as exc:
                        last = bounded(str(exc))
                        if attempt >= policy.attempts or method not in IDEMPOTENT:
                            tries = f" ({attempt} attempts)" if attempt > 1 else ""
                            raise ApiError(
                                last + tries, status=status, method=method, url=_shown_url(url)
                            ) from None
                else:
                    if status == 401 and await self._renewed_credential(response):
                        continue
                    retryable = status in policy.statuses and (
                        method in IDEMPOTENT or status in (429, 503)
                    )
                    if not retryable or attempt >= policy.attempts:
                        raise self._error(response)
                    retry_after = parse_retry_after(response.headers.get("retry-after"))
                    last = f"HTTP {status}"
            delay = policy.delay(attempt, retry_after, self._rng)
            left = self.time_left()
            if left is not None and left <= delay:
                raise DeadlineError(
                    f"stopped: the deadline of {self.settings.deadline:g} s would pass before the "
                    f"next attempt (the last: {last})",
                    method=method,
                    url=_shown_url(url),
                )
            self.retries += 1
            await asyncio.sleep(delay)

    async def _attempt(
        self,
        client: httpx.AsyncClient,
        semaphore: asyncio.Semaphore,
        method: str,
        url: str,
        params: Mapping[str, str] | None,
        content: bytes | None,
        headers: Mapping[str, str] | None,
    ) -> httpx.Response:
        """One request, its whole answer read within the timeout and the deadline."""
        loop = asyncio.get_running_loop()
        deadline = self._deadline_at
        if deadline is not None and loop.time() >= deadline:
            raise DeadlineError(self._deadline_passed(), method=method, url=_shown_url(url))
        try:
            async with asyncio.timeout_at(deadline) as scope:
                async with semaphore:
                    limit = loop.time() + self.settings.timeout
                    scope.reschedule(limit if deadline is None else min(limit, deadline))
                    self.requests += 1
                    started = time.perf_counter()
                    response = await client.request(
                        method, url, params=params, content=content, headers=headers
                    )
                    log.debug(
                        "%s %s -> %s (%.0f ms)",
                        method,
                        _shown_url(str(response.request.url)),
                        response.status_code,
                        (time.perf_counter() - started) * 1000,
                    )
        except TimeoutError:
            if deadline is not None and loop.time() >= deadline:
                raise DeadlineError(
                    self._deadline_passed(), method=method, url=_shown_url(url)
                ) from None
            raise _TooSlow(f"no complete answer within {self.settings.timeout:g} s") from None
        return response

    async def _renewed_credential(self, response: httpx.Response) -> bool:
        """After a 401: whether the request may be sent again with a renewed credential (renewed
        now, once per transport, or by another request meanwhile)."""
        c, auth, lock = self._credential, self._auth, self._renew_lock
        if c is None or c.renew is None or auth is None or lock is None:
            return False
        sent = response.request.headers.get(c.header)
        async with lock:
            if sent != auth.value:
                return True  # another request renewed it while this one was under way
            if self._renewed:
                return False
            self._renewed = True
            try:
                fresh = await asyncio.to_thread(c.renew)
            except Exception as exc:  # a token source's error: its message never holds a token
                self._renew_failed = bounded(str(exc))
                log.warning("a new token could not be got: %s", self._renew_failed)
                return False
            auth.value = c.prefix + fresh.reveal()
            self.renewals += 1
            log.info("the bearer token was renewed after an HTTP 401 answer")
            return True

    def _error(self, response: httpx.Response) -> ApiError:
        error = error_from_response(response)
        if response.status_code == 401 and self._renew_failed is not None:
            error.message += f" (a new token could not be got: {self._renew_failed})"
        return error

    def _deadline_passed(self) -> str:
        return f"stopped: the deadline of {self.settings.deadline:g} s passed"

    async def get_bytes(self, target: str, params: Mapping[str, str] | None = None) -> bytes:
        return (await self.request("GET", target, params=params)).content

    async def get_parsed(
        self,
        target: str,
        params: Mapping[str, str] | None,
        parse: Callable[[bytes], T],
    ) -> T:
        """GET ``target`` and return ``parse(body)`` (see :meth:`request_parsed`)."""
        return await self.request_parsed("GET", target, lambda r: parse(r.content), params=params)


class _TooSlow(Exception):
    """The whole answer did not arrive within the request timeout."""


def _as_is(response: httpx.Response) -> httpx.Response:
    return response
