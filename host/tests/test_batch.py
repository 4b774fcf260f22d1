"""A batch's decisions, each observed through the public Agent API on the scripted provider."""

from __future__ import annotations

import asyncio
import json
import threading

import pytest
from agentkit_provider_faux import Turn, text, tool_call
from host_helpers import ToolsPlugin, make_agent

from agentkit.host import Limits, Timeouts, Trust
from agentkit.plugin_api import (
    Block,
    ExecutionMode,
    ImageBlock,
    Tool,
    ToolError,
    ToolResult,
    ToolResultMessage,
    ToolUseBlock,
    hookimpl,
)


def results_of(messages) -> list[ToolResultMessage]:
    return [message for message in messages if isinstance(message, ToolResultMessage)]


def errors_of(messages) -> list[str | None]:
    return [json.loads(answer.text).get("error") for answer in results_of(messages)]


def test_an_abort_during_the_last_authorization_starts_no_handler():
    """The batch decides once, after every call was authorized: an abort by then runs nothing.

    The first call was allowed before the abort; it must not run either.
    """
    started = []

    async def act(n: int) -> int:
        """Record that this call started."""
        started.append(n)
        return n

    holder = []

    def abort_on_the_last_call(call, arguments):
        if call.id.endswith("_2"):
            holder[0].abort()
        return None

    agent, script = make_agent(
        [Turn([tool_call("act", {"n": 1}), tool_call("act", {"n": 2})]), Turn([text("never sent")])],
        ToolsPlugin(Tool.from_function(act)),
        trust=Trust(before_tool_call=abort_on_the_last_call),
    )
    holder.append(agent)
    result = agent.run_sync("go")
    assert started == []
    assert [json.loads(answer.text) for answer in results_of(result.messages)] == [
        {"ok": False, "error": "aborted", "detail": "Operation aborted"}] * 2
    assert result.outcome == "aborted" and len(script.requests) == 1


def answer_to(call_arguments, *tools: Tool, **config):
    """The envelopes a one-call turn gets, and the run's result."""
    calls = call_arguments if isinstance(call_arguments, list) else [call_arguments]
    agent, _ = make_agent([Turn(calls), Turn([text("k")])], ToolsPlugin(*tools), **config)
    result = agent.run_sync("go")
    return [json.loads(answer.text) for answer in results_of(result.messages)], result


def counter_tool(received: list | None = None) -> Tool:
    sink = received if received is not None else []
    schema = {
        "type": "object",
        "properties": {"count": {"type": "integer"}, "name": {"type": "string"}},
        "required": ["count"],
    }
    return Tool("count", "Count.", schema, lambda arguments, context: sink.append(arguments) or "counted")


def test_an_unknown_tool_is_answered_with_the_tools_there_are():
    [envelope], _ = answer_to(tool_call("nope", {}), counter_tool(), Tool("another", "Another.", {"type": "object"}, lambda arguments, context: "x"))
    assert envelope == {"ok": False, "error": "unknown_tool",
                        "detail": "No tool named 'nope'. Available tools: another, count."}


def test_an_unknown_tool_without_any_tool_says_none():
    [envelope], _ = answer_to(tool_call("nope", {}))
    assert envelope["detail"] == "No tool named 'nope'. Available tools: none."


def test_arguments_that_are_not_an_object_name_what_they_are():
    [envelope], _ = answer_to(tool_call("count", "[1, 2]"), counter_tool())
    assert envelope == {"ok": False, "error": "invalid_arguments",
                        "detail": "The arguments must be a JSON object, got list."}


def test_arguments_that_are_not_json_say_so_and_what_to_send():
    [envelope], _ = answer_to(tool_call("count", '{"count": 1'), counter_tool())
    detail = envelope["detail"]
    assert detail.startswith("The arguments are not valid JSON (")
    assert detail.endswith("). Send a JSON object matching the tool's schema.")


def test_blank_arguments_are_an_empty_object():
    received: list = []
    tool = Tool("any", "Any.", {"type": "object"}, lambda arguments, context: received.append(dict(arguments)) or "ok")
    envelopes, _ = answer_to([tool_call("any", ""), tool_call("any", "  \n")], tool)
    assert received == [{}, {}] and all(envelope["ok"] for envelope in envelopes)


