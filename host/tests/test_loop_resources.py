"""What one run costs in resources: connections, threads, schema validators, live request bodies.

Each property is observed from outside: a real keep-alive server on loopback
counts connections, a tool records the thread it runs on, a counting
validator class counts compilations, weak references count the request
objects still alive (with the garbage collector off, so that no collection
can hide a reference cycle).
"""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import json
import threading
import weakref
from typing import Any

import httpx
import jsonschema
from agentkit_provider_faux import CATALOG, FauxProvider, Script, Turn, text, tool_call
from host_helpers import ToolsPlugin, make_agent, make_host

from agentkit.host import Agent, AgentConfig, Connection, PluginHost, Trust, allow_all
from agentkit.plugin_api import ExecutionMode, Tool, hookimpl


def _tool_turns(count: int, name: str = "note", calls: int = 1) -> list[Turn]:
    return [Turn([tool_call(name, {"n": n}) for n in range(calls)]) for _ in range(count)] + [Turn([text("done")])]


# -- one client, connections reused, closed at the end ------------------------------


class KeepAliveServer:
    """An HTTP/1.1 server on 127.0.0.1 that keeps connections open and answers from a faux script.

    It counts the connections it accepted and the ones the client closed.
    """

    def __init__(self, script: Script) -> None:
        self.script = script
        self.accepted = 0
        self.closed = 0
        self.all_closed = threading.Event()
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self.port = 0

    def __enter__(self) -> KeepAliveServer:
        self._thread.start()
        assert self._ready.wait(10), "the loopback server did not start"
        return self

    def __exit__(self, *exc: object) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        server = self._loop.run_until_complete(asyncio.start_server(self._serve, "127.0.0.1", 0))
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        self._loop.run_forever()
        server.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.accepted += 1
        self.all_closed.clear()
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, path, _ = lines[0].split(" ", 2)
                headers = dict(line.split(": ", 1) for line in lines[1:] if line)
                length = int({k.lower(): v for k, v in headers.items()}.get("content-length", "0"))
                body = await reader.readexactly(length)
                request = httpx.Request(method, f"http://127.0.0.1{path}", headers=headers, content=body)
                response = await self.script.handle_async_request(request)
                content = await response.aread()
                writer.write(
                    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                    + f"content-length: {len(content)}\r\n\r\n".encode()
                    + content
                )
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass  # the client closed the connection
        finally:
            writer.close()
            self.closed += 1
            if self.closed == self.accepted:
                self.all_closed.set()


def _loopback_provider(url: str) -> object:
    class LoopbackFaux(FauxProvider):
        models = (dataclasses.replace(CATALOG[0], base_url=url),)

    class Plugin:
        @hookimpl
        def agentkit_register_providers(self, register: Any) -> None:
            register(LoopbackFaux())

    return Plugin()


def test_the_requests_of_a_run_share_one_connection_which_is_closed_when_the_run_ends():
    note = Tool.from_function(lambda n: n, name="note", description="Note n.")
    with KeepAliveServer(Script(_tool_turns(4))) as server:
        host = PluginHost()
        host.register(_loopback_provider(f"http://127.0.0.1:{server.port}"), name="loopback")
        host.register(ToolsPlugin(note), name="tools")
        agent = Agent(AgentConfig(model="faux/scripted", trust=Trust(before_tool_call=allow_all)), host=host)
        result = agent.run_sync("go")
        assert (result.outcome, result.turns) == ("completed", 5)
        assert server.all_closed.wait(10), "the run ended with a connection still open"
        # One connection for five requests; a second is tolerated, should the machine stall
        # longer than the runtime waits to read a response's end (then it gives the connection up).
        assert server.accepted <= 2 and server.closed == server.accepted


def test_an_injected_transport_serves_every_run_and_is_never_closed():
    class Counting(httpx.AsyncBaseTransport):
        def __init__(self, script: Script) -> None:
            self.script, self.closed = script, False

        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            assert not self.closed
            return await self.script.handle_async_request(request)

        async def aclose(self) -> None:
            self.closed = True

    transport = Counting(Script([Turn([text("one")]), Turn([text("two")])]))
    agent = Agent(AgentConfig(model="faux/scripted", tools=[],
                              connection=Connection(transport=transport)), host=make_host())
    assert agent.run_sync("a").text == "one"
    assert asyncio.run(agent.run("b")).text == "two"
    assert not transport.closed


# -- sync tools that say they are cheap run on the loop's thread ---------------------


