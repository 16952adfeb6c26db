"""Base URLs and ports given on the command line, validated where they are parsed (one place for
``collect``, ``audit``, ``gate --apply`` and ``sandbox serve``): a malformed one is a usage error
(exit 2) naming the option, never an exception from deep inside the HTTP client."""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

from auditor.errors import InputError, clip

PORT_MIN, PORT_MAX = 0, 65_535
"""Ports ``--port`` accepts (0: the system picks a free one)."""


def check_base_url(url: str, option: str = "--base-url") -> str:
    """``url`` when it is an absolute ``http``/``https`` URL with a host and, if it gives one, a
    port of 1 to 65535; else an InputError naming ``option`` (the URL itself is not repeated: it
    may carry a credential)."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port  # raises ValueError when out of range or not a number
        host = parts.hostname
    except ValueError:
        raise InputError(
            "expected an absolute http:// or https:// URL; this one cannot be read (an IPv6 "
            "host without its ']', or a port that is not a number from 1 to 65535?)",
            source=option,
        ) from None
    if parts.scheme not in ("http", "https") or not host:
        raise InputError(
            "expected an absolute http:// or https:// URL with a host, such as "
            "https://management.example.net",
            source=option,
        )
    if port == 0:
        raise InputError("expected a port from 1 to 65535 in the URL, found 0", source=option)
    if any(c.isspace() or ord(c) < 0x20 for c in url.strip()):
        raise InputError("expected a URL without spaces or control characters", source=option)
    return url.strip()


def check_url(url: str, option: str, allow_http: bool) -> None:
    """:func:`check_base_url`, and plain http only to this machine unless ``allow_http``."""
    check_base_url(url, option)
    host = urlsplit(url.strip()).hostname or ""
    if urlsplit(url.strip()).scheme == "http" and not allow_http and not is_loopback(host):
        raise InputError(
            "refusing to send credentials over plain http to a host that is not this machine; "
            "use https (or --allow-http)",
            source=option,
        )


def is_loopback(host: str) -> bool:
    """``localhost`` or a loopback address."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def base_url_option(value: str | None) -> str | None:
    """A typer callback for ``--base-url`` options: validated as the option is parsed."""
    return None if value is None else check_base_url(value)


def devtooling_url_option(value: str | None) -> str | None:
    """A typer callback for ``--devtooling-url``."""
    return None if value is None else check_base_url(value, "--devtooling-url")


def check_port(value: int, option: str = "--port") -> int:
    """``value`` when it is a port number (0 to 65535), else an InputError naming ``option``."""
    if not PORT_MIN <= value <= PORT_MAX:
        raise InputError(
            f"expected a port from {PORT_MIN} to {PORT_MAX} (0: a free one), "
            f"found {clip(str(value), 30)}",
            source=option,
        )
    return value


def check_host(value: str, option: str = "--host") -> str:
    """``value`` when it can be an address to listen on (a host name or an IP address)."""
    if not value or len(value) > 253 or any(c.isspace() or ord(c) < 0x20 for c in value):
        raise InputError(
            "expected a host name or an IP address such as 127.0.0.1 or ::1", source=option
        )
    return value


def host_option(value: str) -> str:
    """A typer callback for ``--host``."""
    return check_host(value)


def port_option(value: int) -> int:
    """A typer callback for ``--port``."""
    return check_port(value)
