"""One error path for every input (issue 16, items 3 and 4): each case that once ended in exit 70
(an internal error) or quoted a secret, through ``auditor.cli.main``. Every case asserts the exit
code of the contract (2, or 1/0 where the input is valid), a message naming the file and the JSON
path or line and column, no traceback, and no secret in anything printed."""

from __future__ import annotations

import copy
import enum
import json
import os
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest

from auditor.cli import main
from auditor.errors import (
    LINE_LIMIT,
    MESSAGE_LIMIT,
    InputError,
    describe_value,
    shown_name,
)
from auditor.estate import MAX_DEPTH, check_value, decode_json
from auditor.estate.sample import sample_plans, sample_snapshot_bytes

SECRETS = (
    "NodePw-Secret-123!",
    "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7",
    "-----BEGIN RSA PRIVATE KEY-----",
    "5a3b1e0c7d9f4a2b8c6e0d1f3a5b7c9e1f2a4b6c",
)
CLUSTER_URL = (
    "/subscriptions/s1/resourceGroups/rg1/providers/Cloud.AnalyticsCluster/clusters/c1"
    "?api-version=2021-06-01"
)


@pytest.fixture(autouse=True)
def _no_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # no auditor.toml / pyproject.toml above the test's folder
    monkeypatch.delenv("AUDITOR_DEBUG", raising=False)


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("estate") / "snapshot.json"
    path.write_bytes(sample_snapshot_bytes())
    return path


Run = Callable[..., tuple[int, str]]


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Run:
    """``main(args)``: the exit code and everything printed; never a traceback nor a secret."""

    def go(*args: str) -> tuple[int, str]:
        code = main(list(args))
        captured = capsys.readouterr()
        text = captured.out + captured.err
        assert "Traceback" not in text
        for secret in SECRETS:
            assert secret not in text
        assert code != 70, text
        return code, captured.err

    return go


def _cluster_body() -> dict[str, Any]:
    return {
        "location": "westeurope",
        "properties": {
            "clusterVersion": "5.1",
            "osType": "Linux",
            "clusterDefinition": {"kind": "hadoop", "configurations": {}},
            "computeProfile": {"roles": [{"name": "headnode", "targetInstanceCount": 2}]},
        },
    }


def _plan(
    tmp_path: Path, body: Any = None, *, url: str = CLUSTER_URL, raw: str | None = None
) -> str:
    path = tmp_path / "plan.json"
    if raw is None:
        doc = {"planVersion": 1, "requests": [{"method": "PUT", "url": url, "body": body}]}
        raw = json.dumps(doc)
    path.write_text(raw)
    return str(path)


def _deep(levels: int, leaf: str = "1") -> str:
    return '{"a":' * levels + leaf + "}" * levels


# --- nesting ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("document", "path"),
    [
        ('{"snapshotVersion": 1, "clusters": [' + _deep(1000) + "]}", "clusters[0].a.a"),
        (
            '{"snapshotVersion": 1, "roleAssignments": [' + "[" * 1000 + "]" * 1000 + "]}",
            "roleAssignments[0][0]",
        ),
        ('{"snapshotVersion": 1, "anything": ' + "[" * 1000 + "]" * 1000 + "}", "anything[0]"),
    ],
)
def test_deep_snapshot_is_an_input_error_naming_the_path(
    tmp_path: Path, run: Run, document: str, path: str
) -> None:
    file = tmp_path / "deep.json"
    file.write_text(document)
    code, err = run("audit", "--snapshot", str(file))
    assert code == 2
    assert str(file) in err and path in err and "line 1, column" in err
    assert f"deeper than {MAX_DEPTH} levels" in err


@pytest.mark.parametrize("levels", [MAX_DEPTH + 1, 1000, 100_000])
def test_deep_plan_is_refused_at_the_limit(tmp_path: Path, run: Run, levels: int) -> None:
    body = _cluster_body()
    raw = json.dumps({"planVersion": 1, "requests": [{"method": "PUT", "url": CLUSTER_URL}]})
    raw = raw[:-3] + ', "body": ' + _deep(levels) + "}]}"
    code, err = run("gate", _plan(tmp_path, body, raw=raw))
    assert code == 2
    assert "requests[0].body.a.a" in err and f"deeper than {MAX_DEPTH} levels" in err