def test_schema_errors_are_listed_by_path_with_the_arguments_received():
    raw = '{"name": 3, "count": "three"}'
    [envelope], _ = answer_to(tool_call("count", raw), counter_tool())
    assert envelope["detail"] == (
        "The arguments do not match the tool's schema: count: 'three' is not of type 'integer'; "
        f"name: 3 is not of type 'string'. Arguments received: {raw}"
    )


def test_a_missing_property_is_reported_at_the_root():
    [envelope], _ = answer_to(tool_call("count", {}), counter_tool())
    assert envelope["detail"] == (
        "The arguments do not match the tool's schema: (root): 'count' is a required property. Arguments received: {}"
    )


def test_schema_errors_stop_at_five_and_the_arguments_shown_at_two_thousand_characters():
    schema = {"type": "object", "properties": {key: {"type": "integer"} for key in "abcdefg"}}
    tool = Tool("seven", "Seven.", schema, lambda arguments, context: "ok")
    arguments = {key: "x" for key in "abcdefg"} | {"padding": "p" * 3000}
    [envelope], _ = answer_to(tool_call("seven", arguments), tool)
    detail = envelope["detail"]
    assert [f"{key}: 'x' is not of type 'integer'" in detail for key in "abcdefg"] == [True] * 5 + [False] * 2
    shown = detail.split("Arguments received: ", 1)[1]
    assert len(shown) == 2000 and json.dumps(arguments, separators=(",", ":")).startswith(shown)


def test_the_handler_gets_the_arguments_that_were_validated():
    received: list = []
    envelopes, _ = answer_to(tool_call("count", {"count": 2, "name": "n"}), counter_tool(received))
    assert received == [{"count": 2, "name": "n"}] and envelopes == [{"ok": True, "data": "counted"}]


def simple_tool(handler, name: str = "act", **kwargs) -> Tool:
    return Tool(name, "Act.", {"type": "object"}, handler, **kwargs)


class _Never:
    """What a hook or handler that never answers waits on: set when the test is over.

    The wait is bounded all the same, so that a defect that stops the host giving
    up on it makes the test fail after a while rather than hang.
    """

    def __init__(self) -> None:
        self.event = threading.Event()

    def wait(self) -> bool:
        return self.event.wait(20)


@pytest.fixture
def never():
    never = _Never()
    yield never
    never.event.set()


def test_an_authorization_that_raises_blocks_with_its_exception():
    def policy(call, arguments):
        raise ValueError("policy bug")

    [envelope], result = answer_to(tool_call("act", {}), simple_tool(lambda a, c: "ran"), trust=Trust(before_tool_call=policy))
    assert envelope == {"ok": False, "error": "blocked", "detail": "Authorization failed: ValueError: policy bug"}
    assert "before_tool_call raised ValueError: policy bug" in result.problems


def test_an_authorization_answering_something_else_blocks_and_is_reported():
    [envelope], result = answer_to(tool_call("act", {}), simple_tool(lambda a, c: "ran"),
                                   trust=Trust(before_tool_call=lambda call, arguments: "yes"))
    assert envelope["detail"] == "Authorization returned an unknown decision"
    assert result.problems == ["before_tool_call returned 'yes'; only None, a Block or a Defer is understood "
                               "(Block(reason, terminate=True) also ends the run)"]


def test_an_authorization_that_never_answers_blocks_at_the_hook_timeout(never):
    [envelope], result = answer_to(tool_call("act", {}), simple_tool(lambda a, c: "ran"),
                                   timeouts=Timeouts(hook=0.05), trust=Trust(before_tool_call=lambda call, arguments: never.wait()))
    assert envelope["detail"] == "Authorization did not answer within 0.05 seconds."
    assert result.problems == ["before_tool_call did not answer within hook_timeout=0.05s; the call was blocked"]


