"""``make bench``: every benchmark, each reporting ratios measured in the same run.

Each ``bench_*.py`` module beside this file has a ``main()`` that prints its figures.
"""

from __future__ import annotations

import importlib
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    sys.path.insert(0, str(HERE))
    names = sorted(path.stem for path in HERE.glob("bench_*.py"))
    selected = [name for name in names if not sys.argv[1:] or any(arg in name for arg in sys.argv[1:])]
    failed = []
    for name in selected:
        print(f"== {name}")
        started = time.perf_counter()
        try:
            importlib.import_module(name).main()
        except Exception as exc:  # one broken benchmark should not hide the others' figures
            failed.append(name)
            print(f"   failed: {type(exc).__name__}: {exc}")
        print(f"   ({time.perf_counter() - started:.1f} s)\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
