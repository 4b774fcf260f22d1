"""``make mutation``: mutmut over the loop, the batch, the repair, hook calling and the wire decoders.

mutmut names a mutant after its module path relative to the directory it runs
in, and imports the mutated copy from ``mutants/src``. The workspace keeps the
host under ``host/src``, so the run happens in ``.mutation/work/`` (ignored),
laid out as mutmut expects: ``src`` links to ``host/src``, ``pyproject.toml`` to
the root one (which holds ``[tool.mutmut]``), and ``mutants/host`` links back to
``host/`` so that pytest, running in ``mutants/``, sees the usual test ids, and
``mutants/conftest.py`` to the root one, whose fixtures every test uses. (Two
levels down, so that no ``*/pyproject.toml`` glob over the workspace finds it.)

Results stay in ``.mutation/work/mutants/`` between runs. Usage::

    make mutation                            # every mutant not checked yet, in every module
    make mutation MODULES="_batch wire/sse"  # every mutant of these modules, checked again
    make mutation MODULES=--survivors        # the survivors again (after adding tests)
    make mutation MODULES=--report           # the table only, from the last runs
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
WORK = REPO / ".mutation" / "work"
SCOPE = ["_agent", "_batch", "_repair", "_hooks", "wire"]
PACKAGE = "agentkit.host"


def main(argv: list[str]) -> int:
    report_only = "--report" in argv
    survivors_only = "--survivors" in argv
    modules = [arg for arg in argv if not arg.startswith("--")] or SCOPE
    unknown = [module for module in modules if module.split("/")[0] not in SCOPE]
    if unknown:
        print(f"not in the mutation scope: {', '.join(unknown)}; choose among {', '.join(SCOPE)} "
              "(a wire module as wire/NAME)", file=sys.stderr)
        return 2
    if not report_only:
        _lay_out()
        if survivors_only:
            patterns = _survivors(modules)
            if not patterns:
                return _report(modules)
        elif modules == SCOPE:
            patterns = []  # mutmut then skips the mutants it already has a verdict for
        else:
            patterns = [f"{PACKAGE}.{module.replace('/', '.')}.*" for module in modules]
        mutmut = Path(sys.executable).with_name("mutmut")
        # The machine is shared: the run yields to everything else and uses one core.
        command = ["nice", "-n", "19", str(mutmut), "run", "--max-children", "1", *patterns]
        code = subprocess.run(command, cwd=WORK, check=False).returncode
        if code:
            print(f"mutmut exited with {code}", file=sys.stderr)
            return code
    return _report(modules)


def _lay_out() -> None:
    (WORK / "mutants").mkdir(parents=True, exist_ok=True)
    for link, target in [
        (WORK / "src", "../../host/src"),
        (WORK / "pyproject.toml", "../../pyproject.toml"),
        (WORK / "mutants" / "host", "../../../host"),
        # The workspace's shared fixtures (a private data directory for every test among them).
        (WORK / "mutants" / "conftest.py", "../../../conftest.py"),
    ]:
        if not link.is_symlink():
            os.symlink(target, link)


def _statuses() -> dict[str, str]:
    """Every mutant's status, by mutant name, from mutmut's per-file records."""
    from mutmut.stats import status_by_exit_code

    statuses = {}
    for meta in sorted((WORK / "mutants" / "src").rglob("*.py.meta")):
        for name, code in json.loads(meta.read_text())["exit_code_by_key"].items():
            statuses[name] = status_by_exit_code[code]
    return statuses


def _module_of(mutant: str) -> str:
    """``agentkit.host.wire.sse.xǁSSEDecoderǁ_feed__mutmut_3`` -> ``wire/sse``."""
    dotted = mutant.split(".x", 1)[0].removeprefix(PACKAGE + ".")
    return dotted.replace(".", "/")


def _in(modules: list[str], mutant: str) -> bool:
    module = _module_of(mutant)
    return any(module == chosen or module.startswith(chosen + "/") for chosen in modules)


def _survivors(modules: list[str]) -> list[str]:
    return sorted(name for name, status in _statuses().items()
                  if status in ("survived", "no tests") and _in(modules, name))


def _report(modules: list[str]) -> int:
    by_module: dict[str, Counter[str]] = {}
    for name, status in _statuses().items():
        if _in(modules, name):
            by_module.setdefault(_module_of(name), Counter())[status] += 1
    survivors = _survivors(modules)
    print(f"{'module':<18} {'mutants':>7} {'killed':>6} {'timeout':>7} {'survived':>8} {'unchecked':>9} {'kill ratio':>10}")
    total: Counter[str] = Counter()
    for module in sorted(by_module):
        total += by_module[module]
        print(_row(module, by_module[module]))
    print(_row("all", total))
    print("kill ratio: (killed + timeout) / checked; timeouts are mutants that made the tests hang.")
    if survivors:
        print(f"\n{len(survivors)} survivors (see docs/mutation.md; `mutmut show NAME` in .mutation/work/):")
        for name in survivors:
            print(f"  {name}")
    return 0


def _row(module: str, counts: Counter[str]) -> str:
    killed, timeout = counts["killed"], counts["timeout"]
    survived = counts["survived"] + counts["no tests"]
    unchecked = counts["not checked"]
    checked = sum(counts.values()) - unchecked
    ratio = f"{100 * (killed + timeout) / checked:.1f}%" if checked else "-"
    return f"{module:<18} {sum(counts.values()):>7} {killed:>6} {timeout:>7} {survived:>8} {unchecked:>9} {ratio:>10}"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
