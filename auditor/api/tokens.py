"""Where the bearer token of areas A to D comes from: an environment variable, a command that prints
it (``az account get-access-token --query accessToken -o tsv``), or ``azure-identity``'s
``DefaultAzureCredential`` (the optional extra ``auditor[azure]``).

A token is a :class:`~auditor.model.secrets.Secret` from the moment it is read: never logged,
never in an error message. A command's output is never quoted (it may hold a token); a failing
command is named by its program and exit status only (its arguments may hold a secret too). A token
from a command or azure-identity is renewable: the transport asks for a new one once when an answer
is 401 (the token expired during a long collection)."""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Callable
from dataclasses import dataclass

from auditor.api._transport import Credential
from auditor.errors import InputError
from auditor.model.secrets import Secret

MANAGEMENT_SCOPE = "https://management.azure.com/.default"
"""The scope of a token for the vendor's management API."""
COMMAND_TIMEOUT = 120.0
"""Seconds a token command may run (a sign-in prompt of ``az`` does not wait for ever)."""
INSTALL_AZURE = "pip install 'auditor[azure]'"


class TokenError(InputError):
    """No token could be got (exit code 2). The message never holds a token or a command's
    output."""


@dataclass(frozen=True)
class TokenSource:
    """A way to get the bearer token. ``what`` names it in messages; ``fetch`` reads a token
    (raising :class:`TokenError`); ``renewable``: asking again may give a new token."""

    what: str
    fetch: Callable[[], Secret]
    renewable: bool = False

    def credential(self) -> Credential:
        """The bearer credential of a token read now (renewed through ``fetch`` if renewable)."""
        return Credential.bearer(self.fetch(), renew=self.fetch if self.renewable else None)


def from_environment(variable: str) -> TokenSource:
    """The token in environment variable ``variable`` (read when asked for)."""

    def fetch() -> Secret:
        value = os.environ.get(variable, "").strip()
        if not value:
            raise TokenError(
                f"the environment variable {variable} is not set; put the bearer token there, "
                "or get one with --token-command or --token-source azure-identity"
            )
        return Secret(value)

    return TokenSource(f"the environment variable {variable}", fetch)


def command_argv(command: str) -> list[str]:
    """The command split as a POSIX shell would (no shell runs it)."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:  # an unclosed quote
        raise TokenError(f"cannot split the command: {exc}", source="--token-command") from None
    if not argv:
        raise TokenError("the command is empty", source="--token-command")
    return argv


def from_command(command: str, *, timeout: float = COMMAND_TIMEOUT) -> TokenSource:
    """The token a command prints on its standard output (trimmed). It runs without a shell,
    its standard error going to this process's (so that a sign-in hint of the command is seen)."""
    argv = command_argv(command)
    program = os.path.basename(argv[0])
    name = f"the token command '{program}'"

    def fetch() -> Secret:
        try:
            done = subprocess.run(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                check=False,
                timeout=timeout,
            )
        except FileNotFoundError:
            raise TokenError(f"{name} was not found", source="--token-command") from None
        except PermissionError:
            raise TokenError(
                f"{name} cannot be run (permission denied)", source="--token-command"
            ) from None
        except subprocess.TimeoutExpired:
            raise TokenError(
                f"{name} did not finish within {timeout:g} s", source="--token-command"
            ) from None
        except OSError as exc:
            raise TokenError(
                f"{name} cannot be run ({exc.strerror or type(exc).__name__})",
                source="--token-command",
            ) from None
        if done.returncode != 0:
            raise TokenError(
                f"{name} failed (exit status {done.returncode}); its output is not shown, as it "
                "may hold a token",
                source="--token-command",
            )
        try:
            token = done.stdout.decode("utf-8").strip()
        except UnicodeDecodeError:
            raise TokenError(
                f"{name} printed bytes that are not UTF-8 text", source="--token-command"
            ) from None
        if not token:
            raise TokenError(f"{name} printed no token", source="--token-command")
        if any(ch.isspace() for ch in token):
            raise TokenError(
                f"{name} printed more than one word; it should print the token alone (for the "
                "vendor CLI: --query accessToken -o tsv)",
                source="--token-command",
            )
        return Secret(token)

    return TokenSource(name, fetch, renewable=True)


def from_azure_identity(scope: str = MANAGEMENT_SCOPE) -> TokenSource:
    """A token of ``azure-identity``'s ``DefaultAzureCredential`` (environment, workload or
    managed identity, the vendor CLI's sign-in, ...); the package is imported only here."""
    try:
        from azure.identity import DefaultAzureCredential  # type: ignore[import-not-found,import-untyped,unused-ignore]
    except ImportError:
        raise TokenError(
            f"--token-source azure-identity needs the azure-identity package: {INSTALL_AZURE}"
        ) from None
    holder: list[object] = []

    def fetch() -> Secret:
        if not holder:
            holder.append(DefaultAzureCredential())
        credential = holder[0]
        try:
            access = credential.get_token(scope)  # type: ignore[attr-defined]
        except Exception as exc:  # azure-identity's errors; their messages hold no token
            raise TokenError(
                f"azure-identity gave no token ({type(exc).__name__}); sign in first (for "
                "example `az login`) or set the AZURE_* environment variables"
            ) from None
        return Secret(str(access.token))

    return TokenSource("azure-identity", fetch, renewable=True)
