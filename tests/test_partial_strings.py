"""Half-known strings: ``concat`` keeps the known pieces of a string with unknown parts, and CLU-012
judges a JDBC URL whose server name is known only at deployment from its literal properties."""

from __future__ import annotations

import string

from hypothesis import given
from hypothesis import strategies as st

from auditor.audit.checks.jdbc import judge_jdbc_url, judge_partial_jdbc_url
from auditor.expr.arm import ArmContext, Deployment, Unknown, UnknownKind, evaluate

CTX = ArmContext(
    deployment=Deployment(
        subscription_id="00000000-0000-0000-0000-000000000001",
        resource_group="rg-app",
        location="westeurope",
        name="main",
    )
)
SERVER = "reference('db').fullyQualifiedDomainName"


def _unknown(text: str) -> Unknown:
    value = evaluate(text, CTX)
    assert isinstance(value, Unknown), value
    return value


def test_concat_keeps_the_known_pieces_in_order() -> None:
    value = _unknown(f"[concat('jdbc:sqlserver://', {SERVER}, ';encrypt=', 'true', '')]")
    assert value.known_parts == ("jdbc:sqlserver://", None, ";encrypt=true")
    assert value.kind is UnknownKind.DEPLOYMENT  # the first unknown piece says why
    assert "reference" in value.origin


def test_nested_concatenations_merge_their_pieces() -> None:
    inner = f"concat('a', {SERVER})"
    value = _unknown(f"[concat({inner}, 'b', 1, {SERVER}, 'c')]")
    assert value.known_parts == ("a", None, "b1", None, "c")


def test_an_array_concatenation_with_an_unknown_keeps_nothing() -> None:
    value = _unknown(f"[concat(createArray('a'), {SERVER})]")
    assert value.known_parts is None


def test_a_redacted_unknown_keeps_no_piece() -> None:
    value = _unknown(f"[concat('P@ss-', {SERVER})]")
    assert value.known_parts == ("P@ss-", None)
    assert value.redacted().known_parts is None
    assert "P@ss" not in repr(value.redacted())


def test_partial_urls_that_the_known_pieces_settle() -> None:
    trust = judge_partial_jdbc_url(
        ("jdbc:sqlserver://", None, ";database=db;encrypt=true;trustServerCertificate=true")
    )
    assert trust is not None and not trust.ok and "trusts any" in trust.problem
    good = judge_partial_jdbc_url(("jdbc:postgresql://", None, "/db?sslmode=verify-full"))
    assert good is not None and good.ok
    other = judge_partial_jdbc_url(("jdbc:oracle:thin:@", None))
    assert other is not None and not other.ok and other.driver == "oracle"


def test_partial_urls_that_the_known_pieces_do_not_settle() -> None:
    # an unknown piece among the properties may set or override one
    assert judge_partial_jdbc_url(("jdbc:sqlserver://h;encrypt=true", None)) is None
    assert judge_partial_jdbc_url(("jdbc:sqlserver://h;encrypt=", None, ";x=1")) is None
    assert judge_partial_jdbc_url(("jdbc:mysql://", None)) is None  # no properties known
    assert judge_partial_jdbc_url((None, "://h;encrypt=true")) is None  # the driver is unknown
    assert judge_partial_jdbc_url(("jdbc:", None, ":x")) is None


_HOST = st.text(string.ascii_lowercase + string.digits + ".-", min_size=1, max_size=20)
_VALUE = st.sampled_from(["true", "false", "strict", "require", "verify-full", "VERIFY_CA", ""])
_NAME = st.sampled_from(["encrypt", "trustServerCertificate", "sslmode", "sslMode", "database"])


@given(
    driver=st.sampled_from(["sqlserver", "postgresql", "mysql", "mariadb"]),
    host=_HOST,
    props=st.lists(st.tuples(_NAME, _VALUE), max_size=5),
)
def test_a_hole_in_the_server_name_gives_the_verdict_of_the_full_url(
    driver: str, host: str, props: list[tuple[str, str]]
) -> None:
    if driver == "sqlserver":
        tail = "".join(f";{name}={value}" for name, value in props) or ";"
    else:
        tail = "/db?" + "&".join(f"{name}={value}" for name, value in props)
    full = judge_jdbc_url(f"jdbc:{driver}://{host}{tail}")
    partial = judge_partial_jdbc_url((f"jdbc:{driver}://", None, tail))
    assert partial is not None
    assert (partial.ok, partial.driver, partial.properties) == (
        full.ok,
        full.driver,
        full.properties,
    )
