"""Lazy exports: a package's public names imported from their modules on first use, so that
importing the package (and starting the command line) stays light. The one place this trick lives.

    _LAZY = {"AuditOptions": "auditor.audit.runner", "views": "views"}
    __getattr__ = lazy_exports(__name__, _LAZY)
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(package: str, table: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: ``table`` maps each lazily exported name to the
    module that holds it (a full module name, or a submodule's name within ``package``). The value
    is kept in the package once imported."""

    def __getattr__(name: str) -> Any:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        full = module if module.startswith("auditor.") else f"{package}.{module}"
        value = getattr(importlib.import_module(full), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
