"""What observing plugins are shown of a run, and what the embedder is told when one misbehaves.

Run observers (``agentkit_run_observer``) and ``agentkit_mcp_servers`` can
change nothing; when one raises or answers something the host does not
understand, ``RunResult.problems`` says so word for word, naming the plugin,
and the rest of the run is unchanged.
"""

from __future__ import annotations

from typing import Any

from agentkit_provider_faux import Script, Turn, text, tool_call
from host_helpers import ToolsPlugin, make_agent, make_host

from agentkit.host import Agent, AgentConfig, Connection, Subagent, Trust, allow_all
from agentkit.plugin_api import Event, SubagentEvent, Tool, hookimpl

TOOL = Tool("act", "Act.", {"type": "object"}, lambda arguments, context: "acted")
PIECES = {"block_start", "block_delta", "block_end", "output_partial"}


class Servers:
    def __init__(self) -> None:
        self.asked: list[Any] = []

    @hookimpl
    def agentkit_mcp_servers(self, tools):
        self.asked.append(tools)
        return [{"name": "wiki", "transport": "http"}]


class RaisingServers:
    @hookimpl
    def agentkit_mcp_servers(self, tools):
        raise LookupError("no registry")


def test_a_raising_mcp_servers_hook_is_reported_word_for_word_and_the_others_servers_stay():
    servers = Servers()
    audited: list[Any] = []
    agent, _ = make_agent([Turn([text("ok")])], ToolsPlugin(TOOL), servers, RaisingServers(), audit=audited.append)
    result = agent.run_sync("go")
    assert result.outcome == "completed"
    assert servers.asked == [["act"]]  # the agent's tool names, as a list of its own
    assert audited[0].mcp_servers == ({"name": "wiki", "transport": "http"},)
    assert result.problems == [
        "plugin 'plugin2' agentkit_mcp_servers raised LookupError: no registry; its servers are left out of the audit"
    ]


class Observer:
    """Keeps what each run's observer was shown, and the session it was asked about."""

    def __init__(self) -> None:
        self.sessions: list[Any] = []
        self.seen: list[Event] = []

    @hookimpl
    def agentkit_run_observer(self, session):
        self.sessions.append(session)
        return self.seen.append


class FailingObserver:
    def __init__(self) -> None:
        self.shown = 0

    @hookimpl
    def agentkit_run_observer(self):
        def observe(event):
            self.shown += 1
            raise ValueError(f"cannot take {event.type}")
        return observe


class Answering:
    def __init__(self, *answers: Any) -> None:
        self.answers = answers

    @hookimpl
    def agentkit_run_observer(self):
        if isinstance(self.answers[0], BaseException):
            raise self.answers[0]
        return self.answers[0]


def observed_run(*plugins: object) -> tuple[Any, list[Event]]:
    agent, _ = make_agent([Turn([text("Acting."), tool_call("act", {})]), Turn([text("done")])],
                          ToolsPlugin(TOOL), *plugins)
    listened: list[Event] = []
    agent.subscribe(listened.append)
    return agent.run_sync("go"), listened


def test_an_observer_is_asked_about_the_run_it_observes():
    observer = Observer()
    agent, _ = make_agent([Turn([text("done")])], observer)
    agent.run_sync("go")
    (session,) = observer.sessions
    assert (session.session_id, session.model) == (agent.session_id, "faux/scripted")


def test_an_observer_that_raises_is_dropped_after_its_first_event_and_reported_once_word_for_word():
    failing, observer = FailingObserver(), Observer()
    result, listened = observed_run(failing, observer)
    assert result.outcome == "completed" and result.messages[-1].text == "done"
    assert failing.shown == 1
    assert result.problems == [
        "plugin 'plugin1' run observer raised ValueError: cannot take agent_start; it observes nothing more of this run"
    ]
    # The other observer is not dropped with it: it sees the whole run.
    assert [event.type for event in observer.seen] == [event.type for event in listened if event.type not in PIECES]


def test_an_observer_answer_that_is_not_a_function_is_reported_word_for_word():
    result, _ = observed_run(Answering(42))
    assert result.outcome == "completed"
    assert result.problems == [
        "plugin 'plugin1' agentkit_run_observer returned 42; only None or a function of an event is understood, "
        "so it observes nothing of this run"
    ]


def test_an_observer_hook_that_raises_is_reported_word_for_word_and_the_next_plugin_still_observes():
    observer = Observer()
    result, listened = observed_run(observer, Answering(KeyError("gone")))  # pluggy asks the last registered first
    assert result.outcome == "completed"
    assert result.problems == ["plugin 'plugin2' agentkit_run_observer raised KeyError: 'gone'"]
    assert [event.type for event in observer.seen] == [event.type for event in listened if event.type not in PIECES]


def test_an_observer_changing_its_event_changes_nothing_another_observer_or_the_embedder_sees():
    class Vandal:
        @hookimpl
        def agentkit_run_observer(self):
            def observe(event):
                if event.type == "message_end":
                    event.message.content.clear()
            return observe

    observer = Observer()
    result, listened = observed_run(observer, Vandal())  # pluggy asks the last registered first
    ends = [event for event in observer.seen if event.type == "message_end"]
    assert [end.message.text for end in ends] == ["Acting.", "done"]
    assert [event.message.text for event in listened if event.type == "message_end"] == ["Acting.", "done"]
    assert result.messages[1].text == "Acting." and result.problems == []


def test_the_pieces_of_a_subagents_response_reach_the_embedder_but_not_the_observers():
    observer = Observer()
    child = AgentConfig(model="faux/scripted", trust=Trust(before_tool_call=allow_all),
                        connection=Connection(transport=Script([Turn([text("found it")])])))
    research = Subagent("research", "Finds.", child).as_tool()
    parent = Agent(AgentConfig(model="faux/scripted", tools=["research"], extra_tools=[research],
                               trust=Trust(before_tool_call=allow_all),
                               connection=Connection(transport=Script([Turn([tool_call("research", {"task": "Find."})]),
                                                 Turn([text("ok")])]))),
                   host=make_host(observer))
    listened: list[Event] = []
    parent.subscribe(listened.append)
    result = parent.run_sync("go")
    assert result.outcome == "completed"
    wrapped = [event.event.type for event in listened if isinstance(event, SubagentEvent)]
    assert PIECES & set(wrapped), "the embedder is shown the child's pieces"
    parents_run = [event for event in observer.seen if isinstance(event, SubagentEvent)]
    assert [event.event.type for event in parents_run] == [kind for kind in wrapped if kind not in PIECES]
