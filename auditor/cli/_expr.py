"""``auditor filter check``, ``auditor condition check`` and ``auditor query``."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add the expression-language commands to ``app``."""
