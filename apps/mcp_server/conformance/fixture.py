"""The conformance suite's fixtures, registered in code on an agentkit MCP server, as an embedder would.

Run as ``python fixture.py``: serves streamable HTTP on a free loopback port
without an API key (the suite sends none; loopback only) and prints
``listening on URL`` on stderr. The fixture tools run through the same
:class:`ToolServer` path as installed plugins (the authorization, the deadlines
and the result mapping of every other served call); what only MCP has (audio
and embedded resources, progress, logs, questions to the client) they reach
through ``served_call()``. Resources, a resource template, prompts and
completions are registered with ``ToolServer.add_resource`` and its siblings.
"""

from __future__ import annotations

import asyncio
import base64
import io
import itertools
import json
import sys
import wave
from typing import Any

import mcp_types as types
from agentkit_mcp_server import (
    MCPToolServer,
    Prompt,
    PromptArgument,
    Resource,
    ResourceTemplate,
    ServedCall,
    ToolServer,
    elicitation,
    roots,
    sampling,
    serve_http,
    served_call,
)

from agentkit.host import PluginHost
from agentkit.plugin_api import ImageBlock, Tool, ToolResult

#: A 1x1 red pixel.
RED_PIXEL_PNG = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")

JSON_SCHEMA_2020_12 = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {"address": {"$anchor": "addressDef", "type": "object",
                          "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
    "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"},
                   "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                   "phone": {"type": "string"}, "email": {"type": "string"}},
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
    "additionalProperties": False,
}
NO_ARGUMENTS: dict[str, Any] = {"type": "object", "properties": {}}


