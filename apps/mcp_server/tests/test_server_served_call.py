"""What a handler served over MCP does through ``served_call()``: extra content, progress, logs,
and questions to the client (MRTR in 2026-07-28, real requests in 2025-11-25), against the official
SDK's client (mcp 2.x), in process."""

from __future__ import annotations

import json
from typing import Any

import anyio
import mcp_types as types
import pytest
from agentkit_mcp_server import (
    MCPToolServer,
    Prompt,
    ToolServer,
    elicitation,
    roots,
    sampling,
    served_call,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client
from mcp.shared.exceptions import MCPError

from agentkit.host import PluginHost
from agentkit.plugin_api import Tool

ERAS = ["2026-07-28", "legacy"]
NO_ARGUMENTS: dict[str, Any] = {"type": "object", "properties": {}}
NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


async def with_media(arguments: dict[str, Any], context: Any) -> str:
    served_call().add_content(
        types.AudioContent(type="audio", data="UklGRg==", mime_type="audio/wav"),
        types.EmbeddedResource(type="resource", resource=types.TextResourceContents(
            uri="memo://inside", mime_type="text/plain", text="inside")))
    return "media"


async def with_progress(arguments: dict[str, Any], context: Any) -> str:
    for done in (0, 50, 100):
        await served_call().progress(done, 100, f"{done}%")
    return "done"


async def with_logs(arguments: dict[str, Any], context: Any) -> str:
    await served_call().log("debug", "a detail")
    await served_call().log("warning", "a warning")
    return "logged"


async def ask_twice(arguments: dict[str, Any], context: Any) -> str:
    call = served_call()
    first = await call.ask({"first": elicitation("Your name?", NAME)})
    second = await call.ask({"second": elicitation("Your friend's name?", NAME),
                             "model": sampling("Say hi.", max_tokens=5), "roots": roots()})
    return json.dumps({"first": first["first"]["content"]["name"], "second": second["second"]["content"]["name"],
                       "model": second["model"]["content"]["text"],
                       "roots": [root["uri"] for root in second["roots"]["roots"]]})


async def ask_name(arguments: dict[str, Any], context: Any) -> str:
    return (await served_call().ask({"who": elicitation("Your name?", NAME)}))["who"]["content"]["name"]


async def where(arguments: dict[str, Any], context: Any) -> str:
    return "outside" if served_call() is None else "served"


def server() -> MCPToolServer:
    tools = ToolServer(PluginHost())
    for name, handler in [("media", with_media), ("progress", with_progress), ("logs", with_logs),
                          ("ask_twice", ask_twice), ("ask_name", ask_name), ("where", where)]:
        tools.add_tool(Tool(name=name, description=f"The {name} tool.", input_schema=NO_ARGUMENTS, handler=handler))

    async def render(arguments: dict[str, str]) -> list[str]:
        return [f"Hello {(await served_call().ask({'who': elicitation('Your name?', NAME)}))['who']['content']['name']}"]

    tools.add_prompt(Prompt("hello", render))
    return MCPToolServer(tools)


class Answers:
    """The client's side: what it answers, and what it was asked."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        self.names = iter(["Ada", "Grace", "Edsger"])

    async def elicit(self, context: Any, params: Any) -> types.ElicitResult:
        self.asked.append(params.message)
        return types.ElicitResult(action="accept", content={"name": next(self.names)})

    async def sample(self, context: Any, params: Any) -> types.CreateMessageResult:
        self.asked.append("sampling")
        return types.CreateMessageResult(role="assistant", model="scripted",
                                         content=types.TextContent(type="text", text="hi"))

    async def roots(self, context: Any) -> types.ListRootsResult:
        self.asked.append("roots")
        return types.ListRootsResult(roots=[types.Root(uri="file:///work")])

    def callbacks(self) -> dict[str, Any]:
        return {"elicitation_callback": self.elicit, "sampling_callback": self.sample,
                "list_roots_callback": self.roots}


def run(mode: str, scenario: Any, mcp_server: MCPToolServer | None = None, **client: Any) -> Any:
    mcp_server = mcp_server or server()

    async def main() -> Any:
        mcp_server.bind()
        async with Client(mcp_server.server, mode=mode, **client) as session:
            return await scenario(session)
    return anyio.run(main)


@pytest.mark.parametrize("mode", ERAS)
def test_audio_and_embedded_resources_follow_the_tools_text(mode):
    result = run(mode, lambda client: client.call_tool("media", {}))
    assert [block.type for block in result.content] == ["text", "audio", "resource"]
    assert result.content[1].mime_type == "audio/wav" and result.content[2].resource.text == "inside"


@pytest.mark.parametrize("mode", ERAS)
def test_progress_reaches_the_callers_progress_callback_in_order(mode):
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    result = run(mode, lambda client: client.call_tool("progress", {}, progress_callback=on_progress))
    assert result.content[0].text == "done"
    assert seen == [(0, 100, "0%"), (50, 100, "50%"), (100, 100, "100%")]


@pytest.mark.parametrize(("mode", "level", "expected"), [
    ("legacy", None, ["a detail", "a warning"]),         # the handshake era always sends them
    ("2026-07-28", None, []),                             # modern: only a request that set the level
    ("2026-07-28", "warning", ["a warning"]),             # ... at that level and above
    ("2026-07-28", "debug", ["a detail", "a warning"]),
])
def test_log_messages_follow_the_eras_rules(mode, level, expected):
    seen: list[str] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        seen.append(params.data)

    result = run(mode, lambda client: client.call_tool("logs", {}), logging_callback=on_log, log_level=level)
    assert result.content[0].text == "logged"  # the notifications ride the request's stream, before its answer
    assert seen == expected


@pytest.mark.filterwarnings("ignore:The logging capability is deprecated")
def test_a_legacy_session_gets_the_log_messages_at_the_level_it_set_or_above():
    seen: list[str] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        seen.append(params.data)

    async def scenario(client: Client) -> list[str]:
        await client.set_logging_level("warning")
        await client.call_tool("logs", {})
        return list(seen)

    assert run("legacy", scenario, logging_callback=on_log) == ["a warning"]


@pytest.mark.parametrize("mode", ERAS)
def test_a_tool_asks_the_client_over_several_rounds(mode):
    answers = Answers()
    result = run(mode, lambda client: client.call_tool("ask_twice", {}), **answers.callbacks())
    assert not result.is_error, result.content
    assert json.loads(result.content[0].text) == {"first": "Ada", "second": "Grace", "model": "hi",
                                                  "roots": ["file:///work"]}
    # each question is asked once: the answers of earlier rounds come back in the sealed requestState
    assert sorted(answers.asked) == sorted(["Your name?", "Your friend's name?", "sampling", "roots"])


@pytest.mark.parametrize("mode", ERAS)
def test_a_prompt_asks_the_client_too(mode):
    answers = Answers()
    result = run(mode, lambda client: client.get_prompt("hello"), **answers.callbacks())
    assert result.messages[0].content.text == "Hello Ada"


def test_a_modern_client_without_the_capability_gets_missing_capability():
    async def scenario(client: Client) -> MCPError:
        with pytest.raises(MCPError) as raised:
            await client.call_tool("ask_name", {})
        return raised.value

    error = run("2026-07-28", scenario)
    assert error.code == -32021 and error.data == {"requiredCapabilities": {"elicitation": {}}}


def test_a_legacy_client_without_the_capability_gets_an_error_result():
    result = run("legacy", lambda client: client.call_tool("ask_name", {}))
    assert result.is_error and "capability" in result.content[0].text


def test_a_handler_sees_whether_it_is_served_over_mcp():
    assert anyio.run(where, {}, None) == "outside"
    assert run("2026-07-28", lambda client: client.call_tool("where", {})).content[0].text == "served"


async def first_round(client: Client, name: str = "ask_name") -> types.InputRequiredResult:
    interim = await client.session.call_tool(name, {}, allow_input_required=True)
    assert isinstance(interim, types.InputRequiredResult) and interim.request_state
    return interim


ACCEPTED = {"action": "accept", "content": {"name": "Ada"}}


def test_an_answer_of_the_wrong_shape_is_asked_again_and_extra_keys_are_ignored():
    async def scenario(client: Client) -> tuple[Any, Any]:
        interim = await first_round(client)
        again = await client.session.call_tool("ask_name", {}, allow_input_required=True,
                                               input_responses={"who": {"roots": []}, "other": ACCEPTED})
        done = await client.session.call_tool("ask_name", {}, allow_input_required=True,
                                              input_responses={"who": ACCEPTED, "other": {"roots": []}},
                                              request_state=interim.request_state)
        return again, done

    again, done = run("2026-07-28", scenario, elicitation_callback=Answers().elicit)
    assert isinstance(again, types.InputRequiredResult) and list(again.input_requests) == ["who"]
    assert done.content[0].text == "Ada"


def test_a_state_issued_for_another_request_is_refused():
    async def scenario(client: Client) -> MCPError:
        interim = await first_round(client, "ask_twice")  # another tool's state, genuinely signed
        with pytest.raises(MCPError) as raised:
            await client.session.call_tool("ask_name", {}, allow_input_required=True,
                                           input_responses={"who": ACCEPTED}, request_state=interim.request_state)
        return raised.value

    error = run("2026-07-28", scenario, elicitation_callback=Answers().elicit)
    assert error.code == -32602 and "requestState" in error.message


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(position=st.integers(min_value=0), replacement=st.characters(codec="ascii", categories=["L", "N", "P"]))
def test_a_tampered_state_is_refused_whatever_changed(position, replacement):
    """Any altered character of a state the server sealed is refused, never taken as an answer."""
    async def scenario(client: Client) -> Any:
        interim = await first_round(client)
        state = interim.request_state
        at = position % len(state)
        if state[at] == replacement:
            return None  # not a change
        tampered = state[:at] + replacement + state[at + 1:]
        try:
            result = await client.session.call_tool("ask_name", {}, allow_input_required=True,
                                                    request_state=tampered)
        except MCPError as error:
            return error
        return result

    outcome = run("2026-07-28", scenario, elicitation_callback=Answers().elicit)
    if outcome is not None:
        assert isinstance(outcome, MCPError) and outcome.code == -32602, outcome


BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def test_no_single_character_of_a_state_can_change_unnoticed():
    """Every position, changed to its base64 neighbour (which may differ only in padding bits): refused."""
    async def scenario(client: Client) -> list[tuple[int, Any]]:
        state = (await first_round(client)).request_state
        accepted = []
        for at, char in enumerate(state):
            if char not in BASE64URL:
                continue
            tampered = state[:at] + BASE64URL[BASE64URL.index(char) ^ 1] + state[at + 1:]
            try:
                result = await client.session.call_tool("ask_name", {}, allow_input_required=True,
                                                        request_state=tampered)
            except MCPError as error:
                if error.code != -32602:
                    accepted.append((at, error))
            else:
                accepted.append((at, result))
        return accepted

    assert run("2026-07-28", scenario, elicitation_callback=Answers().elicit) == []


@pytest.mark.parametrize("mode", ERAS)
def test_progress_and_questions_cross_streamable_http_in_both_eras(mode, http_client):
    """Over the real HTTP listener: progress on the request's stream, and a question answered (a
    server-to-client request in the legacy session, input_required rounds in the modern era)."""
    mcp_server = server()
    answers = Answers()
    seen: list[float] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append(progress)

    async def main() -> tuple[Any, Any, Any]:
        async with http_client(mcp_server, mode=mode, **answers.callbacks()) as client:
            progressed = await client.call_tool("progress", {}, progress_callback=on_progress)
            with anyio.fail_after(60):  # over JSON-RPC the client runs each progress callback as a task
                while len(seen) < 3:
                    await anyio.sleep(0.01)
            asked = await client.call_tool("ask_twice", {})
            media = await client.call_tool("media", {})
        return progressed, asked, media

    progressed, asked, media = anyio.run(main)
    assert progressed.content[0].text == "done" and sorted(seen) == [0, 50, 100]
    assert json.loads(asked.content[0].text)["second"] == "Grace"
    assert [block.type for block in media.content] == ["text", "audio", "resource"]
