"""A template's resources, as the vendor's engine would deploy them.

:class:`Walker` goes through ``resources`` (an array, or an object of symbolic names in
``languageVersion`` 2.0), child resources nested in a parent's ``resources``, ``copy`` loops (one
instance per index, ``copyIndex()`` bound), ``condition`` (false: not deployed) and nested
deployments (``Microsoft.Resources/deployments`` with an inline ``properties.template``: outer
scope evaluates in the parent's context, ``expressionEvaluationOptions.scope: "inner"`` in its own,
with the parameters the parent passes). Linked templates (``templateLink``) are not followed.
It yields the resources auditor checks (domains, clusters, role assignments) and counts the others.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from auditor.errors import IncompleteError, InputError, clip
from auditor.expr.arm import ArmContext, ArmSyntaxError, Deployment, Unknown, evaluate_value
from auditor.expr.arm.evaluator import MAX_COPY_COUNT
from auditor.expr.arm.values import describe_type
from auditor.sources.arm._jsonc import JsoncDocument, PathKey, format_path
from auditor.sources.arm._parameters import key_vault_reference
from auditor.sources.arm._placeholders import Textual, holds_deployment_unknown, merge, variant
from auditor.sources.names import to_seed

__all__ = [
    "MAX_RESOURCES",
    "MAX_VALUE_SIZE",
    "MISSING",
    "REQUEST_KINDS",
    "TIME_LIMIT",
    "Frame",
    "Resource",
    "Target",
    "Walker",
    "is_arm_template",
    "member",
    "member_key",
    "template_level",
]

#: Resources (after copy loops and nested deployments) one template may expand to; the vendor's
#: engine allows 800 per template, nested deployments each having their own.
MAX_RESOURCES = 10_000
#: Characters (and elements) the evaluated requests of one template may hold in all.
MAX_VALUE_SIZE = 64_000_000
#: Seconds one template's evaluation may take by default (its expressions can be made to compute
#: for a long time within the vendor's limits); past it the template is not read in full.
TIME_LIMIT = 60.0

_TEMPLATE_SCHEMA = re.compile(r"deploymentTemplate\.json", re.IGNORECASE)
_LEVELS = (
    ("subscriptiondeploymenttemplate", "subscription"),
    ("managementgroupdeploymenttemplate", "managementGroup"),
    ("tenantdeploymenttemplate", "tenant"),
)
_KINDS = {
    "cloud.eventrouting/domains": "domain",
    "cloud.analyticscluster/clusters": "cluster",
    "cloud.authorization/roleassignments": "roleAssignment",
    "cloud.resources/deployments": "deployment",
}
#: Kinds of resources a request is made for.
REQUEST_KINDS = frozenset({"domain", "cluster", "roleAssignment", "legacyRoleAssignment"})
_SHOWN = 120  # characters of an address or a link shown in a warning

MISSING: Any = object()


def is_arm_template(document: Any) -> bool:
    """True for an ARM template: its ``$schema`` names a ``deploymentTemplate.json`` (any
    deployment level), or (without a ``$schema``) it has ``resources`` and a ``contentVersion``."""
    if not isinstance(document, dict):
        return False
    schema = document.get("$schema")
    if isinstance(schema, str):
        return _TEMPLATE_SCHEMA.search(schema) is not None
    return isinstance(document.get("resources"), list | dict) and "contentVersion" in document


def template_level(template: dict[str, Any]) -> str:
    """Where a template deploys, from its ``$schema``: ``resourceGroup`` (the default),
    ``subscription``, ``managementGroup`` or ``tenant``."""
    schema = template.get("$schema")
    if isinstance(schema, str):
        lowered = schema.lower()
        for marker, level in _LEVELS:
            if marker in lowered:
                return level
    return "resourceGroup"


def member_key(obj: Any, name: str) -> str | None:
    """The key of ``obj`` that is ``name`` ignoring case (the exact spelling first), if any: the
    engine reads a resource's own members case-insensitively."""
    if not isinstance(obj, dict):
        return None
    if name in obj:
        return name
    folded = name.lower()
    return next((key for key in obj if isinstance(key, str) and key.lower() == folded), None)


