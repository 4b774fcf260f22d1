"""An ``agentkit_after_tool_call`` hook that hangs when the run stops is given up on, not waited out."""

from __future__ import annotations

import threading

from agentkit_provider_faux import Turn, text, tool_call
from host_helpers import ToolsPlugin, make_agent

from agentkit.host import Timeouts
from agentkit.plugin_api import Tool, hookimpl

ACT = Tool("act", "Act.", {"type": "object"}, lambda arguments, context: "acted")


def test_an_after_call_hook_still_running_when_the_run_is_aborted_is_given_up():
    """The run ends within the stop's grace: it does not wait for the hook's hour-long ``hook_timeout``."""
    release = threading.Event()
    holder: list = []
    returned: list[bool] = []

    class Hangs:
        @hookimpl
        def agentkit_after_tool_call(self, call):
            holder[0].abort()
            release.wait(3600)
            returned.append(True)

    agent, _ = make_agent([Turn([tool_call("act", {})]), Turn([text("never sent")])], ToolsPlugin(ACT), Hangs(),
                          timeouts=Timeouts(hook=3600))
    holder.append(agent)
    try:
        result = agent.run_sync("go")
        assert result.outcome == "aborted" and returned == []
        assert result.problems == ["agentkit_after_tool_call did not return in time for call call_1_1; it was abandoned"]
    finally:
        release.set()
