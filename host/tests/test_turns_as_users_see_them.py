"""The loop's entry points and controls, as the embedder sees them: what a stream sends and how it ends,
what an abort or a cancelled consumer records, what continuing and queueing say, and the errors of the
agent's own set-up calls, word for word (each names the fix)."""

from __future__ import annotations

import asyncio
import io
import json
import re
import signal
import threading
from pathlib import Path
from typing import Any

import agentkit_tools_files
import httpx
import pytest
from agentkit_provider_faux import Script, Turn, text, tool_call
from host_helpers import SkillsPlugin, ToolsPlugin, make_agent, make_host, noop_tool
from PIL import Image

from agentkit.host import (
    Agent,
    AgentBusy,
    AgentConfig,
    Budget,
    Compaction,
    ConfigError,
    Connection,
    NothingToContinue,
    Timeouts,
    Trust,
)
from agentkit.host.sessions import Session, data_dir
from agentkit.plugin_api import (
    AgentEnd,
    AgentStart,
    AssistantMessage,
    BlockDelta,
    Event,
    ImageBlock,
    Outcome,
    Skill,
    StopReason,
    TextBlock,
    Tool,
    ToolResult,
    ToolResultMessage,
    TurnEnd,
    TurnStart,
    Usage,
    UserMessage,
    hookimpl,
)


