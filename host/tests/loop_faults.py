"""The invariants every run must keep, and a hostile-plugin set that tries to break them.

``Recorder`` counts what a user can observe (``agent_end`` through
``Agent.subscribe``, session hooks through a plugin); ``assert_well_formed``
checks the history and those counts after a run, however it ended.
"""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from collections import Counter
from typing import Any

from agentkit_provider_faux import FauxProvider
from agentkit_provider_faux._codec import FauxDecoder
from host_helpers import ToolsPlugin

from agentkit.host import Agent, AgentConfig, Connection, PluginHost
from agentkit.plugin_api import (
    AgentEnd,
    AssistantMessage,
    Block,
    MessageEnd,
    StopReason,
    Tool,
    ToolResult,
    ToolResultMessage,
    hookimpl,
)

KINDS_OF_RAISE: dict[str, type[BaseException]] = {
    "exception": RuntimeError,
    "keyboard_interrupt": KeyboardInterrupt,
    "system_exit": SystemExit,
    "cancelled_error": asyncio.CancelledError,
    "generator_exit": GeneratorExit,
    "base_exception": BaseException,
}


class Recorder:
    """Counts ``agent_end`` events and session hooks; a plugin and a listener at once."""

    def __init__(self) -> None:
        self.ends: list[AgentEnd] = []
        self.session_starts = 0
        self.session_ends: list[str] = []

    def listen(self, event: Any) -> None:
        if isinstance(event, AgentEnd):
            self.ends.append(event)

    @hookimpl
    def agentkit_session_start(self, session: Any) -> None:
        self.session_starts += 1

    @hookimpl
    def agentkit_session_end(self, session: Any, outcome: str, error: str | None) -> None:
        self.session_ends.append(outcome)


def assert_well_formed(agent: Agent, recorder: Recorder, outcome: str | None = None) -> None:
    """Every call of a usable response answered once, right after it; one end, reported the same everywhere."""
    history = agent.history
    expected: list[str] = []
    for index, message in enumerate(history):
        if isinstance(message, AssistantMessage) and message.stop_reason not in (StopReason.ERROR, StopReason.ABORTED):
            ids = [call.id for call in message.tool_calls]
            expected += ids
            following = history[index + 1 : index + 1 + len(ids)]
            assert [getattr(m, "tool_use_id", None) for m in following] == ids, (
                f"the results of turn {index} do not follow it in call order: {following}"
            )
    answered = [message.tool_use_id for message in history if isinstance(message, ToolResultMessage)]
    assert Counter(answered) == Counter(expected), f"calls {expected} were answered by {answered}"
    assert len(recorder.ends) == 1, f"agent_end seen {len(recorder.ends)} times"
    assert recorder.session_starts == 1
    assert recorder.session_ends == [recorder.ends[0].outcome], recorder.session_ends
    result = agent.last_result
    assert result is not None and result.outcome == recorder.ends[0].outcome
    if outcome is not None:
        assert result.outcome == outcome, (result.outcome, result.error, result.problems)


def recorded_agent(script: Any, *plugins: object, provider: Any = None, **config: Any) -> tuple[Agent, Recorder]:
    recorder = Recorder()
    host = PluginHost()
    host.register(_ProviderPlugin(provider or FauxProvider()), name="faux")
    for index, plugin in enumerate((*plugins, recorder)):
        record = host.register(plugin, name=f"plugin{index}")
        assert record.status == "loaded", record.reason
    connection = dataclasses.replace(config.pop("connection", Connection()), transport=script)
    agent = Agent(AgentConfig(model="faux/scripted", connection=connection, **config), host=host)
    agent.subscribe(recorder.listen)
    return agent, recorder


class _ProviderPlugin:
    def __init__(self, provider: Any) -> None:
        self.provider = provider

    @hookimpl
    def agentkit_register_providers(self, register: Any) -> None:
        register(self.provider)


# -- hostile tools ----------------------------------------------------------------------


def raising_tool(name: str, kind: type[BaseException], *, is_async: bool = False) -> Tool:
    if is_async:

        async def handler(arguments: dict, context: Any) -> Any:
            await asyncio.sleep(0)
            raise kind("hostile")

    else:

        def handler(arguments: dict, context: Any) -> Any:
            raise kind("hostile")

    return Tool(name, "raises", {"type": "object"}, handler)


def returning_tool(name: str, value: Any) -> Tool:
    return Tool(name, "returns what it was given", {"type": "object"}, lambda arguments, context: value())


