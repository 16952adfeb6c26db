"""The two deterministic hash functions of the template language, implemented exactly.

- ``uniqueString(a, b, ...)``: the arguments joined with ``-``, encoded as UTF-8, hashed with the
  vendor's 64-bit variant of MurmurHash (two 32-bit lanes, seed 0), and written as the first 13
  characters of the hash's RFC 4648 base32 spelling in lower case (5 bits a character, most
  significant first).
- ``guid(a, b, ...)``: a name-based (version 5, SHA-1) UUID of the arguments joined with ``-``, in
  the namespace ``11fb06fb-712d-4ddd-98c7-e71bbd588830``.

Both are as published by independent re-implementations that reproduce the vendor's outputs; the
tests pin known outputs.
"""

from __future__ import annotations

import uuid

__all__ = ["arm_guid", "unique_string"]

_ARM_NAMESPACE = uuid.UUID("11fb06fb-712d-4ddd-98c7-e71bbd588830")
_ALPHABET = "abcdefghijklmnopqrstuvwxyz234567"
_M32 = 0xFFFFFFFF
_C1 = 0x239B961B  # 597399067
_C2 = 0xAB0E9789  # 2869860233
_C3 = 0x85EBCA6B
_C4 = 0xC2B2AE35


def arm_guid(parts: list[str]) -> str:
    """``guid(parts...)``: the version-5 UUID of ``'-'.join(parts)`` in the template namespace."""
    return str(uuid.uuid5(_ARM_NAMESPACE, "-".join(parts)))


def unique_string(parts: list[str]) -> str:
    """``uniqueString(parts...)``: 13 base32 characters of the 64-bit hash of ``'-'.join(parts)``."""
    value = _murmur64("-".join(parts).encode("utf-8"))
    out = []
    for _ in range(13):
        out.append(_ALPHABET[value >> 59])
        value = (value << 5) & 0xFFFFFFFFFFFFFFFF
    return "".join(out)


def _rotl(value: int, bits: int) -> int:
    return ((value << bits) | (value >> (32 - bits))) & _M32


def _fmix(value: int) -> int:
    value ^= value >> 16
    value = (value * _C3) & _M32
    value ^= value >> 13
    value = (value * _C4) & _M32
    value ^= value >> 16
    return value


def _murmur64(data: bytes) -> int:
    length = len(data)
    h1 = 0
    h2 = 0
    index = 0
    while index + 7 < length:
        k1 = int.from_bytes(data[index : index + 4], "little")
        k2 = int.from_bytes(data[index + 4 : index + 8], "little")
        k1 = (_rotl((k1 * _C1) & _M32, 15) * _C2) & _M32
        h1 = (_rotl(h1 ^ k1, 19) + h2) & _M32
        h1 = (h1 * 5 + 0x561CCD1B) & _M32
        k2 = (_rotl((k2 * _C2) & _M32, 17) * _C1) & _M32
        h2 = (_rotl(h2 ^ k2, 13) + h1) & _M32
        h2 = (h2 * 5 + 0x0BCAA747) & _M32
        index += 8
    tail = length - index
    if tail > 0:
        k1 = int.from_bytes(data[index : index + min(tail, 4)], "little")
        k1 = (_rotl((k1 * _C1) & _M32, 15) * _C2) & _M32
        h1 ^= k1
        if tail > 4:
            k2 = int.from_bytes(data[index + 4 : index + tail], "little")
            k2 = (_rotl((k2 * _C2) & _M32, 17) * _C1) & _M32
            h2 ^= k2
    h1 ^= length
    h2 ^= length
    h1 = (h1 + h2) & _M32
    h2 = (h2 + h1) & _M32
    h1 = _fmix(h1)
    h2 = _fmix(h2)
    h1 = (h1 + h2) & _M32
    h2 = (h2 + h1) & _M32
    return (h2 << 32) | h1
