"""The estate's files: snapshots and plans (:mod:`.snapshot`, :mod:`.plan`), and the input and
output helpers every reader and writer of a file uses."""

from auditor.estate._files import (
    check_utf8,
    open_input,
    read_input_bytes,
    read_input_text,
    track_inputs,
    write_atomic,
)
from auditor.estate._json import MAX_DEPTH, check_value, decode_json, nesting_error

__all__ = [
    "MAX_DEPTH",
    "check_utf8",
    "check_value",
    "decode_json",
    "nesting_error",
    "open_input",
    "read_input_bytes",
    "read_input_text",
    "track_inputs",
    "write_atomic",
]
