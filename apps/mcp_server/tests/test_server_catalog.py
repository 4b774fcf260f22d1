"""Resources, resource templates, prompts and completions an embedder registers on a ToolServer,
read by the official SDK's client (mcp 2.x) in both eras, in process."""

from __future__ import annotations

import base64
from typing import Any

import anyio
import mcp_types as types
import pytest
from agentkit_mcp_server import (
    MCPToolServer,
    Prompt,
    PromptArgument,
    Resource,
    ResourceTemplate,
    ToolServer,
    ToolServerError,
)
from mcp import Client
from mcp.shared.exceptions import MCPError

from agentkit.host import PluginHost

ERAS = ["2026-07-28", "legacy"]
#: Generous: a loaded CI box is slow, and a notification that never comes fails the test rather than hangs it.
PATIENCE = 60
PNG_BYTES = b"\x89PNG\r\n\x1a\n not really an image"


def catalog() -> ToolServer:
    tools = ToolServer(PluginHost())
    tools.add_resource(Resource("memo://text", "text", lambda: "hello", description="A text.", mime_type="text/plain"))
    tools.add_resource(Resource("memo://blob", "blob", lambda: PNG_BYTES, mime_type="image/png"))

    async def item(variables: dict[str, str]) -> str:
        return f"item {variables['shelf']}/{variables['id']}"

    tools.add_resource_template(ResourceTemplate(
        "memo://shelf/{shelf}/item/{id}", "item", item, mime_type="text/plain",
        complete=lambda argument, value, context: [f"{argument}-{value}-{n}" for n in range(150)]))
    tools.add_prompt(Prompt(
        "greet", lambda arguments: [f"Greet {arguments['who']}."], description="A greeting.",
        arguments=[PromptArgument("who", "Whom to greet.", required=True)],
        complete=lambda argument, value, context: [name for name in ("alice", "alina", "bob") if name.startswith(value)]))
    tools.add_prompt(Prompt("look", lambda arguments: [
        types.PromptMessage(role="user", content=types.ImageContent(type="image", data="AAAA", mime_type="image/png")),
        "What is it?"]))
    return tools


def served(mode: str, scenario: Any, tools: ToolServer | None = None, **client: Any) -> Any:
    server = MCPToolServer(tools or catalog())

    async def main() -> Any:
        server.bind()
        async with Client(server.server, mode=mode, **client) as session:
            return await scenario(session)
    return anyio.run(main)


@pytest.mark.parametrize("mode", ERAS)
def test_resources_are_listed_and_read_as_text_and_blob(mode):
    async def scenario(client: Client) -> Any:
        listed = await client.list_resources()
        templates = await client.list_resource_templates()
        text = await client.read_resource("memo://text")
        blob = await client.read_resource("memo://blob")
        item = await client.read_resource("memo://shelf/top/item/42")
        return listed, templates, text, blob, item

    listed, templates, text, blob, item = served(mode, scenario)
    assert [(r.uri, r.name, r.mime_type) for r in listed.resources] == [
        ("memo://text", "text", "text/plain"), ("memo://blob", "blob", "image/png")]
    assert [t.uri_template for t in templates.resource_templates] == ["memo://shelf/{shelf}/item/{id}"]
    assert text.contents[0].text == "hello" and text.contents[0].mime_type == "text/plain"
    assert base64.b64decode(blob.contents[0].blob) == PNG_BYTES
    assert item.contents[0].text == "item top/42" and str(item.contents[0].uri) == "memo://shelf/top/item/42"
    if mode != "legacy":  # the 2026-07-28 cache hints, on every cacheable result
        assert [(r.ttl_ms, r.cache_scope) for r in (listed, templates, text)] == [(0, "private")] * 3


@pytest.mark.parametrize("mode", ERAS)
@pytest.mark.parametrize("uri", ["memo://nothing", "memo://shelf/top/item/42/more", "memo://shelf//item/1"])
def test_an_unknown_resource_is_invalid_params_naming_the_uri(mode, uri):
    async def scenario(client: Client) -> Any:
        with pytest.raises(MCPError) as raised:
            await client.read_resource(uri)
        return raised.value

    error = served(mode, scenario)
    assert error.code == -32602 and error.data == {"uri": uri}


