"""Run every benchmark script in this folder in turn (``make bench``).

    .venv/bin/python benchmarks/run_all.py [--quick] [NAME ...]

``--quick`` is passed to the scripts that accept it (small sizes, a smoke run).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    quick = "--quick" in argv
    names = [a for a in argv if not a.startswith("-")]
    scripts = sorted(HERE.glob("bench_*.py"))
    if names:
        scripts = [s for s in scripts if any(n in s.stem for n in names)]
    failed = []
    for script in scripts:
        print(f"\n=== {script.stem} ===", flush=True)
        cmd = [sys.executable, str(script)]
        if quick and "--quick" in script.read_text():
            cmd.append("--quick")
        if subprocess.run(cmd, check=False).returncode != 0:
            failed.append(script.stem)
    if failed:
        print(f"\nfailed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
