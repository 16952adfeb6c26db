"""Inline suppressions in a resource block: a comment ``# auditor:skip=DOM-001 <reason>`` (also
``//`` and ``/* */``; several rule ids may share one reason, separated by commas). A suppression
without a reason is an input error naming the file and line."""

from __future__ import annotations

import re

from auditor.errors import InputError, clip
from auditor.sources.terraform._hcl import Block, block_comments

__all__ = ["REASON_LIMIT", "suppressions"]

REASON_LIMIT = 500
"""Characters of a reason kept, at most."""

_MARK = re.compile(r"\bauditor:skip\s*=\s*(?P<rules>[^\s,]+(?:\s*,\s*[^\s,]+)*)(?P<reason>.*)$")
_RULE = re.compile(r"^[A-Za-z0-9*?._\[\]-]{1,100}$")


def suppressions(block: Block) -> dict[str, str]:
    """The suppressions written inside ``block``: rule id (or glob) -> reason."""
    out: dict[str, str] = {}
    for line, text in block_comments(block):
        m = _MARK.search(text.rstrip().removesuffix("*/"))
        if m is None:
            continue
        rules = [r.strip() for r in m.group("rules").split(",")]
        reason = " ".join(m.group("reason").split())
        where = f"line {line}"
        for rule in rules:
            if not _RULE.match(rule):
                raise InputError(
                    "an auditor:skip comment names a rule id that is not valid "
                    "(letters, digits, '-', '.', '_' and the glob characters * ? [ ])",
                    source=block.src.name,
                    location=where,
                )
        if not reason:
            raise InputError(
                f"the suppression of {', '.join(rules)} has no reason; write "
                f"'# auditor:skip={rules[0]} <why this is accepted>'",
                source=block.src.name,
                location=where,
            )
        for rule in rules:
            out[rule] = clip(reason, REASON_LIMIT)
    return out
