"""The persistent index of loaded snapshots (auditor.estate.cache, issue 23 item 1): entries
written and opened, the trust rules (same size and time but other bytes, a moved ctime with the
same bytes, another version), damaged entries (rebuilt, never a wrong answer), two processes
building at once, the background build, secrets never written, shared or unwritable folders,
`auditor cache info|clear`, and the command line: the cache on by default above MIN_BYTES,
``--no-cache``, ``--cache-dir``, the ``cache`` setting."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest

from auditor.access.partial import LAYOUT, PartialEstate, _Dir, cache_tables
from auditor.cli import _cache as cache_cli
from auditor.cli import main
from auditor.errors import InputError
from auditor.estate import cache as cache_module
from auditor.estate.cache import SUFFIX, EstateCache
from auditor.estate.generate import generate_estate
from auditor.estate.sample import sample_snapshot
from auditor.estate.snapshot import Snapshot, dumps_snapshot, load_snapshot
from auditor.sources import load_estate


class Loads:
    """A loader that counts its calls."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, name: str) -> Snapshot:
        self.calls += 1
        return load_estate(name)


def _cache(directory: Path, notes: list[str] | None = None, **kw: Any) -> EstateCache:
    return EstateCache(
        directory,
        note=None if notes is None else notes.append,
        min_bytes=0,
        indexer=cache_tables,
        **kw,
    )


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


def _a_principal(estate: Path) -> str:
    return str(json.loads(estate.read_bytes())["roleAssignments"][0]["properties"]["principalId"])


def test_miss_then_hit(tmp_path: Path, estate: Path) -> None:
    notes: list[str] = []
    store = _cache(tmp_path / "cache", notes)
    assert store.open(estate) is None  # nothing yet
    loads = Loads()
    first = store.load(estate, loads)
    assert loads.calls == 1 and first == load_snapshot(estate)
    [entry] = _entries(tmp_path / "cache")
    assert entry == store.entry_path(estate)
    assert entry.stat().st_mode & 0o777 == 0o600
    written = entry.stat().st_mtime_ns
    with store.open(estate) as opened:  # type: ignore[union-attr]
        assert opened.counts["roleAssignments"] == 300
        assert opened.warnings == first.warnings
    store.load(estate, loads)  # a whole load reads the JSON; a sound entry is not written again
    assert loads.calls == 2 and entry.stat().st_mtime_ns == written
    assert notes == []  # building the first entry is silent


def test_an_entry_is_msgpack_values_with_checksums(tmp_path: Path, estate: Path) -> None:
    store = _cache(tmp_path / "cache")
    store.load(estate, Loads())
    data = store.entry_path(estate).read_bytes()
    lead = msgspec.msgpack.decode(data[: cache_module._LEAD_BYTES])  # any msgpack reader
    magic, fmt, at, length, crc, total, size, mtime_ns, ctime_ns, ino, dev = lead
    info = estate.stat()
    assert (magic, fmt, total) == ("auditor-estate-cache", cache_module.CACHE_FORMAT, len(data))
    assert (size, mtime_ns, ctime_ns, ino, dev) == (
        info.st_size,
        info.st_mtime_ns,
        info.st_ctime_ns,
        info.st_ino,
        info.st_dev,
    )
    head = msgspec.msgpack.decode(data[at : at + length])
    assert zlib.crc32(data[at : at + length]) == crc
    assert head["digest"] == hashlib.sha256(estate.read_bytes()).hexdigest()
    assert head["layout"] == LAYOUT and set(head["blocks"]) == {"index", "hierarchy"}
    for ref in [*head["blocks"].values(), *head["tables"].values()]:
        start, n, check = ref
        assert zlib.crc32(data[start : start + n]) == check
        msgspec.msgpack.decode(data[start : start + n])
    # the secret-bearing small sections are not in it: only where they lie in the snapshot
    assert set(head["small"]) >= {"roleDefinitions", "clusters", "domains"}
    raw = estate.read_bytes()
    start, n = head["small"]["clusters"]
    assert json.loads(raw[start : start + n]) == json.loads(raw)["clusters"]


def test_small_snapshots_and_exports_never_touch_the_cache(tmp_path: Path, estate: Path) -> None:
    store = EstateCache(
        tmp_path / "cache", min_bytes=estate.stat().st_size + 1, indexer=cache_tables
    )
    loads = Loads()
    store.load(estate, loads)
    assert store.open(estate) is None
    assert loads.calls == 1 and not (tmp_path / "cache").exists()
    folder = tmp_path / "exports"
    folder.mkdir()
    listing = {"value": [ra for ra in json.loads(estate.read_bytes())["roleAssignments"][:5]]}
    (folder / "roles.json").write_text(json.dumps(listing))
    export = _cache(tmp_path / "cache2").load(folder / "roles.json", Loads())
    assert len(export.roleAssignments) == 5
    assert _entries(tmp_path / "cache2") == []


