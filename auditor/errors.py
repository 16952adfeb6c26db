"""Exceptions every layer may raise; the CLI maps them to messages and exit codes.

No exception here ever carries a secret: messages are built from paths, types and shapes only.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_GATE_FAILED = 1
EXIT_INPUT = 2
EXIT_INCOMPLETE = 3


class AuditorError(Exception):
    """Base of every error the tool reports to a user (never with a traceback)."""

    exit_code: int = EXIT_INPUT

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class InputError(AuditorError):
    """Unusable input: a file, an argument or a value the user gave (exit code 2).

    ``source`` names the file (or argument), ``location`` the JSON path, ``line:column`` or column.
    """

    exit_code = EXIT_INPUT

    def __init__(
        self,
        message: str,
        *,
        source: str | None = None,
        location: str | None = None,
    ) -> None:
        self.source = source
        self.location = location
        self.detail = message
        prefix = ""
        if source and location:
            prefix = f"{source}: {location}: "
        elif source:
            prefix = f"{source}: "
        elif location:
            prefix = f"{location}: "
        super().__init__(prefix + message)


class IncompleteError(AuditorError):
    """A source could not be read in full; the evaluation is incomplete (exit code 3)."""

    exit_code = EXIT_INCOMPLETE
