"""A file too large to hold never is held: read_file streams, edit_file refuses past its limit.

The attacker makes files that cost no disk (sparse: ``truncate`` to 20 GB) and
asks for one line. Each call runs in a child process whose address space is
capped at 1 GB over what it uses before the call (so a tool that reads the
whole file fails there, not on the machine), and the child reports how much
its resident size grew.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs resource and sparse files")

HUGE = 20 * 2**30

# Calls one file tool in a fresh interpreter with RLIMIT_AS set 1 GB above its baseline,
# and prints the result and the growth of its peak resident set (kilobytes on Linux).
CHILD = r"""
import json, resource, sys
from pathlib import Path
import agentkit_tools_files
from agentkit.plugin_api import ToolContext
tools = {}
agentkit_tools_files.agentkit_register_tools(register=lambda tool: tools.setdefault(tool.name, tool))
name, root, arguments, options = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), json.loads(sys.argv[4])
with open("/proc/self/status") as status:
    vm = next(int(line.split()[1]) for line in status if line.startswith("VmSize:")) * 1024
resource.setrlimit(resource.RLIMIT_AS, (vm + 2**30, vm + 2**30))
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
result = tools[name].handler(arguments, ToolContext(root=Path(root), options=options))
grew = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
print(json.dumps({"ok": result.ok, "error": result.error, "detail": result.detail,
                  "data": result.data, "grew_kb": grew}))
"""


def _bounded_call(name: str, root: Path, options: dict[str, Any] | None = None, **arguments: Any) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, name, str(root), json.dumps(arguments), json.dumps(options or {})],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, f"the call failed in its child: {done.stderr[-2000:]}"
    return json.loads(done.stdout)


def _sparse(path: Path, head: bytes = b"") -> Path:
    with open(path, "wb") as handle:
        handle.write(head)
        handle.truncate(HUGE)
    return path


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmSize from /proc")
def test_reading_one_line_of_a_20_gb_sparse_file_stays_under_50_mb(workspace):
    _sparse(workspace.root / "huge.log", b"first line\nsecond line\n")
    _sparse(workspace.root / "holes.bin")
    for path in ("huge.log", "holes.bin"):
        answer = _bounded_call("read_file", workspace.root, path=path, limit=1)
        # A NUL makes a file binary; what counts is that the answer came, in bounded memory.
        assert answer["ok"] or answer["error"] == "binary_file", answer
        assert answer["grew_kb"] < 50 * 1024, answer


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmSize from /proc")
def test_edit_of_a_20_gb_sparse_file_is_refused_by_its_size(workspace):
    _sparse(workspace.root / "huge.txt", b"needle\n")
    answer = _bounded_call(
        "edit_file", workspace.root, path="huge.txt", edits=[{"old_string": "needle", "new_string": "x"}]
    )
    assert answer["error"] == "file_too_large", answer
    assert "max_file_bytes" in answer["detail"], answer
    assert answer["grew_kb"] < 50 * 1024, answer
    assert (workspace.root / "huge.txt").stat().st_size == HUGE


def test_edit_size_limit_is_a_tool_option(workspace):
    path = workspace.write("f.txt", "alpha\n" * 100)
    tool = workspace.tools["edit_file"]
    edits = [{"old_string": "alpha\nalpha\nalpha\nalpha\nalpha\nalpha\nalpha\nalpha\nalpha\nalpha\n" * 10, "new_string": "b\n"}]
    from agentkit.plugin_api import ToolContext

    refused = tool.handler({"path": "f.txt", "edits": edits}, ToolContext(root=workspace.root, options={"max_file_bytes": 599}))
    assert refused.error == "file_too_large"
    assert "600 bytes" in refused.detail and "599" in refused.detail
    assert path.read_text() == "alpha\n" * 100
    allowed = tool.handler({"path": "f.txt", "edits": edits}, ToolContext(root=workspace.root, options={"max_file_bytes": 600}))
    assert allowed.ok, allowed.detail
    bad = tool.handler({"path": "f.txt", "edits": edits}, ToolContext(root=workspace.root, options={"max_file_bytes": "big"}))
    assert bad.error == "invalid_option" and "max_file_bytes" in bad.detail


def test_one_line_of_a_file_with_a_10_mb_line_is_read_in_bounded_memory(workspace):
    line = "x" * (10 * 2**20)
    workspace.write("min.js", f"short\n{line}\nthird\n")
    tracemalloc.start()
    try:
        first = workspace.call("read_file", path="min.js", limit=1)
        long = workspace.call("read_file", path="min.js", offset=2, limit=1)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert first.ok and first.data["content"].startswith("     1\tshort")
    assert "Use offset=2 to continue." in first.data["content"]
    # The long line is measured, not held: it gets its marker with its size in bytes.
    assert long.ok and f"Line 2 is {len(line)} bytes" in long.data["content"]
    assert "Use offset=3 to continue." in long.data["content"]
    assert peak < 2 * 2**20, peak


def test_past_the_counting_budget_the_marker_says_more_than(workspace, monkeypatch):
    from agentkit_tools_files import read

    monkeypatch.setattr(read, "READ_SCAN_BYTES", 64 * 1024)
    workspace.write("log.txt", "".join(f"line {n}\n" for n in range(1, 100_001)))
    result = workspace.call("read_file", path="log.txt", limit=2)
    content = result.data["content"]
    assert content.startswith("     1\tline 1\n     2\tline 2\n")
    assert "[Showing lines 1-2 of more than " in content and "Use offset=3 to continue.]" in content
    assert "total_lines" not in result.metadata and result.metadata["lines_counted"] < 100_000
    last = workspace.call("read_file", path="log.txt", offset=100_000)
    assert last.data["content"] == "100000\tline 100000" and last.metadata["total_lines"] == 100_000
