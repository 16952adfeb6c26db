"""The two HCL parses agree (issue 17, speed): tree-sitter's HCL grammar (the parser in use) and
python-hcl2's Lark grammar (the oracle, and the fallback where tree-sitter cannot load) give the
Terraform reader exactly the same result: request bodies with their unknowns, sources (file, line,
address), suppressions, warnings, and the same input errors, for every Terraform file of
tests/data and for generated configurations.

Known difference, by design: python-hcl2's comment finder also reads the text of a multi-line
string or heredoc holding ``#`` as comments (its tokens are not told apart); tree-sitter reads only
comments. python-hcl2 rejects a unary operator applied to another (``!!x``, ``- -1``), which HCL
and tree-sitter accept, an escaped ``$${`` or ``%%{`` without a closing brace, and a heredoc inside
an interpolation of a heredoc. The generated configurations keep clear of these."""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor.errors import InputError
from auditor.sources.terraform import _hcl, read_terraform

DATA = Path(__file__).parent / "data"


@contextmanager
def _backend(name: str) -> Iterator[None]:
    saved = _hcl._BACKEND
    _hcl._BACKEND = name
    try:
        yield
    finally:
        _hcl._BACKEND = saved


def _outcome(read: Callable[[], Any]) -> tuple[str, Any]:
    try:
        return "ok", read()
    except InputError as exc:
        return "error", (str(exc), exc.source, exc.location, exc.exit_code)


def _both(read: Callable[[], Any]) -> tuple[tuple[str, Any], tuple[str, Any]]:
    with _backend(_hcl.PYTHON_HCL2):
        oracle = _outcome(read)
    with _backend(_hcl.TREE_SITTER):
        native = _outcome(read)
    return oracle, native


def test_tree_sitter_is_the_parser_in_use(monkeypatch: pytest.MonkeyPatch) -> None:
    from auditor.sources.terraform._treesitter import available

    assert available()
    monkeypatch.setattr(_hcl, "_BACKEND", None)
    monkeypatch.delenv("AUDITOR_HCL_PARSER", raising=False)
    assert _hcl.parser_backend() == _hcl.TREE_SITTER


def _tf_targets() -> list[Path]:
    files = sorted(DATA.rglob("*.tf"))
    return sorted({*files, *(f.parent for f in files)})


@pytest.mark.parametrize("path", _tf_targets(), ids=lambda p: str(p.relative_to(DATA)))
def test_every_terraform_file_of_tests_data_reads_the_same(path: Path) -> None:
    oracle, native = _both(lambda: read_terraform(path, subscription_id=None))
    assert native == oracle


def test_the_syntax_error_is_python_hcl2s_description() -> None:
    oracle, native = _both(lambda: read_terraform(DATA / "terraform" / "syntax"))
    assert oracle[0] == "error" and native == oracle
    assert native[1][2] == "line 4, column 30"


# --- generated configurations ------------------------------------------------------------------

_NAMES = st.sampled_from(["a", "b", "tier", "name", "x_1", "enabled"])
_TEXT = st.lists(
    st.sampled_from([*'abcXYZ019 _-./:=é€\\"$}%~\t\n', "${x}", "%{y}"]), max_size=12
).map("".join)


def _quote(text: str) -> str:
    out = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return out.replace("${", "$${").replace("%{", "%%{")


@st.composite
def _strings(draw: st.DrawFn, inner: st.SearchStrategy[str]) -> str:
    pieces = draw(
        st.lists(st.one_of(_TEXT.map(_quote), inner.map(lambda e: f"${{{e}}}")), max_size=3)
    )
    return '"' + "".join(pieces) + '"'


_ATOMS = st.one_of(
    st.integers(min_value=0, max_value=10**20).map(str),
    st.sampled_from(["1.5", "2e3", "0.25", "true", "false", "null"]),
    _TEXT.map(lambda t: f'"{_quote(t)}"'),
    st.sampled_from(
        [
            "var.location",
            "var.tags",
            "var.secret",
            "var.missing",
            "local.region",
            "local.list",
            "local.map",
            "azurerm_resource_group.rg.name",
            "azurerm_resource_group.rg.id",
            "data.x.y.z",
            "count.index",
            "local.list[1]",
            "local.list.0",
            'local.map["k"]',
            "local.objs[*].n",
            "local.objs.*.n",
            "path.module",
        ]
    ),
)


