"""What an expression is evaluated against: the template's parameters (given values, declared types
and defaults), its variables and user-defined functions, the deployment's scope, and the copy loops
the expression sits in.

Parameters and variables are looked up case-insensitively, as the vendor's engine does. Defaults and
variables are template values themselves (expressions, objects holding expressions): they are
evaluated when first used, once, and shared by every context derived with :meth:`ArmContext.with_copy`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ArmContext", "Deployment", "ParameterSpec"]

_SECURE_TYPES = frozenset({"securestring", "secureobject"})


@dataclass(frozen=True, slots=True)
class Deployment:
    """The deployment's scope, as far as it is known (``None``: not known, evaluated as unknown)."""

    subscription_id: str | None = None
    resource_group: str | None = None
    #: The resource group's location (``resourceGroup().location``).
    location: str | None = None
    #: The deployment's name (``deployment().name``).
    name: str | None = None
    tenant_id: str | None = None


_MISSING: Any = object()


@dataclass(frozen=True, slots=True)
class ParameterSpec:
    """A declared parameter: its name as declared, its type (lower case) and its default, if any."""

    name: str
    type: str = "string"
    default: Any = _MISSING
    #: ``"nullable": true`` (languageVersion 2.0): without a value, the parameter is null.
    nullable: bool = False

    @property
    def has_default(self) -> bool:
        return self.default is not _MISSING

    @property
    def secure(self) -> bool:
        return self.type in _SECURE_TYPES


@dataclass(slots=True)
class _Shared:
    """State every context derived from one root shares: the values resolved so far, and what is
    being resolved now (to find cycles)."""

    parameters: dict[str, Any] = field(default_factory=dict)
    variables: dict[str, Any] = field(default_factory=dict)
    resolving: list[str] = field(default_factory=list)


