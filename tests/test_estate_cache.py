"""The persistent cache of loaded snapshots (auditor.estate.cache, issue 23 item 1): hits, misses,
invalidation (content changed at the same size and time, another version, damaged entries), two
processes building at once, secrets never written, the command line's --no-cache, --cache-dir,
AUDITOR_CACHE_DIR and `cache` setting, `auditor cache info|clear`, and the property that every
answer from a cached load equals the answer from the JSON."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.access import AccessEngine, AccessRequest
from auditor.audit.runner import AuditOptions, audit_snapshot
from auditor.cli import _cache as cache_cli
from auditor.cli import main
from auditor.estate import cache as cache_module
from auditor.estate.cache import SUFFIX, EstateCache
from auditor.estate.generate import generate_estate
from auditor.estate.sample import sample_snapshot
from auditor.estate.snapshot import Snapshot, load_snapshot
from auditor.sources import load_estate

ROOT = Path(__file__).resolve().parent.parent


class Loads:
    """A loader that counts its calls (a hit never calls it)."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, name: str) -> Snapshot:
        self.calls += 1
        return load_estate(name)


def _cache(directory: Path, notes: list[str] | None = None) -> EstateCache:
    return EstateCache(directory, note=None if notes is None else notes.append, min_bytes=0)


@pytest.fixture(scope="module")
def estate_bytes() -> bytes:
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "estate.json"
        generate_estate(300, seed=3, principals=60, deny_assignments=6, out=out, progress=False)
        return out.read_bytes()


@pytest.fixture
def estate(tmp_path: Path, estate_bytes: bytes) -> Path:
    path = tmp_path / "estate.json"
    path.write_bytes(estate_bytes)
    return path


def _entries(directory: Path) -> list[Path]:
    return sorted(directory.glob(f"*{SUFFIX}"))


def test_miss_then_hit(tmp_path: Path, estate: Path) -> None:
    notes: list[str] = []
    store = _cache(tmp_path / "cache", notes)
    loads = Loads()
    first = store.load(estate, loads)
    assert loads.calls == 1
    [entry] = _entries(tmp_path / "cache")
    assert entry == store.entry_path(estate)
    assert entry.stat().st_mode & 0o777 == 0o600
    second = store.load(estate, loads)
    assert loads.calls == 1  # decoded from the entry, the JSON not parsed again
    assert second == first == load_snapshot(estate)
    assert second.source == os.fspath(estate)
    assert second.warnings == first.warnings
    assert notes == []  # building the first entry is silent


def test_an_entry_is_plain_msgpack(tmp_path: Path, estate: Path) -> None:
    store = _cache(tmp_path / "cache")
    snap = store.load(estate, Loads())
    doc = msgspec.msgpack.decode(store.entry_path(estate).read_bytes())  # any msgpack reader
    magic, _format, _version, _schema, source, size, _mtime, digest, chunks, crc = doc
    assert (magic, source, size) == (
        "auditor-estate-cache",
        os.path.realpath(estate),
        len(estate.read_bytes()),
    )
    assert digest == __import__("hashlib").sha256(estate.read_bytes()).hexdigest()
    assert crc == __import__("zlib").crc32(b"".join(chunks))
    ras = [
        r
        for c in chunks[1:]
        for r in msgspec.msgpack.decode(c)
        if "properties" in r and "roleDefinitionId" in r["properties"]
    ]
    assert len(ras) == len(snap.roleAssignments)


def test_small_snapshots_and_exports_are_not_cached(tmp_path: Path, estate: Path) -> None:
    store = EstateCache(tmp_path / "cache", min_bytes=estate.stat().st_size + 1)
    loads = Loads()
    store.load(estate, loads)
    store.load(estate, loads)
    assert loads.calls == 2
    assert _entries(tmp_path / "cache") == []
    # a folder of exports (an ImportedSnapshot, with provenance) is loaded, never cached
    folder = tmp_path / "exports"
    folder.mkdir()
    listing = {"value": [ra for ra in json.loads(estate.read_bytes())["roleAssignments"][:5]]}
    (folder / "roles.json").write_text(json.dumps(listing))
    export = _cache(tmp_path / "cache2").load(folder / "roles.json", Loads())
    assert len(export.roleAssignments) == 5
    assert _entries(tmp_path / "cache2") == []