def member(obj: Any, name: str) -> Any:
    """``obj[name]`` ignoring case, or :data:`MISSING`."""
    key = member_key(obj, name)
    return MISSING if key is None else obj[key]


# --------------------------------------------------------------------------------------- the walk


@dataclass(frozen=True, slots=True)
class Target:
    """Where a frame's resources deploy: the subscription and resource group (``None``: the
    deployment's, not given; an :class:`Unknown`: given by an unresolved expression), and the
    deployment level (``resourceGroup``, ``subscription``, ``managementGroup``, ``tenant``)."""

    subscription: str | Unknown | None
    resource_group: str | Unknown | None
    level: str


@dataclass(slots=True)
class Frame:
    """A template being walked: the top-level one, or a nested deployment's."""

    template: dict[str, Any]
    keys: PathKey
    context: ArmContext
    target: Target
    #: Prefix of the addresses of its resources (``"nestedDeployment > "``).
    address: str = ""
    #: Which of its expressions are textual in the deployment's scope (``None``: placeholders
    #: are not used in this frame, an inner-scope nested template).
    textual: Textual | None = None
    #: The values given for its parameters (the top-level frame).
    given: Mapping[str, Any] | None = None
    #: For an outer-scope nested template, the deployment resource whose context it shares.
    origin: Resource | None = None
    _variant: Any = field(default=MISSING, repr=False)


@dataclass(slots=True)
class Resource:
    """One instance of a resource (a copy loop gives one per index)."""

    raw: dict[str, Any]
    keys: PathKey
    #: The full type as written (a child's type joined to its parent's).
    type: str
    kind: str | None
    context: ArmContext
    frame: Frame
    address: str
    parent: Resource | None = None
    #: The resource loop's name and index, in a copy loop.
    copy: tuple[str, int] | None = None
    _name: Any = field(default=MISSING, repr=False)
    _variant: Any = field(default=MISSING, repr=False)


