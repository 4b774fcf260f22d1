"""Plugins observe a run's events through ``agentkit_run_observer``; they cannot change the run."""

from __future__ import annotations

import pytest
from agentkit_provider_faux import FauxProvider, Script, Turn, text, tool_call

from agentkit.host import Agent, AgentConfig, Connection, PluginHost, Trust, allow_all
from agentkit.plugin_api import Tool, hookimpl


def shout(word: str) -> str:
    """Say a word louder."""
    return word.upper()


class Faux:
    @hookimpl
    def agentkit_register_providers(self, register):
        register(FauxProvider())


class Recorder:
    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []

    @hookimpl
    def agentkit_run_observer(self, session):
        def observe(event):
            self.seen.append((event.type, session.model))
            if event.type == "message_end":
                event.message.content.clear()  # a copy: the history keeps its message
        return observe


class Raising:
    def __init__(self) -> None:
        self.calls = 0

    @hookimpl
    def agentkit_run_observer(self):
        def observe(event):
            self.calls += 1
            raise RuntimeError("observer broke")
        return observe


class Declining:
    def __init__(self) -> None:
        self.asked = 0

    @hookimpl
    def agentkit_run_observer(self, session):
        self.asked += 1


class Answering:
    def __init__(self, answer) -> None:
        self.answer = answer

    @hookimpl
    def agentkit_run_observer(self):
        if isinstance(self.answer, BaseException):
            raise self.answer
        return self.answer


def _agent(*plugins: object) -> tuple[Agent, Script]:
    host = PluginHost()
    host.register(Faux(), name="faux")
    for index, plugin in enumerate(plugins):
        host.register(plugin, name=f"observer{index}")
    script = Script([Turn([text("Shouting."), tool_call("shout", {"word": "hi"})]), Turn([text("HI")])])
    config = AgentConfig(model="faux/scripted", tools=["shout"], extra_tools=[Tool.from_function(shout)],
                         trust=Trust(before_tool_call=allow_all), connection=Connection(transport=script))
    return Agent(config, host=host), script


def test_hook_agentkit_run_observer_sees_every_event_but_the_streamed_pieces_in_order():
    recorder = Recorder()
    agent, _ = _agent(recorder)
    listened: list[str] = []
    agent.subscribe(lambda event: listened.append(event.type))
    result = agent.run_sync("Shout hi")
    assert result.outcome == "completed"
    pieces = {"block_start", "block_delta", "block_end", "output_partial"}
    assert [kind for kind, _ in recorder.seen] == [kind for kind in listened if kind not in pieces]
    assert [kind for kind, _ in recorder.seen][:3] == ["agent_start", "turn_start", "message_start"]
    assert {model for _, model in recorder.seen} == {"faux/scripted"}
    assert result.messages[1].text == "Shouting."  # the plugin emptied only its copy


def test_hook_agentkit_run_observer_that_raises_is_reported_once_and_the_run_goes_on():
    raising = Raising()
    agent, _ = _agent(raising)
    result = agent.run_sync("Shout hi")
    assert result.outcome == "completed"
    assert result.messages[-1].text == "HI"
    assert raising.calls == 1  # dropped after it raised
    assert [problem for problem in result.problems if "run observer raised RuntimeError: observer broke" in problem]


def test_hook_agentkit_run_observer_declined_is_asked_once_per_run():
    declining = Declining()
    agent, _ = _agent(declining)
    assert agent.run_sync("Shout hi").outcome == "completed"
    assert declining.asked == 1


@pytest.mark.parametrize("answer", ["not a function", RuntimeError("no observer"), SystemExit(3)])
def test_hook_agentkit_run_observer_bad_answers_are_reported_and_change_nothing(answer):
    agent, _ = _agent(Answering(answer))
    result = agent.run_sync("Shout hi")
    assert result.outcome == "completed"
    assert result.messages[-1].text == "HI"
    assert [problem for problem in result.problems if "agentkit_run_observer" in problem]