@pytest.fixture(autouse=True)
def _no_user_skills(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A home of the test's own: the machine user's skills would change what the agent knows."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))


def _words(message: str) -> str:
    """A pattern matching exactly ``message``."""
    return f"^{re.escape(message)}$"


def _user_texts(messages: list[Any]) -> list[str]:
    return [block.text for message in messages if isinstance(message, UserMessage)
            for block in message.content if isinstance(block, TextBlock)]


async def _drain(stream: Any) -> list[Event]:
    return [event async for event in stream]


# -- stream: what it sends, and how a consumer that leaves ends it -----------------------------------


def test_a_streamed_run_sends_its_prompt_with_the_runs_settings() -> None:
    agent, script = make_agent([Turn([text("ok")])])
    events = asyncio.run(_drain(agent.stream("Say ok.", settings={"max_tokens": 77})))
    assert isinstance(events[-1], AgentEnd) and events[-1].outcome is Outcome.COMPLETED
    assert script.requests[0].max_tokens == 77
    assert _user_texts(script.requests[0].messages) == ["Say ok."]


def test_a_consumer_that_stops_reading_mid_response_ends_the_run_aborted_saying_why() -> None:
    agent, _ = make_agent([Turn([text("partial")], hang=True)])

    async def main() -> None:
        stream = agent.stream("Talk.")
        async for event in stream:
            if isinstance(event, BlockDelta):
                break
        await stream.aclose()

    asyncio.run(main())
    result = agent.last_result
    assert result is not None
    assert (result.outcome, result.error) == (Outcome.ABORTED, "the consumer stopped reading the run's events")
    last = agent.history[-1]
    assert isinstance(last, AssistantMessage) and last.stop_reason is StopReason.ABORTED


def test_a_consumer_task_cancelled_while_it_waits_ends_the_run_cancelled_saying_why() -> None:
    agent, _ = make_agent([Turn([text("partial")], hang=True)])

    async def main() -> BaseException | None:
        reading = asyncio.Event()

        async def consume() -> None:
            async for event in agent.stream("Talk."):
                if isinstance(event, BlockDelta):
                    reading.set()

        consumer = asyncio.ensure_future(consume())
        await reading.wait()  # the consumer now waits for the next event: the response hangs
        consumer.cancel()
        try:
            await consumer
        except BaseException as exc:  # what the consumer ended with is the point
            return exc
        return None

    raised = asyncio.run(main())
    assert isinstance(raised, asyncio.CancelledError)
    result = agent.last_result
    assert result is not None
    assert (result.outcome, result.error) == (Outcome.CANCELLED, "the task awaiting the run was cancelled")


# -- abort -------------------------------------------------------------------------------------------


def test_an_abort_during_a_response_ends_the_run_aborted_by_the_caller() -> None:
    agent, _ = make_agent([Turn([text("partial")], hang=True)])

    def on_event(event: Event) -> None:
        if isinstance(event, BlockDelta):
            agent.abort()

    agent.subscribe(on_event)
    result = agent.run_sync("Talk.")
    assert (result.outcome, result.error) == (Outcome.ABORTED, "aborted by the caller")


def test_steering_queued_when_the_run_is_stopped_waits_for_the_next_run() -> None:
    holder: list[Any] = []

    def steer_and_abort(arguments: dict[str, Any], context: Any) -> str:
        holder[0].steer("Go left instead.")
        holder[0].abort()
        return "done"

    act = Tool("act", "Act.", {"type": "object"}, steer_and_abort)
    agent, script = make_agent([Turn([tool_call("act", {})]), Turn([text("Going left.")])], ToolsPlugin(act))
    holder.append(agent)
    first = agent.run_sync("Go.")
    assert first.outcome is Outcome.ABORTED
    assert _user_texts(agent.history) == ["Go."] and agent.has_queued_messages
    second = agent.continue_sync()
    assert second.outcome is Outcome.COMPLETED and second.text == "Going left."
    assert _user_texts(script.requests[-1].messages)[-1] == "Go left instead."


def test_steering_queued_when_the_run_is_stopped_before_its_first_request_waits_for_the_next_run() -> None:
    agent, script = make_agent([Turn([text("Going left.")])])

    def on_event(event: Event) -> None:
        if isinstance(event, AgentStart):
            agent.steer("Go left instead.")
            agent.abort()

    unsubscribe = agent.subscribe(on_event)
    first = agent.run_sync("Go.")
    assert first.outcome is Outcome.ABORTED and script.request_count == 0
    assert _user_texts(agent.history) == ["Go."] and agent.has_queued_messages
    unsubscribe()
    assert agent.continue_sync().text == "Going left."
    assert _user_texts(script.requests[-1].messages) == ["Go.", "Go left instead."]


# -- continue_ -------------------------------------------------------------------------------------


def test_continuing_an_empty_history_says_there_is_nothing_to_continue() -> None:
    agent, _ = make_agent([])
    with pytest.raises(NothingToContinue, match=_words(
            "the history is empty: there is nothing to continue; call run(prompt)")):
        agent.continue_sync()


def test_continuing_a_complete_answer_with_nothing_queued_names_both_ways_on() -> None:
    agent, _ = make_agent([Turn([text("Done.")])])
    agent.run_sync("Do it.")
    with pytest.raises(NothingToContinue, match=_words(
            "the history ends with a complete answer and no message is queued; "
            "call run(prompt), or queue one with steer() or follow_up()")):
        agent.continue_sync()


def test_continuing_a_running_agent_says_it_is_busy_and_how_to_stop_it() -> None:
    agent, _ = make_agent([Turn([text("partial")], hang=True)])

    async def main() -> None:
        started = asyncio.Event()
        agent.subscribe(lambda event: started.set() if isinstance(event, BlockDelta) else None)
        running = asyncio.ensure_future(agent.run("Talk."))
        await started.wait()
        try:
            with pytest.raises(AgentBusy, match=_words(
                    "this agent is already running; wait for the run to end or call abort()")):
                await agent.continue_()
        finally:
            agent.abort()
            await running

    asyncio.run(main())


# -- subscribe ----------------------------------------------------------------------------------------


def test_subscribing_an_async_function_is_refused_naming_both_ways_to_listen() -> None:
    agent, _ = make_agent([])

    async def listener(event: Event) -> None:
        pass

    with pytest.raises(TypeError) as raised:
        agent.subscribe(listener)
    assert str(raised.value) == (
        f"{listener!r} is an async function, which subscribe would call without awaiting; "
        "subscribe a plain function, or iterate agent.stream(...) to consume events asynchronously"
    )


# -- skills and tools added to an agent -----------------------------------------------------------


def test_activating_an_unknown_skill_lists_the_known_ones_in_order() -> None:
    plugin = SkillsPlugin(*(Skill(name, "A skill.", "Steps.", model_invocable=False) for name in ("beta", "alpha")))
    agent, _ = make_agent([], plugin)
    with pytest.raises(ConfigError, match=_words(
            "no skill named 'nope' (known: alpha, beta); see 'agentkit skills list'")):
        agent.activate_skill("nope")


def test_activating_a_skill_on_an_agent_without_skills_says_none_is_known() -> None:
    agent, _ = make_agent([])
    with pytest.raises(ConfigError, match=_words("no skill named 'nope' (known: none); see 'agentkit skills list'")):
        agent.activate_skill("nope")


def test_adding_a_tool_the_agent_has_is_harmless_and_a_different_one_of_its_name_is_refused() -> None:
    mine = noop_tool("mine")
    agent, _ = make_agent([], extra_tools=[mine])
    agent.add_tools(mine)
    assert agent.tools["mine"] is mine
    with pytest.raises(ConfigError, match=_words("a different tool named 'mine' is already enabled; rename one")):
        agent.add_tools(noop_tool("mine"))
    assert agent.tools["mine"] is mine


def test_adding_a_tool_no_provider_could_send_is_refused_with_the_registrys_words() -> None:
    agent, _ = make_agent([])
    with pytest.raises(ConfigError, match=_words(
            "tool name 'no spaces' is invalid: use 1-64 letters, digits, '_' or '-'")):
        agent.add_tools(noop_tool("no spaces"))
    assert "no spaces" not in agent.tools


@pytest.mark.parametrize("name", ["a" * 64, "A-z_09", "-", "_"])
def test_a_tool_name_of_1_to_64_letters_digits_underscores_or_dashes_is_accepted(name: str) -> None:
    agent, _ = make_agent([])
    agent.add_tools(noop_tool(name))
    assert name in agent.tools


@pytest.mark.parametrize("name", ["", "a" * 65, "dotted.name", "caf\u00e9", "tab\tname", "line\n", "\u0661"])
def test_a_tool_name_with_anything_else_is_refused(name: str) -> None:
    """Every wire's rule, OpenAI's ``^[a-zA-Z0-9_-]{1,64}$`` the strictest: not even a trailing newline."""
    agent, _ = make_agent([])
    with pytest.raises(ConfigError, match=_words(f"tool name {name!r} is invalid: use 1-64 letters, digits, '_' or '-'")):
        agent.add_tools(noop_tool(name))
    assert name not in agent.tools


# -- images the agent admits ----------------------------------------------------------------------------


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (4, 4), (200, 30, 30)).save(out, "PNG")
    return out.getvalue()


