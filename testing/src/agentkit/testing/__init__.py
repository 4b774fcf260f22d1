"""Test an agent offline: a scripted model, a model that is a function, request capture, transcript assertions.

>>> from agentkit.testing import Script, Turn, text, tool_call
>>> script = Script([Turn([tool_call("read_file", {"path": "a.py"})]), Turn([text("done")])])

Give the script to the agent as its transport
(``AgentConfig(model="faux/scripted", connection=Connection(transport=script))``): the run goes
through the host's real HTTP, framing and decoding path, and
``script.requests`` holds what it sent. The guide is ``docs/testing.md``.

The scripted model is the ``agentkit-provider-faux`` plugin; this package is
its public face for tests, so that a test imports one kit.
"""

from agentkit_provider_faux import (
    FunctionModel,
    Script,
    ScriptedRequest,
    Turn,
    text,
    thinking,
    tool_call,
)

from agentkit.plugin_api import Usage

from ._files import write_script
from ._transcript import ANY, ExpectedMessage, assert_transcript, assistant, tool_result, user

__all__ = [
    "ANY",
    "ExpectedMessage",
    "FunctionModel",
    "Script",
    "ScriptedRequest",
    "Turn",
    "Usage",
    "assert_transcript",
    "assistant",
    "text",
    "thinking",
    "tool_call",
    "tool_result",
    "user",
    "write_script",
]
