"""YAML cassettes read safely: libyaml's safe loader, the document's node graph checked before it
is built (at most :data:`MAX_NODES` nodes with every alias expanded, so an alias bomb is refused,
and at most :data:`~auditor.estate.MAX_DEPTH` levels, so a document that contains itself is too),
every problem an InputError at its line and column."""

from __future__ import annotations

from typing import Any

from auditor.errors import InputError
from auditor.estate import MAX_DEPTH

MAX_NODES = 2_000_000
"""Nodes of a cassette with every alias expanded, at most."""


def load_yaml_document(text: str, *, source: str) -> Any:
    """The value of the YAML document ``text`` (PyYAML is imported on first use)."""
    import yaml

    loader_class: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    loader = loader_class(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check(node, source)
        return loader.construct_document(node)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        problem = getattr(exc, "problem", None) or "not valid YAML"
        location = f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else None
        raise InputError(f"invalid YAML: {problem}", source=source, location=location) from None
    except (ValueError, TypeError, OverflowError, RecursionError):
        raise InputError("a YAML value cannot be read", source=source) from None
    finally:
        loader.dispose()


def _check(root: Any, source: str) -> None:
    import yaml

    stack: list[tuple[Any, int]] = [(root, 1)]
    seen = 0
    while stack:
        node, depth = stack.pop()
        seen += 1
        if seen > MAX_NODES:
            raise InputError(
                f"the YAML document expands to more than {MAX_NODES:,} values (aliases?)",
                source=source,
            )
        if depth > MAX_DEPTH:
            mark = node.start_mark
            raise InputError(
                f"nested deeper than {MAX_DEPTH} levels",
                source=source,
                location=f"line {mark.line + 1}, column {mark.column + 1}",
            )
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                stack.append((key, depth + 1))
                stack.append((value, depth + 1))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((item, depth + 1) for item in node.value)
