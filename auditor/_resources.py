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


def user_cache_dir() -> Path | None:
    """The user's own cache folder for auditor (``$AUDITOR_CACHE_DIR``, else
    ``$XDG_CACHE_HOME/auditor``, else ``~/.cache/auditor``), made private (0700) if missing; None
    when it cannot be made or is not the user's own and writable (caches there may hold pickles
    or estate data: never a shared temporary folder)."""
    import os

    given = os.environ.get("AUDITOR_CACHE_DIR")
    if given:
        folder = Path(given)
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        folder = Path(base, "auditor")
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        if folder.stat().st_uid != os.getuid() or not os.access(folder, os.W_OK):
            return None
    except OSError:
        return None
    return folder