class Walker:
    """Walks the frames of one template file (see the module's description)."""

    def __init__(
        self,
        document: JsoncDocument,
        warnings: list[str],
        *,
        time_limit: float | None = TIME_LIMIT,
    ) -> None:
        self.document = document
        self.source = document.source
        self.warnings = warnings
        self._walked = 0
        self._unchecked: dict[str, list[Any]] = {}
        self._size = 0
        self._time_limit = time_limit
        self._started = time.monotonic()

    def charge(self, size: int) -> None:
        """Count ``size`` characters and elements of evaluated values against the file's bound."""
        self._size += size
        if self._size > MAX_VALUE_SIZE:
            raise InputError(
                f"the template's resources hold more than {MAX_VALUE_SIZE:,} characters once "
                "evaluated",
                source=self.source,
            )

    def _check_time(self) -> None:
        limit = self._time_limit
        if limit is not None and time.monotonic() - self._started >= limit:
            raise IncompleteError(
                f"{self.source}: the template was not read in full: evaluating it took over "
                f"{limit:g} s (copy loops, nested deployments and expressions); the resources "
                f"after the first {self._walked:,} are not checked"
            )

    # -- values

    def evaluate(self, value: Any, context: ArmContext, keys: PathKey) -> Any:
        """``value`` (a part of the template at ``keys``) evaluated in ``context``."""
        try:
            return evaluate_value(value, context, path=_plain_path(keys), source=self.source)
        except ArmSyntaxError as error:  # found up front (see validate_template): not expected
            raise error.at(source=self.source, location=self.document.where(keys)) from None

    def resolved(self, value: Any, resource: Resource, keys: PathKey) -> Any:
        """``value`` evaluated in the resource's context, with what is built from the
        deployment's scope as text shown with placeholders (see :mod:`._placeholders`)."""
        real = self.evaluate(value, resource.context, keys)
        textual = resource.frame.textual
        if textual is None or not holds_deployment_unknown(real):
            return real
        context = self._variant_of(resource)
        if context is None:
            return real
        return merge(real, self.evaluate(textual.rewrite(value), context, keys))

    def _variant_of(self, resource: Resource) -> ArmContext | None:
        if resource._variant is MISSING:
            parent = resource.parent
            base = self._variant_of(parent) if parent else self._frame_variant(resource.frame)
            if base is not None and resource.copy is not None:
                base = base.with_copy(resource.copy[0], resource.copy[1], resource=True)
            resource._variant = base
        result: ArmContext | None = resource._variant
        return result

    def _frame_variant(self, frame: Frame) -> ArmContext | None:
        if frame._variant is MISSING:
            if frame.origin is not None:
                frame._variant = self._variant_of(frame.origin)
            elif frame.given is not None:
                frame._variant = variant(frame.context, frame.template, frame.given)
            else:
                frame._variant = None
        result: ArmContext | None = frame._variant
        return result

    def name(self, resource: Resource) -> Any:
        """The resource's full name (a child's joined to its parent's), or an :class:`Unknown`."""
        if resource._name is not MISSING:
            return resource._name
        key = member_key(resource.raw, "name")
        if key is None:
            raise InputError(
                "expected the resource's name",
                source=self.source,
                location=self.document.where(resource.keys),
            )
        own = self.resolved(resource.raw[key], resource, (*resource.keys, key))
        if not isinstance(own, str | Unknown):
            raise InputError(
                f"expected the resource's name (a string), found {describe_type(own)}",
                source=self.source,
                location=self.document.where((*resource.keys, key)),
            )
        value: Any = own
        parent = resource.parent
        if parent is not None and _relative(_raw_type(resource.raw) or ""):
            above = self.name(parent)
            if isinstance(own, Unknown) or isinstance(above, Unknown):
                value = own if isinstance(own, Unknown) else above
            else:
                value = f"{above}/{own}"
        resource._name = value
        return value

    # -- resources

    def resources(self, frame: Frame) -> Iterator[Resource]:
        """Every resource of ``frame`` (and of its children and nested deployments) that a
        request is made for, in the order of the file."""
        key = member_key(frame.template, "resources")
        if key is None:
            return
        yield from self._list(frame, frame.template[key], (*frame.keys, key), None)

    def _list(
        self, frame: Frame, resources: Any, keys: PathKey, parent: Resource | None
    ) -> Iterator[Resource]:
        if isinstance(resources, list):
            for position, raw in enumerate(resources):
                yield from self._resource(frame, raw, (*keys, position), None, parent)
        elif isinstance(resources, dict):
            for symbolic, raw in resources.items():
                yield from self._resource(frame, raw, (*keys, symbolic), symbolic, parent)
        elif resources is not None:
            raise InputError(
                "expected the resources: an array (or, in languageVersion 2.0, an object of "
                f"symbolic names), found {describe_type(resources)}",
                source=self.source,
                location=self.document.where(keys),
            )

    def _resource(
        self,
        frame: Frame,
        raw: Any,
        keys: PathKey,
        symbolic: str | None,
        parent: Resource | None,
    ) -> Iterator[Resource]:
        if not isinstance(raw, dict):
            raise InputError(
                f"expected a resource (an object), found {describe_type(raw)}",
                source=self.source,
                location=self.document.where(keys),
            )
        if member(raw, "existing") is True:  # a reference to a resource deployed elsewhere
            return
        written = _raw_type(raw)
        if written is None:
            raise InputError(
                "expected the resource's type (a string such as Microsoft.EventGrid/domains)",
                source=self.source,
                location=self.document.where(keys),
            )
        full_type = f"{parent.type}/{written}" if parent and _relative(written) else written
        kind = _kind(full_type)
        own = symbolic if symbolic is not None else _written_name(raw, keys)
        base = f"{parent.address}/{own}" if parent is not None else frame.address + own
        base_context = parent.context if parent is not None else frame.context
        for context, address, copy in self._instances(raw, keys, base_context, base):
            self._check_time()
            if not self._deployed(raw, keys, context, address):
                continue
            self._walked += 1
            if self._walked > MAX_RESOURCES:
                raise InputError(
                    f"the template expands to more than {MAX_RESOURCES:,} resources (copy loops "
                    "and nested deployments); the vendor's engine allows 800 per template",
                    source=self.source,
                )
            resource = Resource(raw, keys, full_type, kind, context, frame, address, parent, copy)
            if kind in REQUEST_KINDS:
                yield resource
            elif kind == "deployment":
                yield from self._nested(frame, resource)
            else:
                self._count(full_type)
            children = member_key(raw, "resources")
            if children is not None:
                yield from self._list(frame, raw[children], (*keys, children), resource)

    def _instances(
        self, raw: dict[str, Any], keys: PathKey, context: ArmContext, address: str
    ) -> Iterator[tuple[ArmContext, str, tuple[str, int] | None]]:
        key = member_key(raw, "copy")
        if key is None:
            yield context, address, None
            return
        loop = raw[key]
        where = (*keys, key)
        name = loop.get("name") if isinstance(loop, dict) else None
        if not isinstance(name, str) or "count" not in loop:
            raise InputError(
                'expected a copy loop: {"name": "...", "count": ...}',
                source=self.source,
                location=self.document.where(where),
            )
        count = self.evaluate(loop["count"], context, (*where, "count"))
        indices: range
        if isinstance(count, Unknown):
            self.warn(
                address,
                f"the count of copy loop '{clip(name, 60)}' is unknown ({count.reason}); "
                "checked as one instance",
            )
            indices = range(1)
        elif isinstance(count, bool) or not isinstance(count, int):
            raise InputError(
                f"expected the copy loop's count (an integer), found {describe_type(count)}",
                source=self.source,
                location=self.document.where((*where, "count")),
            )
        elif not 0 <= count <= MAX_COPY_COUNT:
            raise InputError(
                f"a copy loop of {count} instances: the vendor's engine allows 0 to "
                f"{MAX_COPY_COUNT}",
                source=self.source,
                location=self.document.where((*where, "count")),
            )
        else:
            indices = range(count)
        for index in indices:
            copy = (name, index)
            yield context.with_copy(name, index, resource=True), f"{address}[{index}]", copy

    def _deployed(
        self, raw: dict[str, Any], keys: PathKey, context: ArmContext, address: str
    ) -> bool:
        key = member_key(raw, "condition")
        if key is None:
            return True
        value = self.evaluate(raw[key], context, (*keys, key))
        if value is True:
            return True
        if value is False:
            return False
        if isinstance(value, Unknown):
            self.warn(address, f"its condition is unknown ({value.reason}); checked as deployed")
        else:
            self.warn(
                address,
                f"its condition is {describe_type(value)}, not a boolean; checked as deployed",
            )
        return True

    def _nested(self, frame: Frame, resource: Resource) -> Iterator[Resource]:
        raw = resource.raw
        properties_key = member_key(raw, "properties")
        if properties_key is None or not isinstance(raw[properties_key], dict):
            return
        properties: dict[str, Any] = raw[properties_key]
        template_key = member_key(properties, "template")
        if template_key is None:
            link = member(properties, "templateLink")
            if link is not MISSING:
                self.warn(
                    resource.address,
                    f"a linked template ({_link_text(link)}) is not followed: its resources are "
                    "not checked",
                )
            return
        template = properties[template_key]
        template_keys = (*resource.keys, properties_key, template_key)
        if not isinstance(template, dict):
            raise InputError(
                f"expected the nested template (an object), found {describe_type(template)}",
                source=self.source,
                location=self.document.where(template_keys),
            )
        subscription = self._scope_member(resource, "subscriptionId")
        group = self._scope_member(resource, "resourceGroup")
        target = Target(
            frame.target.subscription if subscription is MISSING else subscription,
            frame.target.resource_group if group is MISSING else group,
            "resourceGroup" if group is not MISSING else frame.target.level,
        )
        options = member(properties, "expressionEvaluationOptions")
        scope = member(options, "scope") if isinstance(options, dict) else MISSING
        address = resource.address + " > "
        if isinstance(scope, str) and scope.lower() == "inner":
            context = self._inner_context(
                resource, properties, template, template_keys, target, same_group=group is MISSING
            )
            nested = Frame(template, template_keys, context, target, address)
        else:  # outer scope: the parent's context, variables and parameters
            nested = Frame(
                template,
                template_keys,
                resource.context,
                target,
                address,
                textual=frame.textual,
                origin=resource,
            )
        yield from self.resources(nested)

    def _scope_member(self, resource: Resource, name: str) -> Any:
        key = member_key(resource.raw, name)
        if key is None:
            return MISSING
        value = self.evaluate(resource.raw[key], resource.context, (*resource.keys, key))
        if isinstance(value, str | Unknown):
            return value
        raise InputError(
            f"expected a string, found {describe_type(value)}",
            source=self.source,
            location=self.document.where((*resource.keys, key)),
        )

    def _inner_context(
        self,
        resource: Resource,
        properties: dict[str, Any],
        template: dict[str, Any],
        template_keys: PathKey,
        target: Target,
        *,
        same_group: bool,
    ) -> ArmContext:
        given: dict[str, Any] = {}
        key = member_key(properties, "parameters")
        passed = properties.get(key) if key else None
        if passed is not None and not isinstance(passed, dict):
            raise InputError(
                'expected the parameters passed to the nested template ({"name": {"value": ...}})',
                source=self.source,
                location=self.document.where((*resource.keys, "properties", str(key))),
            )
        for name, entry in (passed or {}).items():
            where = (*resource.keys, "properties", str(key), name)
            if isinstance(entry, dict) and "reference" in entry:
                given[name] = key_vault_reference(name, entry["reference"])
            elif isinstance(entry, dict) and "value" in entry:
                given[name] = self.evaluate(entry["value"], resource.context, (*where, "value"))
            else:
                raise InputError(
                    'expected {"value": ...} or {"reference": ...}',
                    source=self.source,
                    location=self.document.where(where),
                )
        outer = resource.context.deployment
        name = self.name(resource) if member_key(resource.raw, "name") else None
        deployment = Deployment(
            subscription_id=_known(target.subscription),
            resource_group=_known(target.resource_group),
            location=outer.location if same_group else None,
            name=name if isinstance(name, str) else None,
            tenant_id=outer.tenant_id,
        )
        return ArmContext.from_template(
            template,
            given,
            deployment=deployment,
            path=format_path(template_keys),
            source=self.source,
        )

    # -- what is not checked

    def _count(self, full_type: str) -> None:
        entry = self._unchecked.setdefault(full_type.lower(), [full_type, 0])
        entry[1] += 1

    def unchecked_warning(self) -> str | None:
        """``resources of types auditor does not check: Microsoft.Storage/storageAccounts ×2``,
        or ``None``."""
        if not self._unchecked:
            return None
        shown = ", ".join(
            f"{clip(spelling, _SHOWN)} ×{count}" for spelling, count in self._unchecked.values()
        )
        return f"{self.source}: resources of types auditor does not check: {shown}"

    def warn(self, address: str, text: str) -> None:
        self.warnings.append(f"{self.source}: {clip(address, _SHOWN)}: {text}")