def _same_size_and_time_other_bytes(estate: Path) -> None:
    before = estate.stat()
    data = estate.read_bytes()
    at = data.index(b'"principalId":"') + len(b'"principalId":"')
    changed = data[:at] + (b"f" if data[at : at + 1] != b"f" else b"e") + data[at + 1 :]
    estate.write_bytes(changed)
    os.utime(estate, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = estate.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)


def test_content_change_at_same_size_and_time_is_caught(tmp_path: Path, estate: Path) -> None:
    notes: list[str] = []
    store = _cache(tmp_path / "cache", notes)
    store.load(estate, Loads())
    _same_size_and_time_other_bytes(estate)
    assert store.open(estate) is None  # the ctime moved: the whole file was hashed
    loads = Loads()
    assert store.load(estate, loads) == load_snapshot(estate)
    assert len(notes) == 1 and "changed" in notes[0] and "rebuilding" in notes[0]
    opened = store.open(estate)
    assert opened is not None  # rebuilt for the new bytes
    opened.close()


def test_a_moved_ctime_with_the_same_bytes_is_trusted_and_restamped(
    tmp_path: Path, estate: Path
) -> None:
    store = _cache(tmp_path / "cache")
    store.load(estate, Loads())
    info = estate.stat()
    estate.write_bytes(estate.read_bytes())  # written again: same bytes, new ctime
    os.utime(estate, ns=(info.st_atime_ns, info.st_mtime_ns))
    moved = estate.stat()
    assert moved.st_ctime_ns != info.st_ctime_ns or moved.st_ino != info.st_ino
    opened = store.open(estate)
    assert opened is not None
    opened.close()
    lead = msgspec.msgpack.decode(store.entry_path(estate).read_bytes()[: cache_module._LEAD_BYTES])
    assert lead[8] == moved.st_ctime_ns  # the entry's stat fields were updated in place


def test_changed_time_is_a_rebuild_too(tmp_path: Path, estate: Path) -> None:
    notes: list[str] = []
    store = _cache(tmp_path / "cache", notes)
    store.load(estate, Loads())
    info = estate.stat()
    os.utime(estate, ns=(info.st_atime_ns, info.st_mtime_ns + 1_000_000_000))
    store.load(estate, Loads())
    assert len(notes) == 1 and "changed" in notes[0]


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
    assert store.open(estate) is None
    store.load(estate, Loads())
    assert len(notes) == 1 and "another version" in notes[0]
    opened = store.open(estate)  # rewritten for this one
    assert opened is not None
    opened.close()


def test_an_entry_of_the_previous_format_is_another_version(tmp_path: Path, estate: Path) -> None:
    notes: list[str] = []
    store = _cache(tmp_path / "cache", notes)
    entry = store.entry_path(estate)
    entry.parent.mkdir(mode=0o700)
    old = ["auditor-estate-cache", 1, "0.1", "abc", str(estate), 1, 2, "d", [], 0]
    entry.write_bytes(msgspec.msgpack.encode(old))
    store.load(estate, Loads())
    assert len(notes) == 1 and "another version" in notes[0]


def test_an_entry_of_the_layout_before_single_key_buckets_is_rebuilt(
    tmp_path: Path, estate: Path
) -> None:
    """Format 2 (eight directory keys to a bucket) is rebuilt, with one note naming it."""
    notes: list[str] = []
    store = _cache(tmp_path / "cache", notes)
    store.load(estate, Loads())
    entry = store.entry_path(estate)
    data = bytearray(entry.read_bytes())
    at = 2 + len("auditor-estate-cache")  # the lead: array, magic, then the format (uint 64)
    assert data[at] == 0xCF and int.from_bytes(data[at + 1 : at + 9], "big") == 3
    data[at + 1 : at + 9] = (2).to_bytes(8, "big")
    entry.write_bytes(bytes(data))
    assert store.open(estate) is None
    store.load(estate, Loads())
    assert notes == [
        f"{estate}: its cache entry was written by another version (format 2); rebuilding the cache"
    ]
    opened = store.open(estate)
    assert opened is not None
    opened.close()