def test_an_image_url_a_tool_returns_is_fetched_with_the_agents_image_fetcher() -> None:
    url = "https://images.example/chart.png"
    fetched: list[str] = []

    def fetch(address: str) -> bytes:
        fetched.append(address)
        return _png()

    picture = Tool("picture", "Show a picture.", {"type": "object", "properties": {}},
                   lambda arguments, context: ToolResult(True, data="here", images=[ImageBlock.from_url(url)]))
    agent, _ = make_agent([Turn([tool_call("picture", {})]), Turn([text("A red square.")])], ToolsPlugin(picture),
                          connection=Connection(image_fetcher=fetch))
    assert agent.run_sync("Show me.").outcome is Outcome.COMPLETED
    (result,) = [message for message in agent.history if isinstance(message, ToolResultMessage)]
    (image,) = [block for block in result.content if isinstance(block, ImageBlock)]
    assert fetched == [url] and not result.is_error and image.url is None and image.data


# -- continuing a run another caller claimed first ------------------------------------------------------


def test_a_continued_message_stays_queued_when_another_run_takes_the_agent_first() -> None:
    agent, _ = make_agent([Turn([text("Done.")]), Turn([text("partial")], hang=True)])
    agent.run_sync("Do it.")
    agent.steer([TextBlock("Look at this."), ImageBlock.from_bytes(_png(), "image/png")])

    async def main() -> list[Any]:
        continuing = asyncio.ensure_future(agent.continue_())
        await asyncio.sleep(0)  # continuing now admits the image off the loop; the agent is still free
        answering = asyncio.Event()
        agent.subscribe(lambda event: answering.set() if isinstance(event, BlockDelta) else None)
        other = asyncio.ensure_future(agent.run("Something else."))
        with pytest.raises(AgentBusy):
            await continuing
        queued = agent.clear_queues()
        await answering.wait()
        agent.abort()
        await other
        return queued

    queued = asyncio.run(main())
    # Not lost: still queued, or taken by the run that took the agent (at the head of its turn).
    seen = [message for message in [*queued, *agent.history]
            if isinstance(message, UserMessage) and "Look at this." in _user_texts([message])]
    assert len(seen) == 1


