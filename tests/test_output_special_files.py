"""Output files (issue 16): a report replaces a regular file atomically, but a device, a named pipe,
``/dev/stdout`` or a symbolic link to one is written to in place (never replaced by a regular file),
and a directory is an input error (exit 2)."""

from __future__ import annotations

import json
import os
import stat
import threading
from pathlib import Path

import pytest

from auditor.cli import main
from auditor.errors import InputError
from auditor.estate import write_atomic
from auditor.estate.sample import sample_snapshot_bytes


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("estate") / "snapshot.json"
    path.write_bytes(sample_snapshot_bytes())
    return path


@pytest.fixture(autouse=True)
def _no_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def _read_fifo(path: Path, into: list[bytes]) -> threading.Thread:
    def reader() -> None:
        with open(path, "rb") as fh:
            into.append(fh.read())

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    return thread


def test_a_named_pipe_is_written_to_not_replaced(snapshot: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "report.pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    thread = _read_fifo(fifo, got)
    code = main(["audit", "--snapshot", str(snapshot), "-o", f"json={fifo}"])
    thread.join(10)
    assert code == 1 and not thread.is_alive()
    assert json.loads(got[0])["schemaVersion"] == 1
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.pipe"]  # no temporary left


def test_a_symbolic_link_to_a_pipe_stays_a_link(snapshot: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "real.pipe"
    os.mkfifo(fifo)
    link = tmp_path / "link.sarif"
    link.symlink_to(fifo)
    got: list[bytes] = []
    thread = _read_fifo(fifo, got)
    code = main(["audit", "--snapshot", str(snapshot), "-o", f"sarif={link}"])
    thread.join(10)
    assert code == 1 and json.loads(got[0])["version"] == "2.1.0"
    assert os.path.islink(link) and stat.S_ISFIFO(os.stat(link).st_mode)


def test_dev_null_stays_a_device(snapshot: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = os.stat("/dev/null")
    assert main(["audit", "--snapshot", str(snapshot), "-o", "json=/dev/null"]) == 1
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev
    assert "wrote json report to /dev/null" in capsys.readouterr().err


def test_dev_stdout_gets_the_report(snapshot: Path, capfd: pytest.CaptureFixture[str]) -> None:
    code = main(["audit", "--snapshot", str(snapshot), "-o", "sarif=/dev/stdout"])
    out = capfd.readouterr().out
    assert code == 1
    assert json.loads(out)["version"] == "2.1.0"


def test_dev_stdout_after_text_keeps_the_text(
    snapshot: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """Standard output redirected to a file is appended to, not truncated nor replaced."""
    code = main(["audit", "--snapshot", str(snapshot), "-o", "text", "-o", "json=/dev/stdout"])
    out = capfd.readouterr().out
    assert code == 1
    text, brace, rest = out.partition("\n{")
    assert "FAILED" in text and json.loads(brace[1:] + rest)["schemaVersion"] == 1


def test_a_directory_is_an_input_error(
    snapshot: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "reports"
    folder.mkdir()
    code = main(["audit", "--snapshot", str(snapshot), "-o", f"json={folder}"])
    err = capsys.readouterr().err
    assert code == 2 and str(folder) in err and "directory" in err
    assert folder.is_dir() and not any(folder.iterdir())


def test_regular_files_are_still_replaced_atomically(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    target.write_bytes(b"old")
    inode = os.stat(target).st_ino
    write_atomic(target, b"new", overwrite=True)
    assert target.read_bytes() == b"new" and os.stat(target).st_ino != inode
    with pytest.raises(InputError, match="exists already"):
        write_atomic(target, b"newer")
    assert target.read_bytes() == b"new"
    link = tmp_path / "link.json"
    link.symlink_to(target)
    write_atomic(link, b"through the link", overwrite=True)  # a link to a file: replaced as before
    assert link.read_bytes() == b"through the link"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.json", "out.json"]


def test_writing_to_a_pipe_whose_reader_is_gone(tmp_path: Path) -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)
    path = f"/proc/self/fd/{write_end}"
    try:
        with pytest.raises(InputError, match=r"reader went away"):
            write_atomic(path, b"x" * 100_000, what="json report")
    finally:
        os.close(write_end)


def test_devices_are_written_in_place_even_without_overwrite() -> None:
    write_atomic("/dev/null", b"discarded")  # not "exists already": nothing is replaced
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