def test_get_many_equals_get(tmp_path: Path, estate: Path) -> None:
    """Many keys read at once give what one-by-one lookups give; keys not there are left out."""
    store = _cache(tmp_path / "cache")
    snap = store.load(estate, Loads())
    keys = [p.id.lower() for p in snap.principals] + ["not-a-principal", ""]
    with store.open(estate) as one, store.open(estate) as many:  # type: ignore[union-attr]
        found = many.get_many("dir", keys, _Dir)
        assert found == {k: v for k in keys if (v := one.get("dir", k, _Dir)) is not None}
        assert "not-a-principal" not in found and len(found) == len(snap.principals)
        assert many.get_many("no-such-table", keys, _Dir) == {}
        assert many.get_many("dir", [], _Dir) == {}


def test_get_many_never_decodes_a_damaged_bucket(tmp_path: Path, estate: Path) -> None:
    store = _cache(tmp_path / "cache")
    snap = store.load(estate, Loads())
    _flip_every_block(store.entry_path(estate))
    opened = store.open(estate)
    assert opened is not None
    with opened, pytest.raises(InputError, match="damaged"):
        opened.get_many("dir", [snap.principals[0].id.lower()], _Dir)


def _truncate(entry: Path) -> None:
    data = entry.read_bytes()
    entry.write_bytes(data[: len(data) // 2])


def _flip_every_block(entry: Path) -> None:
    """One byte changed in every block and bucket (whichever a question reads fails its CRC)."""
    data = bytearray(entry.read_bytes())
    _lead, head = cache_module._head_of(memoryview(bytes(data)))
    refs = list(head.blocks.values())
    for ref in head.tables.values():
        packed = msgspec.msgpack.decode(bytes(data[ref[0] : ref[0] + ref[1]]))
        refs += [cache_module._REF.unpack_from(packed, i) for i in range(0, len(packed), 24)]
    for start, length, _crc in refs:
        data[start + length // 2] ^= 0x01
    entry.write_bytes(bytes(data))


def _flip_head(entry: Path) -> None:
    data = bytearray(entry.read_bytes())
    data[-3] ^= 0x01
    entry.write_bytes(bytes(data))


def _garbage(entry: Path) -> None:
    entry.write_bytes(b"\x00\xff not msgpack at all")


def _empty(entry: Path) -> None:
    entry.write_bytes(b"")


def _other_document(entry: Path) -> None:
    entry.write_bytes(msgspec.msgpack.encode(["someone-else", 1, "x", "y"]))


DAMAGE = [_truncate, _flip_every_block, _flip_head, _garbage, _empty, _other_document]


@pytest.mark.parametrize("damage", DAMAGE)
def test_damaged_entries_are_rebuilt_never_trusted(
    cli_cache: Path,
    estate: Path,
    damage: Callable[[Path], None],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A question on a damaged entry is answered from the JSON, with one note, and the entry is
    written again."""
    args = _check(estate, _a_principal(estate))
    assert main([*args, "--no-cache"]) == 0
    plain = capsys.readouterr().out
    assert main(args) == 0  # writes the entry
    capsys.readouterr()
    [entry] = _entries(cli_cache)
    damage(entry)
    assert main(args) == 0
    got = capsys.readouterr()
    assert got.out == plain
    assert got.err.count("\n") == 1 and "damaged" in got.err and "rebuilding" in got.err
    assert main(args) == 0  # rebuilt: answered from the entry, silently
    again = capsys.readouterr()
    assert again.out == plain and again.err == ""
    opened = EstateCache(cli_cache, indexer=cache_tables, min_bytes=0).open(estate)
    assert opened is not None
    opened.close()


def test_an_entry_of_another_layout_is_not_read(tmp_path: Path, estate: Path) -> None:
    notes: list[str] = []
    store = _cache(tmp_path / "cache", notes)
    store.load(estate, Loads())
    opened = store.open(estate)
    assert opened is not None
    opened._head.layout = "access-0"
    with pytest.raises(InputError):
        PartialEstate(opened)
    opened.discard("its cache entry has another layout")
    assert _entries(tmp_path / "cache") == [] and "rebuilding" in notes[0]


def _build_in_child(path: str, directory: str, barrier: Any, out: Any) -> None:
    barrier.wait(timeout=60)  # both load and write at the same moment
    notes: list[str] = []
    snap = _cache(Path(directory), notes).load(path, load_estate)
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
    assert _entries(directory) == [_cache(directory).entry_path(estate)]
    assert not list(directory.glob("*.tmp"))  # no half entry left behind
    opened = _cache(directory).open(estate)
    assert opened is not None  # the entry left is whole
    opened.close()


def test_an_entry_being_written_is_not_written_again(tmp_path: Path, estate: Path) -> None:
    """While one command writes the entry (it holds the lock), others load and go on."""
    store = _cache(tmp_path / "cache")
    (tmp_path / "cache").mkdir(mode=0o700)
    claim = cache_module._claim(store.entry_path(estate))
    assert claim is not None
    try:
        assert cache_module._claim(store.entry_path(estate)) is None
        assert store.load(estate, Loads()) == load_snapshot(estate)
        assert _entries(tmp_path / "cache") == []
    finally:
        os.close(claim)
    store.load(estate, Loads())
    assert _entries(tmp_path / "cache") == [store.entry_path(estate)]


def test_the_background_build(tmp_path: Path, estate: Path) -> None:
    """The command goes on at once; the entry is written by a process of its own (which holds a
    pipe's write end until it is done: reading it to the end waits for the entry)."""
    store = _cache(tmp_path / "cache", background=True)
    read_end, write_end = os.pipe()
    try:
        snap = store.load(estate, Loads())
        os.close(write_end)
        write_end = -1
        assert os.read(read_end, 1) == b""  # every holder of the write end has finished
    finally:
        os.close(read_end)
        if write_end >= 0:
            os.close(write_end)
    assert len(snap.roleAssignments) == 300
    opened = store.open(estate)
    assert opened is not None
    opened.close()


STORAGE_KEY = "c3RvcmFnZS1rZXktdGhhdC1tdXN0LW5vdC1sZWFr=="
NODE_PASSWORD = "Node-Password-That-Must-Not-Leak-42!"


def test_secrets_never_reach_the_cache(tmp_path: Path) -> None:
    doc = json.loads(dumps_snapshot(sample_snapshot()))
    props = doc["clusters"][0]["properties"]
    props["storageProfile"] = {
        "storageaccounts": [{"name": "st.blob", "isDefault": True, "key": STORAGE_KEY}]
    }
    props["computeProfile"]["roles"][0]["osProfile"] = {
        "linuxOperatingSystemProfile": {"username": "admin", "password": NODE_PASSWORD}
    }
    path = tmp_path / "secrets.json"
    path.write_text(json.dumps(doc))
    store = _cache(tmp_path / "cache")
    store.load(path, Loads())
    entry = store.entry_path(path).read_bytes()
    for secret in (STORAGE_KEY, NODE_PASSWORD):
        assert secret.encode() not in entry
    opened = store.open(path)
    assert opened is not None
    small = opened.small_sections()  # decoded again from the snapshot itself
    profile = small.clusters[0].properties.storageProfile
    assert profile is not None
    key = profile.storageaccounts[0].key
    assert key is not None and key.reveal() == STORAGE_KEY
    opened.close()


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
    shared.chmod(0o700)  # an entry planted there is not read either
    store.load(estate, Loads())
    shared.chmod(0o777)
    assert store.open(estate) is None


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
    """Every snapshot is large enough to cache, entries are written before the command returns,
    the cache in a temporary folder (on by default: no configuration file)."""
    directory = tmp_path / "cli-cache"
    monkeypatch.setattr(cache_cli, "MIN_BYTES", 0)
    monkeypatch.setattr(cache_cli, "BACKGROUND", False)
    monkeypatch.setenv("AUDITOR_CACHE_DIR", str(directory))
    monkeypatch.chdir(tmp_path)
    return directory


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


def _check(estate: Path, principal: str, *extra: str) -> list[str]:
    return [
        "access",
        "check",
        "--snapshot",
        str(estate),
        "--principal",
        principal,
        "--action",
        "Cloud.Authorization/roleAssignments/write",
        "--scope",
        "/subscriptions/00000000-0000-0000-0000-00000000dead/resourceGroups/rg",
        *extra,
    ]


def test_the_cache_is_on_by_default_above_min_bytes(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    estate: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    directory = tmp_path / "cli-cache"
    monkeypatch.setattr(cache_cli, "BACKGROUND", False)
    monkeypatch.setenv("AUDITOR_CACHE_DIR", str(directory))
    monkeypatch.chdir(tmp_path)  # no configuration file
    monkeypatch.setattr(cache_cli, "MIN_BYTES", estate.stat().st_size + 1)
    opened: list[str] = []
    real_open = EstateCache.open

    def counted(self: EstateCache, path: str) -> Any:
        opened.append(str(path))
        return real_open(self, path)

    monkeypatch.setattr(EstateCache, "open", counted)
    assert main(_who(estate)) == 0  # below MIN_BYTES: the cache is never touched
    assert not directory.exists() and opened == []
    monkeypatch.setattr(cache_cli, "MIN_BYTES", 0)
    assert main(_who(estate)) == 0
    assert len(_entries(directory)) == 1
    (tmp_path / "auditor.toml").write_text("cache = false\n")
    for path in _entries(directory):
        path.unlink()
    assert main(_who(estate)) == 0
    assert _entries(directory) == []
    (tmp_path / "auditor.toml").unlink()
    assert cache_cli.cache_directory() == directory
    monkeypatch.setenv("AUDITOR_CACHE_DIR", "")  # set but empty: every cache off
    assert cache_cli.cache_directory() is None
    capsys.readouterr()


def test_cli_answers_from_the_entry_equal_the_json(
    cli_cache: Path, estate: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = json.loads(estate.read_bytes())
    first = next(p for p in doc["principals"] if p.get("email") and p.get("displayName"))
    asks = [
        _who(estate),
        _check(estate, _a_principal(estate), "--format", "json"),
        _check(estate, first["id"]),
        _check(estate, first["email"], "--format", "json"),
        _check(estate, first["displayName"]),
        _check(estate, "00000000-0000-0000-0000-00000000beef"),
        ["access", "what", "--snapshot", str(estate), "--principal", first["id"]],
    ]
    plain = []
    for args in asks:
        assert main([*args, "--no-cache"]) == 0, args
        plain.append(capsys.readouterr().out)
    assert _entries(cli_cache) == []  # --no-cache: nothing written
    assert main(asks[0]) == 0  # the first command that loads the snapshot writes the entry
    assert capsys.readouterr().out == plain[0]
    assert len(_entries(cli_cache)) == 1

    def whole(*_a: object, **_k: object) -> None:
        raise AssertionError("the snapshot was loaded whole")

    with pytest.MonkeyPatch.context() as mp:  # questions answered from the entry alone
        mp.setattr("auditor.cli._estate.read_estate", whole)
        for args, want in zip(asks[:-1], plain[:-1], strict=True):
            assert main(args) == 0, args
            got = capsys.readouterr()
            assert got.out == want and got.err == "", args
    assert main(asks[-1]) == 0  # what-can loads the estate whole
    assert capsys.readouterr().out == plain[-1]
    # a changed snapshot: one note on standard error, the answer from the new bytes
    doc["roleAssignments"] = doc["roleAssignments"][:10]
    estate.write_text(json.dumps(doc))
    assert main(_who(estate)) == 0
    changed = capsys.readouterr()
    assert changed.err.count("\n") == 1 and "rebuilding the cache" in changed.err
    assert main(_who(estate, "--no-cache")) == 0
    assert capsys.readouterr().out == changed.out


def test_an_ambiguous_or_unknown_name_is_worded_by_the_whole_estate(
    cli_cache: Path, estate: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = json.loads(estate.read_bytes())
    doc["roleAssignments"].append(doc["roleAssignments"][0])  # merged, with a warning
    twins = [p for p in doc["principals"] if p.get("displayName")][:2]
    twins[1]["displayName"] = twins[0]["displayName"].upper()  # one name, two principals
    estate.write_text(json.dumps(doc))
    assert main(_who(estate)) == 0  # writes the entry
    assert "warning" in capsys.readouterr().err
    for text in ("nobody-of-that-name", "  ", twins[0]["displayName"]):
        assert main([*_check(estate, text), "--no-cache"]) == 2
        plain = capsys.readouterr().err
        assert main(_check(estate, text)) == 2
        assert capsys.readouterr().err == plain
        assert main(_check(estate, text)) == 2
        assert capsys.readouterr().err == plain


def test_cli_cache_dir_option_and_setting(
    cli_cache: Path, tmp_path: Path, estate: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "other"
    assert main(["estate", "show", str(estate), "--cache-dir", str(other), "-f", "json"]) == 0
    assert len(_entries(other)) == 1 and _entries(cli_cache) == []
    os.environ.pop("AUDITOR_CACHE_DIR")
    (tmp_path / "auditor.toml").write_text('cache = "from-config"\n')
    assert main(["estate", "show", str(estate), "-f", "json"]) == 0
    assert len(_entries(tmp_path / "from-config")) == 1
    (tmp_path / "auditor.toml").write_text("cache = false\n")
    assert main(["query", "role-assignments", "--snapshot", str(estate), "--format", "json"]) == 0
    assert _entries(cli_cache) == []
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
    principal = _a_principal(estate)
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