def test_ctrl_c_while_continue_sync_runs_aborts_the_run_then_raises_keyboard_interrupt() -> None:
    agent, _ = make_agent([Turn([text("partial")], hang=True)], timeouts=Timeouts(run=20))
    agent.history = [UserMessage.text("Talk.")]  # a run cut short: continuing asks again
    # A listener runs on the loop's thread, the main one, where the press is handled.
    agent.subscribe(lambda event: signal.raise_signal(signal.SIGINT) if isinstance(event, BlockDelta) else None)
    with pytest.raises(KeyboardInterrupt):
        agent.continue_sync()
    result = agent.last_result
    assert result is not None and (result.outcome, result.error) == (Outcome.ABORTED, "aborted by the caller")


# -- a resumed session's artifacts ----------------------------------------------------------------------


def test_a_resumed_session_whose_artifacts_cannot_be_listed_gets_no_read_artifact_tool(tmp_path: Path) -> None:
    session = Session.new(cwd=tmp_path)
    script = Script([Turn([text("ok")])])
    first = Agent(AgentConfig(model="faux/scripted", root=tmp_path,
                              connection=Connection(transport=script)),
                  host=make_host(), session=session)
    assert first.run_sync("hello").outcome is Outcome.COMPLETED
    session.close()
    folder = data_dir() / "artifacts" / session.id
    folder.parent.mkdir(parents=True, exist_ok=True)
    folder.write_text("not a folder")  # listing it fails
    resumed = Agent(AgentConfig(model="faux/scripted", root=tmp_path,
                                connection=Connection(transport=None)), host=make_host(),
                    session=Session.open(session.id))
    assert "read_artifact" not in resumed.tools


# -- compact and as_tool ----------------------------------------------------------------------------------


def test_compacting_a_running_agent_is_refused_saying_when_it_can_be_and_an_idle_one_is_compacted() -> None:
    refused: list[str] = []
    holder: list[Agent] = []

    async def probe(arguments: dict[str, Any], context: Any) -> str:
        try:
            await holder[0].compact()
        except AgentBusy as exc:
            refused.append(str(exc))
        return "probed"

    agent, _ = make_agent([Turn([tool_call("probe", {})]), Turn([text("done")])],
                          ToolsPlugin(Tool("probe", "Compact the running agent.", {"type": "object"}, probe)))
    holder.append(agent)
    assert agent.run_sync("go").outcome is Outcome.COMPLETED
    assert refused == ["this agent is running; compact it once the run has ended"]
    assert asyncio.run(agent.compact()) is None  # one prompt only: nothing before it to cut
    assert asyncio.run(agent.compact()) is None  # and the agent was given back


