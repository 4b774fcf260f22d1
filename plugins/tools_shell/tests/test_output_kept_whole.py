"""An output over the output cap is kept whole: spooled to disk as it streams, then an artifact.

A 10 MB build log whose first compiler error is on its first line: the model
sees the head (with the error) and the tail (with the summary) and the
artifact's id, and reads the error back with ``read_artifact``. Memory stays
bounded while the output streams (measured in a child process), and
``agentkit tool run`` shows the two ends too.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("agentkit.host", reason="the agentkit host is needed for the end-to-end run")
pytest.importorskip("agentkit_provider_faux", reason="the scripted provider is needed")

from agentkit_provider_faux import Script, Turn, text, tool_call

from agentkit.host import Agent, AgentConfig, Connection, PluginHost, Trust, allow_all
from agentkit.host.sessions import ArtifactStore
from agentkit.plugin_api import ArtifactCreated, ToolResultMessage
from agentkit.plugin_api.results import SpooledResult

FIRST_ERROR = "src/main.c:12:5: error: 'cfg' undeclared (first use in this function)"
# About 10.9 MB: the error, a million and a half numbered lines, the summary.
BUILD = f"echo \"{FIRST_ERROR}\"; seq 1 1500000; echo 'make: *** [all] Error 1'"
BUILD_OUTPUT = FIRST_ERROR + "\n" + "".join(f"{i}\n" for i in range(1, 1500001)) + "make: *** [all] Error 1\n"


@pytest.fixture(scope="module")
def plugin_host() -> PluginHost:
    discovered = PluginHost.discover()
    if "execute" not in discovered.tools:
        pytest.skip("the shell tools must be installed")
    return discovered


def test_a_10_mb_build_log_is_an_artifact_whose_first_error_the_model_reads(plugin_host, tmp_path):
    script = Script([
        Turn([tool_call("execute", {"command": BUILD}, id="build")]),
        Turn([text("placeholder: replaced once the artifact id is known")]),
        Turn([text("Fixed.")]),
    ])
    agent = Agent(AgentConfig(model="faux/scripted", root=tmp_path, trust=Trust(before_tool_call=allow_all),
                              connection=Connection(transport=script)),
                  host=plugin_host)
    created: list[ArtifactCreated] = []

    def read_back(event):
        if isinstance(event, ArtifactCreated):
            created.append(event)
            script.turns[1] = Turn([tool_call("read_artifact", {"id": event.artifact_id, "limit": 200}, id="read")])

    agent.subscribe(read_back)
    result = agent.run_sync("build it")

    assert result.outcome == "completed", result.error
    results = {m.tool_use_id: json.loads(m.text) for m in result.messages if isinstance(m, ToolResultMessage)}
    build, page = results["build"], results["read"]
    [event] = created
    output = build["data"]["output"]
    assert output.startswith(FIRST_ERROR + "\n1\n2\n3\n")  # the head
    assert output.endswith("1500000\nmake: *** [all] Error 1\n")  # the tail
    assert f'read_artifact(id="{event.artifact_id}"' in output and build["data"]["truncated"] is True
    assert build["data"]["exit_code"] == 0
    assert len(json.dumps(build)) <= 100_000  # within the inline limit: the preview is no artifact itself
    # The whole log is kept, not its last 4 MiB: the first error reads back.
    assert page["ok"] and page["data"]["text"].startswith(FIRST_ERROR)
    assert ArtifactStore().read(agent.session_id, event.artifact_id) == BUILD_OUTPUT
    assert event.chars == len(BUILD_OUTPUT)
    assert list(tmp_path.iterdir()) == []  # nothing in the workspace


def test_past_the_disk_cap_the_head_and_the_tail_are_kept_with_a_line_between(run):
    cap = 1_000_000
    result = run("execute", {"command": "seq 1 1000000; echo THE-END"},
                 options={"output_cap": 64 * 1024, "output_disk_cap": cap})
    assert isinstance(result, SpooledResult) and result.spool is not None
    try:
        kept = result.spool.read()
    finally:
        result.spool.discard()
    assert kept.startswith("1\n2\n3\n") and kept.endswith("999999\n1000000\nTHE-END\n")
    dropped = result.metadata["total_bytes"] - cap - 64 * 1024
    assert f"[{dropped} bytes of output dropped here" in kept and "output_disk_cap" in kept
    assert result.metadata["dropped_bytes"] == dropped


CHILD = r"""
import json, sys
from pathlib import Path

def peak_kb():  # this process's own high-water mark (ru_maxrss would count the parent's, from the fork)
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))

import agentkit_tools_shell
from agentkit.plugin_api import ToolContext
tools = []
agentkit_tools_shell.agentkit_register_tools(register=tools.append)
execute = next(tool for tool in tools if tool.name == "execute")
before = peak_kb()
result = execute.handler({"command": sys.argv[2]}, ToolContext(root=Path(sys.argv[1]), options={"output_cap": 65536}))
grew = peak_kb() - before
spool = getattr(result, "spool", None)
kept = spool.size if spool is not None else len(result.data["output"].encode())
if spool is not None:
    spool.discard()
print(json.dumps({"grew_kb": grew, "kept": kept, "total": result.metadata["total_bytes"]}))
"""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs VmHWM from /proc")
def test_memory_stays_bounded_while_a_large_output_streams(tmp_path):
    # 40 MB through a 64 KiB output cap: all of it kept on disk, little of it ever in memory.
    command = "seq 1 5000000; seq 1 500000"
    done = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path), command],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    answer = json.loads(done.stdout)
    assert answer["kept"] == answer["total"] > 40_000_000
    assert answer["grew_kb"] < 16 * 1024, answer


def test_tool_run_shows_the_head_and_the_tail_of_a_long_output(agentkit, tmp_path):
    done = agentkit.inline("tool", "run", "execute", "--args",
                           json.dumps({"command": "seq 1 2000000; echo THE-END"}), "--root", str(tmp_path))
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    output = shown["result"]["data"]["output"]
    assert output.startswith("1\n2\n3\n") and output.endswith("1999999\n2000000\nTHE-END\n")
    assert "not shown" in output and shown["result"]["data"]["exit_code"] == 0
    assert len(done.stdout) < 200_000
    assert list(Path(tmp_path).iterdir()) == []
