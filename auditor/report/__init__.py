"""Renderers: one findings model (``auditor.audit.findings``), many output formats.

``RENDERERS`` maps a format name (contracts section 5: ``-o FORMAT``) to a function
``(AuditResult, RenderOptions) -> bytes``. Each format lives in its own module with a ``render``
function; the registry imports a module only when its format is asked for, so heavy libraries
(Jinja2, WeasyPrint, nh3) never slow down ``auditor --help``.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from auditor.audit.findings import AuditResult


@dataclass(frozen=True)
class RenderOptions:
    """Settings a renderer may use; every field has a sensible default."""

    title: str = "Audit report"
    compact: bool = False
    """Text: the summary and one line per failing rule instead of every finding."""
    include_passed: bool = False
    """HTML and PDF: list every passing finding (by default passes are counted per rule and
    resource type; ``--include-passed``)."""
    sarif_anchor: str | None = None
    """``--sarif-anchor PATH``: the file every SARIF result is anchored to (overrides sources)."""
    source_root: str | None = None
    """Folder SARIF artifact URIs are made relative to (default: the current directory)."""
    sarif_max_results: int = 25_000
    """Code scanning accepts at most 25,000 results per run; the most severe are kept."""
    markdown_max_chars: int = 60_000
    """A pull-request comment holds 65,536 characters; the Markdown summary stays below this."""
    pdf_timeout: float = 300.0
    """Seconds the PDF child process may take before it is stopped."""
    pdf_detail_per_rule: int = 3
    """Findings per rule shown in full in the PDF; the rest go in a compact table."""
    pdf_max_table_rows: int = 1_000
    """Rows of the PDF's compact tables in all; beyond this the PDF points to the other formats."""


Renderer = Callable[["AuditResult", RenderOptions], bytes]


def _lazy(module: str) -> Renderer:
    def call(result: AuditResult, options: RenderOptions) -> bytes:
        mod = importlib.import_module(f"auditor.report.{module}")
        return cast(bytes, mod.render(result, options))

    call.__name__ = f"render_{module.rstrip('_')}"
    return call


RENDERERS: dict[str, Renderer] = {
    "text": _lazy("text"),
    "json": _lazy("json"),
    "sarif": _lazy("sarif"),
    "junit": _lazy("junit"),
    "csv": _lazy("csv_"),
    "markdown": _lazy("markdown"),
    "html": _lazy("html"),
    "pdf": _lazy("pdf"),
    "ocsf": _lazy("ocsf"),
}

FILE_NAMES: dict[str, str] = {
    "text": "report.txt",
    "json": "findings.json",
    "sarif": "findings.sarif",
    "junit": "junit.xml",
    "csv": "findings.csv",
    "markdown": "summary.md",
    "html": "report.html",
    "pdf": "report.pdf",
    "ocsf": "findings.ocsf.json",
}
"""The file each format gets in ``render_all``'s folder."""


def render(
    result: AuditResult,
    fmt: str,
    path: str | os.PathLike[str] | None = None,
    options: RenderOptions | None = None,
) -> bytes:
    """Render ``result`` as ``fmt``; write it to ``path`` (atomically, replacing a previous report)
    when one is given, and return the bytes."""
    try:
        renderer = RENDERERS[fmt]
    except KeyError:
        from auditor.errors import InputError

        known = ", ".join(sorted(RENDERERS))
        raise InputError(f"unknown output format {fmt!r}; expected one of {known}") from None
    data = renderer(result, options or RenderOptions())
    if path is not None:
        from auditor.estate import write_atomic

        write_atomic(path, data, overwrite=True, what=f"{fmt} report")
    return data


STREAMED: frozenset[str] = frozenset({"json", "csv", "junit", "text", "html", "sarif"})
"""Formats written as a stream (:func:`stream`): JSON, CSV and JUnit list every pass (a large
estate has millions), the text every failing finding; HTML and SARIF hold their listed findings
encoded, never the whole page or log."""


def stream(result: AuditResult, fmt: str, options: RenderOptions | None = None) -> Iterable[bytes]:
    """The bytes of :func:`render` as parts: a part at a time for the formats of
    :data:`STREAMED`, so the whole report never sits in memory."""
    if fmt in STREAMED:
        mod = importlib.import_module(f"auditor.report.{'csv_' if fmt == 'csv' else fmt}")
        return cast(Iterable[bytes], mod.chunks(result, options or RenderOptions()))
    return [render(result, fmt, None, options)]


def write(
    result: AuditResult,
    fmt: str,
    path: str | os.PathLike[str],
    options: RenderOptions | None = None,
) -> None:
    """Render ``result`` as ``fmt`` into ``path`` (atomically, replacing a previous report),
    streamed (:func:`stream`)."""
    if fmt not in STREAMED:
        render(result, fmt, path, options)
        return
    from auditor.estate import write_atomic

    write_atomic(path, stream(result, fmt, options), overwrite=True, what=f"{fmt} report")


def render_all(
    result: AuditResult,
    out_dir: str | os.PathLike[str],
    formats: Iterable[str] | None = None,
    options: RenderOptions | None = None,
) -> dict[str, Path]:
    """Render every registered format (or ``formats``) into ``out_dir``; return format -> file."""
    folder = Path(out_dir)
    out: dict[str, Path] = {}
    for fmt in formats if formats is not None else list(RENDERERS):
        target = folder / FILE_NAMES.get(fmt, f"report.{fmt}")
        write(result, fmt, target, options)
        out[fmt] = target
    return out
