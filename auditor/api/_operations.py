"""Asynchronous operations (semantics 4): a create answers with a ``Location`` (or
``Azure-AsyncOperation``) address; a GET of it answers 202 with ``Retry-After`` while the
operation runs and 200 with ``{"status": ...}`` when it is done."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any

import httpx
import msgspec

from auditor.api._transport import OperationError, Transport, parse_retry_after

TERMINAL = frozenset({"succeeded", "failed", "canceled", "cancelled"})


@dataclass(frozen=True)
class OperationResult:
    status: str
    """``Succeeded``, ``Failed`` or ``Canceled`` as the service wrote it."""
    body: dict[str, Any]
    polls: int

    @property
    def succeeded(self) -> bool:
        return self.status.lower() == "succeeded"


def operation_address(response: httpx.Response) -> str | None:
    """Where to follow an accepted request: ``Azure-AsyncOperation``, else ``Location``."""
    found: str | None = response.headers.get("azure-asyncoperation") or response.headers.get(
        "location"
    )
    return found


def _decode(response: httpx.Response) -> dict[str, Any]:
    if not response.content:
        return {}
    try:
        body = msgspec.json.decode(response.content)
    except (msgspec.MsgspecError, UnicodeDecodeError, RecursionError):
        return {}
    return body if isinstance(body, dict) else {}


async def poll_operation(
    transport: Transport, address: str, *, first_wait: float | None = None
) -> OperationResult:
    """Follow an operation to its end. Waits follow ``Retry-After`` (at most
    ``settings.poll_interval_max``), else ``settings.poll_interval``; gives up after
    ``settings.operation_timeout`` seconds with :class:`OperationError`."""
    settings = transport.settings
    url = transport.link(address)
    deadline = time.monotonic() + settings.operation_timeout
    wait = first_wait
    polls = 0
    while True:
        if wait:
            await asyncio.sleep(min(wait, settings.poll_interval_max))
        response = await transport.request("GET", url, ok=(200, 202))
        polls += 1
        body = _decode(response)
        status = body.get("status")
        status_text = status if isinstance(status, str) else None
        if response.status_code == 200 and (status_text is None or status_text.lower() in TERMINAL):
            return OperationResult(status_text or "Succeeded", body, polls)
        if time.monotonic() >= deadline:
            raise OperationError(
                f"the operation did not finish within {settings.operation_timeout:g} s",
                method="GET",
                url=address,
            )
        retry_after = parse_retry_after(response.headers.get("retry-after"))
        wait = retry_after if retry_after is not None else settings.poll_interval
