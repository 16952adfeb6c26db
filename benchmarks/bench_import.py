"""Importing real exports (issue 18): a generated estate of 1,000,000 role assignments exported as
1,000 management-API pages of role assignments in the vendor's namespaces (``Microsoft.*``, each
page with its ``nextLink``) plus vendor-CLI-shaped files: ``az role assignment list`` rows for a
tenth of the assignments, ``az role definition list``, ``az ad user list`` / ``group list`` /
``sp list``, one ``az ad group member list`` file per group (``members-<group id>.json``), deny
assignment, cluster, domain and health event listings, and the hierarchy and developer tooling in
a partial snapshot.

Measured, each in its own process in the same run: ``auditor.sources.load_estate`` of the folder
(what ``auditor audit --snapshot FOLDER`` does; ``import_estate`` is the same path) against
``load_estate`` of the same estate as one snapshot file (what ``auditor audit --snapshot FILE``
does). Goal: at most 1.5x the time and 1.2x the peak memory. The exports are generated once into
``benchmarks/.cache/``. ``--cli`` also times ``auditor estate import`` end to end (writing the
snapshot included).

    .venv/bin/python benchmarks/bench_import.py [--role-assignments N] [--repeat R] [--quick] [--cli]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import CACHE, PEAK, cached_estate, run_child

PAGES = 1_000
CLI_SHARE = 10
"""One assignment in CLI_SHARE goes to the CLI-shaped files instead of the REST pages."""

_SEED_NS = re.compile(rb"(?<![A-Za-z0-9_])Cloud\.(AnalyticsCluster|EventRouting|[A-Za-z]+)")
_VENDOR = {b"AnalyticsCluster": b"HDInsight", b"EventRouting": b"EventGrid"}


def vendor_bytes(data: bytes) -> bytes:
    """JSON in the vendor's namespaces (``Cloud.X`` -> ``Microsoft.X``, the two renamed ones)."""
    data = _SEED_NS.sub(lambda m: b"Microsoft." + _VENDOR.get(m.group(1), m.group(1)), data)
    return data.replace(b'"EventRoutingSchema"', b'"EventGridSchema"')


def _write(path: Path, value: Any) -> None:
    import msgspec

    path.write_bytes(vendor_bytes(msgspec.json.encode(value)))


