"""Fuzzing Terraform through ``auditor gate`` (both HCL parsers: tree-sitter's, and python-hcl2's
where tree-sitter refuses or for the wording of errors): whatever the bytes, an exit code of the
contract, an error that names the file, no internal error, and the seeded secrets (in the
clusters' password and storage key arguments) never echoed."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz._bases import AS_OF
from tests.fuzz._harness import budget, run_and_check
from tests.fuzz._hostile import mutated_bytes
from tests.fuzz._secrets import PASSWORD, STORAGE_KEY

FILE = "main.tf"
OUTPUTS = ("text", "json", "sarif", "csv", "html")
_DATA = Path(__file__).resolve().parent.parent / "data" / "terraform"


def _seeded(text: str) -> bytes:
    """A fixture with the seeded secrets where its made-up ones were."""
    text = re.sub(r'(\bpassword\s*=\s*)"[^"]*"', rf'\g<1>"{PASSWORD}"', text)
    text = re.sub(r'(\bstorage_account_key\s*=\s*)"[^"]*"', rf'\g<1>"{STORAGE_KEY}"', text)
    return text.encode()


_BASES = [
    _seeded(path.read_text(encoding="utf-8"))
    for path in sorted(_DATA.rglob("*.tf"))
    if "syntax" not in path.parts
]
assert any(PASSWORD.encode() in b for b in _BASES) and any(
    STORAGE_KEY.encode() in b for b in _BASES
)


def _gate(fmt: str) -> list[str]:
    return ["gate", FILE, "--as-of", AS_OF, "-o", f"{fmt}=report.{fmt}", "-o", "text"]


@budget(quick=12)
@given(data=st.sampled_from(_BASES), fmt=st.sampled_from(OUTPUTS))
def test_fixtures_with_seeded_secrets(data: bytes, fmt: str) -> None:
    run_and_check(_gate(fmt), inputs={FILE: data}, input_name=FILE)


@budget(quick=30)
@given(data=st.sampled_from(_BASES).flatmap(mutated_bytes), fmt=st.sampled_from(OUTPUTS))
def test_damaged_terraform_bytes(data: bytes, fmt: str) -> None:
    # a damaged file can move a secret into an ordinary argument: only messages are checked
    run_and_check(_gate(fmt), inputs={FILE: data}, input_name=FILE, secrets_in="messages")
