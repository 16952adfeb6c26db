"""A member path of hundreds of segments is refused when parsed: compiled, it made Python's
compiler take gigabytes (found by tests/fuzz/test_fuzz_rule_packs.py)."""

from __future__ import annotations

import pytest

from auditor.expr.errors import FilterSyntaxError
from auditor.expr.filter import parse_filter
from auditor.expr.filter.compiler import compile_filter
from auditor.expr.filter.parser import MAX_PATH_SEGMENTS


def test_the_longest_path_allowed_compiles_and_reads() -> None:
    path = "/".join(["a"] * MAX_PATH_SEGMENTS)
    record: dict[str, object] = {"v": 1}
    for _ in range(MAX_PATH_SEGMENTS):
        record = {"a": record}
    predicate = compile_filter(f"{path} eq 1")
    assert predicate(record["a"]) is False  # one level short: not equal
    inner: object = 1
    for _ in range(MAX_PATH_SEGMENTS):
        inner = {"a": inner}
    assert predicate(inner) is True


@pytest.mark.parametrize(
    "text",
    [
        "properties/" + "a/" * 300 + "b eq 1",
        "p/" + "a/" * MAX_PATH_SEGMENTS + "any(x: x eq 1)",
        "tags/any(t: t/" + "a/" * 40 + "b eq 1)",
    ],
)
def test_a_longer_path_is_a_syntax_error_at_its_column(text: str) -> None:
    with pytest.raises(FilterSyntaxError, match=f"at most {MAX_PATH_SEGMENTS}") as info:
        parse_filter(text)
    assert "column" in str(info.value)