class ArmContext:
    """Everything an expression can refer to.

    - ``parameters``: the values given for parameters (a parameters file, ``-p NAME=VALUE``), used
      as they are (never evaluated); a value may be an :class:`~auditor.expr.arm.values.Unknown`
      (for a Key Vault reference, say);
    - ``declared``: the template's declared parameters (its ``parameters`` section); when given, a
      parameter that is not declared is an error, and a parameter without a value falls back to its
      ``defaultValue`` (evaluated); when ``None``, any parameter name may be asked for;
    - ``variables``: the template's ``variables`` section as written (a ``copy`` member declares
      variable loops);
    - ``functions``: the template's ``functions`` section (user-defined functions);
    - ``deployment``: the deployment's scope;
    - ``path`` and ``source``: where the template sits (JSON path, file name), for syntax errors
      found in defaults and variables;
    - ``definitions``: the template's type definitions (languageVersion 2.0), for a parameter
      declared with ``$ref``.
    """

    __slots__ = (
        "_declared",
        "_functions",
        "_given",
        "_loops",
        "_resource_loop",
        "_root",
        "_shared",
        "_variable_loops",
        "_variables",
        "deployment",
        "path",
        "source",
    )

    def __init__(
        self,
        *,
        parameters: Mapping[str, Any] | None = None,
        declared: Mapping[str, Any] | None = None,
        variables: Mapping[str, Any] | None = None,
        functions: Any = None,
        deployment: Deployment | None = None,
        path: str = "",
        source: str | None = None,
        definitions: Mapping[str, Any] | None = None,
    ) -> None:
        self._given: dict[str, tuple[str, Any]] = {
            name.lower(): (name, value) for name, value in (parameters or {}).items()
        }
        self._declared: dict[str, ParameterSpec] | None = None
        if declared is not None:
            self._declared = {}
            for name, spec in declared.items():
                self._declared[name.lower()] = _parameter_spec(name, spec, definitions or {})
        self._variables: dict[str, tuple[str, Any]] = {}
        self._variable_loops: dict[str, tuple[str, Any, str]] = {}
        for name, value in (variables or {}).items():
            if name.lower() == "copy" and isinstance(value, list):
                for position, loop in enumerate(value):
                    if isinstance(loop, dict) and isinstance(loop.get("name"), str):
                        loop_path = f"{_join(path, 'variables')}.copy[{position}]"
                        self._variable_loops[loop["name"].lower()] = (loop["name"], loop, loop_path)
                continue
            self._variables[name.lower()] = (name, value)
        self._functions: dict[str, tuple[str, Any, str]] = _user_functions(functions, path)
        self.deployment = deployment or Deployment()
        self.path = path
        self.source = source
        self._loops: dict[str, int] = {}
        self._resource_loop: int | None = None
        self._root: ArmContext = self
        self._shared = _Shared()

    @classmethod
    def from_template(
        cls,
        template: Mapping[str, Any],
        parameters: Mapping[str, Any] | None = None,
        *,
        deployment: Deployment | None = None,
        path: str = "",
        source: str | None = None,
    ) -> ArmContext:
        """The context of a template (its ``parameters``, ``variables`` and ``functions``
        sections), with the values given for its parameters."""
        declared = template.get("parameters")
        variables = template.get("variables")
        definitions = template.get("definitions")
        return cls(
            parameters=parameters,
            declared=declared if isinstance(declared, Mapping) else {},
            variables=variables if isinstance(variables, Mapping) else {},
            functions=template.get("functions"),
            deployment=deployment,
            path=path,
            source=source,
            definitions=definitions if isinstance(definitions, Mapping) else None,
        )

    def with_copy(self, name: str | None, index: int, *, resource: bool = False) -> ArmContext:
        """The context inside iteration ``index`` of a copy loop called ``name``.

        ``resource=True`` for a resource loop: ``copyIndex()`` without a name refers to it.
        Property loops are named (``copyIndex('disks')``).
        """
        child = self._derive()
        if name is not None:
            child._loops = {**self._loops, name.lower(): index}
        if resource:
            child._resource_loop = index
        return child

    def with_parameters(self, parameters: Mapping[str, Any]) -> ArmContext:
        """The context of a user-defined function's body: its parameters, no variables, the same
        functions and deployment."""
        child = ArmContext(
            parameters=parameters,
            declared=None,
            variables=None,
            functions=None,
            deployment=self.deployment,
            path=self.path,
            source=self.source,
        )
        child._functions = self._functions
        return child

    def _derive(self) -> ArmContext:
        child = object.__new__(ArmContext)
        for slot in ArmContext.__slots__:
            object.__setattr__(child, slot, getattr(self, slot))
        return child

    # -- read access for the evaluator

    def given_parameter(self, name: str) -> tuple[bool, Any]:
        found = self._given.get(name.lower())
        return (False, None) if found is None else (True, found[1])

    def declared_parameter(self, name: str) -> ParameterSpec | None:
        if self._declared is None:
            return None
        return self._declared.get(name.lower())

    @property
    def declares_parameters(self) -> bool:
        return self._declared is not None

    def variable(self, name: str) -> tuple[str, Any] | None:
        return self._variables.get(name.lower())

    def variable_loop(self, name: str) -> tuple[str, Any, str] | None:
        return self._variable_loops.get(name.lower())

    def user_function(self, key: str) -> tuple[str, Any, str] | None:
        """A user-defined function: its name as declared, its definition, its JSON path."""
        return self._functions.get(key)

    def copy_index(self, name: str | None) -> int | None:
        if name is None:
            return self._resource_loop
        return self._loops.get(name.lower())

    @property
    def root(self) -> ArmContext:
        """The template's own context (no copy loop): where defaults and variables are evaluated."""
        return self._root

    @property
    def shared(self) -> _Shared:
        return self._shared


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _parameter_spec(name: str, spec: Any, definitions: Mapping[str, Any]) -> ParameterSpec:
    if not isinstance(spec, Mapping):
        return ParameterSpec(name)
    kind = spec.get("type")
    reference = spec.get("$ref")
    if not isinstance(kind, str) and isinstance(reference, str):
        target = definitions.get(reference.rsplit("/", 1)[-1])
        kind = target.get("type") if isinstance(target, Mapping) else None
    kind = kind.lower() if isinstance(kind, str) else "string"
    nullable = spec.get("nullable") is True
    for key, value in spec.items():
        if key.lower() == "defaultvalue":
            return ParameterSpec(name, kind, value, nullable)
    return ParameterSpec(name, kind, nullable=nullable)


def _user_functions(functions: Any, path: str) -> dict[str, tuple[str, Any, str]]:
    """``namespace.member`` (lower case) -> (the name as declared, its definition, its path)."""
    table: dict[str, tuple[str, Any, str]] = {}
    if not isinstance(functions, list):
        return table
    for position, namespace in enumerate(functions):
        if not isinstance(namespace, Mapping):
            continue
        prefix = namespace.get("namespace")
        members = namespace.get("members")
        if not isinstance(prefix, str) or not isinstance(members, Mapping):
            continue
        for member, definition in members.items():
            name = f"{prefix}.{member}"
            where = f"{_join(path, 'functions')}[{position}].members.{member}"
            table[name.lower()] = (name, definition, where)
    return table
