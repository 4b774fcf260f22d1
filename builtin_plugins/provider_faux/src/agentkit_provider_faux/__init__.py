"""The scripted provider: plays a script of assistant turns, for tests and demos.

>>> from agentkit_provider_faux import Script, Turn, text, tool_call
>>> script = Script([Turn([tool_call("read_file", {"path": "a.py"})]), Turn([text("done")])])

Pass the script as the agent's transport (``AgentConfig(model="faux/scripted",
transport=script)``). Every response follows the normative event order:
message start; per block a start, its deltas, an end carrying the whole
block; message end.
"""

from collections.abc import Callable

from agentkit.plugin_api import Provider, hookimpl

from ._codec import API, CATALOG, FauxDecoder, FauxProvider
from ._script import Script, ScriptedRequest, Turn, text, thinking, tool_call


@hookimpl
def agentkit_register_providers(register: Callable[[Provider], None]) -> None:
    register(FauxProvider())


__all__ = [
    "API",
    "CATALOG",
    "FauxDecoder",
    "FauxProvider",
    "Script",
    "ScriptedRequest",
    "Turn",
    "agentkit_register_providers",
    "text",
    "thinking",
    "tool_call",
]
