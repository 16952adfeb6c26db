"""The HTML and SARIF reports written as parts, against the reports as they were built before
(HEAD ce0e6ad).

- The HTML data block, encoded a column (the evidence a batch) at a time, its string table last,
  and compressed as it is made (:func:`auditor.report._html_data.data_block`),
  against the whole document as one ``json.dumps`` text, then ``gzip.compress``: the same document
  once decoded, with the string table's indexes resolved (the keys' order and the table's
  numbering differ; the script parses the whole document). The block's evidence is in format 2
  (rows under shared key lists, shared lists and objects once); the oracle's is in format 1
  (``[key, kind, value]`` items): both are read back as the script reads them (``_items``).
- The HTML page as parts (:func:`auditor.report.html.chunks`) against the block printed into the
  template's text: the same bytes around the block.
- The SARIF log with its results encoded in batches (:func:`auditor.report.sarif.chunks`)
  against the whole log's text: the same bytes."""

from __future__ import annotations

import base64
import dataclasses
import gzip
import json
import re
import zlib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.audit.findings import SEVERITIES, AuditResult, Finding, RuleInfo, WaiverInfo
from auditor.inert import inert_json
from auditor.report import STREAMED, RenderOptions, _html_data, html, render, sarif, write
from auditor.report._html_data import EV_PRE, EV_RICH, EV_TEXT, data_block, rich_tree
from auditor.report._sanitize import looks_like_html, scalar_text, xml_text
from auditor.report.html import STATUSES, FindingView, ResourceRow, RuleGroup
from tests.report_fixtures import make_result, synthetic_result


def _reference_block(
    groups: list[Any], resources: list[Any], statuses: tuple[str, ...], privileged: Any = None
) -> tuple[str, int]:
    """``data_block`` as it was before the batches (HEAD ce0e6ad), the oracle."""
    index: dict[str, int] = {}

    def s(text: str) -> int:
        return index.setdefault(text, len(index))

    def opt(text: str | None) -> int:
        return s(xml_text(text)) if text else -1

    def evidence(value: dict[Any, Any]) -> list[list[Any]]:  # the old _evidence
        out: list[list[Any]] = []
        for key, v in value.items():
            k = s(xml_text(str(key)))
            if isinstance(v, str):
                if looks_like_html(v):
                    out.append([k, EV_RICH, rich_tree(v)])
                else:
                    out.append([k, EV_TEXT, s(xml_text(v))])
            elif isinstance(v, dict | list | tuple):
                out.append([k, EV_PRE, _old_inert_json(v)])
            else:
                out.append([k, EV_TEXT, s(xml_text(_old_scalar(v)))])
        return out

    col: dict[str, list[Any]] = {k: [] for k in _html_data.COLUMNS}
    sev_of = {name: i for i, name in enumerate(SEVERITIES)}
    status_of = {name: i for i, name in enumerate(statuses)}
    waiver_rows: list[list[Any]] = []
    waiver_at: dict[tuple[str, str, str, bool], int] = {}
    position: dict[int, int] = {}
    for group in groups:
        rule = group.rule
        rule_at = s(xml_text(rule.id))
        for view in group.findings:
            f = view.f
            position[view.n] = len(col["n"])
            col["n"].append(view.n)
            col["r"].append(rule_at)
            col["sv"].append(sev_of.get(f.severity, len(SEVERITIES) - 1))
            col["st"].append(status_of.get(f.status, 0))
            col["res"].append(s(xml_text(f.resourceId)))
            col["nm"].append(opt(view.name))
            col["m"].append(s(xml_text(f.message)))
            col["ev"].append(evidence(f.evidence) if f.evidence else 0)
            col["fp"].append(xml_text(f.fingerprint))
            col["src"].append(opt(f.source))
            col["ln"].append(-1 if f.line is None else f.line)
            col["at"].append(opt(f.address))
            col["loc"].append(opt(f.location))
            w = f.waiver
            if w is None:
                col["wv"].append(-1)
            else:
                key = (w.id, w.expires, w.justification, w.expired)
                if key not in waiver_at:
                    waiver_at[key] = len(waiver_rows)
                    waiver_rows.append(
                        [xml_text(w.id), xml_text(w.expires), xml_text(w.justification),
                         int(w.expired)]
                    )  # fmt: skip
                col["wv"].append(waiver_at[key])
            rem = f.remediation
            col["rem"].append(opt(rem) if rem and rem != rule.remediation else -1)
            refs = tuple(f.references)
            col["refs"].append(
                [s(xml_text(r)) for r in refs] if refs and refs != tuple(rule.references) else 0
            )
    res_rows = [
        [s(xml_text(r.resource)), s(xml_text(r.resourceType)), opt(r.name),
         [position[v.n] for v in r.findings if v.n in position]]
        for r in resources
    ]  # fmt: skip
    priv = [
        [s(xml_text(sub)), s(xml_text(p.displayName)), s(xml_text(p.principalId)),
         s(xml_text(p.principalType)), s(xml_text(p.role)), [s(xml_text(v)) for v in p.via]]
        for sub, rows in (privileged or {}).items()
        for p in rows
    ]  # fmt: skip
    doc = {
        "v": 1, "priv": priv, "sevs": list(SEVERITIES), "sts": list(statuses),
        "s": list(index), "w": waiver_rows, "f": col, "res": res_rows,
    }  # fmt: skip
    raw = json.dumps(doc, ensure_ascii=False, separators=(",", ":"), check_circular=False)
    packed = gzip.compress(raw.encode("utf-8"), compresslevel=6, mtime=0)
    return base64.b64encode(packed).decode("ascii"), len(col["n"])