def test_nesting_at_the_limit_is_accepted() -> None:
    value = decode_json(("[" * MAX_DEPTH + "]" * MAX_DEPTH).encode(), source="x.json")
    depth = 0
    while isinstance(value, list) and value:
        value, depth = value[0], depth + 1
    assert depth == MAX_DEPTH - 1
    with pytest.raises(InputError, match=f"deeper than {MAX_DEPTH}"):
        decode_json(("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)).encode(), source="x.json")


def test_a_value_that_contains_itself_is_refused_not_walked_forever() -> None:
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(InputError, match="deeper than"):
        check_value({"a": loop}, source="x.yaml")


def test_deep_request_line(tmp_path: Path, snapshot: Path, run: Run) -> None:
    requests = tmp_path / "requests.jsonl"
    requests.write_text(
        '{"principalId": "p", "action": "a/read", "scope": "/"}\n' + "[" * 1000 + "]" * 1000 + "\n"
    )
    code, err = run("access", "check", "--snapshot", str(snapshot), "--requests", str(requests))
    assert code == 2 and f"{requests}: line 2" in err and "deeper than" in err


def test_deep_baseline_and_configuration(tmp_path: Path, snapshot: Path, run: Run) -> None:
    baseline = tmp_path / "baseline.json"
    baseline.write_text('{"baselineVersion": 1, "findings": ' + "[" * 1000 + "]" * 1000 + "}")
    code, err = run("audit", "--snapshot", str(snapshot), "--baseline", str(baseline))
    assert code == 2 and str(baseline) in err and "findings[0][0]" in err
    for levels, where in ((2000, ""), (MAX_DEPTH + 5, "settings.x[0][0]")):
        config = tmp_path / f"auditor-{levels}.toml"
        config.write_text("[settings]\nx = " + "[" * levels + "]" * levels + "\n")
        code, err = run("audit", "--snapshot", str(snapshot), "--config", str(config))
        assert code == 2 and str(config) in err and where in err and "deeper than" in err


# --- numbers, URLs, dates, encodings ---------------------------------------------------------------


@pytest.mark.parametrize("number", ["1e999", "-1e999", "9" * 400, "9" * 10_000])
def test_numbers_out_of_range_in_a_plan(tmp_path: Path, run: Run, number: str) -> None:
    raw = json.dumps({"planVersion": 1, "requests": [{"method": "PUT", "url": CLUSTER_URL}]})
    raw = raw[:-3] + ', "body": {"location": "westeurope", "x": ' + number + "}}]}"
    code, err = run("gate", _plan(tmp_path, raw=raw))
    assert code == 2 and "requests[0].body.x" in err and "out of range" in err


def test_a_10000_digit_cluster_version_is_a_failing_finding_not_a_crash(
    tmp_path: Path, run: Run
) -> None:
    body = _cluster_body()
    body["properties"]["clusterVersion"] = "9" * 10_000
    code, _ = run("gate", _plan(tmp_path, body), "-o", "json")
    assert code == 1  # CLU-011 fails: not a version it can read


def test_a_plan_url_that_cannot_be_split(tmp_path: Path, run: Run) -> None:
    code, err = run("gate", _plan(tmp_path, _cluster_body(), url="http://[::1/x"))
    assert code == 2 and "requests[0].url" in err and "expected a URL" in err


@pytest.mark.parametrize(
    "expires",
    ["2027-02-30", "2027-13-01", "2027-01-01T25:00:00", "!!timestamp notadate", "[1, 2]", "1e999"],
)
def test_impossible_waiver_dates(tmp_path: Path, snapshot: Path, run: Run, expires: str) -> None:
    waivers = tmp_path / "waivers.yaml"
    waivers.write_text(
        "version: 1\nwaivers:\n  - id: W1\n    rule: DOM-001\n    resource: '*'\n"
        f"    justification: accepted\n    expires: {expires}\n"
    )
    code, err = run("audit", "--snapshot", str(snapshot), "--waivers", str(waivers))
    assert code == 2 and f"{waivers}: waivers[0] (W1): expires must be a date" in err


def test_a_waiver_timestamp_still_gives_its_date(tmp_path: Path) -> None:
    from auditor.audit.waivers import load_waivers

    waivers = tmp_path / "waivers.yaml"
    waivers.write_text(
        "version: 1\nwaivers:\n  - {id: W1, rule: DOM-001, resource: x, justification: y, "
        "expires: 2027-01-31T10:00:00Z}\n  - {id: W2, rule: DOM-001, resource: x, "
        "justification: y, expires: 2027-02-28}\n"
    )
    assert [w.expires.isoformat() for w in load_waivers(waivers)] == ["2027-01-31", "2027-02-28"]


def test_invalid_utf8_in_a_request_line(tmp_path: Path, snapshot: Path, run: Run) -> None:
    requests = tmp_path / "requests.jsonl"
    requests.write_bytes(
        b'{"principalId": "p", "action": "a/read", "scope": "/"}\n'
        b'{"principalId": "\xff\xfe", "action": "a/read", "scope": "/"}\n'
    )
    code, err = run("access", "check", "--snapshot", str(snapshot), "--requests", str(requests))
    assert code == 2 and f"{requests}: line 2, column 18" in err and "0xff" in err


def test_invalid_utf8_in_a_plan_and_a_waivers_file(
    tmp_path: Path, snapshot: Path, run: Run
) -> None:
    plan = tmp_path / "plan.json"
    plan.write_bytes(b'{"planVersion": 1,\n "x": "\xc3"}')
    code, err = run("gate", str(plan))
    assert code == 2 and f"{plan}: line 2, column 8" in err
    waivers = tmp_path / "waivers.yaml"
    waivers.write_bytes(b"version: 1\nwaivers: [\xff]\n")
    code, err = run("audit", "--snapshot", str(snapshot), "--waivers", str(waivers))
    assert code == 2 and f"{waivers}: line 2, column 11" in err


# --- YAML ------------------------------------------------------------------------------------------


def _alias_bomb(levels: int) -> str:
    lines = ["version: 1", "a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    for i in range(1, levels + 1):
        refs = ", ".join([f"*a{i - 1}"] * 9)
        lines.append(f"a{i}: &a{i} [{refs}]")
    lines.append(f"waivers: *a{levels}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("levels", [6, 9])
def test_yaml_alias_bomb_is_refused_quickly_and_briefly(
    tmp_path: Path, snapshot: Path, run: Run, levels: int
) -> None:
    waivers = tmp_path / "bomb.yaml"
    waivers.write_text(_alias_bomb(levels))
    started = time.perf_counter()
    code, err = run("audit", "--snapshot", str(snapshot), "--waivers", str(waivers))
    assert time.perf_counter() - started < 10  # it hung at 2 GB
    assert code == 2 and "alias" in err and f"{waivers}: line" in err
    assert len(err) < 400


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a: &x [*x]\n", "contains it"),
        ("a: [" + ", ".join(["&a x"] + ["*a"] * 101) + "]\n", "more than 100 aliases"),
        ("version: " + "9" * 5000 + "\n", "cannot read this value as int"),
        ("version: !!int zz\n", "cannot read this value as int"),
        ("a: " + "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1) + "\n", "deeper than"),
        ("a: " + "[" * 5000 + "]" * 5000 + "\n", "not valid YAML"),
        ("a: !!python/object:os.system x\n", "not valid YAML"),
    ],
)
def test_yaml_loader_refuses_with_line_and_column(text: str, expected: str) -> None:
    from auditor.audit._yaml import load_yaml

    with pytest.raises(InputError, match=expected) as caught:
        load_yaml(text, source="w.yaml")
    assert caught.value.source == "w.yaml" and (caught.value.location or "").startswith("line ")


def test_yaml_aliases_within_the_budget_and_merge_keys_work() -> None:
    from auditor.audit._yaml import load_yaml

    doc = load_yaml("d: &d {x: 1}\ne: {<<: *d, y: 2}\nf: *d\n", source="w.yaml")
    assert doc == {"d": {"x": 1}, "e": {"x": 1, "y": 2}, "f": {"x": 1}}


# --- special files as input --------------------------------------------------------------------------


@pytest.fixture
def specials(tmp_path: Path) -> dict[str, str]:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    sock = tmp_path / "sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(sock))
    server.close()
    return {"fifo": str(fifo), "socket": str(sock), "device": "/dev/zero", "dir": str(tmp_path)}


@pytest.mark.parametrize("kind", ["fifo", "socket", "device", "dir"])
def test_special_files_are_refused_as_inputs(
    specials: dict[str, str], snapshot: Path, run: Run, kind: str
) -> None:
    words = {
        "fifo": "a named pipe",
        "socket": "a socket",
        "device": "a character device",
        "dir": "a directory",
    }[kind]
    path = specials[kind]
    for args in (
        ["audit", "--snapshot", path],
        ["gate", path],
        ["access", "check", "--snapshot", str(snapshot), "--requests", path],
        ["estate", "show", path],
    ):
        if kind == "fifo" and args[0] == "access":
            continue  # a pipe is a fine stream of requests (below)
        code, err = run(*args)
        assert code == 2 and path in err, args
        assert words in err or "directory" in err, (args, err)


@pytest.mark.parametrize("loader", ["waivers", "baseline", "config"])
def test_special_files_are_refused_by_every_loader(specials: dict[str, str], loader: str) -> None:
    from auditor.audit.baseline import load_baseline
    from auditor.audit.settings import load_config
    from auditor.audit.waivers import load_waivers

    load: Callable[[str], object] = {
        "waivers": load_waivers,
        "baseline": load_baseline,
        "config": lambda p: load_config(p, {}),
    }[loader]
    for kind in ("fifo", "device", "socket"):
        with pytest.raises(InputError, match="a regular file") as caught:
            load(specials[kind])
        assert caught.value.source == specials[kind]


def test_requests_stream_from_a_named_pipe(
    specials: dict[str, str], snapshot: Path, run: Run
) -> None:
    def writer() -> None:
        with open(specials["fifo"], "wb") as fh:
            fh.write(b'{"principalId": "p", "action": "a/read", "scope": "/"}\n' * 3)

    thread = threading.Thread(target=writer)
    thread.start()
    code, _ = run(
        "access",
        "check",
        "--snapshot",
        str(snapshot),
        "--requests",
        specials["fifo"],
        "--format",
        "json",
    )
    thread.join(10)
    assert code == 0 and not thread.is_alive()


def test_a_request_line_without_end_is_bounded(tmp_path: Path, snapshot: Path, run: Run) -> None:
    from auditor.access.requests import request_lines

    long = tmp_path / "long.jsonl"
    long.write_bytes(b"[" + b" " * 100 + b"]")
    with pytest.raises(InputError, match="longer than 64 bytes") as caught:
        list(request_lines(str(long), limit=64))
    assert caught.value.location == "line 1"


# --- command-line URLs, ports, hosts -----------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "http://[::1/x",
        "http://127.0.0.1:99999",
        "http://127.0.0.1:0",
        "ftp://example.net",
        "example.net",
        "http://",
        "http://127.0.0.1:80a",
    ],
)
def test_malformed_base_urls(tmp_path: Path, run: Run, url: str) -> None:
    plan = _plan(tmp_path, _cluster_body())
    for args in (
        ["audit", "--base-url", url, "--subscription", "s1"],
        ["collect", "--base-url", url, "--subscription", "s1", "--out", str(tmp_path / "o.json")],
        ["gate", plan, "--apply", "--base-url", url],
        [
            "collect",
            "--base-url",
            "http://127.0.0.1:1",
            "--devtooling-url",
            url,
            "--subscription",
            "s1",
            "--out",
            str(tmp_path / "o.json"),
        ],
    ):
        code, err = run(*args)
        assert code == 2 and ("--base-url" in err or "--devtooling-url" in err), (args, err)
        assert not (tmp_path / "o.json").exists()


@pytest.mark.parametrize(
    ("option", "value", "words"),
    [
        ("--port", "70000", "expected a port from 0 to 65535"),
        ("--port", "-1", "expected a port from 0 to 65535"),
        ("--port", "99999999999999999999999", "expected a port"),
        ("--host", "a\x00b", "expected a host name"),
        ("--host", "", "expected a host name"),
    ],
)
def test_sandbox_port_and_host(run: Run, option: str, value: str, words: str) -> None:
    code, err = run("sandbox", "serve", option, value)
    assert code == 2 and option in err and words in err


# --- secrets are never quoted -----------------------------------------------------------------------


def _with(body: dict[str, Any], path: list[Any], value: Any) -> dict[str, Any]:
    out = copy.deepcopy(body)
    node: Any = out
    for part in path[:-1]:
        node = node.setdefault(part, {}) if isinstance(part, str) else node[part]
    node[path[-1]] = value
    return out


ROLE = ["properties", "computeProfile", "roles", 0]


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ([*ROLE, "osProfile"], "NodePw-Secret-123!"),
        ([*ROLE, "osProfile", "linuxOperatingSystemProfile"], "NodePw-Secret-123!"),
        ([*ROLE, "osProfile", "linuxOperatingSystemProfile", "password"], 123456789),
        ([*ROLE, "osProfile", "linuxOperatingSystemProfile", "password"], ["NodePw-Secret-123!"]),
        (
            [*ROLE, "osProfile", "linuxOperatingSystemProfile", "sshProfile", "publicKeys"],
            "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7 user@host",
        ),
        (
            [*ROLE, "osProfile", "linuxOperatingSystemProfile", "sshProfile", "publicKeys"],
            [{"certificateData": 5}],
        ),
        (["properties", "storageProfile"], {"storageaccounts": [{"key": ["NodePw-Secret-123!"]}]}),
        (["properties", "clusterDefinition"], "-----BEGIN RSA PRIVATE KEY-----\nMIIE"),
        (["properties", "osType"], "5a3b1e0c7d9f4a2b8c6e0d1f3a5b7c9e1f2a4b6c"),
        (["properties", "NodePw-Secret-123!"], {"x": 1}),
    ],
)
def test_malformed_plans_never_quote_a_secret(
    tmp_path: Path, run: Run, path: list[Any], value: Any
) -> None:
    code, err = run("gate", _plan(tmp_path, _with(_cluster_body(), path, value)))
    assert code in (1, 2)
    if code == 2:
        assert "requests[0].body" in err


