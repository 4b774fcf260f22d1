"""A process that keeps artifacts without a session, for the tests of what becomes of them.

``python artifact_owner_child.py exit``: one run whose tool result is too long
to inline (so it is stored as an artifact), its owner printed on stdout, then a
normal exit. ``python artifact_owner_child.py hang``: the same, then it prints
``ready`` and waits forever: the test kills it (``SIGKILL``: no exit handler runs).
The data directory is ``$AGENTKIT_DATA_DIR``.
"""

from __future__ import annotations

import sys
import threading

from agentkit_provider_faux import Script, Turn, text, tool_call

from agentkit.host import Agent, AgentConfig, Connection, Limits, PluginHost
from agentkit.plugin_api import Tool


def build_log() -> str:
    """Print a long build log."""
    return "".join(f"step {n}: ok\n" for n in range(500))


def main(mode: str) -> None:
    script = Script([Turn([tool_call("build_log")]), Turn([text("Built.")])])
    agent = Agent(AgentConfig(model="faux/scripted", limits=Limits(max_tool_result_chars=1_000),
                              connection=Connection(transport=script), tools=["build_log"],
                              extra_tools=[Tool.from_function(build_log)]),
                  host=PluginHost.discover())
    result = agent.run_sync("Build it")
    assert result.outcome == "completed", result.problems
    print(agent.session_id, flush=True)
    if mode == "hang":
        print("ready", flush=True)
        threading.Event().wait()


if __name__ == "__main__":
    main(sys.argv[1])