def _old_inert_json(value: Any) -> Any:
    """``_inert_json`` as it was (HEAD ce0e6ad)."""
    if isinstance(value, str):
        return xml_text(value)
    if isinstance(value, dict):
        return {_old_inert_json(str(k)): _old_inert_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_old_inert_json(v) for v in value]
    if value is None or isinstance(value, bool | int | float):
        return value
    return xml_text(str(value))


def _old_scalar(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return scalar_text(value) if isinstance(value, float) else str(value)
    return str(value)


def _decoded(block: str) -> dict[str, Any]:
    """A data block as the script reads it: one gzip member, then JSON. Non-finite numbers, which
    JSON has not, are read as null: the old block wrote ``NaN`` (which made the script's
    ``JSON.parse`` fail: the new one writes null)."""
    unpacker = zlib.decompressobj(31)
    raw = unpacker.decompress(base64.b64decode(block, validate=True))
    assert unpacker.eof and not unpacker.unused_data  # one member, whole
    doc: dict[str, Any] = json.loads(raw, parse_constant=lambda _: None)
    return doc


def _resolved(block: str) -> dict[str, Any]:
    """The decoded document with every string-table index replaced by its text (and the string
    table itself, whose order is the encoder's, left out)."""
    doc = _decoded(block)
    table = doc.pop("s")

    def text(i: int) -> str | None:
        return None if i == -1 else table[i]

    def item(key: int, kind: int, value: Any) -> list[Any]:
        return [table[key], kind, table[value] if kind == EV_TEXT else value]

    f = doc["f"]
    for key in ("r", "res", "nm", "m", "src", "at", "loc", "rem"):
        f[key] = [text(i) for i in f[key]]
    f["refs"] = [[table[i] for i in refs] if refs else refs for refs in f["refs"]]
    if doc.pop("v") == 1:  # (the reference's format: [key, kind, value] items)
        f["ev"] = [[item(*it) for it in ev] if ev else ev for ev in f["ev"]]
    else:  # format 2, read as the script reads it
        shapes, values = doc.pop("evk"), doc.pop("evj")
        f["ev"] = [_items(ev, shapes, values, table) if ev else ev for ev in f["ev"]]
    doc["res"] = [[table[a], table[b], text(c), at] for a, b, c, at in doc["res"]]
    doc["priv"] = [
        [*(table[i] for i in row[:5]), [table[i] for i in row[5]]] for row in doc["priv"]
    ]
    doc["f"] = dict(f)  # (the columns in display order either way)
    assert list(f) == list(_html_data.COLUMNS)
    return doc


def _items(ev: list[Any], shapes: list[list[int]], values: list[Any], table: list[str]) -> Any:
    """A finding's evidence in format 2 as the script reads it (``evidence`` in report.js):
    ``[shape, value...]`` back to ``[key, kind, value]`` items, texts and JSON values resolved."""
    keys = shapes[ev[0]]
    assert len(keys) == len(ev) - 1
    out = []
    for key, v in zip(keys, ev[1:], strict=True):
        if isinstance(v, int):
            out.append([table[key], EV_TEXT, table[v]])
        else:
            kind, value = v
            assert kind in (EV_RICH, EV_PRE)
            out.append([table[key], kind, values[value] if kind == EV_PRE else value])
    return out


class _Source(str):
    """A source path that knows its line and address (as ``SourcePath`` does)."""

    line: int | None = None
    address: str | None = None


class _Priv:
    def __init__(self, name: str, via: list[str]) -> None:
        self.displayName = name
        self.principalId = "p-" + name
        self.principalType = "User"
        self.role = "Owner"
        self.via = via


_text = st.text(
    st.characters(codec="utf-8") | st.sampled_from("\x1b\u202e\x00\x7f\t\n/<>&é"),
    max_size=12,
)
_scalar: st.SearchStrategy[Any] = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**40), 2**40), _text, st.floats()
)
_json = st.recursive(
    _scalar,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=3),
    max_leaves=6,
)
_evidence_st: st.SearchStrategy[dict[Any, Any]] = st.dictionaries(
    _text | st.integers(0, 9), _json | st.sampled_from(["<b>bold</b> text", "<a href='x'>y</a>"])
)


