"""The parts of the model that need no pydantic: constants and name tests the engines use on every
command. Importing this module (and :mod:`auditor.model`, whose exports are lazy) builds no model,
so a command that answers from compact records starts without pydantic."""

from __future__ import annotations

import re

__all__ = ["ALL_PRINCIPALS_ID", "is_secret_key"]

ALL_PRINCIPALS_ID = "00000000-0000-0000-0000-000000000000"
"""With type ``SystemDefined`` in a deny assignment's principals: every principal."""

# Keys inside configuration maps whose values are secrets (compared case-insensitively): a
# password, a secret, a token, a key (`storage.key`, `fs.azure.account.key.ACCOUNT.blob...`).
_SECRET_KEY = re.compile(r"(password|passwd|secret|(^|[._-])key($|[._-])|token)", re.IGNORECASE)


def is_secret_key(key: str) -> bool:
    """True when a configuration key names a secret (``restAuthCredential.password``, ...)."""
    return bool(_SECRET_KEY.search(key))
