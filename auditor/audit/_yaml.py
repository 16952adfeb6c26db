"""The one YAML loader of the tool (waivers, rule packs): safe, bounded, and never surprising.

- Safe tags only (libyaml's ``CSafeLoader`` when available), and a value a safe tag cannot build
  (``!!timestamp notadate``, ``!!int zz``, a 10,000-digit integer) is an error at its line and column,
  never an exception from inside PyYAML.
- Dates are never built implicitly: ``expires: 2027-02-30`` is the string it reads as, and the
  caller validates it (so an impossible date is a message naming the entry, not a crash);
  ``!!timestamp`` gives the text too.
- Aliases are bounded: at most :data:`MAX_ALIASES` in a document, and the document with every alias
  expanded at most :data:`MAX_NODES` nodes (a "billion laughs" alias bomb is refused before anything
  walks it); an alias inside its own anchor (a document that contains itself) is refused.
- Nesting is at most :data:`~auditor.estate.MAX_DEPTH` levels, as for JSON inputs.
"""

from __future__ import annotations

from typing import Any, ClassVar

import yaml

from auditor.errors import InputError
from auditor.estate import MAX_DEPTH

MAX_ALIASES = 100
"""Aliases (``*name``) one document may use."""
MAX_NODES = 100_000
"""Nodes of a document with every alias expanded, at most."""
MAX_BYTES = 16 << 20
"""Bytes of a YAML file, at most (:func:`read_yaml_file`)."""

_TIMESTAMP = "tag:yaml.org,2002:timestamp"
_Base: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_Base):  # type: ignore[misc]
    """The safe loader without implicit timestamps, whose constructors fail only with YAMLError."""

    yaml_implicit_resolvers: ClassVar[dict[Any, list[tuple[str, Any]]]] = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != _TIMESTAMP]
        for first, resolvers in _Base.yaml_implicit_resolvers.items()
    }

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep)
        except yaml.YAMLError:
            raise
        except (ValueError, TypeError, AttributeError, OverflowError, RecursionError):
            tag = str(node.tag).rsplit(":", 1)[-1]
            raise yaml.constructor.ConstructorError(
                None, None, f"cannot read this value as {tag}", node.start_mark
            ) from None


_Loader.add_constructor(_TIMESTAMP, lambda loader, node: loader.construct_scalar(node))


def load_yaml(text: str, *, source: str, what: str = "file") -> Any:
    """The value of the YAML document ``text``; every problem is an InputError naming ``source``
    and the line and column."""
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_nodes(node, source)
        return loader.construct_document(node)
    except yaml.YAMLError as exc:
        raise _yaml_error(exc, source, what) from None
    except RecursionError:
        raise InputError(
            f"the {what} nests deeper than {MAX_DEPTH} levels (the limit)", source=source
        ) from None
    finally:
        loader.dispose()


def read_yaml_file(path: str, *, what: str = "file") -> Any:
    """Read (a regular file of at most :data:`MAX_BYTES` bytes, UTF-8) and load ``path``."""
    from auditor.estate import read_input_text

    return load_yaml(read_input_text(path, what=what, limit=MAX_BYTES), source=path, what=what)


def _yaml_error(exc: yaml.YAMLError, source: str, what: str) -> InputError:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    location = f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else None
    problem = getattr(exc, "problem", None)
    detail = f": {problem}" if isinstance(problem, str) and problem else ""
    return InputError(f"the {what} is not valid YAML{detail}", source=source, location=location)


def _check_nodes(root: yaml.Node, source: str) -> None:
    """Refuse too many aliases, too large an expansion, a node inside itself, deep nesting.

    One walk of the node graph (an alias is the very node its anchor names, met again), with the
    expanded size and depth of each node remembered, so an alias bomb costs its written size."""
    done: dict[int, tuple[int, int]] = {}  # id(node) -> (expanded nodes, depth)
    open_nodes: set[int] = set()
    aliases = 0
    # frames: [node, its children, how many of them are visited]
    stack: list[list[Any]] = [[root, _children(root), 0]]
    open_nodes.add(id(root))
    while stack:
        frame = stack[-1]
        children = frame[1]
        if frame[2] < len(children):
            child = children[frame[2]]
            frame[2] += 1
            key = id(child)
            if key in done:
                aliases += 1
                if aliases > MAX_ALIASES:
                    raise _node_error(child, source, f"more than {MAX_ALIASES} aliases")
            elif key in open_nodes:
                raise _node_error(child, source, "an alias refers to a node that contains it")
            elif isinstance(child, yaml.ScalarNode):
                done[key] = (1, 1)
            else:
                if len(stack) >= MAX_DEPTH:
                    raise _node_error(child, source, f"nested deeper than {MAX_DEPTH} levels")
                open_nodes.add(key)
                stack.append([child, _children(child), 0])
            continue
        stack.pop()
        node = frame[0]
        open_nodes.discard(id(node))
        size, depth = 1, 1
        for child in children:
            child_size, child_depth = done[id(child)]
            size += child_size
            if child_depth >= depth:
                depth = child_depth + 1
        if size > MAX_NODES:
            raise _node_error(
                node, source, f"its aliases expand it to more than {MAX_NODES:,} nodes (a bomb?)"
            )
        if depth > MAX_DEPTH:
            raise _node_error(node, source, f"nested deeper than {MAX_DEPTH} levels")
        done[id(node)] = (size, depth)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _node_error(node: yaml.Node, source: str, problem: str) -> InputError:
    mark = node.start_mark
    return InputError(
        f"the YAML is refused: {problem}",
        source=source,
        location=f"line {mark.line + 1}, column {mark.column + 1}",
    )