@st.composite
def _report(draw: st.DrawFn) -> tuple[list[RuleGroup], list[ResourceRow], dict[str, Any]]:
    rules = [
        RuleInfo(f"R-{i}", draw(_text), draw(st.sampled_from(SEVERITIES)), "t", (),
                 remediation=draw(st.sampled_from(["", "fix it"])),
                 references=tuple(draw(st.lists(_text, max_size=2))))
        for i in range(draw(st.integers(1, 3)))
    ]  # fmt: skip
    groups = [RuleGroup(r) for r in rules]
    rows: dict[str, ResourceRow] = {}
    waivers = [
        WaiverInfo("w1", "R-0", "*", draw(_text), "2030-01-01"),
        WaiverInfo("w2", "R-1", "*", "why", "2020-01-01", expired=True),
    ]
    for n in range(draw(st.integers(0, 14))):
        group = draw(st.sampled_from(groups))
        resource = draw(st.sampled_from(["/subscriptions/a", "/subscriptions/b/x", "r\x1b"]))
        source: str | None = draw(st.none() | st.sampled_from(["estate.json", "plan\u202e.json"]))
        if source is not None and draw(st.booleans()):
            source = _Source(source)
            source.line = draw(st.none() | st.integers(1, 99))
            source.address = draw(st.none() | _text)
        f = Finding(
            group.rule.id, draw(st.sampled_from(SEVERITIES)), draw(st.sampled_from(STATUSES)),
            resource, "title", draw(_text), draw(_evidence_st),
            draw(st.sampled_from(["", "fix it", "other\x00fix"])),
            tuple(draw(st.lists(_text, max_size=2))), draw(_text), "t", source,
            draw(st.none() | _text), draw(st.none() | st.sampled_from(waivers)),
        )  # fmt: skip
        row = rows.setdefault(resource, ResourceRow(resource, "t", draw(_text)))
        view = FindingView(n, f, group.rule, row.name)
        group.findings.append(view)
        if draw(st.booleans()):
            row.findings.append(view)
    privileged = {
        draw(_text): [_Priv(draw(_text), draw(st.lists(_text, max_size=2)))]
        for _ in range(draw(st.integers(0, 2)))
    }
    return groups, list(rows.values()), privileged


@settings(max_examples=80, deadline=None)
@given(report=_report(), with_privileged=st.booleans(), batch=st.sampled_from([1, 2, 5, 4096]))
def test_data_block_equals_the_whole_document_compressed_at_once(
    report: tuple[list[RuleGroup], list[ResourceRow], dict[str, Any]],
    with_privileged: bool,
    batch: int,
) -> None:
    groups, resources, privileged = report
    priv = privileged if with_privileged else None
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_html_data, "BATCH", batch)
        patch.setattr(_html_data, "_PART", batch * 8)  # many parts for the compressor
        new, count = data_block(groups, resources, STATUSES, priv)
    old, old_count = _reference_block(groups, resources, STATUSES, priv)
    assert count == old_count
    assert _resolved(new) == _resolved(old)
    table = _decoded(new)["s"]
    assert len(table) == len(set(table)) == len(_decoded(old)["s"])  # each text once, no more


