"""What a turn does when nobody listens, and what a listener that joins late still hears (decision 0057).

A run with no stream, no subscriber and no observing plugin builds none of
its events; whether anyone listens is asked at each event, so a listener
that subscribes while a tool call runs hears that call's end and everything
after it. Each property is a count, observed through the public event types
and the public ``Agent.subscribe``.
"""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from agentkit_provider_faux import Turn, text, tool_call
from host_helpers import ToolsPlugin, make_agent

from agentkit.host import Trust, allow_all
from agentkit.plugin_api import (
    AgentEnd,
    AgentStart,
    Tool,
    ToolCallEnd,
    ToolCallStart,
    TurnEnd,
    TurnStart,
)

_COUNTED = (TurnStart, TurnEnd, ToolCallStart, ToolCallEnd)
_ENDS = (AgentStart, AgentEnd)


def _tool_turns(turns: int, calls: int) -> list[Turn]:
    return [Turn([tool_call("note", {"n": n}) for n in range(calls)]) for _ in range(turns)] + [Turn([text("done")])]


def _counting(monkeypatch: pytest.MonkeyPatch, kinds: tuple[type, ...]) -> dict[str, int]:
    made = dict.fromkeys((kind.__name__ for kind in kinds), 0)
    for kind in kinds:
        real = kind.__init__

        def counting(self: Any, *args: Any, __real: Any = real, __name: str = kind.__name__, **kwargs: Any) -> None:
            made[__name] += 1
            __real(self, *args, **kwargs)

        monkeypatch.setattr(kind, "__init__", counting)
    return made


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How many of each counted event type were made."""
    return _counting(monkeypatch, _COUNTED)


def _note() -> Tool:
    def note(n: int) -> int:
        """Note n."""
        return n

    return Tool.from_function(note)  # a plain sync function: the default mode, a worker thread


def test_a_run_nobody_listens_to_builds_no_turn_or_tool_call_event(built: dict[str, int]) -> None:
    agent, _ = make_agent(_tool_turns(2, calls=3), ToolsPlugin(_note()), trust=Trust(before_tool_call=allow_all))
    assert agent.run_sync("go").outcome == "completed"
    assert built == {"TurnStart": 0, "TurnEnd": 0, "ToolCallStart": 0, "ToolCallEnd": 0}


def test_a_run_someone_listens_to_builds_every_event_once(built: dict[str, int]) -> None:
    agent, _ = make_agent(_tool_turns(2, calls=3), ToolsPlugin(_note()), trust=Trust(before_tool_call=allow_all))
    heard: list[str] = []
    agent.subscribe(lambda event: heard.append(event.type))
    assert agent.run_sync("go").outcome == "completed"
    assert built == {"TurnStart": 3, "TurnEnd": 3, "ToolCallStart": 6, "ToolCallEnd": 6}
    assert heard.count("turn_start") == 3 and heard.count("tool_call_end") == 6


def test_a_listener_that_subscribes_during_a_call_hears_that_call_end_and_what_follows() -> None:
    heard: list[str] = []
    agent_box: list[Any] = []

    def join(n: int) -> int:
        """Subscribe a listener, from the worker thread this call runs in."""
        agent_box[0].subscribe(lambda event: heard.append(event.type))
        return n

    agent, _ = make_agent([Turn([tool_call("join", {"n": 1})]), Turn([text("done")])], ToolsPlugin(Tool.from_function(join)),
                          trust=Trust(before_tool_call=allow_all))
    agent_box.append(agent)
    assert agent.run_sync("go").outcome == "completed"
    assert heard[:3] == ["tool_call_end", "turn_end", "turn_start"]
    assert "tool_call_start" not in heard  # it came before anyone listened
    assert heard[-1] == "agent_end"


def test_a_plain_value_a_sync_tool_returns_is_not_asked_whether_it_is_awaitable(monkeypatch: pytest.MonkeyPatch) -> None:
    # inspect.isawaitable is an ABC check; a str, int, dict... can never be awaited, so a batch of
    # six calls returning them asks it no more than a batch of one.
    asked: list[object] = []
    real = inspect.isawaitable

    def counting(value: object) -> bool:
        asked.append(value)
        return real(value)

    monkeypatch.setattr(inspect, "isawaitable", counting)
    counts = []
    for calls in (1, 6):
        asked.clear()
        agent, _ = make_agent(_tool_turns(2, calls=calls), ToolsPlugin(_note()), trust=Trust(before_tool_call=allow_all))
        assert agent.run_sync("go").outcome == "completed"
        counts.append(len(asked))
    assert counts[0] == counts[1]


def test_a_run_nobody_listens_to_builds_no_start_or_end_event_and_one_listened_to_gets_each_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Nor does it load the module of the run's events (``host/tests/test_first_use_imports.py``)."""
    made = _counting(monkeypatch, _ENDS)
    agent, _ = make_agent(_tool_turns(1, calls=1), ToolsPlugin(_note()), trust=Trust(before_tool_call=allow_all))
    assert agent.run_sync("go").outcome == "completed"
    assert made == {"AgentStart": 0, "AgentEnd": 0}
    heard: list[str] = []
    agent, _ = make_agent(_tool_turns(1, calls=1), ToolsPlugin(_note()), trust=Trust(before_tool_call=allow_all))
    agent.subscribe(lambda event: heard.append(event.type))
    assert agent.run_sync("go").outcome == "completed"
    assert made == {"AgentStart": 1, "AgentEnd": 1}
    assert heard[0] == "agent_start" and heard[-1] == "agent_end"
