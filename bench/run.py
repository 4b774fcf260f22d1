"""``make bench``: every benchmark, each reporting ratios measured in the same run.

Each ``bench_*.py`` module beside this file has a ``main()`` that prints its figures.
``python bench/run.py loop --quick`` runs the benchmarks whose names hold ``loop``,
with ``BENCH_QUICK=1`` in their environment (fewer repeats, where a benchmark offers it).
Each runs in a process of its own, so that one benchmark's leftovers (caches,
a grown heap the garbage collector must walk) cannot slow the next.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    names = sorted(path.stem for path in HERE.glob("bench_*.py"))
    # Words pick benchmarks by name; --quick reaches each one as BENCH_QUICK=1.
    words = [arg for arg in sys.argv[1:] if arg != "--quick"]
    env = {**os.environ, "BENCH_QUICK": "1"} if "--quick" in sys.argv[1:] else None
    selected = [name for name in names if not words or any(word in name for word in words)]
    failed = []
    for name in selected:
        print(f"== {name}")
        started = time.perf_counter()
        sys.stdout.flush()
        # One broken benchmark should not hide the others' figures.
        if subprocess.run([sys.executable, str(HERE / f"{name}.py")], env=env, check=False).returncode:
            failed.append(name)
            print(f"   failed: {name} exited with an error")
        print(f"   ({time.perf_counter() - started:.1f} s)\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