def _plain_path(keys: PathKey) -> str:
    """The JSON path the evaluator is given (for its own messages; cheaper than
    :func:`format_path`, which hides secret-looking keys, since no message is expected)."""
    return ".".join(str(key) for key in keys)


def _raw_type(raw: dict[str, Any]) -> str | None:
    value = member(raw, "type")
    return value if isinstance(value, str) and value.strip() else None


def _relative(resource_type: str) -> bool:
    """A child's type written relative to its parent's (``topics``, ``providers/roleAssignments``)
    rather than in full (``Microsoft.EventGrid/domains/topics``)."""
    return "." not in resource_type.split("/", 1)[0]


def _kind(full_type: str) -> str | None:
    seed = to_seed(full_type).lower()
    kind = _KINDS.get(seed)
    if kind is not None:
        return kind
    parts = seed.split("/")
    if len(parts) >= 4 and parts[-2:] == ["providers", "roleassignments"]:
        return "legacyRoleAssignment"  # Microsoft.Storage/storageAccounts/providers/roleAssignments
    return None


def _written_name(raw: dict[str, Any], keys: PathKey) -> str:
    name = member(raw, "name")
    return name if isinstance(name, str) else format_path(keys)


def _known(value: str | Unknown | None) -> str | None:
    return value if isinstance(value, str) else None


def _link_text(link: Any) -> str:
    """A linked template's address as written, without its query (a SAS token is a secret)."""
    text = "a link"
    if isinstance(link, dict):
        for name in ("uri", "id", "relativePath"):
            value = member(link, name)
            if isinstance(value, str) and value:
                text = value
                break
    elif isinstance(link, str):
        text = link
    if "?" in text:
        text = text.split("?", 1)[0] + "?…"
    return clip(text, _SHOWN)
