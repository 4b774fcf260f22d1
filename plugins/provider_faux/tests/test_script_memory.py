"""A long scripted run keeps a bounded number of request bodies, not one per turn.

Each request carries the whole transcript, so keeping every body made the
script's memory grow with the square of the run's length (555 MB after 1,000
turns). The script keeps the most recent ``keep_requests`` and counts the rest.
"""

from __future__ import annotations

import pytest
from agentkit_provider_faux import FauxProvider, Script, Turn, text, tool_call

from agentkit.host import Agent, AgentConfig, Connection, Limits, PluginHost
from agentkit.plugin_api import Tool, hookimpl


class Plugin:
    @hookimpl
    def agentkit_register_providers(self, register):
        register(FauxProvider())

    @hookimpl
    def agentkit_register_tools(self, register):
        def note(value: str = "") -> str:
            """Return the value."""
            return value * 20

        register(Tool.from_function(note, name="note"))


def run(turns: int, **script_options) -> Script:
    script = Script(
        [Turn([tool_call("note", {"value": f"turn {n} " * 10})]) for n in range(turns)] + [Turn([text("done")])],
        **script_options,
    )
    host = PluginHost()
    host.register(Plugin(), name="plugin")
    agent = Agent(AgentConfig(model="faux/scripted", limits=Limits(max_turns=None),
                              connection=Connection(transport=script)), host=host)
    result = agent.run_sync("go")
    assert result.outcome == "completed", result.error
    return script


def retained(script: Script) -> int:
    return sum(len(request.raw) for request in script.requests)


@pytest.mark.parametrize("turns", [5, 40, 120])
def test_the_number_of_kept_bodies_does_not_grow_with_the_run(turns: int) -> None:
    script = run(turns)
    assert script.request_count == turns + 1
    assert len(script.requests) == min(turns + 1, Script.KEEP_REQUESTS)
    # The kept ones are the most recent, in order.
    assert script.requests[-1].messages[-1].role == "tool_result"
    assert len(script.requests[-1].messages) == 2 * turns + 1


def test_the_script_memory_per_turn_is_constant() -> None:
    # Retained bytes after N turns are a few recent bodies, each about the
    # transcript's size: doubling N at most doubles them (all bodies kept
    # would quadruple them).
    short, long = run(60), run(120)
    assert retained(long) <= 2.2 * retained(short)


def test_every_request_can_still_be_kept_on_demand() -> None:
    script = run(30, keep_requests=None)
    assert len(script.requests) == 31 and script.request_count == 31
    assert script.requests[1:][0] is script.requests[1]


def test_keep_requests_must_be_positive_or_none() -> None:
    with pytest.raises(ValueError, match="keep_requests"):
        Script([], keep_requests=0)