def _operand(text: str) -> str:
    """An operand of a unary operator: parenthesised when it starts with one (python-hcl2 rejects
    ``!!x`` and ``- -1``, which HCL and tree-sitter accept)."""
    return f"({text})" if text.startswith(("!", "-")) else text


def _no_heredoc(text: str) -> str:
    """An expression for an interpolation inside a heredoc: not another heredoc (python-hcl2 ends
    the outer heredoc at the inner one's marker)."""
    return "var.location" if "<<" in text else text


def _compound(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    ops = st.sampled_from(["+", "-", "*", "/", "%", "==", "!=", "<", ">", "<=", ">=", "&&", "||"])
    funcs = st.sampled_from(
        [
            "upper",
            "lower",
            "length",
            "concat",
            "merge",
            "lookup",
            "format",
            "join",
            "coalesce",
            "tostring",
            "nope",
        ]
    )
    return st.one_of(
        st.tuples(inner, ops, inner).map(lambda t: f"{t[0]} {t[1]} {t[2]}"),
        st.tuples(inner, ops, inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        inner.map(lambda e: f"!{_operand(e)}"),
        inner.map(lambda e: f"-{_operand(e)}"),
        st.tuples(inner, inner, inner).map(lambda t: f"{t[0]} ? {t[1]} : {t[2]}"),
        st.lists(inner, max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]"),
        st.lists(st.tuples(_NAMES, inner), max_size=3).map(
            lambda kv: "{" + "\n".join(f"{k} = {v}" for k, v in kv) + "}"
        ),
        st.lists(st.tuples(_TEXT, inner), max_size=2).map(
            lambda kv: "{" + ", ".join(f'"{_quote(k)}": {v}' for k, v in kv) + "}"
        ),
        st.tuples(funcs, st.lists(inner, max_size=3), st.booleans()).map(
            lambda t: f"{t[0]}({', '.join(t[1])}{'...' if t[2] and t[1] else ''})"
        ),
        inner.map(lambda e: f"[for i, v in local.list : v if i != {e}]"),
        inner.map(lambda e: f"{{for k, v in local.map : k => {e}}}"),
        inner.map(lambda e: f"{{for k, v in local.map : k => {e}...}}"),
        _strings(inner),
        st.tuples(st.booleans(), _TEXT, inner.map(_no_heredoc)).map(
            lambda t: (
                f"<<{'-' if t[0] else ''}EOT\n  {_quote(t[1]).replace('#', '')} ${{{t[2]}}}\n  EOT\n"
            )
        ),
        inner.map(lambda e: f"jsonencode({{ a = {e} }})"),
    )


_EXPRESSIONS = st.recursive(_ATOMS, _compound, max_leaves=8)

_PRELUDE = """
variable "location" {
  default = "westeurope"
}
variable "tags" {
  type    = map(string)
  default = { team = "x" }
}
variable "secret" {
  sensitive = true
}
locals {
  region = "north${var.location}"
  list   = ["a", "b", 3]
  map    = { k = "v", other = 2 }
  objs   = [{ n = 1 }, { n = "two" }]
}
resource "azurerm_resource_group" "rg" {
  name     = "rg-1"
  location = var.location
}
"""


@st.composite
def _configurations(draw: st.DrawFn) -> str:
    tags = draw(st.lists(_EXPRESSIONS, min_size=1, max_size=4))
    comment = draw(
        st.sampled_from(
            [
                "",
                "  # auditor:skip=DOM-001 accepted for the test\n",
                "  // auditor:skip=DOM-00*, CLU-001 two rules\n",
                "  /* a block comment\n     auditor:skip=DOM-004 on its second line */\n",
                "  # a plain comment\n",
            ]
        )
    )
    count = draw(st.sampled_from(["", "  count = 2\n", '  for_each = { a = 1, b = "2" }\n']))
    lines = "\n".join(f"    t{i} = {e}" for i, e in enumerate(tags))
    nested = draw(st.sampled_from(["", '  identity {\n    type = "SystemAssigned"\n  }\n']))
    return (
        _PRELUDE
        + 'resource "azurerm_eventgrid_domain" "d" {\n'
        + comment
        + count
        + '  name                = "evgd-${var.location}"\n'
        + "  location            = azurerm_resource_group.rg.location\n"
        + "  resource_group_name = azurerm_resource_group.rg.name\n"
        + nested
        + f"  tags = {{\n{lines}\n  }}\n"
        + "}\n"
    )


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(_configurations())
def test_generated_configurations_read_the_same(config: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "main.tf").write_text(config, encoding="utf-8")
        oracle, native = _both(lambda: read_terraform(folder, variables={"tags": '{ a = "b" }'}))
    assert native == oracle, config


_BROKEN = [
    'resource "a" "b" {\n  x = 1\n',
    "a = [1, 2\n",
    "a = 1 +\n",
    'a = "x\n',
    "a = {\n  b = \n}\n",
    "= 1\n",
    'resource "a" "b" {\n  x = 1 }\n  y = )\n}\n',
    "locals {\n  a = f(1,,2)\n}\n",
    "a = <<EOT\nno end\n",
    'x "y" "z"\n',
]


@pytest.mark.parametrize("text", _BROKEN)
def test_a_file_python_hcl2_rejects_is_rejected_at_the_same_place(
    text: str, tmp_path: Path
) -> None:
    (tmp_path / "main.tf").write_text(text, encoding="utf-8")
    oracle, native = _both(lambda: read_terraform(tmp_path))
    assert oracle[0] == "error"
    assert native == oracle


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ('true ? "b" : false ? "d" : "e"', "b"),
        ('false ? "b" : true ? "d" : "e"', "d"),
        ('false ? "b" : false ? "d" : "e"', "e"),
        ('false ? "b" : false ? "d" : true ? "f" : "g"', "f"),
        ('(true ? false : true) ? "x" : "y"', "y"),
    ],
)
def test_a_chain_of_conditionals_reads_right_to_left(
    expression: str, expected: str, tmp_path: Path
) -> None:
    (tmp_path / "main.tf").write_text(
        'resource "azurerm_eventgrid_domain" "d" {\n  name = "n"\n'
        f'  resource_group_name = "rg"\n  tags = {{ v = {expression} }}\n}}\n',
        encoding="utf-8",
    )
    oracle, native = _both(lambda: read_terraform(tmp_path))
    assert native == oracle
    assert native[1].requests[0].body["tags"] == {"v": expected}


