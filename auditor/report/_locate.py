"""Where a finding sits in its file: the line of its JSON path, for SARIF regions and the text
report's ``file:line``.

A finding read from a template carries its line (:attr:`~auditor.audit.findings.Finding.line`); one
from a snapshot or plan file carries a JSON path (``location``), whose line is found by scanning the
file once for every path wanted in it (:class:`SourceLines`). Files larger than
:data:`MAX_SOURCE_BYTES` are not read (no line). No text of the file is ever copied (a plan can hold
literal secrets).
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections.abc import Callable, Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any

from auditor.audit.findings import Finding

MAX_SOURCE_BYTES = 64 << 20
"""Files larger than this are not read for line numbers."""


class SourceLines:
    """The line of each finding in the file ``file_for`` gives it (None when unknown): the
    finding's own line when that file is its source, else the line of its JSON path there, else
    of the path's nearest enclosing value found."""

    def __init__(
        self, findings: Iterable[Finding], file_for: Callable[[Finding], str | None]
    ) -> None:
        self.file_for = file_for
        self._wanted: dict[str, set[tuple[str | int, ...]]] = {}
        self._locators: dict[str, JsonLocator | None] = {}
        for f in findings:
            path = file_for(f)
            if path is None or not f.location or (f.line is not None and path == f.source):
                continue
            parsed = parse_json_path(f.location)
            if parsed is not None:
                self._wanted.setdefault(path, set()).add(parsed)

    def line(self, f: Finding) -> int | None:
        path = self.file_for(f)
        if path is None:
            return None
        if f.line is not None and path == f.source:
            return f.line
        if not f.location:
            return None
        parsed = parse_json_path(f.location)
        locator = self._locator(path)
        if parsed is None or locator is None:
            return None
        return locator.line_of(parsed)

    def _locator(self, path: str) -> JsonLocator | None:
        if path not in self._locators:
            locator: JsonLocator | None = None
            try:
                p = Path(path)
                if p.is_file() and p.stat().st_size <= MAX_SOURCE_BYTES:
                    text = p.read_text(encoding="utf-8-sig", errors="replace")
                    locator = JsonLocator(text, self._wanted.get(path, set()))
            except OSError:
                locator = None
            self._locators[path] = locator
        return self._locators[path]


_SEGMENT = re.compile(
    r"""\[\s*(?P<index>\d+)\s*\]"""
    r"""|\[\s*(?P<quote>['"])(?P<qkey>(?:\\.|(?!(?P=quote)).)*)(?P=quote)\s*\]"""
    r"""|\.?(?P<name>[^.\[\]]+)""",
    re.DOTALL,
)


@lru_cache(maxsize=4096)
def parse_json_path(path: str) -> tuple[str | int, ...] | None:
    """``domains[0].properties['a.b']``, ``$.domains[0]`` or the JSON pointer ``/domains/0`` as a
    tuple of keys and indexes (``None`` when it is not a path)."""
    text = path.strip()
    if not text or text in {"$", "/"}:
        return ()
    if text.startswith("/"):
        parts: list[str | int] = []
        for raw in text[1:].split("/"):
            token = raw.replace("~1", "/").replace("~0", "~")
            parts.append(int(token) if token.isdigit() else token)
        return tuple(parts)
    if text.startswith("$"):
        text = text[1:]
    out: list[str | int] = []
    pos = 0
    while pos < len(text):
        m = _SEGMENT.match(text, pos)
        if m is None or m.end() == pos:
            return None
        if m.group("index") is not None:
            out.append(int(m.group("index")))
        elif m.group("qkey") is not None:
            out.append(re.sub(r"\\(.)", r"\1", m.group("qkey")))
        else:
            out.append(m.group("name"))
        pos = m.end()
    return tuple(out)


_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\],:]|[^\s{}\[\],:"]+', re.DOTALL)


class JsonLocator:
    """Lines of the values at given paths in one JSON text, found in a single token scan.

    A dotted path may not say where a key containing dots ends (``gateway.restAuthCredential.
    password``); a wanted path matches a real one whose keys, joined with dots, spell the same
    text. Keys compare case-insensitively (ids do, in this estate).
    """

    def __init__(self, text: str, wanted: set[tuple[str | int, ...]]) -> None:
        self._newlines = [m.start() for m in re.finditer("\n", text)]
        self._lines: dict[tuple[str | int, ...], int] = {}
        self._scan(text, wanted)

    def _line(self, offset: int) -> int:
        return bisect_right(self._newlines, offset - 1) + 1

    @staticmethod
    def _norm(path: tuple[str | int, ...]) -> tuple[str | int, ...]:
        out: list[str | int] = []
        for part in path:
            if isinstance(part, int):
                out.append(part)
            else:
                out.extend(p.lower() for p in part.split("."))
        return tuple(out)

    def _scan(self, text: str, wanted: set[tuple[str | int, ...]]) -> None:
        prefixes: set[tuple[str | int, ...]] = set()
        for w in wanted:
            n = self._norm(w)
            for i in range(len(n) + 1):
                prefixes.add(n[:i])
        if not prefixes:
            return
        lines = self._lines
        # stack of [kind, path, current index or key, expecting a key]
        stack: list[list[Any]] = []
        pending: tuple[str | int, ...] | None = ()  # path of the next value (None: skip it)
        skip_depth = 0
        for m in _TOKEN.finditer(text):
            tok = m.group()
            first = tok[0]
            if skip_depth:
                if first in "{[":
                    skip_depth += 1
                elif first in "}]":
                    skip_depth -= 1
                continue
            if first == ",":
                if stack and stack[-1][0] == "[":
                    stack[-1][2] += 1
                    pending = self._child(stack, prefixes)
                elif stack:
                    stack[-1][3] = True
                continue
            if first == ":":
                continue
            if first in "}]":
                if stack:
                    stack.pop()
                continue
            if stack and stack[-1][0] == "{" and stack[-1][3]:
                # an object key
                try:
                    key = json.loads(tok) if first == '"' else tok
                except ValueError:
                    key = tok
                stack[-1][2] = str(key)
                stack[-1][3] = False
                pending = self._child(stack, prefixes)
                continue
            # a value starts here
            if pending is None:
                if first in "{[":
                    skip_depth = 1
                continue
            lines.setdefault(pending, self._line(m.start()))
            if first == "{":
                stack.append(["{", pending, None, True])
            elif first == "[":
                stack.append(["[", pending, 0, False])
                pending = self._child(stack, prefixes)

    def _child(
        self, stack: list[list[Any]], prefixes: set[tuple[str | int, ...]]
    ) -> tuple[str | int, ...] | None:
        top = stack[-1]
        part = top[2]
        if isinstance(part, str):
            child = top[1] + tuple(p.lower() for p in part.split("."))
        else:
            child = (*top[1], part)
        return child if child in prefixes else None

    def line_of(self, path: tuple[str | int, ...]) -> int:
        """The line of the value at ``path``, or of its nearest enclosing value found, or 1."""
        n = self._norm(path)
        for i in range(len(n), -1, -1):
            line = self._lines.get(n[:i])
            if line is not None:
                return line
        return 1
