"""The seeded secrets: distinctive values placed only where a secret belongs (secret fields, unknown
fields with secret-looking names, credentials), so that any of them found in an output is a leak.

Every secret is plain ASCII without characters that JSON, HTML, XML, CSV or URLs escape, so a leak
shows verbatim whatever the output format. A leak is detected by markers: a distinctive part of each
secret (a quoted prefix such as ``"S3cr3t..."`` counts too).
"""

from __future__ import annotations

from collections.abc import Iterable

PASSWORD = "S3cr3t-Fuzz-Pw-1"
GITHUB_TOKEN = "ghp_Fz9kQ2wLx7vB4nM8pR1tY6uE3iO0aS5dF2gH"
STORAGE_KEY = "Zk3yFzStorageKey0123456789abcdefghijklmnopqrstuvwxyzABCDEFGH=="
HEX_TOKEN = "fa11ed5ec7e7f0e1d2c3b4a5968778695a4b3c2d"
PRIVATE_KEY = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    "MIIEowIBAAKCAQEAfuzzPemBody0123456789abcdefghijklmnopqrstuvwxyz\n"
    "-----END RSA PRIVATE KEY-----"
)
SSH_KEY = "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQCfuzzSshKeyMaterial0123456789 fuzz@host"
CONNECTION_STRING = "Server=tcp:db.example;User Id=sa;Password=S3cr3t-Fuzz-Conn-9;"
BEARER_TOKEN = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJmdXp6In0.S3cr3tFuzzBearerSig"

SECRETS: tuple[str, ...] = (
    PASSWORD,
    GITHUB_TOKEN,
    STORAGE_KEY,
    HEX_TOKEN,
    PRIVATE_KEY,
    SSH_KEY,
    CONNECTION_STRING,
    BEARER_TOKEN,
)

MARKERS: tuple[str, ...] = (
    "S3cr3t",
    "ghp_Fz9k",
    "Zk3yFz",
    "fa11ed5ec7",
    "BEGIN RSA PRIVATE KEY",
    "MIIEowIBAAKCAQEAfuzz",
    "AAAAB3NzaC1yc2EAAAADAQABAAABAQCfuzz",
    "eyJzdWIiOiJmdXp6In0",
)
"""Distinctive parts of the secrets above: each secret contains at least one."""

SECRET_KEYS: tuple[str, ...] = (
    "password",
    "adminPassword",
    "apiToken",
    "accessToken",
    "clientSecret",
    "secret",
    "storageKey",
    "privateKey",
    "connectionString",
    "credential",
    "certificate",
    "sasToken",
    "x-api-key",
    "PASSWORD",
)
"""Unknown field names that look like secrets (issue 16: dropped, never quoted)."""

_MARKER_BYTES = tuple(m.encode() for m in MARKERS)


def leaked(text: str | bytes) -> list[str]:
    """The markers found in ``text``."""
    if isinstance(text, bytes):
        return [m.decode() for m in _MARKER_BYTES if m in text]
    return [m for m in MARKERS if m in text]


def leaks_in(named: Iterable[tuple[str, str | bytes]]) -> list[str]:
    """``where: marker`` for every marker found in the named texts."""
    return [f"{name}: {marker!r}" for name, text in named for marker in leaked(text)]


assert all(any(m in s for m in MARKERS) for s in SECRETS)
