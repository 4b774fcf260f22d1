"""search_files: the native backend beside ripgrep, and the ignore engine's verdict rate.

A tree of about 20,000 files is generated in a temporary directory (source-like
text in nested packages, a few ignored build and dependency directories,
binary files scattered and one directory mostly of them, nested .gitignore
files and one nested repository). Each
query runs through the search_files tool on both backends over the same file
set; the figure is the best of several runs (the three taken in turns, so
that a busy spell on the machine slows all of them) and the ratio native / rg (above
1 means the native backend is slower), in wall time and in CPU time (this
process and its children: on a loaded machine a single-threaded walk gets a
smaller share of the cores than ripgrep's threads). Queries that stay under the
100-match page scan the whole tree; "first page" ones fill it in the first files.

Bare ``rg`` (its own walk and threads, ``--json``, hidden files in) runs the
same query for reference: the rg backend is expected to be at least as fast as
the native one and within 3x of bare rg ("ok" or "MISSED" at the end of the line).

The ignore engine's rate is measured two ways: ``is_ignored()`` over every
path of the tree with its rule cache warm, and a full walk (one verdict per
entry, rule files read as it goes).

Run: ``.venv/bin/python bench/bench_search.py [--files 20000] [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import random
import resource
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from agentkit_tools_search import SEARCH_FILES
from agentkit_tools_search.native import search_native
from agentkit_tools_search.query import FileList, Query, collect_files, smart_case_ignores
from agentkit_tools_search.ripgrep import search_rg

from agentkit.plugin_api import ToolContext
from agentkit.plugin_api.workspace import IgnoreEngine, compile_glob

WORDS = [
    "def",
    "class",
    "return",
    "import",
    "from",
    "self",
    "value",
    "result",
    "error",
    "config",
    "path",
    "file",
    "data",
    "request",
    "response",
    "handler",
    "context",
    "options",
    "items",
    "index",
    "count",
    "total",
    "name",
]

QUERIES = [
    ("whole tree: rare literal", {"pattern": "needle_in_haystack"}),
    ("whole tree: no match", {"pattern": "absent_everywhere_zz"}),
    ("whole tree: binary-heavy", {"pattern": "from the archive"}),
    ("regex (page fills late)", {"pattern": r"def \w+_handler\(self, \w+\)"}),
    ("regex, glob", {"pattern": r"class \w+Error", "file_glob": "**/*.py"}),
    ("first page: common word", {"pattern": "return"}),
    ("first page: binary-heavy", {"pattern": "return value", "path": "assets"}),
    # A page deep into a large result set, with the \\w that Python's re ran a look-ahead for on
    # every character (34 s native against 0.27 s for bare rg, before ASCII texts had their own
    # expression). The goal: native within 3x of the rg backend ("n<=3rg" at the end of the line).
    ("deep page: offset 900, \\w", {"pattern": r"\w+ result$", "offset": 900}),
    ("whole tree: \\w, no match", {"pattern": r"\w+_zz\w+"}),
]
#: The queries held to the goal of the native backend within 3x of the rg backend.
NATIVE_GOAL = {"deep page: offset 900, \\w"}


def _rg() -> str | None:
    local = Path(__file__).resolve().parents[1] / ".venv" / "bin" / "rg"
    return str(local) if local.is_file() else shutil.which("rg")


def build_tree(root: Path, files: int, seed: int = 7) -> int:
    """Write about ``files`` files below ``root``; returns how many were written."""
    rng = random.Random(seed)
    (root / ".git").mkdir(parents=True)
    (root / ".gitignore").write_text("build/\nnode_modules/\n*.pyc\n*.log\n")
    written = 0
    packages = max(1, files // 100)
    for package in range(packages):
        base = root / f"pkg{package:03d}" / ("sub" if package % 3 else "") / "src"
        base.mkdir(parents=True, exist_ok=True)
        if package % 10 == 0:
            (base / ".gitignore").write_text("generated_*\n!generated_keep.py\n")
        for n in range(100):
            kind = rng.random()
            if kind < 0.02:
                (base / f"blob{n}.bin").write_bytes(b"\x00" + rng.randbytes(2047))
            elif kind < 0.03:
                # Binary with text-like lines (an archive, a database): every line matches
                # a common word, and its NUL comes late.
                body = b"return value from the archive\n" * 2000
                (base / f"archive{n}.dat").write_bytes(body + b"\x00" + rng.randbytes(1024))
            elif kind < 0.05:
                (base / f"trace{n}.log").write_text("return return\n" * 20)
            else:
                lines = []
                for _ in range(rng.randint(10, 60)):
                    words = [rng.choice(WORDS) for _ in range(rng.randint(2, 10))]
                    lines.append("    " * rng.randint(0, 3) + " ".join(words))
                if rng.random() < 0.002:
                    lines.append("needle_in_haystack = True")
                if rng.random() < 0.01:
                    lines.append("    def on_request_handler(self, event):")
                if rng.random() < 0.01:
                    lines.append("class ConfigError(Exception):")
                suffix = ".py" if n % 2 else ".txt"
                (base / f"module{n}{suffix}").write_text("\n".join(lines) + "\n")
            written += 1
    for name in ("build", "node_modules/dep"):
        ignored = root / name
        ignored.mkdir(parents=True)
        for n in range(200):
            (ignored / f"x{n}.py").write_text("needle_in_haystack\n")
    # Binary-heavy: archives whose text-like lines match, a few notes among them.
    assets = root / "assets"
    assets.mkdir()
    for n in range(300):
        if n % 10 == 0:
            (assets / f"notes{n:03d}.txt").write_text("the return value is checked\n" * 5)
        else:
            body = b"return value from the archive\n" * 2000
            (assets / f"archive{n:03d}.dat").write_bytes(body + b"\x00" + rng.randbytes(1024))
        written += 1
    nested = root / "vendor" / "lib"
    (nested / ".git").mkdir(parents=True)
    (nested / "build").mkdir()
    (nested / "build" / "kept.py").write_text("needle_in_haystack\n")
    return written


def _best(run, repeat: int) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeat):
        started = time.perf_counter()
        result = run()
        best = min(best, time.perf_counter() - started)
    return best, result


def _cpu() -> float:
    """CPU seconds used so far by this process and the children it waited for."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _best_of_rounds(
    runs: list[Callable[[], object]], repeat: int
) -> list[tuple[float, float, object]]:
    """The best wall time and CPU time of each of ``runs``, taken in turns.

    In turns, so that a busy spell on the machine slows all of them; CPU time
    as well, because on a loaded machine a single-threaded walk gets a smaller
    share of the cores than ripgrep's threads do.
    """
    best: list[tuple[float, float, object]] = [(float("inf"), float("inf"), None) for _ in runs]
    for _ in range(repeat):
        for index, run in enumerate(runs):
            started, cpu = time.perf_counter(), _cpu()
            result = run()
            elapsed, used = time.perf_counter() - started, _cpu() - cpu
            best[index] = (min(best[index][0], elapsed), min(best[index][1], used), result)
    return best


