"""Following ``nextLink`` (semantics 4): a full URL on the configured origin, a path, or a bare
skip token (seed 2.A: "the skipToken to use for the next set").

A page whose body is cut short or is not JSON is asked for again, like a 5xx (a bounded number of
times). Paging stops with :class:`PagingError` on a link to another host, a repeated link, more
than ``ClientSettings.max_pages`` pages, or a page that is not a list page (no ``value`` array, a
``nextLink`` that is not a string, nesting too deep outside the items); the pages before it have
been yielded. An item nested too deeply is left out of its page and named in
:attr:`Page.unreadable`; the rest of the page is read."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import msgspec

from auditor.api._nesting import MAX_DEPTH, find_deep, without
from auditor.api._transport import BodyError, PagingError, Transport, bounded, json_kind


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
_item_id = msgspec.json.Decoder(_ItemId)


@dataclass
class Page:
    """One page of a list: its items (raw JSON) and the bytes they were read from."""

    number: int
    """1 for the first page."""
    items: list[msgspec.Raw]
    body: bytes
    unreadable: dict[int, str] = field(default_factory=dict)
    """Items left out (index -> why, with their JSON path); their places hold ``null``."""

    def readable(self) -> Iterator[tuple[int, msgspec.Raw]]:
        """(index, item) of every item not left out."""
        if not self.unreadable:
            yield from enumerate(self.items)
            return
        for index, item in enumerate(self.items):
            if index not in self.unreadable:
                yield index, item

    def ids(self) -> tuple[list[str | None], dict[int, str]]:
        """The ``id`` of every readable item (None where there is none), and the items that are
        not objects with a string ``id`` (index -> why, with their JSON path)."""
        if not self.unreadable:
            try:
                return [item.id for item in _id_page.decode(self.body).value], {}
            except _UNREADABLE:
                pass  # an item that is not an object, an id that is not a string: one by one
        ids: list[str | None] = []
        bad: dict[int, str] = {}
        for index, item in enumerate(self.items):
            if index in self.unreadable:
                ids.append(None)
                continue
            try:
                ids.append(_item_id.decode(item).id)
            except _UNREADABLE:
                ids.append(None)
                bad[index] = _describe_bad_item(index, item)
        return ids, bad


_UNREADABLE = (msgspec.MsgspecError, UnicodeDecodeError, RecursionError)
"""What decoding one item of a page can raise: not an object, a number out of range (``1e999``),
bytes that are not UTF-8 inside a string, nesting the decoder refuses."""


def _describe_bad_item(index: int, item: msgspec.Raw) -> str:
    try:
        value: Any = msgspec.json.decode(item)
    except _UNREADABLE as exc:
        return f"value[{index}]: unreadable ({_why(exc)})"
    if not isinstance(value, dict):
        return f"value[{index}]: expected an object, found {json_kind(value)}"
    return f"value[{index}].id: expected a string, found {json_kind(value.get('id'))}"


def _decode_page(body: bytes) -> tuple[RawPage, bytes, dict[int, str]]:
    """The page, the bytes its items were read from, and the items left out."""
    try:
        return _raw_page.decode(body), body, {}
    except msgspec.ValidationError as exc:
        raise _NotAPage(f"the answer is not a list page ({bounded(str(exc))})") from None
    except msgspec.DecodeError as exc:
        raise BodyError(f"the answer is not complete JSON ({bounded(str(exc))})") from None
    except UnicodeDecodeError:
        raise _NotAPage("the answer is not UTF-8 text") from None
    except RecursionError:
        pass
    nesting = find_deep(body)
    if nesting.elsewhere is not None or not nesting.items:
        where = nesting.elsewhere or "$"
        raise _NotAPage(f"the answer nests deeper than {MAX_DEPTH} levels at {where}")
    kept = without(body, nesting.items)
    try:
        page = _raw_page.decode(kept)
    except (msgspec.MsgspecError, UnicodeDecodeError, RecursionError):
        raise _NotAPage(f"the answer nests deeper than {MAX_DEPTH} levels") from None
    unreadable = {
        item.index: f"value[{item.index}]: nested deeper than {MAX_DEPTH} levels (at {item.path})"
        for item in nesting.items
    }
    return page, kept, unreadable


class _NotAPage(Exception):
    """A complete answer that is not a list page (not retried)."""


def _parse(body: bytes) -> tuple[RawPage, bytes, dict[int, str]] | str:
    try:
        return _decode_page(body)
    except _NotAPage as exc:
        return str(exc)


async def iter_pages(
    transport: Transport,
    path: str,
    params: Mapping[str, str] | None = None,
) -> AsyncIterator[Page]:
    """Every page of a list (see the module's description)."""
    first_params = dict(params or {})
    target: str = path
    query: dict[str, str] | None = first_params
    seen: set[str] = set()
    number = 0
    max_pages = transport.settings.max_pages
    while True:
        number += 1
        parsed = await transport.get_parsed(target, query, _parse)
        if isinstance(parsed, str):
            raise PagingError(f"page {number}: {parsed}", url=path)
        page, body, unreadable = parsed
        if page.value is None:
            raise PagingError(f"page {number}: the answer has no 'value' array", url=path)
        yield Page(number, page.value, body, unreadable)
        link = page.nextLink
        if not link:
            return
        if link in seen:
            raise PagingError(
                f"page {number}: the service returned the same nextLink twice; stopping", url=path
            )
        seen.add(link)
        if number >= max_pages:
            raise PagingError(
                f"stopped after {number:,} pages, the most read of one listing; the "
                "service announced more",
                url=path,
            )
        if "://" in link or link.startswith("/"):
            target, query = transport.link(link), None
        else:  # a bare skip token: the original request plus $skipToken
            target, query = path, {**first_params, "$skipToken": link}


async def decoded_items(pages: AsyncIterator[Page]) -> list[dict[str, Any]]:
    """Every item of a list, decoded; an item left out of its page or that is not an object
    raises :class:`PagingError`."""
    out: list[dict[str, Any]] = []
    async for page in pages:
        if page.unreadable:
            index, why = next(iter(page.unreadable.items()))
            raise PagingError(f"page {page.number}: {why}")
        for index, item in enumerate(page.items):
            try:
                value = msgspec.json.decode(item)
            except _UNREADABLE as exc:
                raise PagingError(f"page {page.number}: value[{index}]: {_why(exc)}") from None
            if not isinstance(value, dict):
                raise PagingError(
                    f"page {page.number}: value[{index}]: expected an object, found {json_kind(value)}"
                )
            out.append(value)
    return out


def _why(exc: BaseException) -> str:
    """Why an item could not be decoded, in words (never the bytes)."""
    if isinstance(exc, UnicodeDecodeError):
        return "a string that is not UTF-8 text"
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    text = str(exc)
    if "out of range" in text:
        return "a number out of range"
    return bounded(text.split(" - at ")[0])
