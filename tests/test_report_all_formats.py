"""Every format at once: render_all into a folder, no secret anywhere, the published JSON Schema of
the findings document, and renderers that do not slow down ``auditor --help``."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from importlib import resources
from pathlib import Path

import jsonschema
import pytest

from auditor.audit.findings import AuditResult
from auditor.report import RENDERERS, RenderOptions, render, render_all
from tests.report_fixtures import SECRETS, make_result, synthetic_result

MY_FORMATS = {"sarif", "junit", "csv", "markdown", "html", "pdf"}


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Path], AuditResult]:
    folder = tmp_path_factory.mktemp("all")
    result = make_result(folder / "src")
    return render_all(result, folder / "out", options=RenderOptions()), result


def test_render_all_writes_every_format(rendered: tuple[dict[str, Path], AuditResult]) -> None:
    files, _ = rendered
    assert set(files) >= MY_FORMATS
    assert set(files) == set(RENDERERS)
    for fmt, path in files.items():
        assert path.is_file() and path.stat().st_size > 0, fmt
    assert files["html"].name == "report.html" and files["sarif"].suffix == ".sarif"


def test_no_secret_in_any_output(rendered: tuple[dict[str, Path], AuditResult]) -> None:
    files, result = rendered
    # the sources really hold the secrets, so this is a real check
    plan = next(Path(f.source) for f in result.findings if f.source and "plan" in f.source)
    assert SECRETS[0] in plan.read_text()
    for fmt, path in files.items():
        data = path.read_bytes()
        texts = [data.decode("utf-8", "replace")]
        if fmt == "pdf":
            from pypdf import PdfReader

            reader = PdfReader(io.BytesIO(data))
            texts.append("\n".join(p.extract_text() or "" for p in reader.pages))
        for secret in SECRETS:
            for text in texts:
                assert secret not in text, f"{fmt} shows a secret"


def test_unknown_format_is_an_input_error() -> None:
    from auditor.errors import InputError

    with pytest.raises(InputError, match="unknown output format"):
        render(synthetic_result(1), "docx")


def test_findings_document_matches_the_published_schema(tmp_path: Path) -> None:
    schema_text = (resources.files("auditor.report") / "findings.schema.json").read_text()
    schema = json.loads(schema_text)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(
        schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )
    for result in (make_result(tmp_path), synthetic_result(50), synthetic_result(0)):
        doc = json.loads(json.dumps(result.to_json()))
        errors = list(validator.iter_errors(doc))
        assert not errors, [f"{list(e.path)}: {e.message}" for e in errors[:5]]
    bad = make_result(tmp_path).to_json()
    bad["findings"][0]["status"] = "broken"
    assert list(validator.iter_errors(bad))


def test_renderers_import_no_heavy_library() -> None:
    code = (
        "import sys, auditor.report as r\n"
        "import auditor.report.sarif, auditor.report.junit, auditor.report.csv_\n"
        "import auditor.report.markdown, auditor.report.html, auditor.report.pdf\n"
        "heavy = ('jinja2', 'weasyprint', 'nh3', 'networkx', 'pypdf', 'markupsafe')\n"
        "print(','.join(m for m in heavy if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
