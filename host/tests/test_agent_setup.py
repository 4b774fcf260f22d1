"""What an agent makes of its config when it is built, observed before or through its first run."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import threading
from pathlib import Path
from typing import Any

import agentkit_tools_files
import httpx
import pytest
from agentkit_provider_faux import FauxProvider, Script, Turn, text, tool_call
from host_helpers import SkillsPlugin, ToolsPlugin, make_agent, make_host

from agentkit.host import (
    Agent,
    AgentBusy,
    AgentConfig,
    ConfigError,
    Connection,
    Limits,
    ModelSettings,
    PluginHost,
    Timeouts,
    Trust,
    allow_all,
)
from agentkit.host.runtime import ResponseLimits
from agentkit.plugin_api import Skill, Tool, Usage, hookimpl


def _tool(name: str, **kwargs: Any) -> Tool:
    return Tool(name, f"The {name} tool.", {"type": "object", "properties": {}}, lambda arguments, context: "ok",
                **kwargs)


def write_skill(home: Path, name: str) -> Path:
    folder = home / ".agentkit" / "skills" / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: The {name} steps.\n---\nDo it.\n")
    return folder.resolve()


# -- which tools an agent has ---------------------------------------------------------


def test_an_extra_tool_with_the_name_of_an_installed_one_is_refused_naming_it(home):
    with pytest.raises(ConfigError) as refused:
        make_agent([], ToolsPlugin(_tool("echo")), extra_tools=[_tool("echo")])
    assert str(refused.value) == "extra tool 'echo' has the name of an installed tool; rename it"


def test_unknown_tools_asked_for_are_refused_naming_them_and_the_installed_ones(home):
    with pytest.raises(ConfigError) as refused:
        make_agent([], ToolsPlugin(_tool("zeta"), _tool("alpha")), tools=["alpha", "gamma", "beta"])
    assert str(refused.value) == "unknown tool(s) gamma, beta in AgentConfig.tools; installed: alpha, zeta"


def test_unknown_tools_asked_for_when_none_is_installed_say_so(home):
    with pytest.raises(ConfigError) as refused:
        make_agent([], tools=["grep"])
    assert str(refused.value) == "unknown tool(s) grep in AgentConfig.tools; installed: none"


# -- tools that run commands need a policy --------------------------------------------


def test_tools_that_run_commands_without_a_policy_are_refused_naming_them_and_the_fix(home):
    plugin = ToolsPlugin(_tool("zsh", requires_authorization=True), _tool("bash", requires_authorization=True),
                         _tool("echo"))
    with pytest.raises(ConfigError) as refused:
        make_agent([], plugin)
    assert str(refused.value) == (
        "tool(s) bash, zsh run arbitrary commands, and AgentConfig.before_tool_call is not set. "
        "Set before_tool_call=agentkit.host.allow_all to allow every call on purpose, or a restrictive "
        "policy (the shell plugin ships one), or leave these tools out with AgentConfig.tools"
    )


def test_tools_that_run_commands_are_enabled_once_a_policy_is_set(home):
    agent, _ = make_agent([], ToolsPlugin(_tool("bash", requires_authorization=True)),
                          trust=Trust(before_tool_call=allow_all))
    assert sorted(agent.tools) == ["bash"]


# -- skills without a tool to read them -----------------------------------------------


def test_an_agent_without_skills_needs_no_tool_to_read_them(home):
    agent, _ = make_agent([], ToolsPlugin(_tool("echo")))
    assert agent.skills.problems == []


def test_skills_without_a_tool_to_read_them_are_a_problem_logged_as_it_is(home, caplog):
    write_skill(home, "deploy")
    with caplog.at_level(logging.WARNING, logger="agentkit.skills"):
        agent, _ = make_agent([], ToolsPlugin(_tool("echo")))
    problem = ("the agent has skills but no tool to read them with (read_file, or a shell tool); "
               "the skills are left out of the system prompt: enable read_file")
    assert agent.skills.problems == [problem]
    assert [record.getMessage() for record in caplog.records if record.name == "agentkit.skills"] == [problem]


# -- the options handed to tools -------------------------------------------------------


def test_read_file_may_read_the_skill_folders_after_the_paths_the_embedder_gave(home):
    folder = write_skill(home, "deploy")
    agent, _ = make_agent([], agentkit_tools_files,
                          tool_options={"read_file": {"readable_paths": ["/srv/docs"], "max_bytes": 10}})
    assert agent.tool_options()["read_file"] == {"readable_paths": ["/srv/docs", str(folder)], "max_bytes": 10}


def test_without_skills_the_tools_get_the_embedders_options_as_given(home):
    agent, _ = make_agent([], agentkit_tools_files, tool_options={"grep": {"limit": 3}})
    assert agent.tool_options() == {"grep": {"limit": 3}}


# -- what the model is shown -----------------------------------------------------------


def test_the_model_is_sent_each_tools_input_schema(home):
    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    tool = Tool("weather", "The weather in a city.", schema, lambda arguments, context: "sunny")
    agent, script = make_agent([Turn([text("ok")])], ToolsPlugin(tool))
    agent.run_sync("go")
    assert script.requests[0].tools == [{"name": "weather", "description": "The weather in a city.",
                                         "input_schema": schema}]


def test_an_output_type_is_refused_when_the_configs_tool_choice_forbids_tool_calls(home):
    agent, script = make_agent([Turn([text("ok")])], settings=ModelSettings(tool_choice="none"))
    with pytest.raises(ConfigError, match="tool_choice='none' forbids one"):
        agent.run_sync("go", output_type={"type": "object"})
    assert script.request_count == 0


# -- which plugin a call's audit names -------------------------------------------------


class ServersPlugin:
    """Describes one MCP server, and records which tools it was asked about."""

    def __init__(self) -> None:
        self.asked: list[list[str]] = []

    @hookimpl
    def agentkit_mcp_servers(self, tools: list[str]) -> Any:
        self.asked.append(tools)
        return [{"name": "wiki", "transport": "http"}]


class BadServersPlugin:
    @hookimpl
    def agentkit_mcp_servers(self, tools: list[str]) -> Any:
        return 42


def test_the_audit_asks_about_the_agents_tools_in_order_and_reports_a_bad_answer(home):
    servers = ServersPlugin()
    seen: list[Any] = []
    agent, _ = make_agent([Turn([text("ok")])], ToolsPlugin(_tool("zeta"), _tool("alpha")), servers,
                          BadServersPlugin(), audit=seen.append)
    result = agent.run_sync("go")
    assert servers.asked == [["alpha", "zeta"]]
    assert seen[0].mcp_servers == ({"name": "wiki", "transport": "http"},)
    assert [problem for problem in result.problems if "agentkit_mcp_servers" in problem] == [
        "plugin plugin2: agentkit_mcp_servers answered 42: 'int' object is not iterable; "
        "its servers are left out of the audit"
    ]


# -- a second run while one is going ---------------------------------------------------


def test_a_run_started_while_another_goes_on_is_refused_at_once_not_after_that_run():
    """The first run is released only once the second has answered: a second run that waited for it would
    not have answered by then (the loop turns it is given are counted, no clock is read)."""
    release = threading.Event()

    def waits(arguments: Any, context: Any) -> str:
        if not release.wait(30):
            raise TimeoutError("never released")
        return "done"

    agent, _ = make_agent([Turn([tool_call("wait", {})]), Turn([text("first")]), Turn([text("second")])],
                          ToolsPlugin(Tool("wait", "Wait.", {"type": "object"}, waits)))

    async def scenario() -> tuple[BaseException | None, str]:
        started = asyncio.Event()
        agent.subscribe(lambda event: started.set() if event.type == "tool_call_start" else None)
        first = asyncio.ensure_future(agent.run("one"))
        await started.wait()
        second = asyncio.ensure_future(agent.run("two"))
        for _ in range(200):
            if second.done():
                break
            await asyncio.sleep(0)
        release.set()
        outcome = (await first).outcome
        try:
            await second
        except AgentBusy as refused:
            return refused, outcome
        return None, outcome

    refused, first_outcome = asyncio.run(scenario())
    assert isinstance(refused, AgentBusy)
    assert first_outcome == "completed"


def test_a_run_started_from_another_event_loop_while_a_stopped_run_ends_is_refused():
    """The stopped run is held at its ``agent_end`` (a listener that waits), on the event loop of its thread:
    a run started from another loop cannot wait for it there, and is refused."""
    at_end, release = threading.Event(), threading.Event()
    holder: list[Any] = []

    def aborts(arguments: Any, context: Any) -> str:
        holder[0].abort()
        return "done"

    def holds_the_end(event: Any) -> None:
        if event.type == "agent_end":
            at_end.set()
            release.wait(30)

    agent, _ = make_agent([Turn([tool_call("act", {})]), Turn([text("never sent")])],
                          ToolsPlugin(Tool("act", "Act.", {"type": "object"}, aborts)))
    holder.append(agent)
    agent.subscribe(holds_the_end)
    first: list[str] = []
    thread = threading.Thread(target=lambda: first.append(agent.run_sync("one").outcome))
    thread.start()
    try:
        assert at_end.wait(30)
        with pytest.raises(AgentBusy):
            asyncio.run(agent.run("two"))
    finally:
        release.set()
        thread.join(30)
    assert first == ["aborted"]


# -- what reaches the provider runtime ----------------------------------------------------


class Recording(httpx.AsyncBaseTransport):
    """Plays the script, and records the httpx timeouts each request was sent with."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.timeouts: list[Any] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.timeouts.append(request.extensions.get("timeout"))
        return await self.script.handle_async_request(request)