def _silent_wav() -> str:
    """A tenth of a second of silence, 8 kHz mono, as base64."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as clip:
        clip.setnchannels(1)
        clip.setsampwidth(1)
        clip.setframerate(8000)
        clip.writeframes(b"\x80" * 800)
    return base64.b64encode(buffer.getvalue()).decode()


def _call() -> ServedCall:
    call = served_call()
    assert call is not None, "a fixture tool runs only when served over MCP"
    return call


def _text_resource(uri: str, mime_type: str, text: str) -> types.EmbeddedResource:
    return types.EmbeddedResource(type="resource",
                                  resource=types.TextResourceContents(uri=uri, mime_type=mime_type, text=text))


def _schema(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(properties)}


NAME_SCHEMA = _schema(name={"type": "string"})


async def audio(arguments: dict[str, Any], context: Any) -> str:
    _call().add_content(types.AudioContent(type="audio", data=_silent_wav(), mime_type="audio/wav"))
    return "A tenth of a second of silence."


async def embedded(arguments: dict[str, Any], context: Any) -> str:
    _call().add_content(_text_resource("test://embedded-resource", "text/plain",
                                       "This is an embedded resource content."))
    return "An embedded resource."


async def mixed(arguments: dict[str, Any], context: Any) -> ToolResult:
    _call().add_content(_text_resource("test://mixed-content-resource", "application/json",
                                       json.dumps({"test": "data", "value": 123})))
    return ToolResult(True, data="Multiple content types test:", images=[ImageBlock(RED_PIXEL_PNG, "image/png")])


async def with_logging(arguments: dict[str, Any], context: Any) -> str:
    for step, message in enumerate(("Tool execution started", "Tool processing data", "Tool execution completed")):
        if step:
            await asyncio.sleep(0.05)
        await _call().log("info", message)
    return "Logged three messages."


async def with_progress(arguments: dict[str, Any], context: Any) -> str:
    for step, done in enumerate((0, 50, 100)):
        if step:
            await asyncio.sleep(0.05)
        await _call().progress(done, 100)
    return "Done in three steps."


async def sample(arguments: dict[str, Any], context: Any) -> str:
    answer = (await _call().ask({"answer": sampling(arguments["prompt"], max_tokens=100)}))["answer"]
    return f"LLM response: {answer['content'].get('text', '')}"


async def elicit(arguments: dict[str, Any], context: Any) -> str:
    schema = {"type": "object", "required": ["username", "email"], "properties": {
        "username": {"type": "string", "description": "User's response"},
        "email": {"type": "string", "description": "User's email address"}}}
    answer = (await _call().ask({"user": elicitation(arguments["message"], schema)}))["user"]
    return f"User response: action={answer['action']}, content={json.dumps(answer.get('content'))}"


def _elicit_with(schema: dict[str, Any]) -> Any:
    async def handler(arguments: dict[str, Any], context: Any) -> str:
        answer = (await _call().ask({"form": elicitation("Please review the form.", schema)}))["form"]
        return f"Elicitation completed: action={answer['action']}, content={json.dumps(answer.get('content'))}"
    return handler


DEFAULTS_SCHEMA = {"type": "object", "properties": {
    "name": {"type": "string", "default": "John Doe"},
    "age": {"type": "integer", "default": 30},
    "score": {"type": "number", "default": 95.5},
    "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
    "verified": {"type": "boolean", "default": True}}}
ENUMS_SCHEMA = {"type": "object", "properties": {
    "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
    "titledSingle": {"type": "string", "oneOf": [{"const": "value1", "title": "First Option"},
                                                 {"const": "value2", "title": "Second Option"},
                                                 {"const": "value3", "title": "Third Option"}]},
    "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"],
                   "enumNames": ["Option One", "Option Two", "Option Three"]},
    "untitledMulti": {"type": "array", "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
    "titledMulti": {"type": "array", "items": {"anyOf": [{"const": "value1", "title": "First Choice"},
                                                         {"const": "value2", "title": "Second Choice"},
                                                         {"const": "value3", "title": "Third Choice"}]}}}}


async def ask_name(arguments: dict[str, Any], context: Any) -> str:
    answer = (await _call().ask({"user_name": elicitation("What is your name?", NAME_SCHEMA)}))["user_name"]
    return f"Hello, {(answer.get('content') or {}).get('name', 'stranger')}!"


async def ask_capital(arguments: dict[str, Any], context: Any) -> str:
    answer = (await _call().ask({"capital_question": sampling("What is the capital of France?", max_tokens=100)}))
    return f"The model said: {answer['capital_question']['content'].get('text', '')}"


async def ask_roots(arguments: dict[str, Any], context: Any) -> str:
    answer = (await _call().ask({"client_roots": roots()}))["client_roots"]
    return "Roots: " + ", ".join(root["uri"] for root in answer["roots"])


async def ask_confirmation(arguments: dict[str, Any], context: Any) -> str:
    answer = (await _call().ask({"confirm": elicitation("Please confirm", _schema(ok={"type": "boolean"}))}))
    return f"state-ok: confirmed={json.dumps((answer['confirm'].get('content') or {}).get('ok'))}"


async def ask_three(arguments: dict[str, Any], context: Any) -> str:
    answers = await _call().ask({"user_name": elicitation("What is your name?", NAME_SCHEMA),
                                 "greeting": sampling("Generate a greeting", max_tokens=50),
                                 "client_roots": roots()})
    return f"Got {len(answers)} answers."


async def ask_twice(arguments: dict[str, Any], context: Any) -> str:
    call = _call()
    name = (await call.ask({"step1": elicitation("Step 1: What is your name?", NAME_SCHEMA)}))["step1"]
    color = (await call.ask({"step2": elicitation("Step 2: What is your favorite color?",
                                                  _schema(color={"type": "string"}))}))["step2"]
    return f"{(name.get('content') or {}).get('name')} likes {(color.get('content') or {}).get('color')}."


async def ask_what_is_supported(arguments: dict[str, Any], context: Any) -> str:
    call = _call()
    wanted = {"user_name": elicitation("What is your name?", NAME_SCHEMA),
              "greeting": sampling("Generate a greeting", max_tokens=50)}
    answers = await call.ask({key: request for key, request in wanted.items() if call.can_ask(request["method"])})
    return f"Asked only what the client supports: {', '.join(sorted(answers)) or 'nothing'}."


async def need_sampling(arguments: dict[str, Any], context: Any) -> str:
    await _call().ask({"answer": sampling("Say hello.", max_tokens=20)})  # -32021 when the client cannot
    return "The client can sample."


def _tool(name: str, description: str, handler: Any, **properties: Any) -> Tool:
    return Tool(name=name, description=description, input_schema=_schema(**properties) if properties else NO_ARGUMENTS,
                handler=handler)


def fixture_tools() -> list[Tool]:
    """The suite's fixture tools."""
    text = {"type": "string"}
    return [
        _tool("test_audio_content", "Returns audio content.", audio),
        _tool("test_embedded_resource", "Returns an embedded resource.", embedded),
        _tool("test_multiple_content_types", "Returns text, an image and a resource.", mixed),
        _tool("test_tool_with_logging", "Logs three messages.", with_logging),
        _tool("test_tool_with_progress", "Reports progress three times.", with_progress),
        _tool("test_sampling", "Asks the client's model.", sample, prompt=text),
        _tool("test_elicitation", "Asks the user.", elicit, message=text),
        _tool("test_elicitation_sep1034_defaults", "Asks with defaults.", _elicit_with(DEFAULTS_SCHEMA)),
        _tool("test_elicitation_sep1330_enums", "Asks with enums.", _elicit_with(ENUMS_SCHEMA)),
        _tool("test_input_required_result_elicitation", "Asks for a name.", ask_name),
        _tool("test_input_required_result_tampered_state", "Asks for a name.", ask_name),
        _tool("test_input_required_result_sampling", "Asks the model.", ask_capital),
        _tool("test_input_required_result_list_roots", "Asks for the roots.", ask_roots),
        _tool("test_input_required_result_request_state", "Asks for a confirmation.", ask_confirmation),
        _tool("test_input_required_result_multiple_inputs", "Asks three things at once.", ask_three),
        _tool("test_input_required_result_multi_round", "Asks twice.", ask_twice),
        _tool("test_input_required_result_capabilities", "Asks what the client supports.", ask_what_is_supported),
        _tool("test_missing_capability", "Needs the client's sampling.", need_sampling),
        Tool(name="test_simple_text", description="Returns simple text content.", input_schema=NO_ARGUMENTS,
             handler=lambda arguments, context: "This is a simple text response for testing."),
        Tool(name="test_image_content", description="Returns image content.", input_schema=NO_ARGUMENTS,
             handler=lambda arguments, context: ToolResult(True, data="A red pixel.",
                                                           images=[ImageBlock(RED_PIXEL_PNG, "image/png")])),
        Tool(name="test_error_handling", description="Always returns an error.", input_schema=NO_ARGUMENTS,
             handler=lambda arguments, context: ToolResult.failure(
                 "test_error", "This tool intentionally returns an error for testing")),
        Tool(name="json_schema_2020_12_tool", description="Keeps JSON Schema 2020-12 keywords.",
             input_schema=JSON_SCHEMA_2020_12, handler=lambda arguments, context: "ok"),
    ]


