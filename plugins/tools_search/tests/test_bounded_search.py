"""A file too large to search is never read: search_files has a per-file size limit, on both backends.

The attacker plants a sparse 20 GB file (it costs no disk) beside a small file
that matches. Each search runs in a child process whose address space is
capped at 1 GB over what it uses before the call, and reports how much its
resident size grew.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from agentkit_tools_search import SEARCH_FILES

from agentkit.plugin_api import ToolContext

pytestmark = pytest.mark.skipif(
    sys.platform == "win32" or not Path("/proc/self/status").exists(),
    reason="needs resource, sparse files and VmSize from /proc",
)

HUGE = 20 * 2**30

CHILD = r"""
import json, resource, sys
from pathlib import Path
from agentkit_tools_search import SEARCH_FILES
from agentkit.plugin_api import ToolContext
root, arguments, options = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
with open("/proc/self/status") as status:
    vm = next(int(line.split()[1]) for line in status if line.startswith("VmSize:")) * 1024
resource.setrlimit(resource.RLIMIT_AS, (vm + 2**30, vm + 2**30))
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
result = SEARCH_FILES.handler(arguments, ToolContext(root=Path(root), options=options))
grew = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
print(json.dumps({"ok": result.ok, "error": result.error, "detail": result.detail,
                  "data": result.data, "grew_kb": grew}))
"""


def _bounded_search(root: Path, options: dict[str, Any], **arguments: Any) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(root), json.dumps(arguments), json.dumps(options)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, f"the search failed in its child: {done.stderr[-2000:]}"
    return json.loads(done.stdout)


def _options(backend: str, request: pytest.FixtureRequest) -> dict[str, Any]:
    if backend == "rg":
        return {"backend": "rg", "rg_path": request.getfixturevalue("rg")}
    return {"backend": "native"}


@pytest.fixture
def planted(workspace):
    workspace.write("src/small.txt", "a needle here\n")
    with open(workspace.root / "src" / "huge.txt", "wb") as handle:
        handle.write(b"needle at the start\n")
        handle.truncate(HUGE)  # one 20 GB "line" of NUL bytes after it
    return workspace


@pytest.mark.parametrize("backend", ["native", "rg"])
def test_a_search_skips_a_file_over_the_limit_in_bounded_memory(planted, backend, request):
    answer = _bounded_search(planted.root, _options(backend, request), pattern="needle")
    assert answer["ok"], answer
    assert [m["file"] for m in answer["data"]["matches"]] == ["src/small.txt"]
    assert answer["data"]["files_searched"] == 1
    assert "src/huge.txt" in answer["data"]["notice"] and "max_file_bytes" in answer["data"]["notice"]
    assert answer["grew_kb"] < 50 * 1024, answer


@pytest.mark.parametrize("backend", ["native", "rg"])
def test_searching_one_file_over_the_limit_is_refused(planted, backend, request):
    answer = _bounded_search(planted.root, _options(backend, request), pattern="needle", path="src/huge.txt")
    assert answer["error"] == "file_too_large", answer
    assert f"{HUGE} bytes" in answer["detail"] and "max_file_bytes" in answer["detail"]
    assert answer["grew_kb"] < 50 * 1024, answer


@pytest.mark.parametrize("backend", ["native", "rg"])
def test_the_search_size_limit_is_a_tool_option(workspace, backend, request):
    workspace.write("a.txt", "needle\n")
    workspace.write("b.txt", "needle\n" + "x" * 100)
    options = {**_options(backend, request), "max_file_bytes": 50}
    result = SEARCH_FILES.handler({"pattern": "needle"}, ToolContext(root=workspace.root, options=options))
    assert result.ok and [m["file"] for m in result.data["matches"]] == ["a.txt"]
    assert "b.txt" in result.data["notice"]
    options["max_file_bytes"] = 0
    bad = SEARCH_FILES.handler({"pattern": "needle"}, ToolContext(root=workspace.root, options=options))
    assert bad.error == "invalid_option" and "max_file_bytes" in bad.detail