_DOMAIN_HEAD = (
    'resource "azurerm_eventgrid_domain" "d" {\n  name = "n"\n  resource_group_name = "rg"\n'
)
_SNIPPETS = {
    "heredoc with an interpolation": _DOMAIN_HEAD
    + "  tags = {\n    a = <<-EOT\n      x ${var.v} y\n      z\n    EOT\n    b = <<EOT\nplain\nEOT\n  }\n}\n"
    + 'variable "v" {\n  default = "é"\n}',
    "CRLF line endings": (
        _DOMAIN_HEAD + '  tags = { a = "b" } # auditor:skip=DOM-001 crlf\n}\n'
    ).replace("\n", "\r\n"),
    "non-ASCII text before expressions": '# café ☕ 𝄞\nlocals {\n  s = "ünïcödé 𝄞"\n}\n'
    + _DOMAIN_HEAD
    + '  tags = { a = local.s, b = data.x.y["𝄞"], c = unknown_fn("é") }\n}\n',
    "comments everywhere": "# top\n"
    + 'resource "azurerm_eventgrid_domain" "d" # before the brace\n{\n'
    + '  name = "n" // trailing\n  resource_group_name = "rg"\n  tags = {\n    # inside an object\n'
    + "    a = [1, /* in a list */ 2]\n    b = f( # in a call\n      1)\n  }\n"
    + "  /* auditor:skip=DOM-002 multi\n     line */\n}\n",
    "only comments": "# nothing here\n/* at all */\n",
    "empty file": "",
    "nested and dynamic blocks": _DOMAIN_HEAD
    + '  dynamic "inbound_ip_rule" {\n    for_each = ["10.0.0.0/8", "192.0.2.1"]\n'
    + '    content {\n      ip_mask = inbound_ip_rule.value\n      action = "Allow"\n    }\n  }\n'
    + '  identity {\n    type = "SystemAssigned"\n  }\n}\n',
    "escapes in labels and strings": 'resource "azurerm_eventgrid_domain" "d" {\n'
    + '  name = "n\\t\\"q\\" \\u00e9 $${lit} %%{lit}"\n  resource_group_name = "rg"\n}\n',
    "an escape after a dollar": _DOMAIN_HEAD
    + '  tags = { a = "$$${x}", b = "c$$$${x}", d = "%%%{ if true }y%{ endif }" }\n}\n'
    + 'variable "x" {\n  default = "X"\n}\n',
    "count and for_each": 'resource "azurerm_eventgrid_domain" "c" {\n  count = 2\n'
    + '  name = "c-${count.index}"\n  resource_group_name = "rg"\n}\n'
    + 'resource "azurerm_eventgrid_domain" "e" {\n  for_each = { x = 1, y = 2 }\n'
    + '  name = "e-${each.key}-${each.value}"\n  resource_group_name = "rg"\n}\n',
    "no final new line": _DOMAIN_HEAD + "  tags = { a = <<EOT\nend\nEOT\n  }\n}",
    "a suppression without a reason": _DOMAIN_HEAD + "  # auditor:skip=DOM-001\n}\n",
    "an argument set twice": _DOMAIN_HEAD + '  name = "again"\n}\n',
    "a resource declared twice": _DOMAIN_HEAD + "}\n" + _DOMAIN_HEAD + "}\n",
    "provider with alias and functions": 'provider "azurerm" {\n  alias = "two"\n'
    + '  subscription_id = "00000000-0000-0000-0000-000000000001"\n  features {}\n}\n'
    + _DOMAIN_HEAD
    + "  provider = azurerm.two\n"
    + '  tags = { a = upper("x"), b = format("%s-%d", "y", 3), c = provider::p::f(1) }\n}\n',
}


