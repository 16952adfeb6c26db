"""``auditor estate show|generate`` and ``auditor demo``."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add the estate commands to ``app``."""