def test_an_agent_as_a_tool_runs_its_definition_on_its_own_plugins_within_the_budget_given() -> None:
    probed: list[str] = []

    def probe(arguments: dict[str, Any], context: Any) -> str:
        probed.append("probe")
        return "probed"

    child = Script([Turn([tool_call("probe", {})])] * 20)  # never answers: only its budget ends it
    definition = Agent(AgentConfig(model="faux/scripted", tools=["probe"], connection=Connection(transport=child)),
                       host=make_host(ToolsPlugin(Tool("probe", "Probe.", {"type": "object"}, probe))))
    helper = definition.as_tool("helper", "Helps.", budget=Budget(turns=2))
    assert (helper.name, helper.description) == ("helper", "Helps.")
    script = Script([Turn([tool_call("helper", {"task": "Probe."})]), Turn([text("ok")])])
    parent = Agent(AgentConfig(model="faux/scripted", tools=["helper"], extra_tools=[helper],
                               connection=Connection(transport=script)),
                   host=make_host())
    assert parent.run_sync("Go.").outcome is Outcome.COMPLETED
    answer = parent.history[2]
    assert isinstance(answer, ToolResultMessage)
    assert json.loads(answer.content[0].text)["error"] == "subagent_max_turns"
    assert probed == ["probe", "probe"] and child.request_count == 2
    assert definition.history == []


def test_reading_a_project_skill_by_its_path_in_the_workspace_activates_it(tmp_path: Path) -> None:
    workspace = tmp_path / "project"
    folder = workspace / ".agentkit" / "skills" / "local"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: local\ndescription: Local.\n---\nDo the steps.\n", encoding="utf-8")
    agent, _ = make_agent([Turn([tool_call("read_file", {"path": ".agentkit/skills/local/SKILL.md"})]),
                           Turn([text("done")])], agentkit_tools_files, root=workspace, trust=Trust(project=True))
    result = agent.run_sync("Do the local thing.")
    assert (result.outcome, result.skills, agent.active_skills) == (Outcome.COMPLETED, ["local"], ["local"])


# -- what each turn reports, and what a stop policy is shown ---------------------------------------------


def _turn_ends(events: list[Event]) -> list[tuple[int, Any, list[Any]]]:
    return [(event.turn, event.message, event.tool_results) for event in events if isinstance(event, TurnEnd)]


def _act() -> Tool:
    return Tool("act", "Act.", {"type": "object"}, lambda arguments, context: "acted")


def test_each_turn_end_carries_its_turn_its_response_and_its_results() -> None:
    agent, _ = make_agent([Turn([tool_call("act", {})]), Turn([text("Done.")])], ToolsPlugin(_act()))
    events: list[Event] = []
    agent.subscribe(events.append)
    assert agent.run_sync("Act.").outcome is Outcome.COMPLETED
    _, calling, result, answer = agent.history
    assert _turn_ends(events) == [(1, calling, [result]), (2, answer, [])]
    assert [type(message) for message in (calling, result, answer)] == [AssistantMessage, ToolResultMessage,
                                                                       AssistantMessage]


def test_each_turn_end_of_a_structured_run_carries_the_answers_to_its_final_result_calls() -> None:
    final = [Turn([tool_call("final_result", {"city": "Oslo"})]),
             Turn([tool_call("final_result", {"city": "Oslo", "celsius": 4})])]
    agent, _ = make_agent(final, tools=[])
    events: list[Event] = []
    agent.subscribe(events.append)
    schema = {"type": "object", "properties": {"city": {"type": "string"}, "celsius": {"type": "number"}},
              "required": ["city", "celsius"]}
    result = agent.run_sync("Weather?", output_type=schema)
    assert (result.outcome, result.output) == (Outcome.COMPLETED, {"city": "Oslo", "celsius": 4})
    first, second = (message for message in agent.history if isinstance(message, AssistantMessage))
    answers = [message for message in agent.history if isinstance(message, ToolResultMessage)]
    assert len(answers) == 2 and answers[0].is_error and not answers[1].is_error
    assert _turn_ends(events) == [(1, first, [answers[0]]), (2, second, [answers[1]])]


