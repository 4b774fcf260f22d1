"""The scripted provider: plays a script of assistant turns, for tests and demos.

>>> from agentkit_provider_faux import Script, Turn, text, tool_call
>>> script = Script([Turn([tool_call("read_file", {"path": "a.py"})]), Turn([text("done")])])

Pass the script as the agent's transport (``AgentConfig(model="faux/scripted",
transport=script)``). Every response follows the normative event order:
message start; per block a start, its deltas, an end carrying the whole
block; message end.

The script's names (an ``httpx`` transport) are imported on first use, so
that loading the plugin to list or register it does not load ``httpx``.
Tests import them from the testing kit, ``agentkit.testing`` (the
``agentkit-testing`` distribution), with its transcript assertions.
"""

from collections.abc import Callable
from importlib import import_module
from typing import TYPE_CHECKING, Any

from agentkit.plugin_api import Provider, hookimpl

from ._codec import API, CATALOG, FauxDecoder, FauxProvider
from ._plain import script_schema

if TYPE_CHECKING:
    from ._script import FunctionModel, Script, ScriptedRequest, Turn, text, thinking, tool_call

_SCRIPT_NAMES = ("FunctionModel", "Script", "ScriptedRequest", "Turn", "text", "thinking", "tool_call")


@hookimpl
def agentkit_register_providers(register: Callable[[Provider], None]) -> None:
    register(FauxProvider())


def __getattr__(name: str) -> Any:
    if name not in _SCRIPT_NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module("._script", __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "API",
    "CATALOG",
    "FauxDecoder",
    "FauxProvider",
    "FunctionModel",
    "Script",
    "ScriptedRequest",
    "Turn",
    "agentkit_register_providers",
    "script_schema",
    "text",
    "thinking",
    "tool_call",
]