@pytest.mark.parametrize("text", list(_SNIPPETS.values()), ids=list(_SNIPPETS))
def test_edge_cases_read_the_same(text: str, tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_bytes(text.encode("utf-8"))
    oracle, native = _both(lambda: read_terraform(tmp_path))
    assert native == oracle


def test_without_tree_sitter_python_hcl2_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    from auditor.sources.terraform import _treesitter

    monkeypatch.setattr(_hcl, "_BACKEND", None)
    monkeypatch.setattr(_treesitter, "available", lambda: False)
    assert _hcl.parser_backend() == _hcl.PYTHON_HCL2
    assert len(read_terraform(DATA / "terraform" / "domain").requests) >= 1


def test_auditor_hcl_parser_chooses_python_hcl2(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_hcl, "_BACKEND", None)
    monkeypatch.setenv("AUDITOR_HCL_PARSER", "python-hcl2")
    assert _hcl.parser_backend() == _hcl.PYTHON_HCL2


def test_without_python_hcl2_a_syntax_error_has_tree_sitters_position(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def missing() -> None:
        raise ImportError("No module named 'hcl2'")

    monkeypatch.setattr(_hcl, "_BACKEND", _hcl.TREE_SITTER)
    monkeypatch.setattr(_hcl, "_parser", missing)
    with pytest.raises(InputError) as err:
        read_terraform(DATA / "terraform" / "syntax")
    assert err.value.exit_code == 2
    assert err.value.source == str(DATA / "terraform" / "syntax" / "broken.tf")
    assert str(err.value.location).startswith("line 4, column ")
    assert "not valid Terraform (HCL) syntax" in str(err.value)
    assert "S3cret" not in str(err.value) and "trailing" not in str(err.value)