def test_a_large_block_equals_the_whole_document_compressed_at_once() -> None:
    """Several batches and many compressor parts: the bytes of one ``gzip.compress``."""
    rule = RuleInfo("RBAC-001", "t", "high", "roleAssignment", ())
    group = RuleGroup(rule)
    row = ResourceRow("/s", "roleAssignment", "")
    for n in range(3 * _html_data.BATCH + 7):
        f = Finding(
            "RBAC-001", "high", "fail", f"/s/ra/{n}", "t", f"message {n % 97}",
            {"principal": f"user{n % 301}", "roles": [n, f"r{n % 7}", {"k": n / 7}]},
            fingerprint=f"{n:032x}",
        )  # fmt: skip
        view = FindingView(n, f, rule, "")
        group.findings.append(view)
        row.findings.append(view)
    block = data_block([group], [row], STATUSES)
    old = _reference_block([group], [row], STATUSES)
    assert block[1] == old[1]
    assert _resolved(block[0]) == _resolved(old[0])
    doc = json.loads(gzip.decompress(base64.b64decode(block[0])))
    assert len(doc["f"]["n"]) == block[1] == 3 * _html_data.BATCH + 7
    assert list(doc) == ["v", "sevs", "sts", "f", "evk", "evj", "w", "res", "priv", "s"]
    assert doc["v"] == 2


# The HTML page and the SARIF log written as parts, against the whole page and log of before.


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> list[AuditResult]:
    folder = tmp_path_factory.mktemp("stream-paths")
    sample = make_result(folder)
    hostile = dataclasses.replace(
        sample,
        findings=[
            dataclasses.replace(f, message=f.message + " \x1b[31m\u202e\x7f\u2028 é 🙂")
            for f in sample.findings
        ],
    )
    return [sample, hostile, synthetic_result(1_500, folder)]


def _whole_page(result: AuditResult, options: RenderOptions) -> bytes:
    """The HTML page as ``html.render`` made it before the parts (HEAD ce0e6ad): the data block
    printed into the template's text."""
    from markupsafe import Markup

    env = html.environment()
    script = html.asset("report.js")
    context = html.build_context(result, options)
    privileged_total = sum(len(rows) for rows in context["privileged"].values())
    privileged_static = privileged_total <= html.STATIC_ROWS
    data, _ = _reference_block(
        context["groups"],
        context["resources"],
        STATUSES,
        None if privileged_static else context["privileged"],
    )
    context.update(
        css=Markup(html.asset("report.css")),
        script=Markup(script),
        csp=html.content_security_policy(script),
        Markup=Markup,
        data=Markup(data),
        data_format=_html_data.FORMAT,
        legacy=False,
        static_rows=context["total"] <= html.STATIC_ROWS,
        privileged_static=privileged_static,
        privileged_total=privileged_total,
        escalation_graphs=html.ESCALATION_GRAPHS,
    )
    return env.get_template("report.html.j2").render(context).encode("utf-8")


_BLOCK = re.compile(rb'(<template id="report-data" data-format="[^"]+"[^>]*>)([^<]*)(</template>)')


@pytest.mark.parametrize("include_passed", [False, True])
def test_html_parts_equal_the_whole_page(results: list[AuditResult], include_passed: bool) -> None:
    """The page around the block has the old bytes; the block, its parts made as it is
    compressed, the old document."""
    options = RenderOptions(include_passed=include_passed)
    for result in results:
        parts = list(html.chunks(result, options))
        page = b"".join(parts)
        new, old = _BLOCK.search(page), _BLOCK.search(_whole_page(result, options))
        assert new is not None and old is not None
        assert parts[0].endswith(new.group(1)) and parts[-1].startswith(new.group(3))
        assert b"".join(parts[1:-1]) == new.group(2)  # the block's parts, nothing else
        assert page[: new.start(2)] + page[new.end(2) :] == (
            old.string[: old.start(2)] + old.string[old.end(2) :]
        )
        assert _resolved(new.group(2).decode()) == _resolved(old.group(2).decode())
        assert render(result, "html", None, options) == page


def _whole_log(result: AuditResult, options: RenderOptions) -> bytes:
    """The SARIF log as ``sarif.render`` wrote it before the parts: the whole document's text."""
    text = json.dumps(sarif.build(result, options), ensure_ascii=False, separators=(",", ":"))
    return inert_json(text).encode("utf-8") + b"\n"


