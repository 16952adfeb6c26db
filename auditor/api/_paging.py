"""Following ``nextLink`` (semantics 4): a full URL on the configured origin, a path, or a bare
skip token (seed 2.A: "the skipToken to use for the next set"). A link to another host, a repeated
link or a page without ``value`` stops paging with an error."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping

import msgspec

from auditor.api._transport import PagingError, Transport


class RawPage(msgspec.Struct):
    """A list page whose items stay undecoded JSON (cheap: no Python objects per field)."""

    value: list[msgspec.Raw] | None = None
    nextLink: str | None = None


class _ItemId(msgspec.Struct):
    id: str | None = None


class IdPage(msgspec.Struct):
    """The same page read for the items' ids only."""

    value: list[_ItemId] = []


_raw_page = msgspec.json.Decoder(RawPage)
_id_page = msgspec.json.Decoder(IdPage)


def item_ids(page_bytes: bytes) -> list[str | None]:
    return [item.id for item in _id_page.decode(page_bytes).value]


async def iter_pages(
    transport: Transport,
    path: str,
    params: Mapping[str, str] | None = None,
) -> AsyncIterator[tuple[list[msgspec.Raw], bytes]]:
    """Every page of a list: its items (raw JSON) and the page's bytes."""
    first_params = dict(params or {})
    target: str = path
    query: dict[str, str] | None = first_params
    seen: set[str] = set()
    pages = 0
    while True:
        body = await transport.get_bytes(target, query)
        try:
            page = _raw_page.decode(body)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise PagingError(f"the answer is not a list page ({exc})", url=path) from None
        if page.value is None:
            raise PagingError("the answer has no 'value' array", url=path)
        yield page.value, body
        link = page.nextLink
        if not link:
            return
        if link in seen:
            raise PagingError("the service returned the same nextLink twice; stopping", url=path)
        seen.add(link)
        pages += 1
        if pages >= transport.settings.max_pages:
            raise PagingError(f"more than {pages} pages; stopping", url=path)
        if "://" in link or link.startswith("/"):
            target, query = transport.link(link), None
        else:  # a bare skip token: the original request plus $skipToken
            target, query = path, {**first_params, "$skipToken": link}


async def collect_items(
    transport: Transport, path: str, params: Mapping[str, str] | None = None
) -> list[msgspec.Raw]:
    """Every item of a list, as raw JSON."""
    out: list[msgspec.Raw] = []
    async for items, _ in iter_pages(transport, path, params):
        out.extend(items)
    return out