def test_a_plugin_check_that_never_answers_blocks_at_the_hook_timeout(never):
    class Slow:
        @hookimpl
        def agentkit_before_tool_call(self, call):
            never.wait()

    agent, _ = make_agent([Turn([tool_call("act", {})]), Turn([text("k")])],
                          ToolsPlugin(simple_tool(lambda a, c: "ran")), Slow(), timeouts=Timeouts(hook=0.05))
    result = agent.run_sync("go")
    [answer] = results_of(result.messages)
    assert json.loads(answer.text)["detail"] == "Blocked: a plugin's check did not answer within 0.05 seconds."
    assert result.problems == [
        "agentkit_before_tool_call did not answer within hook_timeout=0.05s; the call was blocked"
    ]


def test_a_plugin_check_is_asked_only_about_calls_the_embedder_allowed():
    asked = []

    class Records:
        @hookimpl
        def agentkit_before_tool_call(self, call):
            asked.append(call.id)

    agent, _ = make_agent(
        [Turn([tool_call("act", {}), tool_call("act", {})]), Turn([text("k")])],
        ToolsPlugin(simple_tool(lambda a, c: "ran")), Records(),
        trust=Trust(before_tool_call=lambda call, arguments: Block("not this one") if call.id.endswith("_1") else None),


    )
    result = agent.run_sync("go")
    assert asked == ["call_1_2"]
    assert [answer.is_error for answer in results_of(result.messages)] == [True, False]


def test_a_terminating_block_refuses_the_call_and_ends_the_run_after_the_batch():
    ran = []
    envelopes, result = answer_to(
        [tool_call("act", {}), tool_call("act", {})], simple_tool(lambda a, c: ran.append(1) or "ran"),
        trust=Trust(before_tool_call=lambda call, arguments: Block("enough", terminate=True)),
    )
    assert ran == [] and envelopes == [{"ok": False, "error": "blocked", "detail": "enough"}] * 2
    assert result.outcome == "terminated"


def test_the_run_goes_on_unless_every_call_voted_to_end_it():
    envelopes, result = answer_to(
        [tool_call("act", {}), tool_call("act", {})], simple_tool(lambda a, c: "ran"),
        trust=Trust(before_tool_call=lambda call, arguments: Block("enough", terminate=True) if call.id.endswith("_1") else None),
    )
    assert [envelope["ok"] for envelope in envelopes] == [False, True]
    assert result.outcome == "completed" and result.text == "k"


def test_a_tool_error_gives_the_code_and_detail_the_tool_chose():
    def handler(arguments, context):
        raise ToolError("path_not_allowed", "outside the root")

    [envelope], _ = answer_to(tool_call("act", {}), simple_tool(handler))
    assert envelope == {"ok": False, "error": "path_not_allowed", "detail": "outside the root"}


def test_any_other_exception_is_a_tool_failure_naming_it():
    def handler(arguments, context):
        raise KeyError("missing")

    [envelope], _ = answer_to(tool_call("act", {}), simple_tool(handler))
    assert envelope == {"ok": False, "error": "tool_failed", "detail": "KeyError: 'missing'"}


def test_a_base_exception_from_a_handler_is_a_tool_failure_too():
    def handler(arguments, context):
        raise SystemExit(4)

    [envelope], result = answer_to(tool_call("act", {}), simple_tool(handler))
    assert envelope == {"ok": False, "error": "tool_failed", "detail": "SystemExit: 4"}
    assert result.outcome == "completed"


@pytest.mark.parametrize("asynchronous", [False, True])
def test_a_tool_past_its_deadline_is_answered_and_reported(never, asynchronous):
    async def waits_async(arguments, context):
        await asyncio.sleep(20)

    def waits(arguments, context):
        never.wait()

    tool = simple_tool(waits_async if asynchronous else waits, timeout=0.05)
    [envelope], result = answer_to(tool_call("act", {}), tool)
    assert envelope == {"ok": False, "error": "timeout",
                        "detail": "The tool did not finish within 0.05 seconds and was stopped."}
    assert result.problems == ["tool 'act' (call call_1_1) ran past its 0.05s deadline and was abandoned"]


def test_the_agents_tool_timeout_applies_to_a_tool_without_its_own(never):
    [envelope], _ = answer_to(tool_call("act", {}), simple_tool(lambda a, c: never.wait()), timeouts=Timeouts(tool=0.05))
    assert envelope["detail"] == "The tool did not finish within 0.05 seconds and was stopped."


