"""Where the shipped data folders (``grammar/``, ``rules/``, ``reports/``) are.

In a wheel they are packaged under ``auditor/_shipped/``; in a checkout (or an editable install) they
sit at the repository root beside the package.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


@cache
def data_dir(name: str) -> Path:
    """Return the folder of shipped data called ``name`` (``grammar``, ``rules`` or ``reports``)."""
    for candidate in (_PACKAGE / "_shipped" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"shipped data folder {name!r} is missing from this installation")
