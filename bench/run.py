"""``make bench``: every benchmark, each reporting ratios measured in the same run.

Each ``bench_*.py`` module beside this file has a ``main()`` that prints its figures.
``python bench/run.py loop --quick`` runs the benchmarks whose names hold ``loop``,
with ``BENCH_QUICK=1`` in their environment (fewer repeats, where a benchmark offers it).
Each runs in a process of its own, so that one benchmark's leftovers (caches,
a grown heap the garbage collector must walk) cannot slow the next.

A benchmark states each goal on a line of its own, in one form:
``  <what>: <ratio>x (goal <= <target>x): met   [load 3.2]``. Every line holding
``(goal`` is collected as it is printed, and all of them are printed again
at the end, under the name of the benchmark that printed them, so the
figures the goals ask for are in one place with their verdicts.
"""

from __future__ import annotations

import os
import re
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
    goals: dict[str, list[str]] = {}
    for name in selected:
        print(f"== {name}")
        started = time.perf_counter()
        sys.stdout.flush()
        # One broken benchmark should not hide the others' figures.
        if run_one(HERE / f"{name}.py", env, goals.setdefault(name, [])):
            failed.append(name)
            print(f"   failed: {name} exited with an error")
        print(f"   ({time.perf_counter() - started:.1f} s)\n")
    print(summary(goals, failed))
    return 1 if failed else 0


def run_one(path: Path, env: dict[str, str] | None, goals: list[str]) -> int:
    """Run one benchmark, its output passed through as it comes; its goal lines added to ``goals``."""
    with subprocess.Popen([sys.executable, str(path)], env=env, stdout=subprocess.PIPE, text=True,
                          bufsize=1) as child:
        assert child.stdout is not None
        for line in child.stdout:
            sys.stdout.write(line)
            sys.stdout.flush()
            if "(goal" in line:
                goals.append(line.rstrip("\n"))
    return child.returncode


def _met(line: str) -> bool:
    """Whether a goal line says its goal was met (``: met`` or, in older lines, ``: met)``)."""
    verdict = line.split("(goal", 1)[1].lower()
    return "not met" not in verdict and re.search(r"\bmet\b", verdict) is not None


def summary(goals: dict[str, list[str]], failed: list[str]) -> str:
    """Every goal line, by benchmark, and how many were met."""
    lines = [line for found in goals.values() for line in found]
    met = sum(_met(line) for line in lines)
    out = [f"== goals: {met} of {len(lines)} met"]
    for name, found in goals.items():
        if found:
            out.append(f"{name}:")
            out.extend(found)
    out.extend(f"{name}: failed, its goals were not all measured" for name in failed)
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main())