def stuck_tool(name: str, *, is_async: bool = False, cooperative: bool = False, on_start: Any = None,
               **kwargs: Any) -> Tool:
    """Never returns (a cooperative one returns when the run is aborted); calls ``on_start()`` first."""
    if is_async:

        async def handler(arguments: dict, context: Any) -> Any:
            if on_start is not None:
                on_start()
            while True:
                try:
                    await asyncio.sleep(3600)
                except asyncio.CancelledError:
                    if cooperative:
                        raise

    else:

        def handler(arguments: dict, context: Any) -> Any:
            if on_start is not None:
                on_start()
            if cooperative:
                context.cancel.wait()
                return "stopped"
            threading.Event().wait()

    return Tool(name, "never returns", {"type": "object"}, handler, **kwargs)


def mutating_tool(name: str) -> Tool:
    def handler(arguments: dict, context: Any) -> Any:
        arguments.clear()
        arguments["injected"] = object()
        return "mutated"

    return Tool(name, "mutates its arguments", {"type": "object"}, handler)


def circular() -> list:
    loop: list = []
    loop.append(loop)
    return loop


UNSERIALIZABLE = {
    "circular_list": circular,
    "tuple_keys": lambda: {(1, 2): 3},
    "huge_int": lambda: 10**5000,
    "hostile_str": lambda: _HostileStr(),
    "result_whose_text_is_not_text": lambda: _NotText(True, data="x"),
}


class _NotText(ToolResult):
    """A ToolResult whose envelope text is a list: it would enter the history as a text block."""

    def to_text(self) -> str:
        return ["not", "text"]


class _HostileStr:
    def __str__(self) -> str:
        raise KeyboardInterrupt("from __str__")


def echo() -> Tool:
    return Tool("echo", "echoes", {"type": "object"}, lambda arguments, context: arguments.get("value", "echoed"))


def tools(*tool: Tool) -> ToolsPlugin:
    return ToolsPlugin(*tool)


# -- hostile hooks ----------------------------------------------------------------------


class RaisingHooks:
    """Every lifecycle hook raises ``kind``."""

    def __init__(self, kind: type[BaseException]) -> None:
        self.kind = kind

    @hookimpl
    def agentkit_session_start(self, session: Any) -> None:
        raise self.kind("hostile session_start")

    @hookimpl
    def agentkit_before_tool_call(self, call: Any, arguments: Any, session: Any) -> Block | None:
        raise self.kind("hostile before_tool_call")

    @hookimpl
    def agentkit_after_tool_call(self, call: Any, result: Any, session: Any) -> None:
        raise self.kind("hostile after_tool_call")

    @hookimpl
    def agentkit_session_end(self, session: Any, outcome: str, error: str | None) -> None:
        raise self.kind("hostile session_end")


class StuckHooks:
    """Every lifecycle hook blocks until ``release`` is set."""

    def __init__(self) -> None:
        self.release = threading.Event()

    @hookimpl
    def agentkit_session_start(self, session: Any) -> None:
        self.release.wait()

    @hookimpl
    def agentkit_before_tool_call(self, call: Any, arguments: Any, session: Any) -> Block | None:
        self.release.wait()
        return None

    @hookimpl
    def agentkit_after_tool_call(self, call: Any, result: Any, session: Any) -> None:
        self.release.wait()

    @hookimpl
    def agentkit_session_end(self, session: Any, outcome: str, error: str | None) -> None:
        self.release.wait()


# -- hostile providers ------------------------------------------------------------------


class HostileProvider(FauxProvider):
    """The scripted provider with a decoder that misbehaves as ``mode`` says.

    ``dict_arguments``: tool calls arrive with their arguments as a dict;
    ``raise:<name>``: the decoder raises that kind on the first event.
    """

    def __init__(self, mode: str) -> None:
        super().__init__()
        self.mode = mode

    def decoder(self, request: Any) -> Any:
        return _HostileDecoder(request, self.mode)


class _HostileDecoder(FauxDecoder):
    def __init__(self, request: Any, mode: str) -> None:
        super().__init__(request)
        self.mode = mode

    def feed(self, event: Any) -> list:
        if self.mode.startswith("raise:"):
            raise KINDS_OF_RAISE[self.mode.split(":", 1)[1]]("hostile decoder")
        events = super().feed(event)
        if self.mode == "dict_arguments":
            for item in events:
                if isinstance(item, MessageEnd):
                    for call in item.message.tool_calls:
                        call.arguments = {"value": "as a dict"}
        return events