@pytest.mark.parametrize("mode", ERAS)
def test_prompts_are_listed_rendered_and_completed(mode):
    async def scenario(client: Client) -> Any:
        listed = await client.list_prompts()
        greet = await client.get_prompt("greet", {"who": "Ada"})
        look = await client.get_prompt("look")
        names = await client.complete(types.PromptReference(type="ref/prompt", name="greet"),
                                      {"name": "who", "value": "al"})
        many = await client.complete(types.ResourceTemplateReference(type="ref/resource",
                                                                     uri="memo://shelf/{shelf}/item/{id}"),
                                     {"name": "id", "value": "x"})
        nothing = await client.complete(types.PromptReference(type="ref/prompt", name="look"),
                                        {"name": "any", "value": ""})
        return listed, greet, look, names, many, nothing

    listed, greet, look, names, many, nothing = served(mode, scenario)
    by_name = {p.name: p for p in listed.prompts}
    assert sorted(by_name) == ["greet", "look"]
    assert [(a.name, a.required) for a in by_name["greet"].arguments] == [("who", True)]
    assert [(m.role, m.content.text) for m in greet.messages] == [("user", "Greet Ada.")]
    assert [m.content.type for m in look.messages] == ["image", "text"]
    assert names.completion.values == ["alice", "alina"]
    assert len(many.completion.values) == 100 and many.completion.total == 150 and many.completion.has_more
    assert nothing.completion.values == []


@pytest.mark.parametrize("mode", ERAS)
@pytest.mark.parametrize(("name", "arguments", "says"), [
    ("greet", {}, "who"), ("nobody", {}, "prompts/list")])
def test_a_prompt_that_cannot_be_rendered_is_invalid_params_that_names_the_fix(mode, name, arguments, says):
    async def scenario(client: Client) -> Any:
        with pytest.raises(MCPError) as raised:
            await client.get_prompt(name, arguments)
        return raised.value

    error = served(mode, scenario)
    assert error.code == -32602 and says in error.message


def test_the_same_uri_or_prompt_name_is_refused_twice():
    tools = catalog()
    with pytest.raises(ToolServerError, match="already served"):
        tools.add_resource(Resource("memo://text", "again", lambda: ""))
    with pytest.raises(ToolServerError, match="already served"):
        tools.add_prompt(Prompt("greet", lambda arguments: []))
    with pytest.raises(TypeError, match="Resource"):
        tools.add_resource(Prompt("x", lambda arguments: []))  # type: ignore[arg-type]


@pytest.mark.parametrize("mode", ERAS)
@pytest.mark.parametrize("kind", ["resources", "prompts"])
def test_an_added_resource_or_prompt_is_announced(mode, kind):
    tools = catalog()
    received: list[object] = []
    method = f"notifications/{kind}/list_changed"

    def change() -> None:
        if kind == "resources":
            tools.add_resource(Resource("memo://new", "new", lambda: "new"))
        else:
            tools.add_prompt(Prompt("new", lambda arguments: ["new"]))

    async def on_message(message: object) -> None:
        if getattr(message, "method", None) == method:
            received.append(message)

    async def scenario(client: Client) -> list[str]:
        if mode == "legacy":
            await anyio.to_thread.run_sync(change)
            with anyio.fail_after(PATIENCE):
                while not received:
                    await anyio.sleep(0.01)
        else:
            flags = {"resources_list_changed": True} if kind == "resources" else {"prompts_list_changed": True}
            async with client.listen(**flags) as subscription:
                await anyio.to_thread.run_sync(change)
                with anyio.fail_after(PATIENCE):
                    async for event in subscription:
                        received.append(event)
                        break
        if kind == "resources":
            return [r.name for r in (await client.list_resources()).resources]
        return [p.name for p in (await client.list_prompts()).prompts]

    names = served(mode, scenario, tools, message_handler=on_message)
    assert "new" in names and received