def test_a_stop_policy_is_shown_the_turn_its_response_results_history_new_messages_and_usage() -> None:
    seen: list[tuple[Any, ...]] = []

    def policy(context: Any) -> bool:
        seen.append((context.turn, context.message, list(context.tool_results), list(context.history),
                     list(context.new_messages), context.usage))
        return False

    agent, _ = make_agent([Turn([tool_call("act", {})], usage=Usage(input=5, output=3)), Turn([text("Done.")])],
                          ToolsPlugin(_act()), stop_policy=policy)
    agent.history = [UserMessage.text("Earlier.")]
    assert agent.run_sync("Act.").outcome is Outcome.COMPLETED
    earlier, prompt, calling, result, _ = agent.history
    ((turn, message, results, history, new, usage),) = seen
    assert (turn, message, results) == (1, calling, [result])
    assert history == [earlier, prompt, calling, result] and new == [prompt, calling, result]
    assert (usage.input, usage.output) == (5, 3)


def test_a_failing_stop_policy_ends_the_run_with_its_own_problem_as_the_error() -> None:
    def listener(event: Event) -> None:
        if isinstance(event, AgentStart | TurnStart):
            raise RuntimeError(f"listener bug at {event.type}")

    def policy(context: Any) -> bool:
        raise ValueError("policy bug")

    agent, _ = make_agent([Turn([tool_call("act", {})]), Turn([text("never")])], ToolsPlugin(_act()),
                          stop_policy=policy)
    agent.subscribe(listener)
    result = agent.run_sync("Act.")
    assert (result.outcome, result.error) == (Outcome.ERROR, "the stop policy raised ValueError: policy bug")
    assert len(result.problems) == 3 and result.problems[-1] == result.error


# -- what each request carries ----------------------------------------------------------------------------


def test_a_forcing_tool_choice_holds_for_the_first_request_only_and_every_request_is_counted() -> None:
    agent, script = make_agent([Turn([tool_call("act", {})]), Turn([tool_call("act", {})]), Turn([text("Done.")])],
                               ToolsPlugin(_act()))
    assert agent.run_sync("Act.", settings={"tool_choice": "act"}).outcome is Outcome.COMPLETED
    assert [request.tool_choice for request in script.requests] == ["act", "auto", "auto"]
    assert agent.stats.requests == 3


# -- the session hooks the loop calls ------------------------------------------------------------------


class _StuckStart:
    """A plugin whose ``agentkit_session_start`` blocks until the test ends, aborting the run first if asked."""

    def __init__(self, release: threading.Event, abort: list[Agent] | None = None) -> None:
        self.release = release
        self.abort = abort

    @hookimpl
    def agentkit_session_start(self, session: Any) -> None:
        if self.abort:
            self.abort[0].abort()
        self.release.wait(20)  # bounded: a defect fails the test rather than hanging it


@pytest.fixture
def release() -> Any:
    event = threading.Event()
    yield event
    event.set()


def test_a_session_start_hook_past_hook_timeout_is_abandoned_reported_and_the_run_goes_on(release: Any) -> None:
    agent, _ = make_agent([Turn([text("Done.")])], _StuckStart(release), timeouts=Timeouts(hook=0.2))
    result = agent.run_sync("Go.")
    assert (result.outcome, result.text) == (Outcome.COMPLETED, "Done.")
    assert result.problems == ["agentkit_session_start did not return within 0.2s; it was abandoned"]