def test_sample_plans_with_each_string_moved_where_an_object_is_expected() -> None:
    """Every string of every sample plan body (passwords, weak ones too, references, keys), put in
    place of objects above it: the plan loader's error never quotes it."""
    from auditor.estate.plan import loads_plan

    refused = 0
    for doc in sample_plans().values():
        raw = json.dumps(doc)
        for index, request in enumerate(doc["requests"]):
            for path, text in _strings(request["body"], []):
                if len(text) < 6 or text.isalpha():
                    continue  # a word that may well be in the message anyway
                # the parent object, the body's top, and one between
                for cut in sorted({1, len(path) // 2, len(path) - 1} - {0}):
                    broken = json.loads(raw)
                    target = broken["requests"][index]["body"]
                    for part in path[: cut - 1]:
                        target = target[part]
                    target[path[cut - 1]] = text
                    try:
                        loads_plan(json.dumps(broken).encode(), source="plan.json")
                    except InputError as exc:
                        refused += 1
                        assert "requests[" in str(exc)
                        assert text not in str(exc), (path, cut)
    assert refused > 50


def _strings(node: Any, path: list[Any]) -> list[tuple[list[Any], str]]:
    if isinstance(node, dict):
        return [s for k, v in node.items() for s in _strings(v, [*path, k])]
    if isinstance(node, list):
        return [s for i, v in enumerate(node) for s in _strings(v, [*path, i])]
    return [(path, node)] if isinstance(node, str) else []


def test_describe_value_hides_what_may_be_a_secret() -> None:
    assert describe_value("westeurope") == 'a string ("westeurope")'
    assert describe_value("NodePw-Secret-123!") == "a string of 18 characters"
    assert describe_value("ssh-rsa AAAAB3NzaC1yc2EAAAADAQAB x") == "a string of 34 characters"
    assert describe_value(12345, secret=True) == "a number"
    assert describe_value(True, secret=True) == "a boolean"
    assert describe_value("plain", secret=True) == "a string of 5 characters"
    assert describe_value(10**5000).startswith("a number of about 5,0")
    assert describe_value("x" * 1000).endswith('…")')
    assert shown_name("linuxOperatingSystemProfile") == "linuxOperatingSystemProfile"
    assert shown_name("NodePw-Secret-123!") == "<18 characters>"


class _Kind(enum.Enum):
    A = "a"


class _Item(msgspec.Struct, forbid_unknown_fields=True):
    kind: _Kind


def test_msgspec_messages_never_quote_an_enum_value_or_an_unknown_field() -> None:
    from auditor.estate._errors import from_msgspec

    for raw in (b'{"kind": "NodePw-Secret-123!"}', b'{"kind": "a", "NodePw-Secret-123!": 1}'):
        with pytest.raises(msgspec.ValidationError) as caught:
            msgspec.json.decode(raw, type=_Item)
        error = from_msgspec(caught.value, source="f.json", prefix="items[0]", raw=raw)
        assert "NodePw" not in str(error) and str(error).startswith("f.json: items[0]")


# --- bounded messages and the last guard ----------------------------------------------------------------


def test_error_messages_are_bounded() -> None:
    error = InputError("x" * 1_000_000, source="f" * 10_000, location="l" * 10_000)
    assert len(str(error)) <= LINE_LIMIT
    lines = InputError("\n".join(["y" * 5_000] * 1_000))
    assert len(str(lines)) <= MESSAGE_LIMIT
    caret = InputError("filter syntax error\n  " + "a" * 3_000 + "\n  " + " " * 2_999 + "^")
    assert str(caret).endswith("^")


@pytest.mark.parametrize(
    ("exception", "code", "words"),
    [
        (
            ValueError("NodePw-Secret-123!"),
            70,
            "internal error in `auditor estate show` (ValueError)",
        ),
        (RecursionError(), 2, "nests too deeply"),
        (MemoryError(), 3, "out of memory"),
        (UnicodeDecodeError("utf-8", b"\xff", 0, 1, "bad"), 2, "not UTF-8"),
        (PermissionError(13, "Permission denied", "/x/y"), 2, "/x/y: Permission denied"),
    ],
)
def test_the_last_guard(
    snapshot: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    exception: BaseException,
    code: int,
    words: str,
) -> None:
    import auditor.estate.snapshot as snapshot_module

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise exception

    monkeypatch.setattr(snapshot_module, "load_snapshot", broken)
    monkeypatch.setattr("auditor.estate.light.LIGHT_LIMIT", 0)  # no reading around the loader
    assert main(["estate", "show", str(snapshot)]) == code
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err and "NodePw" not in err


def test_the_last_guard_message(
    snapshot: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import auditor.estate.snapshot as snapshot_module

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise ValueError("NodePw-Secret-123!")

    monkeypatch.setattr(snapshot_module, "load_snapshot", broken)
    monkeypatch.setattr("auditor.estate.light.LIGHT_LIMIT", 0)  # no reading around the loader
    assert main(["estate", "show", str(snapshot)]) == 70
    err = capsys.readouterr().err
    assert "internal error in `auditor estate show` (ValueError)" in err
    assert "please report this" in err and "AUDITOR_DEBUG=1" in err
    assert "NodePw" not in err and "Traceback" not in err


@pytest.mark.parametrize("where", ["load", "exit"])
def test_an_interruption_is_never_a_success(
    snapshot: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    where: str,
) -> None:
    """Ctrl-C while a command works is exit 130 with one line, whichever layer meets it (typer
    turns KeyboardInterrupt into a returned 130 outside standalone mode)."""
    import auditor.estate.snapshot as snapshot_module

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        if where == "exit":
            import typer

            raise typer.Exit(130)
        raise KeyboardInterrupt

    monkeypatch.setattr(snapshot_module, "load_snapshot", interrupted)
    monkeypatch.setattr("auditor.estate.light.LIGHT_LIMIT", 0)
    assert main(["estate", "show", str(snapshot)]) == 130
    err = capsys.readouterr().err
    assert "interrupted" in err and "Traceback" not in err