def test_content_change_at_same_size_and_time_is_caught(tmp_path: Path, estate: Path) -> None:
    notes: list[str] = []
    store = _cache(tmp_path / "cache", notes)
    store.load(estate, Loads())
    before = estate.stat()
    data = estate.read_bytes()
    at = data.index(b'"principalId":"') + len(b'"principalId":"')
    changed = data[:at] + (b"f" if data[at : at + 1] != b"f" else b"e") + data[at + 1 :]
    estate.write_bytes(changed)
    os.utime(estate, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = estate.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    loads = Loads()
    got = store.load(estate, loads)
    assert loads.calls == 1
    assert got == load_snapshot(estate)
    assert len(notes) == 1 and "changed" in notes[0] and "rebuilding" in notes[0]
    # rebuilt: the next load is a hit again
    assert store.load(estate, loads) == got and loads.calls == 1


def test_changed_time_is_a_rebuild_too(tmp_path: Path, estate: Path) -> None:
    notes: list[str] = []
    store = _cache(tmp_path / "cache", notes)
    store.load(estate, Loads())
    info = estate.stat()
    os.utime(estate, ns=(info.st_atime_ns, info.st_mtime_ns + 1_000_000_000))
    loads = Loads()
    store.load(estate, loads)
    assert loads.calls == 1 and len(notes) == 1 and "changed" in notes[0]


@pytest.mark.parametrize(
    ("name", "value"),
    [("__version__", "999.0"), ("CACHE_FORMAT", 999), ("_schema", lambda: "another")],
)
def test_another_version_is_rebuilt(
    tmp_path: Path, estate: Path, monkeypatch: pytest.MonkeyPatch, name: str, value: object
) -> None:
    notes: list[str] = []
    store = _cache(tmp_path / "cache", notes)
    store.load(estate, Loads())
    monkeypatch.setattr(cache_module, name, value)
    loads = Loads()
    assert store.load(estate, loads) == load_snapshot(estate)
    assert loads.calls == 1
    assert len(notes) == 1 and "another version" in notes[0]
    assert store.load(estate, loads) is not None and loads.calls == 1  # rewritten for this one


def _truncate(entry: Path) -> None:
    data = entry.read_bytes()
    entry.write_bytes(data[: len(data) // 2])


def _flip_payload_byte(entry: Path) -> None:
    data = bytearray(entry.read_bytes())
    data[len(data) * 2 // 3] ^= 0x01
    entry.write_bytes(bytes(data))


def _garbage(entry: Path) -> None:
    entry.write_bytes(b"\x00\xff not msgpack at all")


def _empty(entry: Path) -> None:
    entry.write_bytes(b"")


def _other_document(entry: Path) -> None:
    entry.write_bytes(msgspec.msgpack.encode(["someone-else", 1, "x", "y"]))


@pytest.mark.parametrize(
    "damage", [_truncate, _flip_payload_byte, _garbage, _empty, _other_document]
)
def test_damaged_entries_are_rebuilt_never_trusted(
    tmp_path: Path, estate: Path, damage: Callable[[Path], None]
) -> None:
    notes: list[str] = []
    store = _cache(tmp_path / "cache", notes)
    store.load(estate, Loads())
    damage(store.entry_path(estate))
    loads = Loads()
    assert store.load(estate, loads) == load_snapshot(estate)
    assert loads.calls == 1
    assert len(notes) == 1 and "damaged" in notes[0] and "rebuilding" in notes[0]
    assert store.load(estate, loads) == load_snapshot(estate) and loads.calls == 1


def test_a_forged_entry_for_other_content_is_refused(tmp_path: Path, estate: Path) -> None:
    """An entry whose payload passes its checksum but was made from other bytes (the snapshot's
    hash differs) is not used."""
    store = _cache(tmp_path / "cache")
    store.load(estate, Loads())
    entry = store.entry_path(estate)
    top = msgspec.msgpack.decode(entry.read_bytes(), type=cache_module._Entry)
    forged = msgspec.structs.replace(top, digest="0" * 64)
    entry.write_bytes(msgspec.msgpack.encode(forged))
    loads = Loads()
    assert store.load(estate, loads) == load_snapshot(estate)
    assert loads.calls == 1


def _build_in_child(path: str, directory: str, barrier: Any, out: Any) -> None:
    barrier.wait(timeout=60)  # both load and write at the same moment
    notes: list[str] = []
    snap = EstateCache(Path(directory), note=notes.append, min_bytes=0).load(path, load_estate)
    out.put((len(snap.roleAssignments), notes))


def test_two_processes_building_at_once(tmp_path: Path, estate: Path) -> None:
    import multiprocessing

    directory = tmp_path / "cache"
    ctx = multiprocessing.get_context("fork")
    barrier, out = ctx.Barrier(2), ctx.Queue()
    procs = [
        ctx.Process(target=_build_in_child, args=(str(estate), str(directory), barrier, out))
        for _ in range(2)
    ]
    for proc in procs:
        proc.start()
    results = [out.get(timeout=120) for _ in procs]
    for proc in procs:
        proc.join(timeout=60)
    assert [proc.exitcode for proc in procs] == [0, 0]
    assert results == [(300, []), (300, [])]  # no note: neither saw half an entry
    assert [p.name for p in directory.iterdir()] == [store_name(directory, estate)]
    loads = Loads()
    assert _cache(directory).load(estate, loads) == load_snapshot(estate)
    assert loads.calls == 0  # the entry left is whole


def store_name(directory: Path, estate: Path) -> str:
    return EstateCache(directory).entry_path(estate).name


STORAGE_KEY = "c3RvcmFnZS1rZXktdGhhdC1tdXN0LW5vdC1sZWFr=="
NODE_PASSWORD = "Node-Password-That-Must-Not-Leak-42!"


def test_secrets_never_reach_the_cache(tmp_path: Path) -> None:
    doc = json.loads(dump_snapshot_bytes(sample_snapshot()))
    props = doc["clusters"][0]["properties"]
    props["storageProfile"] = {
        "storageaccounts": [{"name": "st.blob", "isDefault": True, "key": STORAGE_KEY}]
    }
    props["computeProfile"]["roles"][0]["osProfile"] = {
        "linuxOperatingSystemProfile": {"username": "admin", "password": NODE_PASSWORD}
    }
    path = tmp_path / "secrets.json"
    path.write_text(json.dumps(doc))
    fresh = load_snapshot(path)
    assert STORAGE_KEY not in repr(fresh.clusters[0])  # masked in the loaded model
    store = _cache(tmp_path / "cache")
    store.load(path, Loads())
    entry = store.entry_path(path).read_bytes()
    for secret in (STORAGE_KEY, NODE_PASSWORD):
        assert secret.encode() not in entry
    loads = Loads()
    again = store.load(path, loads)
    assert loads.calls == 0
    assert again == fresh  # the secrets come back, decoded from the snapshot itself
    key = again.clusters[0].properties.storageProfile.storageaccounts[0].key
    assert key is not None and key.reveal() == STORAGE_KEY


def dump_snapshot_bytes(snap: Snapshot) -> bytes:
    from auditor.estate.snapshot import dumps_snapshot

    return dumps_snapshot(snap)


def test_what_the_loader_kept_comes_back(tmp_path: Path, estate_bytes: bytes) -> None:
    """Unknown keys and fields, merged duplicates, warnings, positions, sections not listed."""
    doc = json.loads(estate_bytes)
    doc["roleAssignments"].insert(3, doc["roleAssignments"][0])  # merged, with a warning
    doc["roleAssignments"][5]["properties"]["futureField"] = {"x": [1, 2.5, None]}
    doc["roleAssignments"][6]["apiKey"] = "dropped-because-secret-looking"
    doc["vendorExtension"] = {"kept": True}
    doc["roleAssignments"][7]["id"] = "/custom/id/not/made/of/scope/and/name"
    doc["roleAssignments"][8]["id"] = ""
    doc["roleAssignments"][9]["name"] = None
    del doc["healthEvents"]  # not collected: stays "not collected"
    path = tmp_path / "odd.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(doc, indent=1).encode())
    store = _cache(tmp_path / "cache")
    fresh = store.load(path, Loads())
    loads = Loads()
    cached = store.load(path, loads)
    assert loads.calls == 0
    assert cached == fresh
    for name in ("warnings", "positions", "present", "preserved", "extra", "source"):
        assert getattr(cached, name) == getattr(fresh, name), name
    assert cached.warnings and cached.preserved and cached.extra and cached.positions
    assert not cached.has_section("healthEvents")
    assert b"dropped-because-secret-looking" not in store.entry_path(path).read_bytes()


def test_unwritable_cache_directory_is_a_note_not_an_error(tmp_path: Path, estate: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    notes: list[str] = []
    got = _cache(blocker / "cache", notes).load(estate, Loads())
    assert got == load_snapshot(estate)
    assert len(notes) == 1 and "cannot write the cache" in notes[0]


def test_a_shared_cache_directory_is_never_used(tmp_path: Path, estate: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    notes: list[str] = []
    store = _cache(shared, notes)
    assert store.load(estate, Loads()) == load_snapshot(estate)
    assert _entries(shared) == [] and len(notes) == 1 and "shared" in notes[0]
    # an entry planted there is not read either
    shared.chmod(0o700)
    store.load(estate, Loads())
    shared.chmod(0o777)
    loads = Loads()
    store.load(estate, loads)
    assert loads.calls == 1


def test_info_and_clear(tmp_path: Path, estate: Path) -> None:
    store = _cache(tmp_path / "cache")
    store.load(estate, Loads())
    (tmp_path / "cache" / "unrelated.txt").write_text("kept")
    leftover = tmp_path / "cache" / f".x{SUFFIX}.abc.tmp"
    leftover.write_bytes(b"half")
    [info] = store.entries()
    assert info.source == os.path.realpath(estate)
    assert info.snapshot_bytes == estate.stat().st_size and info.current
    assert info.bytes == store.entry_path(estate).stat().st_size
    assert store.clear() == (2, info.bytes + 4)
    assert store.entries() == []
    assert (tmp_path / "cache" / "unrelated.txt").exists()


# -- the command line


@pytest.fixture
def cli_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Every snapshot is large enough to cache; the cache in a temporary folder."""
    directory = tmp_path / "cli-cache"
    monkeypatch.setattr(cache_cli, "MIN_BYTES", 0)
    monkeypatch.setenv("AUDITOR_CACHE_DIR", str(directory))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "auditor.toml").write_text("cache = true\n")  # the cache is opt-in
    return directory


def test_the_cache_is_off_unless_asked_for(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    estate: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    directory = tmp_path / "cli-cache"
    monkeypatch.setattr(cache_cli, "MIN_BYTES", 0)
    monkeypatch.setenv("AUDITOR_CACHE_DIR", str(directory))
    monkeypatch.chdir(tmp_path)  # no configuration file
    assert main(_who(estate)) == 0
    capsys.readouterr()
    assert _entries(directory) == []
    assert main([*_who(estate), "--cache-dir", str(directory)]) == 0
    assert len(_entries(directory)) == 1


def _who(estate: Path, *extra: str) -> list[str]:
    return [
        "access",
        "who",
        "--snapshot",
        str(estate),
        "--action",
        "Cloud.Authorization/roleAssignments/write",
        "--scope",
        "/",
        "--format",
        "json",
        *extra,
    ]


def test_cli_writes_then_reads_the_cache(
    cli_cache: Path, estate: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(_who(estate, "--no-cache")) == 0
    plain = capsys.readouterr().out
    assert _entries(cli_cache) == []  # --no-cache: nothing written
    assert main(_who(estate)) == 0
    assert capsys.readouterr().out == plain
    assert len(_entries(cli_cache)) == 1
    assert main(_who(estate)) == 0
    cached = capsys.readouterr()
    assert cached.out == plain and cached.err == ""
    # a changed snapshot: one note on standard error, the answer from the new bytes
    doc = json.loads(estate.read_bytes())
    doc["roleAssignments"] = doc["roleAssignments"][:10]
    estate.write_text(json.dumps(doc))
    assert main(_who(estate)) == 0
    changed = capsys.readouterr()
    assert changed.err.count("\n") == 1 and "rebuilding the cache" in changed.err
    assert main(_who(estate, "--no-cache")) == 0
    assert capsys.readouterr().out == changed.out


def test_cli_cache_dir_option_and_setting(
    cli_cache: Path, tmp_path: Path, estate: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "other"
    assert main(["estate", "show", str(estate), "--cache-dir", str(other), "-f", "json"]) == 0
    assert len(_entries(other)) == 1 and _entries(cli_cache) == []
    # the configuration's `cache` (the environment variable wins over it)
    os.environ.pop("AUDITOR_CACHE_DIR")
    (tmp_path / "auditor.toml").write_text('cache = "from-config"\n')
    assert main(["estate", "show", str(estate), "-f", "json"]) == 0
    assert len(_entries(tmp_path / "from-config")) == 1
    (tmp_path / "auditor.toml").write_text("cache = false\n")
    assert main(["query", "role-assignments", "--snapshot", str(estate), "--format", "json"]) == 0
    assert _entries(cli_cache) == []
    assert len(_entries(tmp_path / "from-config")) == 1  # `cache = false`: nothing more written
    (tmp_path / "auditor.toml").write_text("cache = 3\n")
    assert main(["estate", "show", str(estate)]) == 2
    err = capsys.readouterr().err
    assert "auditor.toml" in err and "cache" in err and "expected false, true or a folder" in err


def test_cli_cache_info_and_clear(
    cli_cache: Path, estate: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(_who(estate)) == 0
    capsys.readouterr()
    assert main(["cache", "info", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["directory"] == str(cli_cache)
    [entry] = doc["entries"]
    assert entry["snapshot"] == os.path.realpath(estate) and entry["current"] is True
    assert doc["bytes"] == entry["bytes"] > 0
    assert main(["cache", "info"]) == 0
    assert os.path.realpath(estate) in capsys.readouterr().out
    assert main(["cache", "clear"]) == 0
    assert "removed 1 entry" in capsys.readouterr().out
    assert _entries(cli_cache) == []


def test_every_snapshot_command_takes_no_cache(
    cli_cache: Path, estate: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    principal = json.loads(estate.read_bytes())["roleAssignments"][0]["properties"]["principalId"]
    commands = [
        ["access", "check", "--snapshot", str(estate), "--principal", principal, "--action",
         "Cloud.Compute/virtualMachines/read", "--scope", "/"],
        ["access", "what", "--snapshot", str(estate), "--principal", principal],
        ["access", "diff", str(estate), str(estate)],
        ["gdpr", "export", "--snapshot", str(estate), "--principal-id", principal],
        ["estate", "show", str(estate)],
        ["query", "role-assignments", "--snapshot", str(estate)],
        ["audit", "--snapshot", str(estate), "--check", "DOM-001", "--fail-on", "critical"],
    ]  # fmt: skip
    for args in commands:
        assert main([*args, "--no-cache"]) == 0, args
        capsys.readouterr()
    assert _entries(cli_cache) == []
    for args in commands:
        assert main(args) == 0, args
        capsys.readouterr()
    assert len(_entries(cli_cache)) == 1


# -- every answer from a cached load equals the answer from the JSON


@settings(max_examples=6, deadline=None)
@given(
    role_assignments=st.integers(0, 80),
    seed=st.integers(0, 10_000),
    principals=st.integers(1, 30),
    denies=st.integers(0, 4),
    twist=st.sampled_from(["none", "duplicate", "unknown-field", "unknown-key"]),
)
def test_cached_answers_equal_json_answers(
    role_assignments: int, seed: int, principals: int, denies: int, twist: str
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "estate.json"
        generate_estate(
            role_assignments,
            seed=seed,
            principals=principals,
            deny_assignments=denies,
            out=path,
            progress=False,
        )
        if twist != "none":
            doc = json.loads(path.read_bytes())
            ras = doc["roleAssignments"]
            if twist == "duplicate" and ras:
                ras.append(ras[0])
            elif twist == "unknown-field" and ras:
                ras[-1]["properties"]["extraField"] = [1, "two"]
            else:
                doc["extension"] = {"a": 1}
            path.write_text(json.dumps(doc))
        store = _cache(Path(folder) / "cache")
        from_json = load_estate(path)
        store.load(path, Loads())
        loads = Loads()
        cached = store.load(path, loads)
        assert loads.calls == 0
        assert cached == from_json
        assert cached.warnings == from_json.warnings
        assert cached.positions == from_json.positions
        _same_access_answers(from_json, cached)
        options = AuditOptions(use_config=False)
        a = audit_snapshot(from_json, options, target="x")
        b = audit_snapshot(cached, options, target="x")
        assert list(a.findings) == list(b.findings)
        assert a.warnings == b.warnings


def _same_access_answers(one: Snapshot, two: Snapshot) -> None:
    e1, e2 = AccessEngine.from_snapshot(one), AccessEngine.from_snapshot(two)
    principals = sorted({ra.properties.principalId for ra in one.roleAssignments})[:5]
    scopes = [*sorted({ra.properties.scope for ra in one.roleAssignments})[:4], "/"]
    actions = ["Cloud.Authorization/roleAssignments/write", "Cloud.Compute/virtualMachines/read"]
    for principal in principals or ["00000000-0000-0000-0000-000000000001"]:
        assert e1.what(principal, warn=True).to_wire() == e2.what(principal, warn=True).to_wire()
        for scope in scopes:
            for action in actions:
                request = AccessRequest(principal, action, scope)
                assert e1.check(request, warn=True) == e2.check(request, warn=True)
    for scope in scopes:
        for action in actions:
            assert (
                e1.who(action, scope, warn=True).to_wire()
                == e2.who(action, scope, warn=True).to_wire()
            )