def test_an_inline_tool_runs_on_the_loop_thread_and_a_parallel_one_in_a_worker():
    seen: dict[str, list[threading.Thread]] = {"inline": [], "parallel": []}

    def inline(n: int) -> int:
        """Cheap."""
        seen["inline"].append(threading.current_thread())
        return n

    def parallel(n: int) -> int:
        """May block."""
        seen["parallel"].append(threading.current_thread())
        return n

    tools = (Tool.from_function(inline, execution_mode=ExecutionMode.INLINE), Tool.from_function(parallel))
    turns = [Turn([tool_call("inline", {"n": 1}), tool_call("parallel", {"n": 2}), tool_call("inline", {"n": 3})]),
             Turn([text("done")])]
    agent, _ = make_agent(turns, ToolsPlugin(*tools), trust=Trust(before_tool_call=allow_all))
    result = agent.run_sync("go")
    assert result.outcome == "completed"
    assert [m.is_error for m in result.messages if m.role == "tool_result"] == [False, False, False]
    assert seen["inline"] == [threading.main_thread()] * 2
    assert seen["parallel"] and seen["parallel"][0] is not threading.main_thread()


def test_an_inline_tool_s_result_is_what_it_returned_though_a_later_call_changes_the_object():
    """What the model reads is the value as the handler returned it, as for a tool run in a thread."""
    shared = ["as returned"]

    def snapshot(n: int) -> list:
        """Cheap."""
        return shared

    async def change(n: int) -> str:
        """Runs after the inline calls of its batch."""
        shared.append("changed later")
        return "changed"

    tools = (Tool.from_function(snapshot, execution_mode=ExecutionMode.INLINE), Tool.from_function(change))
    turns = [Turn([tool_call("snapshot", {"n": 1}), tool_call("change", {"n": 2})]), Turn([text("done")])]
    agent, _ = make_agent(turns, ToolsPlugin(*tools), trust=Trust(before_tool_call=allow_all))
    result = agent.run_sync("go")
    assert shared == ["as returned", "changed later"], "the later call ran, and changed the object"
    first, second = (m for m in result.messages if m.role == "tool_result")
    assert json.loads(first.text) == {"ok": True, "data": ["as returned"]}
    assert json.loads(second.text) == {"ok": True, "data": "changed"}


def test_an_inline_tool_that_raises_or_exits_answers_its_call_with_an_error():
    def fails(n: int) -> int:
        """Raises."""
        raise ValueError("no such n")

    def exits(n: int) -> int:
        """Exits."""
        raise SystemExit(3)

    tools = (Tool.from_function(fails, execution_mode=ExecutionMode.INLINE),
             Tool.from_function(exits, execution_mode=ExecutionMode.INLINE))
    turns = [Turn([tool_call("fails", {"n": 1}), tool_call("exits", {"n": 2})]), Turn([text("done")])]
    agent, _ = make_agent(turns, ToolsPlugin(*tools), trust=Trust(before_tool_call=allow_all))
    result = agent.run_sync("go")
    assert result.outcome == "completed"
    errors = [m.content[0].text for m in result.messages if m.role == "tool_result"]
    assert "ValueError: no such n" in errors[0] and "SystemExit" in errors[1]


def test_an_inline_tool_is_not_run_once_the_run_was_aborted():
    ran: list[int] = []
    agent: Agent

    def first(n: int) -> int:
        """Aborts the run."""
        agent.abort()
        return n

    def second(n: int) -> int:
        """Must not run."""
        ran.append(n)
        return n

    tools = (Tool.from_function(first, execution_mode=ExecutionMode.INLINE),
             Tool.from_function(second, execution_mode=ExecutionMode.INLINE))
    turns = [Turn([tool_call("first", {"n": 1})]), Turn([tool_call("second", {"n": 2})]), Turn([text("done")])]
    agent, _ = make_agent(turns, ToolsPlugin(*tools), trust=Trust(before_tool_call=allow_all))
    result = agent.run_sync("go")
    assert result.outcome == "aborted" and ran == []


# -- argument validators are compiled once per tool ----------------------------------


def test_a_tool_argument_validator_is_compiled_once_for_every_call_of_every_run(monkeypatch):
    """jsonschema's validator is built at most once per tool: never for a plain schema whose arguments the
    quick check vouches for, once for a schema only jsonschema can judge, however many calls and runs."""
    compiled: list[object] = []

    real = jsonschema.Draft202012Validator

    def counting(schema: Any, *args: Any, **kwargs: Any) -> Any:
        compiled.append(schema)
        return real(schema, *args, **kwargs)

    plain = Tool.from_function(lambda n: n, name="note", description="Note n.")
    bounded = Tool("note", "Note n.", {"type": "object", "properties": {"n": {"type": "integer", "minimum": 0}}},
                   lambda arguments, context: arguments["n"])
    monkeypatch.setattr(jsonschema, "Draft202012Validator", counting)
    for note, times in ((plain, 0), (bounded, 1)):
        agent, script = make_agent([], ToolsPlugin(note), trust=Trust(before_tool_call=allow_all))
        for _ in range(2):
            script.turns.extend(_tool_turns(2, calls=2))
            assert agent.run_sync("go").outcome == "completed"
        assert sum(schema is note.input_schema for schema in compiled) == times