def _bare(rg: str, root: Path, arguments: dict) -> Callable[[], object]:
    command = [rg, "--json", "--no-config", "--hidden", "--glob", "!.git", "-e", arguments["pattern"]]
    if "file_glob" in arguments:
        command += ["--glob", arguments["file_glob"]]
    command.append(arguments.get("path", "."))
    return lambda: subprocess.run(command, cwd=root, capture_output=True, check=False)


def bench_search(root: Path, repeat: int) -> None:
    rg = _rg()
    print(f"   rg: {rg or 'not found (native only)'}")
    print(
        f"   {'query':<28}{'native s':>10}{'rg s':>10}{'bare rg s':>10}{'native/rg':>11}"
        f"{'rg/bare':>9}{'cpu n/rg':>9}{'cpu rg/b':>9}{'matches':>9}{'scanned':>9}"
    )
    for label, arguments in QUERIES:

        def native(arguments=arguments):
            return SEARCH_FILES.handler(
                arguments, ToolContext(root=root, options={"backend": "native"})
            )

        if rg:

            def ripgrep(arguments=arguments):
                options = {"backend": "rg", "rg_path": rg}
                return SEARCH_FILES.handler(arguments, ToolContext(root=root, options=options))

            (
                (native_s, native_cpu, native_result),
                (rg_s, rg_cpu, rg_result),
                (bare_s, bare_cpu, _),
            ) = _best_of_rounds([native, ripgrep, _bare(rg, root, arguments)], repeat)
            data = native_result.data
            same = "" if rg_result.data == data else "  (answers differ!)"
            rg_text = (
                f"{rg_s:10.3f}{bare_s:10.3f}{native_s / rg_s:11.2f}{rg_s / bare_s:9.2f}"
                f"{native_cpu / rg_cpu:9.2f}{rg_cpu / bare_cpu:9.2f}"
            )
            # The target: the rg backend no slower than the native one, within 3x of bare rg.
            verdict = "  ok" if rg_s <= native_s and rg_s <= 3 * bare_s else "  MISSED"
            if label in NATIVE_GOAL:
                verdict += "  n<=3rg ok" if native_s <= 3 * rg_s else "  n<=3rg MISSED"
        else:
            native_s, native_result = _best(native, repeat)
            data = native_result.data
            same, rg_text, verdict = "", f"{'-':>10}{'-':>10}{'-':>11}{'-':>9}{'-':>9}{'-':>9}", ""
        print(
            f"   {label:<28}{native_s:10.3f}{rg_text}"
            f"{len(data['matches']):9d}{data['files_searched']:9d}{verdict}{same}"
        )
    if not rg:
        return
    print("   scan only (same file list handed to each backend, walk excluded):")
    engine = IgnoreEngine(root)
    for label, arguments in QUERIES:
        glob = compile_glob(arguments["file_glob"]) if "file_glob" in arguments else None
        query = Query(
            arguments["pattern"],
            smart_case_ignores(arguments["pattern"]),
            0,
            engine.root,
            FileList(collect_files(engine, arguments.get("path", ""), glob)),
            needed=100,
        )
        native_s, _ = _best(lambda q=query: search_native(q), repeat)
        rg_s, _ = _best(lambda q=query: search_rg(q, rg), repeat)
        print(f"   {label:<28}{native_s:10.3f}{rg_s:10.3f}{native_s / rg_s:11.2f}")


