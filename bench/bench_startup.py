"""Start-up: how long the ``agentkit`` command takes to answer, beside a bare interpreter.

Each command is spawned as a whole process, as a user runs it, several rounds
over; within a round the commands take turns, so a machine that speeds up or
slows down during the run weighs on all of them alike. The figures are the
median and the best of the rounds, wall time and CPU time (the child's user +
system time, which a busy machine disturbs less), each as a ratio to
``python -c pass`` measured in the same run; ``agentkit plugins`` (every
installed plugin listed from metadata) is also given against ``agentkit --help``,
and ``agentkit plugins --check`` (every plugin loaded and registered) for scale.

Targets (issue 13): ``--help`` and ``new-plugin --help`` under 150 ms and
within 6x of ``python -c pass``; ``import agentkit.plugin_api`` within 2x;
``agentkit plugins`` within 2x of ``--help``.

Run: ``.venv/bin/python bench/bench_startup.py [--rounds 15]``.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

PYTHON = sys.executable
AGENTKIT = str(Path(sys.executable).parent / "agentkit")

#: label -> argv; the first is the floor every ratio is taken against.
COMMANDS = {
    "python -c pass": [PYTHON, "-c", "pass"],
    "import agentkit.plugin_api": [PYTHON, "-c", "import agentkit.plugin_api"],
    "agentkit --help": [AGENTKIT, "--help"],
    "agentkit new-plugin --help": [AGENTKIT, "new-plugin", "--help"],
    "agentkit plugins": [AGENTKIT, "plugins"],
    "agentkit plugins --check": [AGENTKIT, "plugins", "--check"],
}
#: label -> (the label it is a ratio to, the most that ratio may be, the most milliseconds it may take)
TARGETS = {
    "import agentkit.plugin_api": ("python -c pass", 2.0, None),
    "agentkit --help": ("python -c pass", 6.0, 150.0),
    "agentkit new-plugin --help": ("python -c pass", 6.0, 150.0),
    "agentkit plugins": ("agentkit --help", 2.0, None),
    "agentkit plugins --check": ("agentkit --help", None, None),
}


def spawn(argv: list[str]) -> tuple[float, float]:
    """Run ``argv`` to its end: (wall seconds, CPU seconds of the child)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure(rounds: int) -> dict[str, tuple[list[float], list[float]]]:
    """label -> (wall times, CPU times), one of each per round, after one warm-up round."""
    samples: dict[str, tuple[list[float], list[float]]] = {label: ([], []) for label in COMMANDS}
    for round_ in range(rounds + 1):
        for label, argv in COMMANDS.items():
            wall, cpu = spawn(argv)
            if round_:  # the first round warms the file cache and the bytecode
                samples[label][0].append(wall)
                samples[label][1].append(cpu)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15, help="timed runs of each command (default: 15)")
    args = parser.parse_args()
    samples = measure(args.rounds)
    wall = {label: statistics.median(times) for label, (times, _) in samples.items()}
    cpu = {label: statistics.median(times) for label, (_, times) in samples.items()}
    floor = "python -c pass"
    print(f"{args.rounds} rounds; medians (best) in ms; ratios of medians to {floor!r} unless said")
    print(f"{'command':<28} {'wall ms':>15} {'cpu ms':>15} {'wall x':>7} {'cpu x':>6}  target")
    for label, (walls, cpus) in samples.items():
        base, most, ms = TARGETS.get(label, (floor, None, None))
        wall_x, cpu_x = wall[label] / wall[base], cpu[label] / cpu[base]
        target = ""
        if most is not None:
            target = f"<= {most:g}x{'' if base == floor else ' of ' + repr(base)}" + (f", < {ms:g} ms" if ms else "")
            met = wall_x <= most and (ms is None or wall[label] * 1000 < ms)
            target += "  met" if met else "  NOT met"
        print(f"{label:<28} {wall[label] * 1000:7.1f} ({min(walls) * 1000:5.1f}) "
              f"{cpu[label] * 1000:7.1f} ({min(cpus) * 1000:5.1f}) {wall_x:7.2f} {cpu_x:6.2f}  {target}")
    print("wall x / cpu x of 'agentkit plugins' and 'agentkit plugins --check' are to 'agentkit --help'; "
          "a loaded machine stretches wall time more than CPU time")


if __name__ == "__main__":
    main()
