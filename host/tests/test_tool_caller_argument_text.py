"""A call whose arguments are not JSON text (a ``ToolUseBlock`` built wrong) is answered, and runs nothing."""

from __future__ import annotations

import asyncio
import json

import pytest
from host_helpers import ToolsPlugin, make_host

from agentkit.host import ToolCaller
from agentkit.plugin_api import Tool, ToolUseBlock

#: Seconds a test waits for something that happens at once on a healthy machine: a hang fails, load does not.
PATIENCE = 60


@pytest.mark.parametrize("arguments", [{"text": "hi"}, None, 7])
def test_arguments_that_are_not_text_are_refused_naming_their_type(arguments):
    ran: list = []
    echo = Tool("echo", "Echo.", {"type": "object"}, lambda given, context: ran.append(given) or "echoed")
    caller = ToolCaller(make_host(ToolsPlugin(echo)))

    async def main():
        return await asyncio.wait_for(caller.call(ToolUseBlock("call-1", "echo", arguments)), PATIENCE)

    result = asyncio.run(main())
    assert result.is_error and ran == []
    assert json.loads(result.content[0].text) == {
        "ok": False, "error": "invalid_arguments",
        "detail": f"The arguments arrived as {type(arguments).__name__}, not as JSON text "
                  "(a provider defect). Send the call again.",
    }
