"""``auditor demo``: sample estate -> sandbox -> collect over HTTP -> audit -> every format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pypdf import PdfReader

from auditor.audit import AuditOptions, audit_snapshot
from auditor.cli import main
from auditor.estate import sample as S

SECRETS = (
    S.STRONG_LITERAL_PASSWORD,
    S.WEAK_GATEWAY_PASSWORD,
    S.WEAK_METASTORE_PASSWORD,
    S.LITERAL_STORAGE_KEY,
    S.SAMPLE_API_TOKEN,
    S.SSH_PUBLIC_KEY,
)
FORMAT_FILES = (
    "report.txt",
    "findings.json",
    "findings.sarif",
    "junit.xml",
    "findings.csv",
    "summary.md",
    "report.html",
    "report.pdf",
)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("demo") / "audit-report"
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = main(["demo", "--out", str(out)])
    assert code == 0
    return out, buf.getvalue()


def test_every_format_is_written(demo: tuple[Path, str]) -> None:
    out, stdout = demo
    for name in FORMAT_FILES:
        path = out / name
        assert path.is_file() and path.stat().st_size > 0, name
        assert f"{path}" in stdout
    assert (out / "collected-snapshot.json").is_file()
    for plan in S.PLAN_NAMES:
        assert (out / "plans" / f"{plan}.json").is_file()
        assert (out / "gate" / f"{plan}.sarif").is_file()


def test_the_audit_over_http_equals_the_audit_of_the_file(demo: tuple[Path, str]) -> None:
    out, _ = demo
    collected = json.loads((out / "findings.json").read_text())
    direct = audit_snapshot(S.sample_snapshot(), AuditOptions(use_config=False)).to_json()

    def rows(doc: dict[str, object]) -> set[tuple[str, str, str]]:
        findings = doc["findings"]
        assert isinstance(findings, list)
        return {(f["ruleId"], f["status"], f["resourceId"].lower()) for f in findings}

    assert rows(collected) == rows(direct)
    assert collected["summary"] == direct["summary"]
    assert collected["summary"]["critical"] > 0


def test_gates_pass_and_fail_as_the_sample_intends(demo: tuple[Path, str]) -> None:
    _, stdout = demo
    assert "gate compliant-plan: passes (exit 0" in stdout
    assert "gate risky-plan: fails (exit 1" in stdout


def test_no_secret_reaches_any_output(demo: tuple[Path, str]) -> None:
    out, stdout = demo
    texts = {"stdout": stdout}
    for path in out.rglob("*"):
        if not path.is_file() or path.parent.name == "plans" or path.name == "sample-snapshot.json":
            continue  # the inputs hold the sample's secrets on purpose
        if path.suffix == ".pdf":
            texts[str(path)] = "\n".join(p.extract_text() for p in PdfReader(path).pages)
        else:
            texts[str(path)] = path.read_text(encoding="utf-8-sig")
    assert len(texts) > 10
    for where, text in texts.items():
        for secret in SECRETS:
            assert secret not in text, f"a secret reached {where}"


def test_a_file_in_place_of_the_folder_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "not-a-folder"
    target.write_text("x")
    assert main(["demo", "--out", str(target)]) == 2
    err = capsys.readouterr().err
    assert str(target) in err and "Traceback" not in err
    assert target.read_text() == "x"
