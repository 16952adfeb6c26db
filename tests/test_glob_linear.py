"""The linear-time glob matcher (issue 16, item 1): the same answers as simple references on every
generated pattern, and each adversarial case of the issue answered at once, at the glob level and
through the engines that use it (roles, denies, conditions, waivers, ``--check``)."""

from __future__ import annotations

import fnmatch
import re
import time
from collections.abc import Callable
from typing import TypeVar

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from auditor.access import AccessEngine
from auditor.access.globs import compile_globs, covers, intersects, matches
from auditor.audit.settings import pattern_matches
from auditor.audit.waivers import parse_waivers
from auditor.expr import Dialect, compile_glob, glob_match, glob_regex
from auditor.expr.condition import ConditionRequest, action_matches, compile_condition
from auditor.expr.condition.parser import parse_condition
from tests.test_access_support import RG, SUB, build, check, deny, ra, role, user

T = TypeVar("T")

# A bound far above a linear match (microseconds) and far below the old backtracking (minutes).
FAST = 1.0


def _timed(fn: Callable[[], T]) -> tuple[T, float]:
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


# ----------------------------------------------------------------------------- references


def _tokens(pattern: str, dialect: Dialect) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "*":
            out.append(("star", ""))
        elif c == "?" and dialect is Dialect.LIKE:
            out.append(("any", ""))
        elif (
            c == "\\"
            and dialect is Dialect.LIKE
            and i + 1 < len(pattern)
            and pattern[i + 1] in "*?"
        ):
            i += 1
            out.append(("lit", pattern[i]))
        else:
            out.append(("lit", c))
        i += 1
    return out


def _reference(pattern: str, text: str, dialect: Dialect) -> bool:
    """The textbook dynamic programme over (pattern position, text position)."""
    if dialect is Dialect.SHELL:
        return fnmatch.fnmatchcase(text, pattern)
    toks = _tokens(pattern, dialect)
    n = len(text)
    row = [False] * (n + 1)
    row[0] = True
    for kind, lit in toks:
        new = [False] * (n + 1)
        if kind == "star":
            seen = False
            for j in range(n + 1):
                seen = seen or row[j]
                new[j] = seen
        else:
            for j in range(1, n + 1):
                new[j] = row[j - 1] and (kind == "any" or text[j - 1] == lit)
        row = new
    return row[n]


def _old_action_regex(pattern: str) -> str:
    """The expression the engine compiled before (right answers, exponential time)."""
    return ".*".join(re.escape(part) for part in pattern.split("*"))


ALPHABET = {
    Dialect.ACTION: "ab/*",
    Dialect.LIKE: "ab*?\\",
    Dialect.SHELL: "ab*?[]!-^\\",
}
TEXT_ALPHABET = {Dialect.ACTION: "ab/*", Dialect.LIKE: "ab*?\\", Dialect.SHELL: "ab[]!-^\\"}


@st.composite
def _case(draw: st.DrawFn, dialect: Dialect) -> tuple[str, str]:
    pattern = draw(st.text(ALPHABET[dialect], max_size=12))
    if draw(st.booleans()):
        text = draw(st.text(TEXT_ALPHABET[dialect], max_size=14))
    else:  # an instance of the pattern: a likely match, or a near miss after one edit
        chars = st.sampled_from(TEXT_ALPHABET[dialect])
        text = "".join(
            draw(st.text(TEXT_ALPHABET[dialect], max_size=4))
            if c == "*"
            else c
            if c not in "?[]!"
            else draw(chars)
            for c in pattern
        )
        if text and draw(st.booleans()):
            k = draw(st.integers(0, len(text) - 1))
            text = text[:k] + draw(chars) + text[k + 1 :]
    return pattern, text


@pytest.mark.parametrize("dialect", list(Dialect))
@given(data=st.data())
def test_same_answers_as_the_reference(dialect: Dialect, data: st.DataObject) -> None:
    pattern, text = data.draw(_case(dialect))
    assert glob_match(pattern, text, dialect) == _reference(pattern, text, dialect)


@given(_case(Dialect.ACTION))
@example(("a**b*", "ab"))
@example(("*", ""))
def test_action_globs_answer_as_the_old_expression(case: tuple[str, str]) -> None:
    pattern, text = case
    expected = re.fullmatch(_old_action_regex(pattern), text, re.DOTALL) is not None
    assert glob_match(pattern, text) == expected
    assert matches(pattern, text.upper()) == expected  # operation globs ignore case


