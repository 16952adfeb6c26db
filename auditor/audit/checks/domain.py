"""Domain checks that data cannot say: the custom input schema mapping (DOM-009)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from auditor.audit.checks._registry import CheckContext, Outcome, resource_check
from auditor.audit.resources import Resource, get_path

WITH_DEFAULT_FIELDS = ("subject", "eventType", "dataVersion")
"""The JsonFieldWithDefault members of ``inputSchemaMapping.properties`` (seed 2.C)."""


@resource_check("input-schema-mapping")
def input_schema_mapping(resource: Resource, ctx: CheckContext) -> Iterator[Outcome]:
    """DOM-009: CustomEventSchema needs inputSchemaMapping; a JsonFieldWithDefault that is given
    needs a sourceField or a defaultValue (whatever the schema)."""
    schema = get_path(resource.doc, "properties/inputSchema")
    mapping = get_path(resource.doc, "properties/inputSchemaMapping")
    problems: list[tuple[str, str, str]] = []
    if schema == "CustomEventSchema" and not isinstance(mapping, Mapping):
        problems.append(
            (
                "inputSchemaMapping",
                "inputSchema is CustomEventSchema but there is no inputSchemaMapping",
                "properties.inputSchemaMapping",
            )
        )
    if isinstance(mapping, Mapping):
        for name in WITH_DEFAULT_FIELDS:
            value = get_path(mapping, f"properties/{name}")
            if isinstance(value, Mapping) and not (
                value.get("sourceField") or value.get("defaultValue")
            ):
                problems.append(
                    (
                        name,
                        f"inputSchemaMapping.properties.{name} has neither sourceField nor "
                        "defaultValue",
                        f"properties.inputSchemaMapping.properties.{name}",
                    )
                )
    for detail, problem, where in problems:
        yield Outcome(
            False,
            {"inputSchema": schema, "field": where},
            detail=detail,
            location=f"{resource.location}.{where}",
            fields={"problem": problem},
        )
    if not problems:
        yield Outcome(True, {"inputSchema": schema, "inputSchemaMapping": mapping is not None})
