"""The entry points: :func:`import_estate` (many files and folders into one snapshot) and
:func:`load_estate` (what every ``--snapshot`` option reads: a snapshot file straight through the
snapshot loader, anything else through the export readers)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Sequence

from auditor.errors import InputError
from auditor.estate.snapshot import Snapshot
from auditor.sources.exports._assemble import Assembler
from auditor.sources.exports._documents import FileRead
from auditor.sources.exports._read import EXPECTED, ExportFormat, read_path
from auditor.sources.exports._snapshot import ImportedSnapshot

PathLike = str | os.PathLike[str]
SUFFIXES = (".json", ".har", ".yaml", ".yml")
"""The files of a folder an import reads; others are listed as skipped."""


def _format(value: ExportFormat | str | None) -> ExportFormat | None:
    if value is None or isinstance(value, ExportFormat):
        return value
    try:
        return ExportFormat(str(value).lower())
    except ValueError:
        choices = ", ".join(f.value for f in ExportFormat)
        raise InputError(f"unknown format {str(value)!r}; expected one of {choices}") from None


def _folder(name: str) -> list[str]:
    found: list[str] = []
    for root, dirs, files in os.walk(name):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        found.extend(os.path.join(root, f) for f in files if not f.startswith("."))
    return sorted(found, key=lambda p: os.path.relpath(p, name).split(os.sep))


def _nothing(fr: FileRead) -> str:
    if fr.unrecognised is not None:
        return fr.unrecognised
    reasons = sorted({reason for _, reason in fr.skipped})
    if reasons:
        shown = "; ".join(reasons[:3]) + (
            f"; and {len(reasons) - 3:,} more" if len(reasons) > 3 else ""
        )
        return f"every item was skipped ({shown})"
    return "it holds no records"


def _refuse(name: str, fr: FileRead) -> InputError:
    return InputError(
        f"nothing auditable recognised: {_nothing(fr)}\n  expected {EXPECTED}", source=name
    )


def _assemble(
    inputs: Iterable[tuple[str, bool]], fmt: ExportFormat | None, source: str, where: str = ""
) -> ImportedSnapshot:
    asm = Assembler()
    anything = False
    for name, explicit in inputs:
        if not explicit and not name.lower().endswith(SUFFIXES):
            asm.skip_file(name, "not a .json, .har, .yaml or .yml file")
            continue
        try:
            fr = read_path(name, fmt)
        except InputError as exc:
            if explicit:
                raise
            where = f" at {exc.location}" if exc.location else ""
            asm.skip_file(name, f"cannot be read{where}: {exc.detail}", warn=True)
            continue
        if fr.unrecognised is not None:
            if explicit:
                raise _refuse(name, fr)
            asm.skip_file(name, fr.unrecognised, warn=True)
            continue
        row = asm.add(fr)
        if asm.placed(row) or fr.listed or fr.snapshot is not None:
            anything = True
        elif explicit:
            raise _refuse(name, fr)
    if not anything:
        raise InputError(
            f"nothing auditable recognised in any file{where}\n  expected {EXPECTED}",
            source=source,
        )
    return asm.finish(source)


def import_estate(
    paths: Sequence[PathLike], *, format: ExportFormat | str | None = None
) -> ImportedSnapshot:
    """One snapshot from any mix of exports, snapshots and folders of them (contracts §8).

    A file named in ``paths`` in which nothing auditable is recognised is an InputError (exit code
    2) naming it and what was expected; in a folder (read recursively, hidden entries left out,
    files in name order) such files are listed as skipped. ``format`` forces how every file is read
    (:class:`ExportFormat`). The result carries the provenance of every record and the summary.
    """
    fmt = _format(format)
    names = [os.fspath(p) for p in paths]
    if not names:
        raise InputError("give at least one file or folder to import")
    inputs: list[tuple[str, bool]] = []
    for name in names:
        if os.path.isdir(name):
            inside = _folder(name)
            if not inside:
                raise InputError("the directory holds no file to import", source=name)
            inputs.extend((p, False) for p in inside)
        else:
            inputs.append((name, True))
    source = names[0] if len(names) == 1 else ", ".join(names)
    where = " of the directory" if any(os.path.isdir(n) for n in names) else ""
    return _assemble(inputs, fmt, source, where)


def load_estate(path: PathLike, *, snapshot_only: bool = False) -> Snapshot:
    """The estate a ``--snapshot`` option names: a snapshot file (contracts §2) read by the
    snapshot loader as it is, or an export (or a folder of them) imported on the fly.

    The file is read once: a snapshot is recognised by its first bytes (or, failing that, by its
    top-level keys, split without building objects). Unknown top-level keys of a snapshot are
    named in a warning (``Snapshot.warnings``). An input in which nothing auditable is recognised
    is an InputError naming the file and what was expected. ``snapshot_only``: refuse anything
    but a snapshot file (for commands that write back to it).
    """
    name = os.fspath(path)
    if os.path.isdir(name):
        if snapshot_only:
            raise InputError("expected a snapshot file, found a directory", source=name)
        return import_estate([name])
    fr = read_path(name)
    if fr.snapshot is not None:
        return fr.snapshot
    if snapshot_only:
        what = fr.kind or "a file that is not one"
        raise InputError(
            f"expected a snapshot file (contracts §2), found {what}: import it first with "
            "`auditor estate import`",
            source=name,
        )
    if fr.unrecognised is not None:
        raise _refuse(name, fr)
    asm = Assembler()
    row = asm.add(fr)
    if not (asm.placed(row) or fr.listed):
        raise _refuse(name, fr)
    return asm.finish(name)


def check_output(out: PathLike, inputs: Sequence[PathLike], *, force: bool) -> None:
    """Refuse an output that exists (unless ``force``) and, always, one that is an input or lies
    in an input folder: an import never overwrites what it reads. ``-``, devices and pipes are
    written in place and pass."""
    name = os.fspath(out)
    if name == "-":
        return
    try:
        info = os.stat(name)
    except OSError:
        return
    if not stat.S_ISREG(info.st_mode):
        return
    real = os.path.realpath(name)
    for given in inputs:
        other = os.path.realpath(os.fspath(given))
        if real == other or (
            os.path.isdir(other) and real.startswith(other.rstrip(os.sep) + os.sep)
        ):
            raise InputError(
                "the output is one of the inputs (or inside an input folder): an import never "
                "overwrites what it reads; choose another name",
                source=name,
            )
    if not force:
        raise InputError("the file exists already; choose another name or add --force", source=name)