def test_the_connect_and_read_timeouts_reach_each_request(home):
    transport = Recording(Script([Turn([text("ok")])]))
    agent = Agent(AgentConfig(model="faux/scripted", timeouts=Timeouts(connect=3.5, read=7.5),
                              connection=Connection(transport=transport)),
                  host=make_host())
    agent.run_sync("go")
    [timeout] = transport.timeouts
    assert (timeout["connect"], timeout["read"]) == (3.5, 7.5)


def test_a_response_past_request_timeout_ends_the_run_as_an_error(home):
    agent, _ = make_agent([Turn([text("the start of it")], hang=True)], timeouts=Timeouts(request=0.1))
    result = agent.run_sync("go")
    assert result.outcome == "error" and "request_timeout" in result.error


def test_response_limits_reach_the_runtime(home):
    agent, _ = make_agent([Turn([text("far more text than ten bytes")])],
                          limits=Limits(response=ResponseLimits(text_bytes=10)))
    result = agent.run_sync("go")
    assert result.outcome == "error" and "text_bytes" in result.error


class PricedFaux:
    """The scripted provider, its models priced at 2 US dollars per million input tokens."""

    @hookimpl
    def agentkit_register_providers(self, register: Any) -> None:
        provider = FauxProvider()
        provider.models = [dataclasses.replace(row, input_price=2.0) for row in provider.models]
        register(provider)


