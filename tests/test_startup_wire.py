"""The msgspec mirrors of the small sections' wire models (``auditor/estate/wire_records.py``,
issue 23: instant start-up) stay exact: the module is what the pydantic models generate today
(``tests/startup_mirrors.py``), and a small snapshot read through the mirrors
(:mod:`auditor.estate.light`) is the snapshot the full loader reads, or is left to it.

Soundness, which the light loader rests on: whatever the mirrors accept, the strict pydantic
models accept (the mirrors are narrower: no unknown field, JSON values of at most two levels in an
open map, integers of 64 bits), so an input the mirrors refuse goes to the full loader, which
answers exactly as before."""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from auditor.errors import InputError
from auditor.estate.light import LazySnapshot, light_snapshot, role_definitions
from auditor.estate.sample import sample_snapshot_bytes
from auditor.estate.snapshot import Snapshot, load_snapshot
from tests import strategies as wire
from tests.startup_mirrors import TARGET, formatted, render


def _entries(catalogue_source: Any) -> dict[str, Any]:
    """What the access engine keeps of each role (its catalogue), comparable."""
    from auditor.access.catalogue import Catalogue

    out = {}
    for guid, role in Catalogue(catalogue_source).roles.items():
        perms = [
            (p.index, p.actions, p.notActions, p.dataActions, p.notDataActions, p.condition)
            for p in role.permissions
        ]
        out[guid] = (role.id, role.name, role.type, perms)
    return out


def _both(path: Path) -> tuple[LazySnapshot | None, Snapshot | InputError]:
    light = light_snapshot(path)
    try:
        full: Snapshot | InputError = load_snapshot(path)
    except InputError as exc:
        full = exc
    return light, full


def _same(light: LazySnapshot, full: Snapshot) -> None:
    assert light.warnings == full.warnings == []
    assert light.present == full.present and light.extra == full.extra == {}
    mirrors = role_definitions(light)  # read before anything materializes the wire models
    assert _entries(mirrors) == _entries(full.roleDefinitions)
    assert light == full and full == light  # every section, the small ones as wire models now
    assert [m.to_wire() for m in light.roleDefinitions] == [
        m.to_wire() for m in full.roleDefinitions
    ]


def test_the_mirrors_are_what_the_wire_models_generate() -> None:
    assert TARGET.read_text("utf-8") == formatted(render())


def test_the_sample_is_read_without_pydantic_and_equals_the_full_load(tmp_path: Path) -> None:
    path = tmp_path / "sample.json"
    path.write_bytes(sample_snapshot_bytes())
    light, full = _both(path)
    assert isinstance(light, LazySnapshot) and isinstance(full, Snapshot)
    assert light.__dict__["_raw"].keys() == {
        "roleDefinitions", "clusters", "domains", "healthEvents", "devTooling"
    }  # fmt: skip
    _same(light, full)
    assert light.__dict__["_raw"] == {}  # every small section was built once compared
    copy = dataclasses.replace(light, warnings=["w"])
    assert copy.clusters == full.clusters and copy.warnings == ["w"]


def test_a_copy_is_set_apart_and_a_set_section_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "sample.json"
    path.write_bytes(sample_snapshot_bytes())
    light, full = _both(path)
    assert light is not None and isinstance(full, Snapshot)
    shallow = copy.copy(light)
    shallow.clusters = []
    shallow.roleDefinitions = full.roleDefinitions[:1]
    assert light.clusters == full.clusters and light == full  # the original is untouched
    assert shallow.clusters == [] and len(shallow.roleDefinitions) == 1
    assert list(role_definitions(shallow)) == full.roleDefinitions[:1]  # the mirrors are gone
    assert len(role_definitions(light)) == len(full.roleDefinitions)
    assert copy.deepcopy(light) == full


def test_a_generated_estate_equals_the_full_load(tmp_path: Path) -> None:
    from auditor.estate.generate import generate_estate

    path = tmp_path / "estate.json"
    generate_estate(300, seed=3, out=path)
    light, full = _both(path)
    assert light is not None and isinstance(full, Snapshot)
    _same(light, full)


