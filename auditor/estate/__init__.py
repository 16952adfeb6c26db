"""The estate's files: snapshots and plans (:mod:`.snapshot`, :mod:`.plan`), and the input and
output helpers every reader and writer of a file uses; the record helpers the import of real
exports shares with the snapshot loader (:func:`known_fields`, :func:`drop_secret_looking`,
:func:`first_difference`; imported lazily, so ``import auditor.estate`` stays light); the persistent
cache of loaded snapshots (:class:`EstateCache`, :mod:`.cache`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from auditor._lazy import lazy_exports
from auditor.estate._files import (
    check_utf8,
    open_input,
    read_input_bytes,
    read_input_text,
    tracking_inputs,
    write_atomic,
)

if TYPE_CHECKING:
    from auditor.estate._duplicates import first_difference
    from auditor.estate._json import MAX_DEPTH, check_value, decode_json, nesting_error
    from auditor.estate._unknown import drop_secret_looking, known_fields
    from auditor.estate.cache import EstateCache, default_cache_directory

_LAZY = {
    # the JSON helpers import msgspec: the command line's start-up needs only the file helpers
    "MAX_DEPTH": "auditor.estate._json",
    "check_value": "auditor.estate._json",
    "decode_json": "auditor.estate._json",
    "nesting_error": "auditor.estate._json",
    "drop_secret_looking": "auditor.estate._unknown",
    "known_fields": "auditor.estate._unknown",
    "first_difference": "auditor.estate._duplicates",
    "EstateCache": "auditor.estate.cache",
    "default_cache_directory": "auditor.estate.cache",
}

__all__ = [
    "MAX_DEPTH",
    "EstateCache",
    "check_utf8",
    "check_value",
    "decode_json",
    "default_cache_directory",
    "drop_secret_looking",
    "first_difference",
    "known_fields",
    "nesting_error",
    "open_input",
    "read_input_bytes",
    "read_input_text",
    "tracking_inputs",
    "write_atomic",
]


__getattr__ = lazy_exports(__name__, _LAZY)