@given(st.lists(st.text("ab*", max_size=6), max_size=4), st.text("ab", max_size=10))
def test_a_compiled_list_matches_when_one_pattern_does(patterns: list[str], text: str) -> None:
    rx = compile_glob(patterns)
    assert (rx.fullmatch(text) is not None) == any(glob_match(p, text) for p in patterns)
    listed = compile_globs(patterns)
    assert (listed is not None and listed.fullmatch(text) is not None) == any(
        glob_match(p, text) for p in patterns
    )


@given(st.text("ab*", max_size=8), st.text("ab*", max_size=8))
def test_covers_and_intersects_agree_with_enumeration(outer: str, inner: str) -> None:
    """Over every text of up to 5 letters: ``covers`` never claims what a text refutes, and
    ``intersects`` finds a common text whenever there is a short one."""
    texts = [""]
    for _ in range(5):
        texts += [t + c for t in texts[-(2 ** (len(texts).bit_length() - 1)) :] for c in "ab"]
    texts = sorted(set(texts))
    both = [t for t in texts if glob_match(outer, t) and glob_match(inner, t)]
    if both:
        assert intersects(outer, inner)
    if covers(outer, inner):
        assert all(glob_match(outer, t) for t in texts if glob_match(inner, t))


def test_dialect_details() -> None:
    assert glob_match("a?c", "a?c") and not glob_match("a?c", "abc")  # '?' literal in actions
    assert glob_match("a?c", "abc", Dialect.LIKE)
    assert glob_match("a\\*c", "a*c", Dialect.LIKE) and not glob_match("a\\*c", "abc", Dialect.LIKE)
    assert glob_match("a\\b", "a\\b", Dialect.LIKE)  # other backslashes are literal
    assert glob_match("rbac-00[1-3]", "rbac-002", Dialect.SHELL)
    assert not glob_match("rbac-00[!1-3]", "rbac-002", Dialect.SHELL)
    assert glob_match("a[b", "a[b", Dialect.SHELL)  # an unclosed class is literal
    assert glob_match("A*b", "axB", ignore_case=True) and not glob_match("A*b", "axB")
    assert glob_match("a.b(c)+", "a.b(c)+") and not glob_match("a.b", "axb")
    assert glob_match("*", "line\nbreak") and glob_match("a*", "a\U0001f600\u00e9")
    assert compile_glob([]).fullmatch("") is None
    assert compile_globs([]) is None
    # runs of '*' collapse; each middle segment sits in an atomic group
    assert glob_regex("a***b**c") == glob_regex("a*b*c") == r"\x61(?>.*?\x62).*\x63"


# ------------------------------------------------------------------------ adversarial cases

A200 = "a" * 200
LONG = "a" * 20_000
ADVERSARIAL: list[tuple[str, str, Dialect, bool]] = [
    ("*" * 16 + "z", LONG, Dialect.ACTION, False),
    ("*" * 8 + "z", LONG + "z", Dialect.ACTION, True),
    ("*a*a*a*a*a*a*b", A200, Dialect.LIKE, False),
    ("*a*a*a*a*a*a*b", LONG, Dialect.LIKE, False),
    ("*a" * 18 + "*b", LONG, Dialect.ACTION, False),
    ("*a" * 18 + "*b", LONG + "b", Dialect.ACTION, True),
    ("*?a" * 18 + "*b", LONG, Dialect.LIKE, False),
    ("*" + "a" * 50 + "b*", LONG, Dialect.ACTION, False),  # a long near miss at every position
    ("*a*a*a*a*a*a*a*a*b", LONG, Dialect.SHELL, False),
    ("*[a]*[a]*[a]*[a]*[a]*[!a]", LONG, Dialect.SHELL, False),
]


@pytest.mark.parametrize(("pattern", "text", "dialect", "expected"), ADVERSARIAL)
def test_adversarial_patterns_match_at_once(
    pattern: str, text: str, dialect: Dialect, expected: bool
) -> None:
    answer, seconds = _timed(lambda: glob_match(pattern, text, dialect))
    assert answer is expected
    assert seconds < FAST


def test_the_time_grows_with_the_text_not_with_the_stars() -> None:
    """18 runs of ``*`` over a near-miss text: ten times the text costs at most ~ten times the
    time (a backtracking matcher's time grows as a high power of the text)."""
    rx = compile_glob("*a" * 18 + "*b")

    def best(text: str) -> float:
        return min(_timed(lambda: rx.fullmatch(text))[1] for _ in range(5))

    small, large = best("a" * 20_000), best("a" * 200_000)
    assert large < max(30 * small, 0.05)


