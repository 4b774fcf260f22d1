"""What a ``tools/call`` does and does not do beyond the SDK's own call (decision 0064), against real servers.

A call keeps no timer on the connection's loop (the watchdog holds the
deadlines), and answering a question between input_required rounds is off the
clock as the SDK's timer per round had it. A structured result is checked
against the tool's output schema as the SDK checks it: a plain schema's result
the SDK's check surely accepts is let through without jsonschema, anything
else is the SDK's to decide and word, and the quick test never says yes where
jsonschema says no.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

import jsonschema
import pytest
from agentkit_tools_mcp._config import ServerConfig
from agentkit_tools_mcp.client import set_input_handler
from agentkit_tools_mcp.client._connection import ServerConnection, ServerUnavailable
from agentkit_tools_mcp.client._output_check import quick_check
from hypothesis import given, settings
from hypothesis import strategies as st

from .conftest import V2_SERVER
from .peers import SERVERS

BOUND_S = 60  # no test waits longer than this on anything
RAW_SERVER = SERVERS / "raw_server.py"


def v2_server(**fields: Any) -> ServerConfig:
    fields.setdefault("connect_timeout_s", BOUND_S / 2)
    return ServerConfig(name="calc", command=sys.executable, args=(str(V2_SERVER),), **fields)


def run(test: Callable[[], Awaitable[Any]]) -> Any:
    async def bounded() -> Any:
        async with asyncio.timeout(BOUND_S):
            return await test()

    return asyncio.run(bounded())


def test_a_call_makes_no_timer_on_the_connection_s_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    timers: list[float] = []
    original = asyncio.BaseEventLoop.call_at

    def counting(loop: asyncio.BaseEventLoop, when: float, *args: Any, **kwargs: Any) -> Any:
        timers.append(when)
        return original(loop, when, *args, **kwargs)

    async def test() -> list[str]:
        connection = ServerConnection(v2_server(timeout_s=30.0))
        try:
            await connection.call_tool("echo", {"text": "warm"}, "calc__echo")  # connects (bounded by timers)
            monkeypatch.setattr(asyncio.BaseEventLoop, "call_at", counting)
            texts = [(await connection.call_tool("echo", {"text": f"{n}"}, "calc__echo")).content[0].text
                     for n in range(5)]
            monkeypatch.setattr(asyncio.BaseEventLoop, "call_at", original)
        finally:
            await connection.close()
        return texts

    assert run(test) == ["0", "1", "2", "3", "4"]
    assert timers == []  # call_later goes through call_at too


def test_a_hung_call_is_ended_by_the_watchdog_at_its_deadline_and_the_connection_reset() -> None:
    async def test() -> tuple[float, str, int]:
        loop = asyncio.get_running_loop()
        connection = ServerConnection(v2_server(timeout_s=1.0))
        try:
            await connection.call_tool("echo", {"text": "warm"}, "calc__echo")
            started = loop.time()
            with pytest.raises(ServerUnavailable) as late:
                await connection.call_tool("hang", {}, "calc__hang")  # the server never answers
            took = loop.time() - started
            await connection.call_tool("echo", {"text": "again"}, "calc__echo")
        finally:
            await connection.close()
        return took, str(late.value), connection.reconnects

    took, message, reconnects = run(test)
    assert message == "MCP server 'calc' did not answer 'hang' within 1 s (timeout_s); the connection is reset"
    assert reconnects == 1
    assert took < BOUND_S / 3  # a generous bound: ended by its own deadline, not by the test's


async def _slow_answer(request: Any) -> Any:
    await asyncio.sleep(1.5)  # longer than the call's timeout_s: a person takes their time
    return {"action": "accept", "content": {"ok": True}}


def _confirm(era: str) -> Any:
    async def test() -> Any:
        connection = ServerConnection(v2_server(era=era, timeout_s=1.0))
        try:
            return (await connection.call_tool("confirm", {}, "calc__confirm")).content[0].text
        except ServerUnavailable as exc:
            return str(exc)
        finally:
            await connection.close()

    set_input_handler(_slow_answer)
    try:
        return run(test)
    finally:
        set_input_handler(None)


def test_answering_between_input_required_rounds_is_off_the_clock() -> None:
    # The modern era asks in rounds: the SDK's timer ran per round, none while the embedder answered.
    assert _confirm("auto") == "confirmed=True"


def test_a_legacy_server_s_question_during_its_call_leaves_the_call_on_the_clock() -> None:
    # A legacy server asks during its one round, which the SDK's timer measured whole: so does the deadline.
    assert _confirm("legacy") == ("MCP server 'calc' did not answer 'confirm' within 1 s (timeout_s); "
                                  "the connection is reset")


def test_a_plain_output_schema_s_results_skip_jsonschema_once_the_sdk_accepted_one() -> None:
    async def test() -> tuple[list[Any], int]:
        connection = ServerConnection(v2_server())
        try:
            await connection.list_tools()  # as the host does first: the SDK holds each tool's output schema
            results = [(await connection.call_tool("add", {"a": n, "b": 1}, "calc__add")).structured_content
                       for n in range(4)]
        finally:
            await connection.close()
        assert connection.output_check is not None
        return results, connection.output_check.quick_passes

    results, quick = run(test)
    assert results == [{"result": n + 1} for n in range(4)]
    assert quick == 3  # the first result went to the SDK's check: it vouched for the schema


@pytest.mark.parametrize(("given_content", "error"), [
    ({"n": "seven"}, "'seven' is not of type 'integer'"),
    ({"n": 1.5}, "1.5 is not of type 'integer'"),
    ({"n": True}, "True is not of type 'integer'"),
    ({}, "'n' is a required property"),
    ({"n": 1, "extra": 2}, "Additional properties are not allowed ('extra' was unexpected)"),
    (None, "None is not of type 'object'"),
])
def test_a_structured_result_its_schema_refuses_fails_in_the_sdk_s_words(given_content: Any, error: str) -> None:
    async def test() -> tuple[list[Any], str]:
        connection = ServerConnection(ServerConfig(name="raw", command=sys.executable,
                                                   args=(str(RAW_SERVER), "outputs"), era="legacy",
                                                   connect_timeout_s=BOUND_S / 2))
        try:
            # Valid results first, so that the quick check is in place when the refused one comes.
            good = [(await connection.call_tool("shaped", {"give": {"n": n}}, "raw__shaped")).structured_content
                    for n in range(3)]
            with pytest.raises(ServerUnavailable) as refused:
                await connection.call_tool("shaped", {"give": given_content}, "raw__shaped")
        finally:
            await connection.close()
        return good, str(refused.value)

    good, message = run(test)
    assert good == [{"n": 0}, {"n": 1}, {"n": 2}]
    assert message.startswith("MCP server 'raw' failed during 'shaped': Invalid structured content returned by "
                              "tool shaped: ") and error in message


# -- the quick test against jsonschema ------------------------------------------------------------------

_TYPES = ["string", "integer", "number", "boolean", "null", "array", "object"]
_json = st.recursive(st.none() | st.booleans() | st.integers(-3, 3) | st.floats(allow_nan=False)
                     | st.sampled_from([0.0, 1.0, -2.0]) | st.text(max_size=3),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner,
                                                                                  max_size=3),
                     max_leaves=6)
_scalar = st.sampled_from([None, True, False, 0, 1, -1, 0.0, 1.0, 1.5, "", "x", [], [1], {}, {"a": 1}])
_typed = st.builds(lambda kind: {"type": kind}, st.sampled_from(_TYPES))
_property = st.one_of(
    _typed, _typed, _typed, st.just(True), st.just(False), st.just({}),
    st.builds(lambda kind: {"type": kind, "title": "T", "description": "d"}, st.sampled_from(_TYPES)),
    st.builds(lambda kinds: {"type": kinds}, st.lists(st.sampled_from(_TYPES), min_size=1, max_size=2, unique=True)),
    st.builds(lambda kind, value: {"type": kind, "enum": [value]}, st.sampled_from(_TYPES), _json),
    st.just({"type": "integer", "minimum": 0}), st.just({"type": "string", "maxLength": 1}),
    st.just({"$ref": "#/$defs/x"}),
)
_names = st.sampled_from(["a", "b", "result"])
_schema = st.builds(
    lambda properties, required, closed, extra: {"type": "object", "properties": properties, "required": required,
                                                 **({} if closed is None else {"additionalProperties": closed}),
                                                 **extra},
    st.dictionaries(_names, _property, max_size=3), st.lists(_names, max_size=2, unique=True),
    st.sampled_from([None, True, False, {"type": "integer"}]),
    st.sampled_from([{}, {"title": "Out"}, {"minProperties": 2}, {"$defs": {"x": {"type": "integer"}}}]),
)
_instance = st.one_of(st.dictionaries(_names, _scalar, max_size=3), st.dictionaries(_names, _json, max_size=3), _json)


@settings(max_examples=600)
@given(_schema, _instance)
def test_the_quick_test_says_yes_only_where_jsonschema_does(schema: dict[str, Any], value: Any) -> None:
    check = quick_check(schema)
    # What the SDK's check runs (ClientSession._output_schema_validator): the schema's own draft, checked first.
    validator = jsonschema.validators.validator_for(schema)
    try:
        validator.check_schema(schema)
    except jsonschema.SchemaError:
        return  # the SDK refuses the schema itself, so it never vouches for it: the quick test is never used
    try:
        sdk_accepts = validator(schema).is_valid(value)
    except Exception:  # e.g. a $ref to nowhere: the SDK's check fails the result
        sdk_accepts = False
    if check is not None and check(value):
        assert sdk_accepts, (schema, value)


def test_the_quick_test_reads_the_plain_schemas_servers_declare() -> None:
    # What the SDK's server declares for a function's return value, and server-memory's object of lists.
    wrapped = {"type": "object", "title": "addOutput", "properties": {"result": {"title": "Result", "type": "integer"}},
               "required": ["result"]}
    check = quick_check(wrapped)
    assert check is not None and check({"result": 3}) and not check({"result": "3"}) and not check({})
    assert quick_check({"type": "object", "properties": {"entities": {"type": "array"}}}) is not None
    # Anything it cannot read is left to the SDK's check.
    assert quick_check({"type": "object", "properties": {"n": {"type": "integer", "minimum": 0}}}) is None
    assert quick_check({"type": "object", "$schema": "http://json-schema.org/draft-04/schema#"}) is None
    assert quick_check({"type": "string"}) is None


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_s_deadlines_fire_on_a_watchdog_of_its_own() -> None:
    """A child forked after its parent's watchdog started has no such thread: it must start one of its own."""
    from agentkit_tools_mcp.client._watchdog import WATCHDOG

    parent_loop = asyncio.new_event_loop()
    try:
        fired = asyncio.Event()
        WATCHDOG.at(time.monotonic() + 0.01, parent_loop, fired.set)
        parent_loop.run_until_complete(asyncio.wait_for(fired.wait(), 10))  # the parent's thread runs
    finally:
        parent_loop.close()
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child reports through the pipe
        outcome = b"late"
        try:
            loop = asyncio.new_event_loop()
            fired_in_child = asyncio.Event()
            WATCHDOG.at(time.monotonic() + 0.01, loop, fired_in_child.set)
            loop.run_until_complete(asyncio.wait_for(fired_in_child.wait(), 5))
            outcome = b"fired"
        except BaseException:
            pass
        finally:
            os.write(write, outcome)
            os._exit(0)
    os.close(write)
    try:
        assert os.read(read, 16) == b"fired"
    finally:
        os.close(read)
        os.waitpid(child, 0)
