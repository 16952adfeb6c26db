"""PDF: text extracted with pypdf holds every failing rule and no secret; injection inert; large
reports capped; a time limit stops a runaway layout; the GDPR export renders."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from pypdf import PdfReader

from auditor.audit.findings import AuditResult
from auditor.report import RenderOptions, render
from auditor.report.pdf import PdfRenderError, html_to_pdf, render_gdpr_pdf
from tests.report_fixtures import SECRETS, make_result, synthetic_result


def _text(data: bytes) -> tuple[PdfReader, str]:
    reader = PdfReader(io.BytesIO(data))
    return reader, "\n".join(page.extract_text() or "" for page in reader.pages)


Rendered = tuple[bytes, AuditResult, PdfReader, str]


@pytest.fixture(scope="module")
def pdf(tmp_path_factory: pytest.TempPathFactory) -> Rendered:
    folder = tmp_path_factory.mktemp("pdf")
    result = make_result(folder)
    data = render(result, "pdf", folder / "report.pdf")
    reader, text = _text(data)
    return data, result, reader, text


def test_pdf_text_has_every_failing_rule_and_no_secret(pdf: Rendered) -> None:
    data, result, reader, text = pdf
    assert data.startswith(b"%PDF-")
    assert len(reader.pages) >= 5
    flat = " ".join(text.split())
    for rule_id in {f.ruleId for f in result.findings if f.status == "fail"}:
        assert rule_id in flat, rule_id
    for secret in SECRETS:
        assert secret not in flat and secret.encode() not in data
    assert "Executive summary" in flat and "Appendix: rules" in flat
    assert "Waivers" in flat and "Partner webhooks" in flat
    assert "Carol Ops" in flat  # access section
    assert "Page 2 of" in flat  # page numbers
    assert "Set properties.publicNetworkAccess to Disabled" in flat  # remediation


def test_pdf_injection_is_inert(pdf: Rendered) -> None:
    data, _, reader, text = pdf
    for marker in (b"/JavaScript", b"/JS ", b"/JS(", b"/Launch", b"/SubmitForm", b"/EmbeddedFile"):
        assert marker not in data, marker
    assert b"javascript:" not in data.lower()
    # the cleaned description keeps its words; the script in it is gone from the evidence
    flat = " ".join(text.split())
    assert "Customers may see errors publishing events" in flat
    for page in reader.pages:
        for annot in page.get("/Annots") or []:
            action = annot.get_object().get("/A")
            if action is not None:
                assert action.get("/S") in ("/URI", "/GoTo"), action
                uri = str(action.get("/URI", ""))
                assert not uri.lower().startswith("javascript"), uri


def test_large_reports_are_capped_with_a_note() -> None:
    result = synthetic_result(300)
    keep = {"DOM-001", "DOM-002"}
    result.rules = [r for r in result.rules if r.id in keep]
    result.findings = [f for f in result.findings if f.ruleId in keep]
    result.access = None
    options = RenderOptions(pdf_detail_per_rule=1, pdf_max_table_rows=15)
    data = render(result, "pdf", None, options)
    _, text = _text(data)
    flat = " ".join(text.split())
    assert "are not listed in this PDF" in flat
    assert "further finding(s)" in flat
    assert "more finding(s) of" in flat


def test_a_runaway_layout_is_stopped() -> None:
    with pytest.raises(PdfRenderError, match=r"not finished within 0\.01 seconds"):
        html_to_pdf("<p>hello</p>", timeout=0.01)


def test_gdpr_export_pdf(tmp_path: Path) -> None:
    export = {
        "subject": {"id": "u-alice", "displayName": "Alice Admin", "email": "alice@example.com"},
        "generatedAt": "2026-11-21T10:00:00Z",
        "roleAssignments": [
            {"id": "ra-1", "role": "Owner", "scope": "/subscriptions/1"},
            {"id": "ra-2", "role": "Reader", "scope": "/subscriptions/2", "condition": None},
        ],
        "sections": [
            {"title": "Deny assignments naming the principal", "records": []},
            {"title": "Developer tooling", "description": "apps and tokens",
             "records": [{"app": "org/app", "role": "admin", "nested": {"a": [1, 2]}}]},
        ],
        "healthEvents": [],
        "note": "<script>alert(1)</script>",
    }  # fmt: skip
    target = tmp_path / "gdpr.pdf"
    data = render_gdpr_pdf(export, target)
    assert target.read_bytes() == data
    _, text = _text(data)
    flat = " ".join(text.split())
    for expected in ("Alice Admin", "alice@example.com", "ra-2", "Reader", "/subscriptions/2",
                     "Deny assignments naming the principal", "Developer tooling", "org/app",
                     "Role Assignments", "<script>alert(1)</script>"):  # fmt: skip
        assert expected in flat, expected
    assert b"/JavaScript" not in data