def test_a_session_start_hook_still_running_when_the_run_stops_is_abandoned_and_reported(release: Any) -> None:
    holder: list[Agent] = []
    agent, script = make_agent([Turn([text("never sent")])], _StuckStart(release, holder))
    holder.append(agent)
    result = agent.run_sync("Go.")
    assert result.outcome is Outcome.ABORTED and script.request_count == 0
    assert result.problems == ["agentkit_session_start did not return before the run was stopped; it was abandoned"]


def test_a_response_the_wire_itself_reports_aborted_ends_the_run_aborted() -> None:
    agent, _ = make_agent([Turn([text("cut")], stop_reason=StopReason.ABORTED), Turn([text("never sent")])])
    result = agent.run_sync("Go.")
    assert result.outcome is Outcome.ABORTED and len(agent.history) == 2


class _StuckEnd:
    """A plugin whose ``agentkit_session_end`` blocks until the test ends."""

    def __init__(self, release: threading.Event) -> None:
        self.release = release

    @hookimpl
    def agentkit_session_end(self, session: Any, outcome: Any, error: Any) -> None:
        self.release.wait(20)


@pytest.mark.parametrize("hook_timeout", [None, 0.3])
def test_a_session_end_hook_after_a_stop_is_given_the_stops_budget_at_most(release: Any,
                                                                            hook_timeout: float | None) -> None:
    agent, _ = make_agent([Turn([text("partial")], hang=True)], _StuckEnd(release),
                          timeouts=Timeouts(hook=hook_timeout))
    agent.subscribe(lambda event: agent.abort() if isinstance(event, BlockDelta) else None)  # mid-response
    result = agent.run_sync("Go.")
    assert result.outcome is Outcome.ABORTED
    (problem,) = result.problems
    given = re.fullmatch(r"agentkit_session_end did not return within ([0-9.]+)s; it was abandoned", problem)
    assert given is not None, problem
    # The stop's budget (0.7 s from the stop) with a floor of 0.2 s, or less when hook_timeout says so.
    assert 0.2 <= float(given[1]) <= (0.7 if hook_timeout is None else hook_timeout)


# -- a stop during a summary request ----------------------------------------------------------------------


class _SummaryStream(httpx.AsyncByteStream):
    """A summary response that waits (bounded) before answering; records whether the client cut it."""

    def __init__(self) -> None:
        self.cut = self.waited = False

    async def __aiter__(self) -> Any:
        try:
            await asyncio.sleep(20)  # bounded: a stop that is not seen fails the test rather than hanging it
        except asyncio.CancelledError:
            self.cut = True
            raise
        self.waited = True
        yield b""

    async def aclose(self) -> None:
        self.cut = self.cut or not self.waited


class _StopsOnSummary(httpx.AsyncBaseTransport):
    """Stops the agent when its summary request arrives; the conversation's requests go to ``main``."""

    def __init__(self, main: Script, holder: list[Agent]) -> None:
        self.main, self.holder, self.summary = main, holder, _SummaryStream()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(await request.aread())
        if body.get("system") == "Summarize.":
            self.holder[0].abort()
            return httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=self.summary)
        return await self.main.handle_async_request(
            httpx.Request(request.method, request.url, headers=request.headers, content=json.dumps(body).encode()))


def test_a_stop_during_the_summary_request_cuts_it_and_ends_the_run() -> None:
    holder: list[Agent] = []
    main = Script([Turn([text("never sent")])])
    transport = _StopsOnSummary(main, holder)
    agent = Agent(AgentConfig(model="faux/scripted", connection=Connection(transport=transport),
                              compaction=Compaction.summarize(200, prompt="Summarize.")), host=make_host())
    holder.append(agent)
    agent.history = [message for number in range(6) for message in (
        UserMessage.text(f"Question {number}: " + "words " * 200),
        AssistantMessage([TextBlock(f"Answer {number}: " + "words " * 200)], StopReason.STOP))]
    result = agent.run_sync("And now?")
    assert result.outcome is Outcome.ABORTED
    assert transport.summary.cut and main.request_count == 0