def export_estate(snapshot_path: Path, out: Path) -> None:
    """Write the exports of a snapshot into the folder ``out`` (see the module doc)."""
    import msgspec

    from auditor.estate.snapshot import load_snapshot

    snap = load_snapshot(snapshot_path)
    tmp = out.with_suffix(".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    (tmp / "role-assignments").mkdir(parents=True)
    (tmp / "directory").mkdir()
    rest = [ra for i, ra in enumerate(snap.roleAssignments) if i % CLI_SHARE]
    cli = [ra for i, ra in enumerate(snap.roleAssignments) if not i % CLI_SHARE]
    size = -(-len(rest) // PAGES)
    base = "https://management.azure.com/providers/Microsoft.Authorization/roleAssignments"
    for page in range(PAGES):
        items = rest[page * size : (page + 1) * size]
        link = f"{base}?api-version=2022-04-01&$skipToken={page + 1}" if page + 1 < PAGES else None
        _write(
            tmp / "role-assignments" / f"page-{page:04d}.json", {"value": items, "nextLink": link}
        )
    for part in range(10):
        rows = []
        for ra in cli[part::10]:
            p = msgspec.to_builtins(ra.properties)
            rows.append(
                {
                    "id": ra.id,
                    "name": ra.name,
                    "type": ra.type,
                    **p,
                    "principalName": "someone@example.com",
                    "roleDefinitionName": "Reader",
                    "resourceGroup": None,
                    "canDelegate": None,
                }
            )
        _write(tmp / f"az-role-assignment-list-{part}.json", rows)
    _write(
        tmp / "deny-assignments.json",
        {"value": msgspec.to_builtins(snap.denyAssignments), "nextLink": None},
    )
    roles = []
    for rd in snap.roleDefinitions:
        wire = rd.to_wire()
        props = wire.pop("properties", {})
        props["roleType"] = props.pop("type", None)
        roles.append({**wire, **props})
    _write(tmp / "az-role-definition-list.json", roles)
    users, groups, sps = [], [], []
    members: dict[str, list[dict[str, Any]]] = {}
    for pr in snap.principals:
        if pr.type == "User":
            obj = {
                "id": pr.id,
                "displayName": pr.displayName,
                "userPrincipalName": pr.email,
                "mail": pr.email,
                "userType": pr.userType,
                "accountEnabled": pr.accountEnabled,
            }
            users.append(obj)
        elif pr.type == "Group":
            obj = {"id": pr.id, "displayName": pr.displayName, "securityEnabled": True}
            groups.append(obj)
        else:
            obj = {
                "id": pr.id,
                "displayName": pr.displayName,
                "appId": pr.id,
                "servicePrincipalType": "Application",
                "accountEnabled": pr.accountEnabled,
            }
            sps.append(obj)
        kind = {"User": "user", "Group": "group"}.get(pr.type or "", "servicePrincipal")
        for group in pr.memberOf:
            members.setdefault(group, []).append({"@odata.type": f"#microsoft.graph.{kind}", **obj})
    _write(tmp / "directory" / "az-ad-user-list.json", users)
    _write(tmp / "directory" / "az-ad-group-list.json", groups)
    _write(tmp / "directory" / "az-ad-sp-list.json", sps)
    for group, listed in members.items():
        _write(tmp / "directory" / f"members-{group}.json", listed)
    for section in ("clusters", "domains", "healthEvents"):
        _write(tmp / f"{section}.json", {"value": [m.to_wire() for m in getattr(snap, section)]})
    partial: dict[str, Any] = {
        "snapshotVersion": 1,
        "collectedAt": snap.collectedAt,
        "tenantId": snap.tenantId,
        "hierarchy": snap.hierarchy,
    }
    if snap.devTooling is not None:
        partial["devTooling"] = snap.devTooling.to_wire()
    (tmp / "hierarchy-and-tooling.json").write_bytes(msgspec.json.encode(partial))
    os.replace(tmp, out)


def cached_exports(role_assignments: int) -> tuple[Path, Path]:
    snapshot = cached_estate(role_assignments)
    folder = CACHE / f"exports-ra{role_assignments}-s7"
    if not folder.exists():
        started = time.perf_counter()
        export_estate(snapshot, folder)
        print(f"(generated the exports in {time.perf_counter() - started:.0f} s)")
    return snapshot, folder


LOAD = (
    "import sys, time, json; t = time.perf_counter(); c = time.process_time()\n"
    "from auditor.sources import load_estate\n"
    "snap = load_estate(sys.argv[1])\n"
    "el = time.perf_counter() - t; cpu = time.process_time() - c\n"
    "counts = snap.counts()\n"
    "print(json.dumps({'seconds': el, 'cpu': cpu, 'peak_mb': peak_mb(), "
    "**{k: float(v) for k, v in counts.items()}}))\n"
)


def _cli_import(folder: Path, out: Path) -> float:
    started = time.perf_counter()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "auditor",
            "estate",
            "import",
            str(folder),
            "--out",
            str(out),
            "--force",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(f"estate import failed:\n{proc.stderr[-2000:]}")
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--role-assignments", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="100,000 role assignments, 1 run")
    parser.add_argument("--cli", action="store_true", help="also time `auditor estate import`")
    args = parser.parse_args()
    n = 100_000 if args.quick else args.role_assignments
    repeat = 1 if args.quick else args.repeat
    snapshot, folder = cached_exports(n)
    files = sum(1 for _ in folder.rglob("*.json"))
    size = sum(p.stat().st_size for p in folder.rglob("*.json"))
    print(
        f"estate: {n:,} role assignments; snapshot {snapshot.stat().st_size / 2**20:,.0f} MB; "
        f"exports {files:,} files, {size / 2**20:,.0f} MB"
    )
    rows: dict[str, list[dict[str, float]]] = {"snapshot": [], "exports": []}
    for _ in range(repeat):
        rows["snapshot"].append(run_child(PEAK + "\n" + LOAD, str(snapshot)))
        rows["exports"].append(run_child(PEAK + "\n" + LOAD, str(folder)))
    base, ours = rows["snapshot"], rows["exports"]
    for key in ("roleAssignments", "denyAssignments", "principals", "roleDefinitions", "hierarchy"):
        if base[0][key] != ours[0][key]:
            raise SystemExit(
                f"the import differs from the snapshot: {key} {ours[0][key]} vs {base[0][key]}"
            )
    print(
        f"{'load':32s} {'wall s (median, range)':>24s} {'CPU s (median, range)':>24s} {'peak MB':>8s}"
    )
    for name, label in (
        ("snapshot", "load_estate(snapshot file)"),
        ("exports", "load_estate(folder of exports)"),
    ):
        cells = []
        for key in ("seconds", "cpu"):
            values = [r[key] for r in rows[name]]
            cells.append(
                f"{statistics.median(values):8.2f} ({min(values):5.2f}-{max(values):5.2f})"
            )
        peak = statistics.median(r["peak_mb"] for r in rows[name])
        print(f"{label:32s} {cells[0]:>24s} {cells[1]:>24s} {peak:8,.0f}")

    def ratio(key: str) -> float:
        return statistics.median(r[key] for r in ours) / statistics.median(r[key] for r in base)

    # paired per run too: the two loads of one run ran back to back, under the same load
    paired = sorted(o["seconds"] / b["seconds"] for o, b in zip(ours, base, strict=True))
    print(
        f"goal: at most 1.5x the time -> wall {ratio('seconds'):.2f}x (paired runs "
        f"{paired[0]:.2f}-{paired[-1]:.2f}x), CPU {ratio('cpu'):.2f}x "
        f"({'met' if ratio('cpu') <= 1.5 else 'NOT met'} on CPU); at most 1.2x the peak memory -> "
        f"{ratio('peak_mb'):.2f}x ({'met' if ratio('peak_mb') <= 1.2 else 'NOT met'})"
    )
    if args.cli:
        out = CACHE / f"imported-ra{n}.json"
        seconds = _cli_import(folder, out)
        print(
            f"auditor estate import (writing {out.stat().st_size / 2**20:,.0f} MB included): {seconds:.2f} s"
        )
        out.unlink()


if __name__ == "__main__":
    main()