@pytest.mark.parametrize("batch", [1, 7, 1_000])
@pytest.mark.parametrize("cap", [25_000, 5, 0])
def test_sarif_parts_equal_the_whole_log(
    results: list[AuditResult], batch: int, cap: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sarif, "BATCH", batch)
    options = RenderOptions(sarif_max_results=cap)
    for result in results:
        log = b"".join(sarif.chunks(result, options))
        assert log == _whole_log(result, options)
        doc = json.loads(log)
        assert len(doc["runs"][0]["results"]) == min(cap, len(result.judged))
        assert list(doc["runs"][0])[-2:] == ["results", "columnKind"]


def test_html_and_sarif_are_written_as_parts(results: list[AuditResult], tmp_path: Path) -> None:
    """``auditor.report.write`` streams both formats, with the bytes ``render`` returns."""
    assert {"html", "sarif"} <= STREAMED
    for fmt in ("html", "sarif"):
        write(results[1], fmt, tmp_path / fmt)
        assert (tmp_path / fmt).read_bytes() == render(results[1], fmt)


# The HTML data block's helpers: the string table's lookups, inert JSON kept as it is, the
# compressor, and the report's order.


@settings(max_examples=200, deadline=None)
@given(text=_text | st.text(st.sampled_from("\t\n\r\x1b\u202e\ud800a<"), max_size=6))
def test_an_inert_text_stays_itself(text: str) -> None:
    """The string table finds a text by one lookup before making it inert: right because a text
    already made inert is unchanged when made inert again."""
    once = xml_text(text)
    assert xml_text(once) == once
    table = _html_data._Strings()
    at = table.put(text)
    assert table.put(once) == at == table.put_all([once, text])[1]
    assert table.opt_all([text, once]) == ([at, at] if text else [-1, -1])
    assert list(table.index) == [once]


class _Masked:
    def __str__(self) -> str:
        return "**********"


@settings(max_examples=150, deadline=None)
@given(value=_json | st.lists(_text, max_size=4) | st.dictionaries(_text, _text, max_size=4))
def test_inert_json_is_the_old_inert_json(value: Any) -> None:
    """Lists and objects of printable plain strings are kept as they are, the rest rebuilt: the
    same JSON as before either way."""
    new = _html_data._encode(_html_data._inert_json(value))
    old = json.dumps(_old_inert_json(value), ensure_ascii=False)
    assert json.loads(new, parse_constant=lambda _: None) == json.loads(
        old, parse_constant=lambda _: None
    )


def test_inert_json_shows_unknown_objects_and_subclasses_by_str() -> None:
    class Tag(str):
        pass

    secret = _Masked()
    value = {"a": ["x", secret], "b": {"k": secret}, "c": (Tag("t"), "u"), 1: "one"}
    doc = json.loads(_html_data._encode(_html_data._inert_json(value)))
    assert doc == {"a": ["x", str(secret)], "b": {"k": str(secret)}, "c": ["t", "u"], "1": "one"}
    assert _html_data._inert_json(["plain", "list"]) == ["plain", "list"]
    assert _html_data._inert_json(["\x1b"]) == ["\\x1b"]


@settings(max_examples=60, deadline=None)
@given(
    parts=st.lists(
        st.binary(max_size=300) | st.sampled_from([b"", b"{", b"a" * 5000]), max_size=12
    ),
    part=st.sampled_from([1, 7, 1 << 18]),
)
def test_the_block_is_one_gzip_stream_of_its_parts(parts: list[bytes], part: int) -> None:
    """Parts compressed as they come, then base64-encoded as they come: the text of the whole
    document gzipped at once (one member, which ``DecompressionStream`` reads)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_html_data, "_PART", part)
        text = b"".join(_html_data._base64(_html_data._compressed(iter(parts))))
    whole = gzip.compress(b"".join(parts), _html_data.LEVEL, mtime=0)
    assert text == base64.b64encode(whole)


def test_the_report_orders_resources_as_before(results: list[AuditResult]) -> None:
    """Resources by their failing findings (counted as the findings are read), then id; each
    resource's findings by status, severity and id (sorted only when there are two or more)."""
    for result in results:
        for include_passed in (False, True):
            context = html.build_context(result, RenderOptions(include_passed=include_passed))
            rows: list[ResourceRow] = context["resources"]
            assert rows
            old_keys = [
                (-sum(1 for v in r.findings if v.f.status == "fail"), r.resource.lower())
                for r in rows
            ]
            assert old_keys == sorted(old_keys)
            for r in rows:
                keys = [html._sort_key(v.f) for v in r.findings]
                assert keys == sorted(keys)
            assert context["resources_failing"] == sum(
                1 for r in rows if any(v.f.status == "fail" for v in r.findings)
            )
