"""Start-up: how long the ``agentkit`` command takes to answer, beside a bare interpreter.

Each command is spawned as a whole process, as a user runs it, several rounds
over; within a round the commands take turns, so a machine that speeds up or
slows down during the run weighs on all of them alike. The figures are the
median and the best of the rounds, wall time and CPU time (the child's user +
system time, which a busy machine disturbs less), each as a ratio to
``python -c pass`` measured in the same run; ``agentkit plugins`` (every
installed plugin listed from metadata) is also given against ``agentkit --help``,
and ``agentkit plugins --check`` (every plugin loaded and registered) for scale.

Targets: ``--help`` and ``new-plugin --help`` under 150 ms and within 6x of
``python -c pass``; ``import agentkit.plugin_api`` within 2x; ``agentkit
plugins`` within 2x of ``--help``; and a first use (``bench/_first_use.py``:
import the host and a provider plugin, build an agent with a plain-schema
tool, send its first request over a mock transport and read the answer)
within 1.5x of ``import httpx`` alone, by CPU time (and, where valgrind is
installed, the same ratio in user-space instructions beside it, which load does
not move). Beside it, without a goal, its floor (``bench/_first_use_floor.py``:
the same request sent by httpx on an asyncio loop after one pluggy hook call,
with no agentkit), and the first use less that floor, agentkit's own share.
Those are timed in an environment as a user's install makes it
(``_user_install.py``: the wheels of the three distributions a first use needs,
in a fresh virtual environment), not in the benchmark's own, whose editable
workspace and extra packages slow one side and the other. Each goal is printed on
a line of its own with the load average beside it, as ``make bench`` collects
them.

Run: ``.venv/bin/python bench/bench_startup.py [--rounds 15]`` (``BENCH_QUICK=1``: 5 rounds).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import _user_install

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
    "import httpx": [PYTHON, "-c", "import httpx"],
    "first use": [PYTHON, str(Path(__file__).resolve().parent / "_first_use.py")],
    "first use's floor": [PYTHON, str(Path(__file__).resolve().parent / "_first_use_floor.py")],
}
#: The commands run in a user's install (``_user_install.py``) where one can be made.
USER_INSTALL = ("import httpx", "first use", "first use's floor")
#: label -> (the label it is a ratio to, the most that ratio may be, the most milliseconds it may take)
#: (wall time; the first use is judged by CPU time, in CPU_TARGETS)
TARGETS = {
    "import agentkit.plugin_api": ("python -c pass", 2.0, None),
    "agentkit --help": ("python -c pass", 6.0, 150.0),
    "agentkit new-plugin --help": ("python -c pass", 6.0, 150.0),
    "agentkit plugins": ("agentkit --help", 2.0, None),
    "agentkit plugins --check": ("agentkit --help", None, None),
    "first use": ("import httpx", None, None),
    "first use's floor": ("import httpx", None, None),
}
#: label -> (the label it is a ratio to, the most that ratio of median CPU times may be)
CPU_TARGETS = {"first use": ("import httpx", 1.5)}
#: What the first use does with its dependencies alone (``_first_use_floor.py``), printed beside it without a goal.
FLOOR = "first use's floor"


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
    quick = os.environ.get("BENCH_QUICK") == "1"
    parser.add_argument("--rounds", type=int, default=5 if quick else 15, help="timed runs of each command (default: 15)")
    args = parser.parse_args()
    with _user_install.temporary() as into:
        python = _user_install.build(Path(into))
        if python is not None:
            print(f"{', '.join(map(repr, USER_INSTALL))} run in a fresh environment of the wheels a user installs: "
                  f"{python}")
            for label in USER_INSTALL:
                COMMANDS[label][0] = str(python)
        report(measure(args.rounds), args.rounds)


def report(samples: dict[str, tuple[list[float], list[float]]], rounds: int) -> None:
    """Print the medians, the ratios and each goal's line."""
    wall = {label: statistics.median(times) for label, (times, _) in samples.items()}
    cpu = {label: statistics.median(times) for label, (_, times) in samples.items()}
    floor = "python -c pass"
    print(f"{rounds} rounds; medians (best) in ms; ratios of medians to {floor!r} unless said")
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
    print("wall x / cpu x of 'agentkit plugins' and 'agentkit plugins --check' are to 'agentkit --help', "
          "of 'first use' to 'import httpx'; a loaded machine stretches wall time more than CPU time")
    load = os.getloadavg()[0]
    for label, (base, most, ms) in TARGETS.items():
        if most is not None:
            ratio = wall[label] / wall[base]
            met = ratio <= most and (ms is None or wall[label] * 1000 < ms)
            bound = f", {wall[label] * 1000:.0f} ms (goal < {ms:g} ms)" if ms else ""
            print(f"  {label}, wall time to {base!r}: {ratio:.2f}x (goal <= {most:g}x){bound}: "
                  f"{'met' if met else 'not met'}   [load {load:.1f}]")
    for label, (base, most) in CPU_TARGETS.items():
        ratio = cpu[label] / cpu[base]
        print(f"  {label} (import host and provider, build an agent, first request), CPU time to {base!r}: "
              f"{ratio:.2f}x (goal <= {most:g}x): {'met' if ratio <= most else 'not met'}   [load {load:.1f}]")
        floor_ratio = cpu[FLOOR] / cpu[base]
        print(f"    its floor (httpx, asyncio and pluggy doing the same, no agentkit): {floor_ratio:.2f}x; "
              f"agentkit's own code: {ratio - floor_ratio:.2f}x, where the goal leaves it {most - floor_ratio:.2f}x")
        counts = [instructions(COMMANDS[name]) for name in (label, base, FLOOR)]
        if None not in counts:  # the same figures as counts a loaded machine does not move
            ours, httpx, floor = counts
            print(f"  {label}, user-space instructions (callgrind) to {base!r}: {ours / httpx:.2f}x "
                  f"({ours / 1e6:.0f} M / {httpx / 1e6:.0f} M)   [load {os.getloadavg()[0]:.1f}]")
            print(f"    its floor: {floor / httpx:.2f}x ({floor / 1e6:.0f} M); agentkit's own code: "
                  f"{(ours - floor) / httpx:.2f}x ({(ours - floor) / 1e6:.0f} M)")


def instructions(argv: list[str]) -> int | None:
    """The user-space instructions of one run of ``argv`` under valgrind's callgrind, or None without valgrind.

    ``PYTHONHASHSEED`` is fixed so that two runs count the same."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return None
    done = subprocess.run([valgrind, "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv],
                          capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          env={**os.environ, "PYTHONHASHSEED": "0"})
    found = [line.split()[-1] for line in done.stderr.splitlines() if "Collected :" in line]
    return int(found[-1]) if done.returncode == 0 and found else None


if __name__ == "__main__":
    main()
