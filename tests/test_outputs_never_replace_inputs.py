"""No output is written over a file the same run reads as an input (issue 16: nothing the user gave
is lost or overwritten), whatever the output's format or the input's role."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from auditor.cli import main
from auditor.estate.sample import sample_snapshot_bytes


@pytest.fixture
def snapshot(tmp_path: Path) -> Path:
    path = tmp_path / "estate.json"
    path.write_bytes(sample_snapshot_bytes())
    return path


@pytest.mark.parametrize("fmt", ["json", "sarif", "html", "csv"])
def test_a_report_over_the_snapshot_is_refused_and_the_snapshot_kept(
    snapshot: Path, fmt: str, capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot.read_bytes()
    code = main(["audit", "--snapshot", str(snapshot), "-o", f"{fmt}={snapshot}", "-q"])
    err = capsys.readouterr().err
    assert code == 2
    assert str(snapshot) in err and "input" in err
    assert snapshot.read_bytes() == before


def test_a_report_over_a_waivers_file_is_refused(
    snapshot: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    waivers = tmp_path / "waivers.yaml"
    waivers.write_text("version: 1\nwaivers: []\n")
    code = main(
        ["audit", "--snapshot", str(snapshot), "--waivers", str(waivers), "-o", f"json={waivers}"]
    )
    assert code == 2
    assert waivers.read_text() == "version: 1\nwaivers: []\n"
    assert "input" in capsys.readouterr().err


def test_the_next_command_may_write_where_the_last_one_read(snapshot: Path, tmp_path: Path) -> None:
    # inputs belong to one command: a later run writing over an earlier run's input is the user's
    # explicit choice (and another file now)
    report = tmp_path / "report.json"
    assert main(["audit", "--snapshot", str(snapshot), "-o", f"json={report}", "-q"]) in (0, 1)
    assert main(["audit", "--snapshot", str(snapshot), "-o", f"json={report}", "-q"]) in (0, 1)
    assert report.stat().st_size > 0
    os.unlink(report)
