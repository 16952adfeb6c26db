"""OCSF output (issue 20, item 7): one Detection Finding event (OCSF 1.3, class 2004) per failing,
unknown, waived and baselined finding, validated with Prowler's OCSF models (py-ocsf-models)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from py_ocsf_models.events.findings.detection_finding import DetectionFinding

from auditor.cli import main
from auditor.report import FILE_NAMES, RENDERERS, RenderOptions, render
from tests.report_fixtures import SECRETS, make_result

CLUSTERS = Path(__file__).resolve().parent / "data" / "terraform" / "clusters"
FREE = {"unmapped", "data"}  # objects OCSF leaves to the producer


def _unknown_keys(sent: Any, kept: Any, path: str = "") -> list[str]:
    """Keys of ``sent`` the OCSF model did not keep (not an attribute of the class)."""
    out: list[str] = []
    if isinstance(sent, dict) and isinstance(kept, dict):
        for key, value in sent.items():
            if key not in kept:
                out.append(f"{path}/{key}")
            elif key not in FREE:
                out += _unknown_keys(value, kept[key], f"{path}/{key}")
    elif isinstance(sent, list) and isinstance(kept, list):
        for i, (a, b) in enumerate(zip(sent, kept, strict=True)):
            out += _unknown_keys(a, b, f"{path}[{i}]")
    return out


def _validate(event: dict[str, Any]) -> DetectionFinding:
    model = DetectionFinding.model_validate(event)
    kept = model.model_dump(mode="json", exclude_none=True)
    assert _unknown_keys(event, kept) == [], event["finding_info"]["uid"]
    assert model.class_uid == 2004 and int(model.type_uid) == 200401
    return model


def test_every_reported_finding_is_a_valid_detection_finding(tmp_path: Path) -> None:
    result = make_result(tmp_path)
    data = render(result, "ocsf", tmp_path / "out.ocsf.json", RenderOptions())
    events = json.loads(data)
    assert isinstance(events, list)
    reported = [f for f in result.findings if f.status != "pass"]
    assert len(events) == len(reported) and reported
    for finding, event in zip(reported, events, strict=True):
        model = _validate(event)
        assert event["metadata"]["version"] >= "1.3"
        assert model.finding_info.analytic is not None
        assert model.finding_info.analytic.uid == finding.ruleId
        assert event["finding_info"]["uid"] == finding.fingerprint
        assert event["resources"][0]["uid"] == finding.resourceId
        assert event["evidences"][0]["data"] == json.loads(json.dumps(finding.evidence))
        assert event["status_code"] == finding.status.upper()
        assert event["unmapped"]["compliance"]["control"] == finding.ruleId
        suppressed = finding.status in ("waived", "baselined")
        assert event["status_id"] == (3 if suppressed else 1)
        assert event["severity"].lower().startswith(finding.severity[:4])
        if finding.waiver is not None:
            assert event["unmapped"]["compliance"]["waiver"]["id"] == finding.waiver.id
    text = data.decode("utf-8")
    for secret in SECRETS:
        assert secret not in text


def test_registered_like_every_format() -> None:
    assert "ocsf" in RENDERERS and FILE_NAMES["ocsf"].endswith(".json")


def test_gate_writes_ocsf_that_counts_what_the_json_counts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "auditor.toml").write_text("")  # no configuration found above tmp dirs
    code = main(["gate", str(CLUSTERS), "-q", "-o", "ocsf=f.ocsf.json", "-o", "json=f.json"])
    capsys.readouterr()
    assert code == 1
    events = json.loads((tmp_path / "f.ocsf.json").read_text())
    doc = json.loads((tmp_path / "f.json").read_text())
    reported = [f for f in doc["findings"] if f["status"] != "pass"]
    assert len(events) == len(reported)
    assert sum(e["status_code"] == "UNKNOWN" for e in events) == doc["summary"]["unknown"] == 1
    for event in events:
        _validate(event)
        assert event["resources"][0]["data"]["source"]["file"].endswith(".tf")