def _sample() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(sample_snapshot_bytes())
    return data


@pytest.mark.parametrize(
    ("change", "why"),
    [
        (lambda s: s.__setitem__("extraSection", []), "an unknown top-level key (a warning)"),
        (lambda s: s["clusters"][0].__setitem__("xNote", 1), "an unknown field (kept or dropped)"),
        (lambda s: s["domains"].append(s["domains"][0]), "two domains with one id (merged)"),
        (lambda s: s["roleAssignments"].append(s["roleAssignments"][0]), "a duplicate record"),
        (lambda s: s.__setitem__("snapshotVersion", 2), "another version (an error)"),
        (lambda s: s["clusters"][0].__setitem__("tags", {"a": 1}), "a tag not a string (an error)"),
        (lambda s: s["healthEvents"][0]["properties"].__setitem__("duration", 1.5), "a float"),
        (lambda s: s["devTooling"]["tokens"].append(s["devTooling"]["tokens"][0]), "a token twice"),
    ],
)
def test_what_the_full_loader_warns_about_or_refuses_is_left_to_it(
    change: Any, why: str, tmp_path: Path
) -> None:
    data = _sample()
    change(data)
    path = tmp_path / "estate.json"
    path.write_bytes(msgspec.json.encode(data))
    light, full = _both(path)
    assert light is None, why
    # and the full loader does notice: an error, a warning, or what it keeps besides the models
    noticed = isinstance(full, InputError) or full.warnings or full.extra or full.preserved
    assert noticed or any(c.model_extra for c in full.clusters), why


@pytest.mark.parametrize(
    "content",
    [
        b"\xef\xbb\xbf" + sample_snapshot_bytes(),
        b'{"hierarchy": [], "snapshotVersion": 1}',
        b"",
        b"[]",
    ],
)
def test_a_file_the_readers_must_recognise_is_left_to_them(content: bytes, tmp_path: Path) -> None:
    path = tmp_path / "estate.json"
    path.write_bytes(content)
    assert light_snapshot(path) is None
    assert light_snapshot(tmp_path) is None and light_snapshot(tmp_path / "missing.json") is None


def test_a_snapshot_named_like_a_cassette_is_left_to_the_readers(tmp_path: Path) -> None:
    path = tmp_path / "estate.yaml"  # the readers take .yaml and .yml for VCR cassettes
    path.write_bytes(sample_snapshot_bytes())
    assert light_snapshot(path) is None
    assert light_snapshot(path.rename(tmp_path / "estate.json")) is not None


_SECTIONS = st.fixed_dictionaries(
    {},
    optional={
        "roleDefinitions": st.lists(wire.role_definition, max_size=3),
        "clusters": st.lists(wire.cluster, max_size=2),
        "domains": st.lists(wire.domain, max_size=2),
        "healthEvents": st.lists(wire.health_event, max_size=2),
        "devTooling": st.none() | wire.dev_tooling,
    },
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sections=_SECTIONS, data=st.data())
def test_what_the_mirrors_accept_the_wire_models_accept_alike(
    sections: dict[str, Any], data: st.DataObject, tmp_path_factory: pytest.TempPathFactory
) -> None:
    # the wire strategies give valid objects, unknown fields and odd values; one more value of a
    # random JSON type put somewhere makes many of them wrong
    if sections and data.draw(st.booleans()):
        key = data.draw(st.sampled_from(sorted(sections)))
        target = sections[key]
        while isinstance(target, list) and target:
            target = target[0]
        if isinstance(target, dict) and target:
            field = data.draw(st.sampled_from(sorted(target)))
            target[field] = data.draw(wire.JSON)
    document = {"snapshotVersion": 1, **sections}
    path = tmp_path_factory.mktemp("wire") / "estate.json"
    path.write_bytes(json.dumps(document).encode())
    light, full = _both(path)
    if isinstance(full, InputError) or full.warnings:
        event("refused or warned: left to the full loader")
        assert light is None
    elif light is not None:
        event("read without pydantic")
        _same(light, full)
    else:
        event("left to the full loader (an unknown field, a value the mirrors do not take)")
