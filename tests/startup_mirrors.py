"""The generator of ``auditor/estate/wire_records.py``: msgspec mirrors of the pydantic wire models
of a snapshot's small sections (issue 23: instant start-up). ``tests/test_startup_wire.py`` checks
the module is what this generates from the models as they are.

    .venv/bin/python tests/startup_mirrors.py --write   # after a wire model changes
"""

from __future__ import annotations

import sys
import types
import typing
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))

TARGET = ROOT / "auditor" / "estate" / "wire_records.py"

HEADER = '''"""msgspec mirrors of the pydantic wire models of a snapshot's small sections (role definitions,
clusters, domains, health events, developer tooling): generated from :mod:`auditor.model` by
``tests/startup_mirrors.py --write`` (a test checks they are up to date). Never edit by hand.

They validate a small snapshot without pydantic (:mod:`auditor.estate.light`) and are narrower than
the models: an unknown field, a number out of 64 bits or an open map nested deeper than two levels
is refused (the full loader then reads the snapshot), so what they accept the models accept. The
access engine reads role definitions from them; every other consumer gets the wire models.
"""

import msgspec

# No ``from __future__ import annotations``: msgspec reads real annotations without evaluating a
# string per field (about 5 ms of a question's start-up); each class comes after those it names.

_Scalar = str | int | bool | None
_Json = str | int | bool | None | list[_Scalar] | dict[str, _Scalar]
"""A value of an open map (``dict[str, Any]`` in a model): two levels at most."""


class _Mirror(msgspec.Struct, forbid_unknown_fields=True):
    """A wire model's fields, with its types and defaults; no unknown field."""

'''

SECTIONS = {
    "roleDefinitions": "RoleDefinition",
    "clusters": "Cluster",
    "domains": "Domain",
    "healthEvents": "HealthEvent",
    "devTooling": "DevTooling",
}


def render() -> str:
    """The source of the mirrors, from the wire models as they are."""
    import auditor.model as model
    from auditor.model._base import WireModel
    from auditor.model.secrets import Secret, _ConfigMapMarker

    order: list[type[Any]] = []

    def walk(cls: type[Any]) -> None:
        if cls in order:
            return
        for field in cls.model_fields.values():
            for inner in _models(field.annotation, WireModel):
                walk(inner)
        order.append(cls)

    def spell(ann: Any) -> str:
        origin, args = typing.get_origin(ann), typing.get_args(ann)
        if ann is type(None):
            return "None"
        if ann in (str, int, bool) or ann is Secret:
            return "str" if ann is Secret else ann.__name__
        if ann is Any:
            return "_Json"
        if origin is typing.Annotated:
            assert any(m is _ConfigMapMarker for m in args[1:]), ann
            return "dict[str, _Json]"
        if origin in (typing.Union, types.UnionType):
            return " | ".join(spell(a) for a in args)
        if origin is list:
            return f"list[{spell(args[0])}]"
        if origin is dict:
            assert args[0] is str, ann
            return f"dict[str, {spell(args[1])}]"
        if isinstance(ann, type) and issubclass(ann, WireModel):
            return f"{ann.__name__}Record"
        raise AssertionError(f"no mirror for {ann!r}")

    for name in SECTIONS.values():
        walk(getattr(model, name))
    out = [HEADER]
    for cls in order:
        out.append(f"\nclass {cls.__name__}Record(_Mirror):\n")
        out.append(f'    """Mirror of :class:`{cls.__module__}.{cls.__name__}`."""\n\n')
        for name, field in cls.model_fields.items():
            assert not field.is_required(), (cls, name)
            factory = field.default_factory
            if factory is None:
                assert field.default is None, (cls, name)
                default = "None"
            elif factory is list:
                default = "msgspec.field(default_factory=list)"
            else:
                default = f"msgspec.field(default_factory={factory.__name__}Record)"
            out.append(f"    {name}: {spell(field.annotation)} = {default}\n")
    out.append("\n\nSECTION_TYPES: dict[str, object] = {\n")
    for section, name in SECTIONS.items():
        typ = f"{name}Record | None" if section == "devTooling" else f"list[{name}Record]"
        out.append(f'    "{section}": {typ},\n')
    out.append("}\n")
    out.append('"""The type each small section of a snapshot decodes into."""\n')
    return "".join(out)


def _models(ann: Any, base: type[Any]) -> list[type[Any]]:
    found: list[type[Any]] = []
    if isinstance(ann, type) and issubclass(ann, base):
        found.append(ann)
    for arg in typing.get_args(ann):
        found.extend(_models(arg, base))
    return found


def formatted(source: str) -> str:
    import subprocess

    ruff = Path(sys.executable).parent / "ruff"
    done = subprocess.run(
        [str(ruff), "format", "--stdin-filename", str(TARGET), "-"],
        input=source, capture_output=True, text=True, check=True, cwd=ROOT,
    )  # fmt: skip
    return done.stdout


if __name__ == "__main__" and "--write" in sys.argv:
    TARGET.write_text(formatted(render()), encoding="utf-8")
    print(f"wrote {TARGET}")
