"""The endpoints of recorded traffic whose responses an import reads (contracts §8), by URL path, in
the vendor's namespaces and the seed's alike (case-insensitive):

- ``{scope}/providers/Microsoft.Authorization/roleAssignments|roleDefinitions|denyAssignments[/{id}]``
- ``/subscriptions/{s}[/resourceGroups/{rg}]/providers/Microsoft.HDInsight/clusters[/{name}]``
- ``/subscriptions/{s}[/resourceGroups/{rg}]/providers/Microsoft.EventGrid/domains[/{name}]``
- ``{subscription or resource}/providers/Microsoft.ResourceHealth/events[/{name}]``
- Microsoft Graph ``/v1.0|beta/users|groups|servicePrincipals|devices[/{id}]`` and
  ``/groups/{id}/members|transitiveMembers`` (directory principals and memberships)

Anything else is skipped and named in the import's summary.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

_AUTHZ = re.compile(
    r"(?i)^(?P<scope>(?:/.*?)?)/providers/(?:microsoft|cloud)\.authorization/"
    r"(?P<kind>roleassignments|roledefinitions|denyassignments)(?:/(?P<name>[^/]+))?/?$"
)
_KINDS = {
    "roleassignments": "roleAssignments",
    "roledefinitions": "roleDefinitions",
    "denyassignments": "denyAssignments",
}
_RESOURCES = re.compile(
    r"(?i)^/subscriptions/[^/]+(?:/resourcegroups/[^/]+)?/providers/"
    r"(?:(?P<clusters>(?:microsoft\.hdinsight|cloud\.analyticscluster)/clusters)|"
    r"(?:microsoft\.eventgrid|cloud\.eventrouting)/domains)(?:/(?P<name>[^/]+))?/?$"
)
_EVENTS = re.compile(
    r"(?i)^(?P<listed>(?:/.*?)?)/providers/(?:microsoft|cloud)\.resourcehealth/events"
    r"(?:/(?P<name>[^/]+))?/?$"
)
_GRAPH = re.compile(
    r"(?i)^/(?:v1\.0|beta)/(?:users|groups|serviceprincipals|devices|directoryobjects)"
    r"(?:/(?P<name>[^/]+))?/?$"
)
_MEMBERS = re.compile(
    r"(?i)^/(?:v1\.0|beta)/groups/(?P<group>[^/]+)/(?:transitive)?members"
    r"(?:/microsoft\.graph\.[a-z]+)?/?$"
)


@dataclass(frozen=True, slots=True)
class Endpoint:
    """A recognised endpoint: the section its responses fill, whether it lists (rather than gets
    one resource), what a health event listing was for, the group of a member listing."""

    section: str
    listing: bool
    listed_in: str | None = None
    group: str | None = None


def url_path(url: str) -> str:
    """The decoded path of ``url`` (no host, no query: a query may carry a signature)."""
    try:
        path = urlsplit(url).path
    except ValueError:
        return ""
    return unquote(path)


def recognise(url: str) -> Endpoint | None:
    """The endpoint ``url`` calls, or None when the import does not read it."""
    path = url_path(url)
    if not path:
        return None
    m = _AUTHZ.match(path)
    if m is not None:
        return Endpoint(_KINDS[m.group("kind").lower()], m.group("name") is None)
    m = _RESOURCES.match(path)
    if m is not None:
        section = "clusters" if m.group("clusters") else "domains"
        return Endpoint(section, m.group("name") is None)
    m = _EVENTS.match(path)
    if m is not None:
        return Endpoint("healthEvents", m.group("name") is None, m.group("listed") or None)
    m = _MEMBERS.match(path)
    if m is not None:
        return Endpoint("principals", False, group=m.group("group"))
    m = _GRAPH.match(path)
    if m is not None:
        return Endpoint("principals", m.group("name") is None)
    return None
