"""Metastore JDBC URLs (CLU-012): TLS must be required and the certificate not trusted blindly.

Property names and values compare case-insensitively; when a property is given twice the last one
wins (as the drivers read them). Evidence names the driver and the TLS properties only: the URL itself
is never echoed (it may carry a user name or a password).

- ``jdbc:sqlserver://host;prop=value;...``: ``encrypt`` must be ``true`` or ``strict``;
  ``trustServerCertificate=true`` fails.
- ``jdbc:postgresql://host/db?prop=value&...``: ``sslmode`` must be ``require``, ``verify-ca`` or
  ``verify-full``.
- ``jdbc:mysql:`` and ``jdbc:mariadb:`` (``?prop=value&...``): ``sslMode`` must be ``REQUIRED``,
  ``VERIFY_CA`` or ``VERIFY_IDENTITY``.
- anything else (another driver, a reference, not a string) fails as unverifiable.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

from auditor.audit.checks._registry import CheckContext, Outcome, config_get, resource_check
from auditor.audit.checks.cluster import configurations
from auditor.audit.resources import Resource
from auditor.audit.unknowns import unknown_at, unknown_outcome
from auditor.model.secrets import Secret

JDBC_URL_KEYS = (
    ("hive-site", "javax.jdo.option.ConnectionURL"),
    ("oozie-site", "oozie.service.JPAService.jdbc.url"),
)


@dataclass(frozen=True)
class JdbcVerdict:
    driver: str
    ok: bool
    problem: str
    properties: dict[str, str]


def _properties(pairs: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if sep:
            out[unquote(name).strip().lower()] = unquote(value).strip()
    return out


def judge_jdbc_url(url: Any) -> JdbcVerdict:
    """Whether a metastore JDBC URL requires TLS with a verified certificate."""
    if isinstance(url, Secret):
        url = url.reveal()
    if not isinstance(url, str):
        return JdbcVerdict(
            "unknown", False, "is not a JDBC URL string, so TLS cannot be verified", {}
        )
    text = url.strip()
    low = text.lower()
    if low.startswith("jdbc:sqlserver:"):
        props = _properties(text.split(";")[1:])
        shown: dict[str, str] = {
            k: props[k] for k in ("encrypt", "trustservercertificate") if k in props
        }
        encrypt = props.get("encrypt", "").lower()
        if encrypt not in ("true", "strict"):
            return JdbcVerdict(
                "sqlserver",
                False,
                f"does not require TLS (encrypt is {props.get('encrypt', 'not set')}; "
                "needs true or strict)",
                shown,
            )
        if props.get("trustservercertificate", "").lower() == "true":
            return JdbcVerdict(
                "sqlserver",
                False,
                "trusts any server certificate (trustServerCertificate=true)",
                shown,
            )
        return JdbcVerdict("sqlserver", True, "requires TLS", shown)
    for prefix, driver, key, allowed in (
        ("jdbc:postgresql:", "postgresql", "sslmode", ("require", "verify-ca", "verify-full")),
        ("jdbc:mysql:", "mysql", "sslmode", ("required", "verify_ca", "verify_identity")),
        ("jdbc:mariadb:", "mariadb", "sslmode", ("required", "verify_ca", "verify_identity")),
    ):
        if low.startswith(prefix):
            _, _, query = text.partition("?")
            props = _properties(query.replace(";", "&").split("&")) if query else {}
            shown = {k: props[k] for k in (key,) if k in props}
            value = props.get(key, "")
            if value.lower() in allowed:
                return JdbcVerdict(driver, True, "requires TLS", shown)
            wanted = ", ".join(a.upper() if driver != "postgresql" else a for a in allowed)
            given = props.get(key, "not set")
            name = "sslmode" if driver == "postgresql" else "sslMode"
            return JdbcVerdict(
                driver, False, f"does not require TLS ({name} is {given}; needs {wanted})", shown
            )
    kind = low.split(":", 2)[1] if low.startswith("jdbc:") and low.count(":") >= 2 else "unknown"
    return JdbcVerdict(kind, False, "uses a driver whose TLS settings cannot be verified", {})


_HOLE = "\x00"
_PROPERTIES_START = {
    "jdbc:sqlserver:": ";",
    "jdbc:postgresql:": "?",
    "jdbc:mysql:": "?",
    "jdbc:mariadb:": "?",
}


def judge_partial_jdbc_url(parts: tuple[str | None, ...]) -> JdbcVerdict | None:
    """The verdict on a URL of which only some pieces are known (``None``: an unknown piece), when
    the known pieces settle it: the driver is known and every unknown piece lies in the server's
    address, before the properties begin (``concat('jdbc:sqlserver://', reference(...).fqdn,
    ';encrypt=true')``), or the driver is one whose TLS cannot be verified. None otherwise."""
    text = "".join(_HOLE if part is None else part for part in parts)
    low = text.lower()
    last_hole = text.rfind(_HOLE)
    for prefix, separator in _PROPERTIES_START.items():
        if low.startswith(prefix):
            start = text.find(separator, len(prefix))
            if start == -1 or last_hole > start:
                return None  # an unknown piece may hold (or override) a property
            return judge_jdbc_url(text.replace(_HOLE, "server"))
    driver_end = text.find(":", len("jdbc:"))
    if low.startswith("jdbc:") and -1 < driver_end < text.find(_HOLE):
        return judge_jdbc_url(text.replace(_HOLE, "server"))  # an unverifiable driver
    return None


@resource_check("jdbc-tls")
def jdbc_tls(resource: Resource, ctx: CheckContext) -> Iterator[Outcome]:
    """CLU-012: every metastore JDBC URL requires TLS and does not trust any certificate."""
    configs = configurations(resource)
    checked: list[str] = []
    failed = False
    for group_name, key in JDBC_URL_KEYS:
        path = f"properties/clusterDefinition/configurations/{group_name}/{key}"
        unknown = unknown_at(resource, path)
        if unknown is not None:
            verdict = judge_partial_jdbc_url(unknown.known_parts) if unknown.known_parts else None
            label = f"configurations.{group_name}[{key}]"
            if verdict is None:
                failed = True
                yield unknown_outcome({path: unknown.text}, detail=label)
                continue
            checked.append(label)
            if not verdict.ok:
                failed = True
                yield Outcome(
                    False,
                    {
                        "field": label,
                        "driver": verdict.driver,
                        "tlsProperties": verdict.properties,
                        "serverNotKnownBeforeDeployment": unknown.text,
                    },
                    detail=label,
                    location=f"{resource.location}.properties.clusterDefinition.configurations."
                    f"{group_name}.{key}",
                    fields={"field": label, "driver": verdict.driver, "problem": verdict.problem},
                )
            continue
        real_group, group = config_get(configs, group_name)
        if not isinstance(group, Mapping):
            continue
        real_key, url = config_get(group, key)
        if real_key is None:
            continue
        label = f"configurations.{real_group}[{real_key}]"
        checked.append(label)
        verdict = judge_jdbc_url(url)
        if not verdict.ok:
            failed = True
            yield Outcome(
                False,
                {"field": label, "driver": verdict.driver, "tlsProperties": verdict.properties},
                detail=label,
                location=(
                    f"{resource.location}.properties.clusterDefinition.configurations."
                    f"{real_group}.{real_key}"
                ),
                fields={"field": label, "driver": verdict.driver, "problem": verdict.problem},
            )
    if not failed:
        yield Outcome(True, {"metastoreUrls": checked})