async def ask_context(arguments: dict[str, str]) -> list[str]:
    answer = (await _call().ask({"user_context": elicitation("What context should the prompt use?",
                                                             _schema(context={"type": "string"}))}))
    return [f"Use this context: {(answer['user_context'].get('content') or {}).get('context')}"]


def fixture_resources() -> list[Resource]:
    return [
        Resource("test://static-text", "static-text", lambda: "This is the content of the static text resource.",
                 description="A static text resource.", mime_type="text/plain"),
        Resource("test://static-binary", "static-binary", lambda: base64.b64decode(RED_PIXEL_PNG),
                 description="A static binary resource.", mime_type="image/png"),
        Resource("test://watched-resource", "watched-resource", lambda: "A resource to subscribe to.",
                 description="A resource clients may subscribe to.", mime_type="text/plain"),
    ]


def template_data(variables: dict[str, str]) -> str:
    return json.dumps({"id": variables["id"], "templateTest": True, "data": f"Data for ID: {variables['id']}"})


def complete_words(argument: str, value: str, context: Any) -> list[str]:
    return [word for word in ("paris", "park", "party", "test") if word.startswith(value)]


def fixture_prompts() -> list[Prompt]:
    image = types.ImageContent(type="image", data=RED_PIXEL_PNG, mime_type="image/png")
    return [
        Prompt("test_simple_prompt", lambda arguments: ["This is a simple prompt for testing."],
               description="A prompt without arguments."),
        Prompt("test_prompt_with_arguments",
               lambda arguments: [f"Prompt with arguments: arg1='{arguments['arg1']}', arg2='{arguments['arg2']}'"],
               description="A prompt with two arguments.", complete=complete_words,
               arguments=[PromptArgument("arg1", "The first argument.", required=True),
                          PromptArgument("arg2", "The second argument.", required=True)]),
        Prompt("test_prompt_with_embedded_resource", lambda arguments: [
            types.PromptMessage(role="user", content=_text_resource(
                arguments["resourceUri"], "text/plain", "Embedded resource content for testing.")),
            "Please process the embedded resource above."],
               description="A prompt with an embedded resource.",
               arguments=[PromptArgument("resourceUri", "The URI of the resource.", required=True)]),
        Prompt("test_prompt_with_image", lambda arguments: [
            types.PromptMessage(role="user", content=image), "Please analyze the image above."],
               description="A prompt with an image."),
        Prompt("test_input_required_result_prompt", ask_context, description="A prompt that asks for context."),
    ]


def fixture_server() -> ToolServer:
    """A tool server with the suite's fixtures alone (nothing installed is served)."""
    tools = ToolServer(PluginHost())
    for tool in fixture_tools():
        tools.add_tool(tool)
    for resource in fixture_resources():
        tools.add_resource(resource)
    tools.add_resource_template(ResourceTemplate("test://template/{id}/data", "template-data", template_data,
                                                 description="Data for an id.", mime_type="application/json",
                                                 complete=complete_words))
    for prompt in fixture_prompts():
        tools.add_prompt(prompt)
    add_list_changers(tools)
    return tools


def add_list_changers(tools: ToolServer) -> None:
    """The suite's hooks that change the tool and prompt lists, so that listening clients are told."""
    added = itertools.count(1)

    async def add_a_tool(arguments: dict[str, Any], context: Any) -> str:
        name = f"test_added_tool_{next(added)}"
        tools.add_tool(_tool(name, "A tool added while serving.", lambda arguments, context: name))
        return f"added {name}"

    async def add_a_prompt(arguments: dict[str, Any], context: Any) -> str:
        name = f"test_added_prompt_{next(added)}"
        tools.add_prompt(Prompt(name, lambda arguments: [name], description="A prompt added while serving."))
        return f"added {name}"

    tools.add_tool(_tool("test_trigger_tool_change", "Adds a tool.", add_a_tool))
    tools.add_tool(_tool("test_trigger_prompt_change", "Adds a prompt.", add_a_prompt))


def main() -> None:
    tools = fixture_server()

    def ready(url: str) -> None:
        print(f"listening on {url}", file=sys.stderr, flush=True)

    asyncio.run(serve_http(MCPToolServer(tools), host="127.0.0.1", port=0, api_key=None, on_ready=ready))


if __name__ == "__main__":
    main()