def test_invalid_arguments_are_still_refused_with_the_schema_error():
    def note(n: int) -> int:
        """Note n."""
        return n

    note_tool = Tool.from_function(note, execution_mode=ExecutionMode.INLINE)
    turns = [Turn([tool_call("note", {"n": "one"})]), Turn([tool_call("note", {"n": 1})]), Turn([text("done")])]
    agent, _ = make_agent(turns, ToolsPlugin(note_tool), trust=Trust(before_tool_call=allow_all))
    results = [m for m in agent.run_sync("go").messages if m.role == "tool_result"]
    assert results[0].is_error and "is not of type 'integer'" in results[0].content[0].text
    assert not results[1].is_error


# -- no request body outlives its response -------------------------------------------


def test_no_request_outlives_its_response_without_a_garbage_collection():
    class Watching(httpx.AsyncBaseTransport):
        def __init__(self, script: Script) -> None:
            self.script = script
            self.requests: list[weakref.ref[httpx.Request]] = []

        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            self.requests.append(weakref.ref(request))
            return await self.script.handle_async_request(request)

    note = Tool.from_function(lambda n: n, name="note", description="Note n.",
                              execution_mode=ExecutionMode.INLINE)
    transport = Watching(Script(_tool_turns(30, calls=3), keep_requests=1))
    agent = Agent(AgentConfig(model="faux/scripted", trust=Trust(before_tool_call=allow_all),
                              connection=Connection(transport=transport)),
                  host=make_host(ToolsPlugin(note)))
    gc.collect()
    gc.disable()  # only reference counting frees objects now: a cycle would keep its request
    try:
        result = agent.run_sync("go")
        alive = sum(ref() is not None for ref in transport.requests)
    finally:
        gc.enable()
    assert (result.outcome, len(transport.requests)) == ("completed", 31)
    assert alive == 0


# -- the result --------------------------------------------------------------------


def test_the_repr_of_a_long_run_result_stays_short():
    note = Tool.from_function(lambda n: n, name="note", description="Note n.")
    agent, _ = make_agent(_tool_turns(40, calls=3), ToolsPlugin(note), trust=Trust(before_tool_call=allow_all))
    result = asyncio.run(agent.run("go"))  # asyncio.run on 3.11 builds the task's repr, result included
    assert len(result.messages) == 162
    assert repr(result) == "RunResult(outcome='completed', turns=41, messages=162, error=None, stopped_by=None)"


def test_an_inline_tool_that_hands_back_a_coroutine_has_it_awaited():
    async def later(n: int) -> int:
        return n * 2

    def deferred(n: int) -> object:
        """Hands back a coroutine."""
        return later(n)

    tool = Tool.from_function(deferred, execution_mode=ExecutionMode.INLINE)
    agent, _ = make_agent([Turn([tool_call("deferred", {"n": 21})]), Turn([text("done")])], ToolsPlugin(tool),
                          trust=Trust(before_tool_call=allow_all))
    (result,) = [m for m in agent.run_sync("go").messages if m.role == "tool_result"]
    assert (result.is_error, result.content[0].text) == (False, '{"ok": true, "data": 42}')


def test_whether_a_handler_is_async_is_asked_once_per_run_not_per_call():
    asked: list[str] = []

    class Counting(Tool):
        __slots__ = ()

        @property
        def is_async(self) -> bool:
            asked.append(self.name)
            return False

    for mode in (ExecutionMode.INLINE, ExecutionMode.PARALLEL):
        asked.clear()
        note = Tool.from_function(lambda n: n, name="note", description="Note n.", execution_mode=mode)
        counting = Counting(note.name, note.description, note.input_schema, note.handler, mode)
        agent, _ = make_agent(_tool_turns(2, calls=3), ToolsPlugin(counting), trust=Trust(before_tool_call=allow_all))
        assert agent.run_sync("go").outcome == "completed"
        assert len(asked) == 1, mode  # six calls in two batches, one handler


def test_whether_plugins_implement_the_tool_call_hooks_is_asked_once_per_batch():
    note = Tool.from_function(lambda n: n, name="note", description="Note n.", execution_mode=ExecutionMode.INLINE)
    agent, _ = make_agent(_tool_turns(2, calls=3), ToolsPlugin(note), trust=Trust(before_tool_call=allow_all))
    asked: list[str] = []
    real = agent.host.hook_callers

    def counting(name: str) -> Any:
        asked.append(name)
        return real(name)

    agent.host.hook_callers = counting  # type: ignore[method-assign]
    assert agent.run_sync("go").outcome == "completed"
    assert asked.count("agentkit_before_tool_call") == asked.count("agentkit_after_tool_call") == 2  # two batches