def test_a_handler_gets_its_call_id_the_root_and_its_options(tmp_path):
    seen = []

    def handler(arguments, context):
        seen.append((context.call_id, context.root, dict(context.options), context.cancel.cancelled))
        return "ok"

    answer_to(tool_call("act", {}), simple_tool(handler), root=tmp_path, tool_options={"act": {"level": 2}})
    assert seen == [("call_1_1", tmp_path, {"level": 2}, False)]


def test_a_sync_handler_handing_back_a_coroutine_is_awaited():
    async def later():
        return "awaited"

    [envelope], _ = answer_to(tool_call("act", {}), simple_tool(lambda a, c: later()))
    assert envelope == {"ok": True, "data": "awaited"}


@pytest.mark.parametrize("mode", [ExecutionMode.INLINE, ExecutionMode.SEQUENTIAL, ExecutionMode.PARALLEL])
@pytest.mark.parametrize("asynchronous", [False, True])
def test_each_way_of_running_a_handler_answers_with_its_value(mode, asynchronous):
    def handler(arguments, context):
        return {"n": arguments["n"] * 2, "call": context.call_id}

    async def async_handler(arguments, context):
        return handler(arguments, context)

    tool = simple_tool(async_handler if asynchronous else handler, execution_mode=mode)
    envelopes, _ = answer_to([tool_call("act", {"n": 1}), tool_call("act", {"n": 2})], tool)
    assert envelopes == [{"ok": True, "data": {"n": 2, "call": "call_1_1"}},
                         {"ok": True, "data": {"n": 4, "call": "call_1_2"}}]


@pytest.mark.parametrize("asynchronous", [False, True])
def test_a_tool_result_is_passed_through_with_its_images(asynchronous):
    # A real 1x1 PNG: the history boundary decodes every image.
    image = ImageBlock(data="iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", mime_type="image/png")

    def handler(arguments, context):
        return _with_image(image)

    async def handler_async(arguments, context):
        return _with_image(image)

    agent, _ = make_agent([Turn([tool_call("act", {})]), Turn([text("k")])],
                          ToolsPlugin(simple_tool(handler_async if asynchronous else handler)))
    result = agent.run_sync("go")
    [answer] = results_of(result.messages)
    assert json.loads(answer.text) == {"ok": True, "data": "look"}
    assert answer.content[1:] == [image] and answer.is_error is False


def _with_image(image: ImageBlock) -> ToolResult:
    result = ToolResult.success("look")
    result.images = [image]
    return result


@pytest.mark.parametrize(("images", "problem"), [
    ("not a list", "ToolResult.images must be a list of ImageBlock, not str"),
    ([ImageBlock(data=b"raw", mime_type="image/png")], "ToolResult.images must hold ImageBlock(data: str, mime_type: str) only"),
    (["x"], "ToolResult.images must hold ImageBlock(data: str, mime_type: str) only"),
])
def test_images_that_are_not_image_blocks_make_an_invalid_result(images, problem):
    def handler(arguments, context):
        result = ToolResult.success("look")
        result.images = images
        return result

    agent, _ = make_agent([Turn([tool_call("act", {})]), Turn([text("k")])], ToolsPlugin(simple_tool(handler)))
    result = agent.run_sync("go")
    [answer] = results_of(result.messages)
    assert answer.is_error and answer.content[1:] == []
    assert json.loads(answer.text) == {"ok": False, "error": "invalid_result", "detail": (
        f"The tool returned data that cannot be written as JSON (TypeError: {problem}).")}


def test_a_failure_keeps_no_images():
    def handler(arguments, context):
        result = ToolResult.failure("nope", "no")
        result.images = [ImageBlock(data="aGk=", mime_type="image/png")]
        return result

    agent, _ = make_agent([Turn([tool_call("act", {})]), Turn([text("k")])], ToolsPlugin(simple_tool(handler)))
    [answer] = results_of(agent.run_sync("go").messages)
    assert answer.is_error and answer.content[1:] == []
    assert json.loads(answer.text) == {"ok": False, "error": "nope", "detail": "no"}  # its images not even looked at