def test_action_matches_and_string_like_in_conditions() -> None:
    stars = "*a" * 18 + "*b"
    assert not action_matches(stars, A200)
    assert action_matches(stars, A200 + "B")
    key = "@Resource[Cloud.Storage/storageAccounts/blobServices/containers:name]"
    like = compile_condition(parse_condition(f"{key} StringLike '*a*a*a*a*a*a*b'"))
    not_like = compile_condition(parse_condition(f"{key} StringNotLikeIgnoreCase '*A*A*A*A*A*A*B'"))
    acts = compile_condition(parse_condition(f"ActionMatches{{'{stars}'}}"))
    request = ConditionRequest(A200, attributes={key: A200})
    for cond, expected in ((like, False), (not_like, True), (acts, False)):
        answer, seconds = _timed(lambda c=cond: c(request))
        assert answer is expected
        assert seconds < FAST


def _hostile_engine() -> AccessEngine:
    guid = "11111111-0000-0000-0000-0000000000aa"
    key = "@Resource[Cloud.Storage/storageAccounts/blobServices/containers:name]"
    stars = "*a" * 18 + "*b"
    condition = f"(!(ActionMatches{{'{stars}'}})) OR ({key} StringLike '*a*a*a*a*a*a*b')"
    snapshot = build(
        principals=[user("mallory")],
        roles=[role(guid, "Hostile", ["*" * 16 + "z", stars], data_actions=["*a*a*a*a*a*a*a*a*b"])],
        assignments=[
            ra("r1", "mallory", guid, SUB),
            ra("r2", "mallory", guid, RG, condition=condition),
        ],
        denies=[deny("d1", SUB, actions=["*" * 8 + "z", "*a" * 12 + "*c"])],
    )
    return AccessEngine.from_snapshot(snapshot)


@pytest.mark.parametrize(
    ("action", "data", "attributes", "expected"),
    [
        ("Cloud.X/" + A200, False, None, "notGranted"),
        ("Cloud.X/" + A200 + "z", False, None, "denied"),  # the deny's '********z'
        ("Cloud.X/" + A200 + "b", False, {}, "allowed"),
        ("Cloud.X/" + A200, True, None, "notGranted"),
        ("Cloud.X/" + A200 + "b", True, None, "allowed"),
    ],
)
def test_hostile_roles_and_denies_decide_at_once(
    action: str, data: bool, attributes: dict[str, str] | None, expected: str
) -> None:
    eng = _hostile_engine()
    decision, seconds = _timed(
        lambda: check(eng, "mallory", action, RG, data=data, attributes=attributes)
    )
    assert decision.decision == expected
    assert seconds < FAST


def test_hostile_roles_in_who_and_what_queries() -> None:
    eng = _hostile_engine()
    who, seconds = _timed(lambda: eng.who("Cloud.X/" + A200 + "b", RG))
    assert seconds < FAST and "mallory" in repr(who)
    what, seconds = _timed(lambda: eng.what("mallory"))
    assert seconds < FAST and "Hostile" in repr(what)
    long_a, long_b = "*a" * 40 + "*z", "*b" * 40 + "*z"
    for answer, expected in (
        (_timed(lambda: intersects(long_a, long_b)), True),
        (_timed(lambda: covers("*a" * 18 + "*b", A200 + "*c")), False),
        (_timed(lambda: covers("*" * 30, long_a)), True),
    ):
        assert answer[0] is expected and answer[1] < FAST


def test_waiver_and_check_globs_are_linear() -> None:
    pattern = "*a" * 18 + "*b"
    assert pattern_matches("rbac-00[1-3]", "RBAC-002", "high")
    assert not pattern_matches("RBAC-*", "DOM-001", "high")
    answer, seconds = _timed(lambda: pattern_matches(pattern, "RBAC-" + A200, "high"))
    assert answer is False and seconds < FAST
    (waiver,) = parse_waivers(
        {
            "version": 1,
            "waivers": [
                {
                    "id": "w1",
                    "rule": "RBAC-*",
                    "resource": "/subscriptions/*" + "/*a" * 18 + "/x",
                    "justification": "test",
                    "expires": "2099-01-01",
                }
            ],
        },
        "waivers.yaml",
    )
    answer, seconds = _timed(lambda: waiver.matches("RBAC-001", "/subscriptions/" + A200))
    assert answer is False and seconds < FAST
    assert waiver.matches("RBAC-001", "/subscriptions/s" + "/a" * 18 + "/X")