def bench_ignore(root: Path, repeat: int) -> None:
    paths = [
        (p.relative_to(root).as_posix(), p.is_dir())
        for p in root.rglob("*")
        if ".git" not in p.parts
    ]
    engine = IgnoreEngine(root, env={"HOME": str(root / "no-home")})
    for path, is_dir in paths:  # warm the rule cache
        engine.is_ignored(path, is_dir)

    def verdicts():
        return sum(engine.is_ignored(path, is_dir) for path, is_dir in paths)

    seconds, ignored = _best(verdicts, repeat)
    print(
        f"   is_ignored(): {len(paths) / seconds:,.0f} paths/s "
        f"({len(paths)} paths, {ignored} ignored, parents checked, rule files cached)"
    )

    def walk():
        return sum(1 for _ in IgnoreEngine(root, env={"HOME": str(root / "no-home")}).walk())

    seconds, entries = _best(walk, repeat)
    print(
        f"   walk():       {entries / seconds:,.0f} entries/s ({entries} kept, rule files read as it goes)"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args(argv or [])
    with tempfile.TemporaryDirectory(prefix="agentkit-bench-search-") as directory:
        root = Path(directory) / "tree"
        started = time.perf_counter()
        written = build_tree(root, options.files)
        print(f"   tree: {written} files generated in {time.perf_counter() - started:.1f} s")
        bench_search(root, options.repeat)
        bench_ignore(root, options.repeat)


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
