"""``agentkit demo``: the real loop against the scripted provider, no network, no key.

Each scene runs an :class:`~agentkit.host.Agent` on a script of turns and
prints what the loop did, so the invariants can be watched happening.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import threading
import time
from typing import TYPE_CHECKING, Any

from agentkit.plugin_api import Block, Tool, ToolResultMessage, hookimpl, provider_member
from agentkit.plugin_api.errors import UsageError

if TYPE_CHECKING:
    from .._agent import Agent


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("demo")
    parser.set_defaults(handler=run)


class _DemoTools:
    """Tools and a hook the demo registers in code, like any plugin."""

    def __init__(self) -> None:
        self.finished: list[str] = []
        self.ran: list[str] = []
        self.lock = threading.Lock()

    @hookimpl
    def agentkit_register_tools(self, register: Any) -> None:
        def lookup(city: str, delay: float = 0.0) -> str:
            """Look up the weather of a city."""
            time.sleep(delay)
            with self.lock:
                self.finished.append(city)
                self.ran.append(city)
            return f"sunny in {city}"

        def delete_file(path: str) -> str:
            """Delete a file."""
            self.ran.append(path)
            return f"deleted {path}"

        register(Tool.from_function(lookup, name="demo_weather"))
        register(Tool.from_function(delete_file, name="demo_delete"))

    @hookimpl
    def agentkit_before_tool_call(self, call: Any, arguments: dict[str, Any]) -> Block | None:
        if call.name == "demo_delete" and str(arguments.get("path", "")).startswith("/etc"):
            return Block("the demo policy plugin protects /etc")
        return None


def _call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"type": "tool_use", "name": name, "arguments": arguments}


def _say(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _results(messages: list[Any]) -> list[ToolResultMessage]:
    return [message for message in messages if isinstance(message, ToolResultMessage)]


def _show(result: ToolResultMessage) -> str:
    envelope = json.loads(result.text)
    body = envelope.get("data") if envelope.get("ok") else f"{envelope.get('error')}: {envelope.get('detail')}"
    return f"{result.tool_use_id} -> {'ERROR ' if result.is_error else ''}{body}"


def run(args: argparse.Namespace) -> int:
    # The loop's machinery, imported only when the demo runs: 'agentkit --help' stays light.
    from .._agent import Agent
    from .._config import AgentConfig, Connection, Trust, allow_all
    from .._plugins import PluginHost

    host = PluginHost.discover()
    faux = host.providers.get("faux")
    if faux is None:
        raise UsageError("the demo needs the scripted provider: pip install agentkit-provider-faux")
    script = provider_member(faux, "script")
    if script is None:
        raise UsageError("the installed 'faux' provider plays no scripts: reinstall agentkit-provider-faux")
    demo = _DemoTools()
    record = host.register(demo, name="demo")
    if record.status != "loaded":
        raise UsageError(f"could not register the demo tools: {record.reason}")
    workspace = tempfile.mkdtemp(prefix="agentkit-demo-")

    def agent_for(turns: list[dict[str, Any]], **config: Any) -> Agent:
        config.setdefault("trust", Trust(before_tool_call=allow_all))
        return Agent(
            AgentConfig(model="faux/scripted", root=workspace, connection=Connection(transport=script(turns)),
                        tools=["demo_weather", "demo_delete"], **config),
            host=host,
        )

    print("agentkit demo: the real loop, a scripted model, no network\n")

    print("1. Tool calls under a stop-family stop reason still run")
    agent = agent_for([
        {"content": [_call("demo_weather", city="Oslo")], "stop_reason": "stop", "raw_stop_reason": "STOP"},
        {"content": [_say("Oslo is sunny.")]},
    ])
    result = agent.run_sync("Weather in Oslo?")
    print("   the model said STOP beside a tool call; the loop ran it anyway:")
    for answer in _results(result.messages):
        print(f"   {_show(answer)}")
    print(f"   final answer: {result.text!r}\n")

    print("2. Three parallel calls, answered in call order")
    demo.finished.clear()
    agent = agent_for([
        {"content": [_call("demo_weather", city=city, delay=delay) for city, delay in
                     [("Lima", 0.3), ("Pune", 0.15), ("Kyiv", 0.0)]]},
        {"content": [_say("All three are sunny.")]},
    ])
    result = agent.run_sync("Weather in three cities?")
    print(f"   handlers finished in the order: {', '.join(demo.finished)}")
    print("   results in the transcript, in call order:")
    for answer in _results(result.messages):
        print(f"   {_show(answer)}")
    print()

    print("3. A response cut by the output limit: its tool calls are not run")
    demo.ran.clear()
    agent = agent_for([
        {"content": [_call("demo_delete", path="notes/draft.txt")], "stop_reason": "length"},
        {"content": [_say("I will retry with complete arguments.")]},
    ])
    result = agent.run_sync("Clean up")
    print(f"   handlers run: {len(demo.ran)}")
    for answer in _results(result.messages):
        print(f"   {_show(answer)}")
    print(f"   the loop went on; final answer: {result.text!r}\n")

    print("4. Abort during a batch: no handler runs, every call is answered")
    demo.ran.clear()
    holder: list[Agent] = []

    def abort_on_second_call(call: Any, arguments: dict[str, Any]) -> None:
        if call.id.endswith("_2"):
            holder[0].abort()  # as if the user pressed Ctrl-C while the batch was being prepared
        return None

    agent = agent_for(
        [{"content": [_call("demo_weather", city=city) for city in ("Rome", "Baku", "Quito")]}],
        trust=Trust(before_tool_call=abort_on_second_call),
    )
    holder.append(agent)
    result = agent.run_sync("Weather everywhere")
    print(f"   handlers run: {len(demo.ran)} of 3; results: {len(_results(result.messages))}")
    for answer in _results(result.messages):
        print(f"   {_show(answer)}")
    print(f"   run outcome: {result.outcome}\n")

    print("5. A plugin hook blocks a call the embedder allowed")
    demo.ran.clear()
    agent = agent_for([
        {"content": [_call("demo_delete", path="/etc/passwd"), _call("demo_delete", path="tmp/old.log")]},
        {"content": [_say("I could only delete the log.")]},
    ])
    result = agent.run_sync("Delete both")
    print("   the embedder's policy allowed both calls; the plugin narrowed it:")
    for answer in _results(result.messages):
        print(f"   {_show(answer)}")
    print(f"   handlers run: {', '.join(demo.ran)}\n")

    print("Done: every behaviour above ran through the same loop an embedder uses.")
    return 0
