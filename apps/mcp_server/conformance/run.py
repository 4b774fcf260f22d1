"""``make conformance-mcp``: the official MCP conformance suite against agentkit's server, both eras.

Starts ``fixture.py`` (the suite's fixtures on an agentkit MCP server),
runs ``conformance server --requirements ERA`` for 2026-07-28 and 2025-11-25
(the scenarios each revision requires of a server, at that revision's wire),
and prints the pass count per era. Exit status 0: the suite ran (the counts
are the result; failures are listed). Usage: ``python run.py SUITE_DIR``,
where SUITE_DIR holds ``node_modules`` with Node 22 and the suite.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ERAS = ("2026-07-28", "2025-11-25")
HERE = Path(__file__).resolve().parent


def start_fixture() -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen([sys.executable, str(HERE / "fixture.py")], stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert process.stderr is not None
    for line in process.stderr:
        if "listening on " in line:
            return process, line.split("listening on ", 1)[1].strip()
    raise SystemExit(f"the fixture server exited before listening (status {process.wait()})")


def run_era(suite: Path, url: str, era: str) -> tuple[int, int, list[str]]:
    """``(passed, required, failed scenario names)`` of the scenarios ``era`` requires of a server."""
    bin_dir = suite / "node_modules" / ".bin"
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    with tempfile.TemporaryDirectory(prefix="mcp-conformance-") as out:
        command = [str(bin_dir / "conformance"), "server", "--url", url, "--requirements", era, "-o", out]
        completed = subprocess.run(command, env=env, capture_output=True, text=True, timeout=1800)
    # The suite's own verdict per scenario: "✓ name: N passed, M failed" (✗ when a check failed).
    verdicts = {}
    for line in completed.stdout.splitlines():
        if line[:2] in ("✓ ", "✗ ") and ": " in line:
            verdicts[line[2:].split(":", 1)[0]] = line.startswith("✓")
    required = required_scenarios(suite, era)
    if not verdicts:
        raise SystemExit(f"the suite reported no scenario for {era}:\n{completed.stdout}{completed.stderr}")
    failed = [name for name in required if not verdicts.get(name, False)]
    return len(required) - len(failed), len(required), failed


def required_scenarios(suite: Path, era: str) -> list[str]:
    """The ``server:`` list of the suite's frozen requirement set for ``era``."""
    text = (suite / "node_modules" / "@modelcontextprotocol" / "conformance" / "requirements" / f"{era}.yaml").read_text()
    names, in_server = [], False
    for line in text.splitlines():
        if line and not line.startswith((" ", "-", "#")):
            in_server = line.startswith("server:")
        elif in_server and line.strip().startswith("- "):
            names.append(line.strip()[2:].strip())
    return names


def main(argv: list[str]) -> int:
    suite = Path(argv[0] if argv else ".mcp-conformance")
    fixture, url = start_fixture()
    lines = []
    try:
        for era in ERAS:
            passed, required, failed = run_era(suite, url, era)
            lines.append(f"{era}: {passed}/{required} required server scenarios passed")
            if failed:
                lines.append(f"  failed: {', '.join(sorted(failed))}")
    finally:
        fixture.terminate()
        fixture.wait(timeout=60)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
