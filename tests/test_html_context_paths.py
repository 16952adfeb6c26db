"""The HTML report's context and page made faster for issue 23 (1,000,000 role assignments),
against the code as it was (HEAD fda91d3), with the same answers. (``build_context`` as a whole
is checked against its old self by ``tests/test_html_paths.py``.)

- The shadow admins' paths after those drawn as graphs: one line each, made in Python
  (:func:`auditor.report.html._path_item`) instead of by the template's loops: the same markup as
  the old template's loop, every value made inert and escaped, and the same page.
- The resource rows ordered by two stable sorts of keys made in C (by id without case, then by
  failing findings), as the old sort by the tuple of both ordered them."""

from __future__ import annotations

from operator import neg
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markupsafe import Markup

from auditor.audit.findings import EscalationPath
from auditor.report import RenderOptions, html, render
from auditor.report.html import ESCALATION_GRAPHS, ResourceRow, _by_failures, _path_item
from tests.report_fixtures import BOLD, SCRIPT_INJECTION, make_result

_OLD_LOOP = (
    '  <ul class="paths-more">\n'
    "  {% for e, _ in escalations[escalation_graphs:] %}<li><strong>{{ e.displayName }}</strong>"
    " (<code>{{ e.principalId }}</code>) at <code>{{ e.scope }}</code>: {% for kind, label in"
    ' e.steps %}{{ label }}{{ " → " if not loop.last }}{% endfor %}</li>\n'
    "  {% endfor %}\n"
    "  </ul>\n"
)
"""The old template's list of the paths after those drawn as graphs."""

_NEW_LOOP = '  <ul class="paths-more">\n{{ more_paths }}  </ul>\n'

_TEXT = st.text(
    st.sampled_from(["a", "Z", " ", "<", ">", "&", '"', "'", "\x1b", "\u202e", "\u200b", "é", "→"]),
    max_size=8,
)
_PATHS = st.builds(
    EscalationPath,
    principalId=_TEXT,
    displayName=_TEXT,
    scope=_TEXT,
    steps=st.lists(st.tuples(_TEXT, _TEXT), max_size=4).map(tuple),
)


@settings(max_examples=200, deadline=None)
@given(paths=st.lists(_PATHS, max_size=6), shown=st.integers(0, 3))
def test_a_path_line_is_the_old_template_loop(paths: list[EscalationPath], shown: int) -> None:
    escalations = [(e, "") for e in paths]
    old = html.environment().from_string(_OLD_LOOP)
    expected = old.render(escalations=escalations, escalation_graphs=shown)
    more = "".join(map(_path_item, escalations[shown:]))
    new = html.environment().from_string(_NEW_LOOP)
    assert new.render(more_paths=Markup(more)) == expected


def test_the_page_is_the_one_the_old_template_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = make_result(tmp_path)
    assert result.access is not None
    steps = (("principal", f"Eve {SCRIPT_INJECTION}"), ("group", BOLD), ("role", "Owner\x1b"))
    result.access.escalations = [
        EscalationPath(f"p-{i}", f"Eve {i} {BOLD}", f"/subscriptions/s{i}", steps[: i % 4])
        for i in range(ESCALATION_GRAPHS + 25)
    ]
    new_page = render(result, "html", None, RenderOptions())
    text = _template_text()
    assert text.count(_NEW_LOOP) == 1
    real = html.environment()
    overlay: Any = real.overlay()
    old = overlay.from_string(text.replace(_NEW_LOOP, _OLD_LOOP))
    overlay.get_template = lambda name, *rest: (
        old if name == "report.html.j2" else real.get_template(name, *rest)
    )
    monkeypatch.setattr(html, "environment", lambda: overlay)
    old_page = render(result, "html", None, RenderOptions())
    assert new_page == old_page
    assert new_page.count(b"<li><strong>Eve ") == 25
    assert b"<script>alert(1)" not in new_page


def _template_text() -> str:
    from auditor._resources import data_dir

    return (data_dir("reports") / "report.html.j2").read_text(encoding="utf-8")


_IDS = st.sampled_from(["/s/a", "/S/A", "/s/b", "/s/B", "/t", "/T/x", "r", "R"])


@settings(max_examples=200, deadline=None)
@given(rows=st.lists(st.tuples(_IDS, st.integers(0, 3)), max_size=12))
def test_resource_rows_are_ordered_as_by_the_old_sort(rows: list[tuple[str, int]]) -> None:
    made = [ResourceRow(rid, "t") for rid, _ in rows]
    fails = [n for _, n in rows]
    old = [
        row
        for *_, row in sorted(
            (neg(n), row.resource.lower(), at, row)
            for at, (row, n) in enumerate(zip(made, fails, strict=True))
        )
    ]
    got = _by_failures(made, fails)
    assert [id(row) for row in got] == [id(row) for row in old]