def test_each_response_is_priced_at_the_catalogs_prices(home):
    host = PluginHost()
    host.register(PricedFaux(), name="priced")
    script = Script([Turn([text("ok")], usage=Usage(input=500_000))])
    result = Agent(AgentConfig(model="faux/scripted",
                               connection=Connection(transport=script)), host=host).run_sync("go")
    assert result.usage.cost == 1.0


def test_without_a_host_the_agent_discovers_the_installed_plugins(home):
    agent = Agent(AgentConfig(model="faux/scripted", tools=[],
                              connection=Connection(transport=Script([Turn([text("discovered")])]))))
    assert agent.host.plugin_of("provider", "faux") is not None
    assert agent.run_sync("go").text == "discovered"


def test_a_skill_bringing_a_command_tool_is_admitted_once_a_policy_is_set(home):
    shell = _tool("run_it", requires_authorization=True)
    agent, _ = make_agent([], SkillsPlugin(Skill("ops", "Ops.", "Steps.", tools=(shell,))),
                          trust=Trust(before_tool_call=allow_all))
    assert "ops" in agent.skills.entries and "run_it" not in agent.tools  # its tools come when it is read


def test_a_new_agent_has_no_last_result_and_no_running_output_type(home):
    agent, _ = make_agent([Turn([text("ok")])])
    assert agent.last_result is None and agent.structured is None
    assert agent.history == [] and agent.active_skills == []


def test_aborting_an_agent_before_its_first_run_changes_nothing(home):
    agent, _ = make_agent([Turn([text("ran")])])
    agent.abort()
    result = agent.run_sync("go")
    assert (result.outcome, result.text) == ("completed", "ran")