def test_circular_data_makes_an_invalid_result_naming_the_problem():
    loop: list = []
    loop.append(loop)
    [envelope], result = answer_to(tool_call("act", {}), simple_tool(lambda a, c: loop))
    assert envelope == {"ok": False, "error": "invalid_result",
                        "detail": "The tool returned data that cannot be written as JSON (ValueError: Circular reference detected)."}
    assert result.outcome == "completed"


def test_a_long_result_that_cannot_be_stored_is_cut_with_a_note_saying_how_much(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTKIT_DATA_DIR", str(tmp_path / "a-file"))
    (tmp_path / "a-file").write_text("")  # no artifact can be written under it
    [envelope], _ = answer_to(tool_call("act", {}), simple_tool(lambda a, c: "x" * 100), limits=Limits(max_tool_result_chars=40))
    full = json.dumps({"ok": True, "data": "x" * 100})
    # Its two ends, as an artifact's preview shows them: a command's summary is at its end.
    assert envelope == {"ok": True, "head": full[:20], "tail": full[-10:], "note": (
        f"The result was {len(full)} characters, over the inline limit of 40 (max_tool_result_chars), and "
        f"could not be kept: shown are its first 20 and last 10 characters; the {len(full) - 30} between "
        "them were cut.")}


def test_a_cut_result_keeps_its_characters_as_they_are_and_why_it_was_cut_is_reported(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTKIT_DATA_DIR", str(tmp_path / "a-file"))
    (tmp_path / "a-file").write_text("")  # no artifact can be written under it
    _, result = answer_to(tool_call("act", {}), simple_tool(lambda a, c: "é" * 100), limits=Limits(max_tool_result_chars=40))
    [answer] = results_of(result.messages)
    assert "é" * 5 in answer.text and "\\u00e9" not in answer.text
    [problem] = result.problems
    assert problem.startswith("the result of call call_1_1 could not be stored as an artifact (")
    assert problem.endswith("); it was cut to max_tool_result_chars")


def test_a_result_exactly_at_the_limit_is_not_cut():
    full = json.dumps({"ok": True, "data": "x" * 10})
    [envelope], _ = answer_to(tool_call("act", {}), simple_tool(lambda a, c: "x" * 10), limits=Limits(max_tool_result_chars=len(full)))
    assert envelope == {"ok": True, "data": "x" * 10}


def test_without_a_limit_nothing_is_cut():
    [envelope], _ = answer_to(tool_call("act", {}), simple_tool(lambda a, c: "x" * 300_000), limits=Limits(max_tool_result_chars=None))
    assert envelope == {"ok": True, "data": "x" * 300_000}


def test_an_after_tool_call_hook_that_raises_is_reported_and_the_result_stands():
    class Raises:
        @hookimpl
        def agentkit_after_tool_call(self, call):
            raise ValueError("observer bug")

    agent, _ = make_agent([Turn([tool_call("act", {})]), Turn([text("k")])],
                          ToolsPlugin(simple_tool(lambda a, c: "ran")), Raises())
    result = agent.run_sync("go")
    [answer] = results_of(result.messages)
    assert json.loads(answer.text) == {"ok": True, "data": "ran"}
    assert result.problems == ["plugin 'plugin1' agentkit_after_tool_call raised ValueError: observer bug"]


def test_an_after_tool_call_hook_that_never_returns_is_abandoned_and_reported(never):
    class Slow:
        @hookimpl
        def agentkit_after_tool_call(self, call):
            never.wait()

    agent, _ = make_agent([Turn([tool_call("act", {})]), Turn([text("k")])],
                          ToolsPlugin(simple_tool(lambda a, c: "ran")), Slow(), timeouts=Timeouts(hook=0.05))
    result = agent.run_sync("go")
    assert result.outcome == "completed" and result.text == "k"
    assert result.problems == ["agentkit_after_tool_call did not return in time for call call_1_1; it was abandoned"]


def test_calls_cut_by_the_output_limit_are_announced_and_answered_by_name():
    events = []
    agent, _ = make_agent([Turn([tool_call("write", {"a": 1})], stop_reason="length"), Turn([text("k")])],
                          ToolsPlugin(simple_tool(lambda a, c: "ran", name="write")))
    agent.subscribe(lambda event: events.append(event) if event.type.startswith("tool_call") else None)
    result = agent.run_sync("go")
    [answer] = results_of(result.messages)
    assert json.loads(answer.text) == {"ok": False, "error": "not_executed", "detail": (
        'Tool call "write" was not executed: the response hit the output token limit, so its arguments '
        "may be truncated. Re-issue the tool call with complete arguments.")}
    assert [(event.type, getattr(event, "call", None)) for event in events] == [
        ("tool_call_start", ToolUseBlock("call_1_1", "write", '{"a":1}')), ("tool_call_end", None)]
    assert events[1].result is answer and answer.tool_name == "write"


def test_calls_cut_by_the_output_limit_are_audited_as_never_asked_and_the_run_goes_on():
    trail = []
    agent, _ = make_agent([Turn([tool_call("write", {"a": 1})], stop_reason="length"), Turn([text("k")])],
                          ToolsPlugin(simple_tool(lambda a, c: "ran", name="write")), audit=trail.append)
    result = agent.run_sync("go")
    assert result.outcome == "completed" and result.text == "k"
    calls = [record for record in trail if record.kind == "tool_call"]
    assert [(c.tool_call_id, c.decision, c.blocked_by, c.is_error) for c in calls] == [
        ("call_1_1", "not_asked", None, True)]


class _Textless(Exception):
    def __str__(self):
        raise RuntimeError("no text either")


class _Unprintable:
    def __str__(self):
        raise _Textless()


def test_data_whose_error_has_no_text_is_still_described_by_its_type():
    [envelope], result = answer_to(tool_call("act", {}), simple_tool(lambda a, c: _Unprintable()))
    assert envelope == {"ok": False, "error": "invalid_result",
                        "detail": "The tool returned data that cannot be written as JSON (_Textless)."}
    assert result.outcome == "completed"


@pytest.mark.parametrize("hook_timeout", [None, 60.0])
def test_after_an_abort_the_after_tool_call_hooks_still_see_every_result(hook_timeout):
    """Once the run is stopped the hooks share what is left of the stop budget; they are still called."""
    holder, seen = [], []

    def aborts(arguments, context):
        holder[0].abort()
        return "done"

    class Observes:
        @hookimpl
        def agentkit_after_tool_call(self, result):
            seen.append(result.tool_use_id)

    agent, _ = make_agent([Turn([tool_call("act", {})]), Turn([text("never sent")])],
                          ToolsPlugin(simple_tool(aborts)), Observes(), timeouts=Timeouts(hook=hook_timeout))
    holder.append(agent)
    result = agent.run_sync("go")
    assert result.outcome == "aborted"
    assert seen == ["call_1_1"] and result.problems == []


def test_an_abort_reaches_a_running_handler_through_its_cancel_token():
    holder, seen = [], []

    def aborts(arguments, context):
        holder[0].abort()
        seen.append(context.cancel.cancelled)
        return "stopped"

    agent, _ = make_agent([Turn([tool_call("act", {})]), Turn([text("never sent")])], ToolsPlugin(simple_tool(aborts)))
    holder.append(agent)
    assert agent.run_sync("go").outcome == "aborted" and seen == [True]


def test_a_handler_that_ignores_the_abort_is_abandoned_and_reported(never):
    holder = []

    def ignores_the_abort(arguments, context):
        holder[0].abort()
        never.wait()

    agent, _ = make_agent([Turn([tool_call("act", {})]), Turn([text("never sent")])],
                          ToolsPlugin(simple_tool(ignores_the_abort)), timeouts=Timeouts(tool=60))
    holder.append(agent)
    result = agent.run_sync("go")
    [answer] = results_of(result.messages)
    assert json.loads(answer.text) == {"ok": False, "error": "aborted", "detail": "Operation aborted"}
    assert result.outcome == "aborted"
    assert "tool 'act' (call call_1_1) did not stop after the abort and was abandoned" in result.problems


def test_a_tool_without_options_gets_an_empty_mapping():
    seen = []
    answer_to(tool_call("act", {}), simple_tool(lambda a, c: seen.append(dict(c.options)) or "ok"),
              tool_options={"other": {"level": 1}})
    assert seen == [{}]


def test_a_sync_handler_runs_and_its_result_is_written_in_a_thread_named_after_the_tool():
    """A thread dump names the tool; a result slow to write as JSON never holds up the event loop."""
    threads = []

    class Data:
        def __str__(self):
            threads.append(threading.current_thread().name)
            return "data"

    def handler(arguments, context):
        threads.append(threading.current_thread().name)
        return Data()

    [envelope], _ = answer_to(tool_call("act", {}), simple_tool(handler))
    assert envelope == {"ok": True, "data": "data"}
    assert threads == ["agentkit-tool-act", "agentkit-tool-act"]


def test_an_authorization_still_waiting_when_the_run_is_aborted_is_given_up(never):
    holder, ran = [], []

    def aborts_then_hangs(call, arguments):
        holder[0].abort()
        never.wait()

    agent, _ = make_agent([Turn([tool_call("act", {})]), Turn([text("never sent")])],
                          ToolsPlugin(simple_tool(lambda a, c: ran.append(1) or "ran")),
                          timeouts=Timeouts(hook=60), trust=Trust(before_tool_call=aborts_then_hangs))
    holder.append(agent)
    result = agent.run_sync("go")
    assert ran == [] and result.outcome == "aborted"
    assert [json.loads(answer.text) for answer in results_of(result.messages)] == [
        {"ok": False, "error": "aborted", "detail": "Operation aborted"}]


@pytest.mark.parametrize("who", ["embedder", "plugin"])
def test_an_authorization_still_waiting_when_the_run_ends_is_left_waiting(never, who):
    """The run returns without the hung check's answer: it was given up, not waited for."""
    holder, answered = [], []

    def aborts_then_hangs(*args):
        holder[0].abort()
        never.wait()
        answered.append(True)

    class Hangs:
        @hookimpl
        def agentkit_before_tool_call(self, call, arguments):
            return aborts_then_hangs()

    plugins = [Hangs()] if who == "plugin" else []
    config = {"trust": Trust(before_tool_call=aborts_then_hangs)} if who == "embedder" else {}
    agent, _ = make_agent([Turn([tool_call("act", {})]), Turn([text("never sent")])],
                          ToolsPlugin(simple_tool(lambda a, c: "ran")), *plugins, timeouts=Timeouts(hook=60),
                          **config)
    holder.append(agent)
    result = agent.run_sync("go")
    assert result.outcome == "aborted" and answered == []


def test_an_authorization_runs_in_a_thread_named_after_it():
    names = []

    def policy(call, arguments):
        names.append(threading.current_thread().name)

    answer_to(tool_call("act", {}), simple_tool(lambda a, c: "ok"), trust=Trust(before_tool_call=policy))
    assert names == ["agentkit-before_tool_call"]


def test_each_call_is_announced_with_itself_before_it_is_answered():
    events = []
    agent, _ = make_agent([Turn([tool_call("act", {"n": 1}), tool_call("act", {"n": 2})]), Turn([text("k")])],
                          ToolsPlugin(simple_tool(lambda a, c: "ok")))
    agent.subscribe(lambda event: events.append(event) if event.type.startswith("tool_call") else None)
    agent.run_sync("go")
    starts = [event.call for event in events if event.type == "tool_call_start"]
    assert starts == [ToolUseBlock("call_1_1", "act", '{"n":1}'), ToolUseBlock("call_1_2", "act", '{"n":2}')]


def test_arguments_nested_deeper_than_sixty_four_levels_are_refused():
    nested: dict = {}
    for _ in range(70):
        nested = {"a": nested}
    [deep], _ = answer_to(tool_call("act", nested), simple_tool(lambda a, c: "ran"))
    assert deep["error"] == "invalid_arguments" and deep["detail"].startswith("The arguments are not valid JSON (")
    shallow: dict = {}
    for _ in range(60):
        shallow = {"a": shallow}
    [fine], _ = answer_to(tool_call("act", shallow), simple_tool(lambda a, c: "ran"))
    assert fine == {"ok": True, "data": "ran"}


def test_a_nested_schema_error_names_its_path():
    schema = {"type": "object", "properties": {"a": {"type": "object", "properties": {"b": {"type": "integer"}}}}}
    tool = Tool("nest", "Nest.", schema, lambda arguments, context: "ok")
    [envelope], _ = answer_to(tool_call("nest", {"a": {"b": "x"}}), tool)
    assert envelope["detail"].startswith("The arguments do not match the tool's schema: a/b: 'x' is not of type 'integer'.")


def test_what_runs_is_what_the_embedder_approved_even_if_it_changed_its_copy():
    received = []

    def meddles(call, arguments):
        arguments["items"].append("added by the policy")

    schema = {"type": "object", "properties": {"items": {"type": "array"}}}
    tool = Tool("list", "List.", schema, lambda arguments, context: received.append(json.loads(json.dumps(arguments))) or "ok")
    answer_to(tool_call("list", {"items": ["a"]}), tool, trust=Trust(before_tool_call=meddles))
    assert received == [{"items": ["a"]}]


def test_a_previewed_result_keeps_its_characters_as_they_are():
    [envelope], _ = answer_to(tool_call("act", {}), simple_tool(lambda a, c: "é" * 100), limits=Limits(max_tool_result_chars=40))
    assert envelope["head"] == json.dumps({"ok": True, "data": "é" * 100}, ensure_ascii=False)[:20]


class _NumberText(ToolResult):
    def to_text(self):  # a subclass breaking the contract
        return 42


def test_a_result_whose_text_is_not_a_string_is_an_invalid_result():
    [envelope], _ = answer_to(tool_call("act", {}), simple_tool(lambda a, c: _NumberText(True, data="x")))
    assert envelope == {"ok": False, "error": "invalid_result", "detail": (
        "The tool returned data that cannot be written as JSON (TypeError: ToolResult.to_text() returned int, not str).")}


def test_an_observer_runs_in_a_thread_named_after_its_hook():
    names = []

    class Observes:
        @hookimpl
        def agentkit_after_tool_call(self, call):
            names.append(threading.current_thread().name)

    agent, _ = make_agent([Turn([tool_call("act", {})]), Turn([text("k")])],
                          ToolsPlugin(simple_tool(lambda a, c: "ran")), Observes())
    agent.run_sync("go")
    assert names == ["agentkit-agentkit_after_tool_call"]


def test_async_calls_of_one_batch_each_keep_their_own_deadline():
    async def sleeps(arguments, context):
        await asyncio.sleep(20)

    async def answers(arguments, context):
        return "done"

    envelopes, result = answer_to([tool_call("slow", {}), tool_call("fast", {}), tool_call("slow", {})],
                                  simple_tool(sleeps, "slow", timeout=0.05), simple_tool(answers, "fast"))
    timed_out = {"ok": False, "error": "timeout",
                 "detail": "The tool did not finish within 0.05 seconds and was stopped."}
    assert envelopes == [timed_out, {"ok": True, "data": "done"}, timed_out]
    assert sorted(result.problems) == [
        f"tool 'slow' (call {call_id}) ran past its 0.05s deadline and was abandoned"
        for call_id in ("call_1_1", "call_1_3")
    ]


def test_an_async_handler_that_ignores_the_abort_is_abandoned_and_its_siblings_results_stand():
    holder, cancellations = [], []

    async def answers(arguments, context):
        return 7

    async def ignores_the_abort(arguments, context):
        holder[0].abort()
        while True:
            try:
                await asyncio.sleep(20)
            except asyncio.CancelledError:
                cancellations.append(True)
                if len(cancellations) > 1:  # the first is ignored; the loop's own clean-up ends it
                    raise

    agent, _ = make_agent([Turn([tool_call("quick", {}), tool_call("stubborn", {})]), Turn([text("never sent")])],
                          ToolsPlugin(simple_tool(answers, "quick"), simple_tool(ignores_the_abort, "stubborn")),
                          timeouts=Timeouts(tool=60))
    holder.append(agent)
    result = agent.run_sync("go")
    assert [json.loads(answer.text) for answer in results_of(result.messages)] == [
        {"ok": True, "data": 7}, {"ok": False, "error": "aborted", "detail": "Operation aborted"}]
    assert result.outcome == "aborted"
    assert "tool 'stubborn' (call call_1_2) did not stop after the abort and was abandoned" in result.problems
    assert cancellations  # it was asked to stop before it was given up on
