"""``make bench``: every benchmark, each reporting ratios measured in the same run.

Each ``bench_*.py`` module beside this file has a ``main()`` that prints its figures.
Each runs in a process of its own, so that one benchmark's leftovers (caches,
a grown heap the garbage collector must walk) cannot slow the next.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    names = sorted(path.stem for path in HERE.glob("bench_*.py"))
    selected = [name for name in names if not sys.argv[1:] or any(arg in name for arg in sys.argv[1:])]
    failed = []
    for name in selected:
        print(f"== {name}")
        started = time.perf_counter()
        sys.stdout.flush()
        # One broken benchmark should not hide the others' figures.
        if subprocess.run([sys.executable, str(HERE / f"{name}.py")], check=False).returncode:
            failed.append(name)
            print(f"   failed: {name} exited with an error")
        print(f"   ({time.perf_counter() - started:.1f} s)\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
