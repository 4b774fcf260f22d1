"""An environment as a user's ``pip install agentkit-host agentkit-provider-openai`` makes it, for timing a first use.

The workspace's own environments are not one: each workspace member is
installed editable, so ``sys.path`` holds some thirty entries and the
``agentkit`` namespace a dozen portions that every import searches, and the
benchmark group installs ``click`` and ``pygments``, which ``import httpx``
then loads for its command line (80 M instructions more in the figure the
first use is compared with). Here the three distributions a first use needs
are built as wheels and installed, with the versions ``uv.lock`` pins, into a
fresh virtual environment of nothing else.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: The workspace members a first use imports, as (directory, distribution name).
MEMBERS = (("plugin_api", "agentkit-plugin-api"), ("host", "agentkit-host"),
           ("plugins/provider_openai", "agentkit-provider-openai"))


def uv() -> list[str] | None:
    """The ``uv`` command: the one ``make`` found (``$UV``), else one on PATH, else None."""
    named = os.environ.get("UV", "").split()
    if named:
        return named
    found = shutil.which("uv")
    return [found] if found else None


def build(into: Path) -> Path | None:
    """Make the environment under ``into`` and return its interpreter, or None (printing why) where it cannot."""
    command = uv()
    if command is None:
        print("  (no uv: the first use is timed in the benchmark environment instead)")
        return None
    wheels, venv = into / "wheels", into / "venv"
    pins = into / "requirements.txt"
    steps = [
        [*command, "export", "--frozen", "--no-dev", "--no-emit-workspace", "--no-hashes", "--no-header",
         "--no-annotate", *(f"--package={name}" for _, name in MEMBERS), f"--output-file={pins}"],
        *([*command, "build", "--wheel", "--out-dir", str(wheels), str(ROOT / folder)] for folder, _ in MEMBERS),
        [*command, "venv", "--python", sys.executable, str(venv)],
    ]
    for step in steps:
        if not run(step):
            return None
    python = venv / "bin" / "python"
    # Compiled at install, as pip does, so that no timed process compiles a module.
    if not run([*command, "pip", "install", "--python", str(python), "--compile-bytecode", "--requirement", str(pins),
                *map(str, sorted(wheels.glob("*.whl")))]):
        return None
    return python


def run(argv: list[str]) -> bool:
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if done.returncode:
        print(f"  ({' '.join(argv[:3])} failed, so the first use is timed in the benchmark environment instead:"
              f" {done.stderr.strip().splitlines()[-1:]})")
    return done.returncode == 0


def temporary() -> tempfile.TemporaryDirectory[str]:
    """A directory for :func:`build`, removed when the benchmark ends."""
    return tempfile.TemporaryDirectory(prefix="agentkit-bench-install-")
