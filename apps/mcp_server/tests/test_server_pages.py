"""Lists served in pages with opaque cursors (tools, resources, resource templates, prompts), and resource
templates of RFC 6570 level 2 (``{+var}``, ``{#var}``) matched as the SDK's own server matches them; read by
the official SDK's client (mcp 2.x) in both eras, in process."""

from __future__ import annotations

import base64
from typing import Any

import anyio
import mcp_types as types
import pytest
from agentkit_mcp_server import MCPToolServer, Prompt, Resource, ResourceTemplate, ToolServer
from mcp import Client
from mcp.shared.exceptions import MCPError

from agentkit.host import PluginHost
from agentkit.plugin_api import Tool

ERAS = ["2026-07-28", "legacy"]
COUNT = 23
PAGE = 10
KINDS = ["tools", "resources", "resource_templates", "prompts"]


def crowded() -> ToolServer:
    tools = ToolServer(PluginHost())
    for n in range(COUNT):
        tools.add_tool(Tool(name=f"tool_{n:02}", description="A tool.", handler=lambda arguments, context: "ok",
                            input_schema={"type": "object", "properties": {}}))
        tools.add_resource(Resource(f"memo://r/{n:02}", f"r{n:02}", lambda: "text"))
        tools.add_resource_template(ResourceTemplate(f"memo://t{n:02}/{{id}}", f"t{n:02}", lambda variables: "t"))
        tools.add_prompt(Prompt(f"prompt_{n:02}", lambda arguments: ["hi"]))
    return tools


def served(mode: str, scenario: Any, tools: ToolServer, **options: Any) -> Any:
    server = MCPToolServer(tools, **options)

    async def main() -> Any:
        server.bind()
        async with Client(server.server, mode=mode) as session:
            return await scenario(session)
    return anyio.run(main)


async def page_of(client: Client, kind: str, cursor: str | None) -> tuple[list[str], str | None]:
    if kind == "tools":
        result: Any = await client.list_tools(cursor=cursor, cache_mode="bypass")
        return [t.name for t in result.tools], result.next_cursor
    if kind == "resources":
        result = await client.list_resources(cursor=cursor, cache_mode="bypass")
        return [str(r.uri) for r in result.resources], result.next_cursor
    if kind == "resource_templates":
        result = await client.list_resource_templates(cursor=cursor, cache_mode="bypass")
        return [t.uri_template for t in result.resource_templates], result.next_cursor
    result = await client.list_prompts(cursor=cursor, cache_mode="bypass")
    return [p.name for p in result.prompts], result.next_cursor


async def every_page(client: Client, kind: str) -> list[list[str]]:
    pages, cursor = [], None
    while True:
        names, cursor = await page_of(client, kind, cursor)
        pages.append(names)
        if cursor is None:
            return pages
        assert len(pages) < 10, "the cursors never end"


@pytest.mark.parametrize("mode", ERAS)
@pytest.mark.parametrize("kind", KINDS)
def test_a_list_longer_than_a_page_comes_in_pages_that_cursors_chain_in_order(mode, kind):
    async def scenario(client: Client) -> list[list[str]]:
        return await every_page(client, kind)

    pages = served(mode, scenario, crowded(), page_size=PAGE)

    assert [len(page) for page in pages] == [10, 10, 3]
    names = [name for page in pages for name in page]
    assert len(set(names)) == COUNT and names == sorted(names)  # registered in this order: none lost, none twice


@pytest.mark.parametrize("kind", KINDS)
def test_the_default_page_holds_a_thousand(kind):
    async def scenario(client: Client) -> list[list[str]]:
        return await every_page(client, kind)

    assert [len(page) for page in served("2026-07-28", scenario, crowded())] == [COUNT]


def junk_cursors(valid: str) -> list[str]:
    return ["not a cursor", "", base64.urlsafe_b64encode(b'{"list": "tools", "after": 3}').decode(),
            valid[:-2], "%%%"]


@pytest.mark.parametrize("mode", ERAS)
@pytest.mark.parametrize("kind", KINDS)
def test_an_invalid_cursor_is_invalid_params(mode, kind):
    async def scenario(client: Client) -> list[int]:
        _, cursor = await page_of(client, kind, None)
        assert cursor is not None
        other = "prompts" if kind != "prompts" else "tools"
        _, foreign = await page_of(client, other, None)  # another list's cursor
        codes = []
        for bad in [*junk_cursors(cursor), foreign]:
            with pytest.raises(MCPError) as raised:
                await page_of(client, kind, bad)
            codes.append(raised.value.code)
        return codes

    codes = served(mode, scenario, crowded(), page_size=PAGE)

    assert codes == [-32602] * 6


def test_a_cursor_past_an_item_removed_since_is_invalid_params_and_a_new_listing_works():
    tools = crowded()

    async def scenario(client: Client) -> tuple[int, list[list[str]]]:
        _, cursor = await page_of(client, "tools", None)
        await anyio.to_thread.run_sync(tools.remove_tool, "tool_09")  # the last of the first page
        with pytest.raises(MCPError) as raised:
            await page_of(client, "tools", cursor)
        return raised.value.code, await every_page(client, "tools")

    code, pages = served("2026-07-28", scenario, tools, page_size=PAGE)

    assert code == -32602
    assert [len(page) for page in pages] == [10, 10, 2]


def test_a_page_size_below_one_is_refused():
    with pytest.raises(ValueError, match="page_size"):
        MCPToolServer(ToolServer(PluginHost()), page_size=0)


# -- RFC 6570 level 2 -------------------------------------------------------------------------------


def templated() -> ToolServer:
    tools = ToolServer(PluginHost())
    tools.add_resource_template(ResourceTemplate("file:///{+path}", "file", lambda v: f"path={v['path']}"))
    tools.add_resource_template(ResourceTemplate("doc://manual{#section}", "section",
                                                 lambda v: f"section={v['section']}"))
    tools.add_resource_template(ResourceTemplate("memo://shelf/{shelf}/item/{id}", "item",
                                                 lambda v: f"item={v['shelf']}/{v['id']}"))
    tools.add_resource_template(ResourceTemplate("logs://{service}{?level}", "logs",
                                                 lambda v: f"logs={v['service']}/{v.get('level', '-')}"))
    return tools


@pytest.mark.parametrize("mode", ERAS)
@pytest.mark.parametrize(("uri", "text"), [
    ("file:///src/pkg/main.py", "path=src/pkg/main.py"),        # {+path} keeps the slashes
    ("file:///notes.txt", "path=notes.txt"),
    ("file:///a%20b/c", "path=a b/c"),                          # values are percent-decoded
    ("doc://manual#install", "section=install"),                 # {#section}: the fragment
    ("doc://manual#a/b", "section=a/b"),
    ("memo://shelf/top/item/42", "item=top/42"),                 # level 1 as before
    ("memo://shelf/a%2Cb/item/1", "item=a,b/1"),
    ("logs://api", "logs=api/-"),                                 # a query parameter may be left out
    ("logs://api?level=error", "logs=api/error"),
    ("logs://api?level=", "logs=api/"),                           # or left empty
])
def test_level_two_templates_match_reserved_and_fragment_expansions(mode, uri, text):
    async def scenario(client: Client) -> Any:
        return await client.read_resource(uri)

    read = served(mode, scenario, templated())

    assert read.contents[0].text == text and str(read.contents[0].uri) == uri


@pytest.mark.parametrize("mode", ERAS)
@pytest.mark.parametrize("uri", [
    "memo://shelf/top/item/42/more",   # a simple variable never crosses a /
    "memo://shelf//item/1",            # nor is it empty
    "file:///../etc/passwd",           # a value that climbs out of its path, as the SDK's server refuses
    "file:///%2E%2E/etc/passwd",
    "file:////etc/passwd",             # an absolute path where a relative one belongs
    "doc://manual",                    # no fragment at all
])
def test_uris_a_template_does_not_serve_are_unknown_resources(mode, uri):
    async def scenario(client: Client) -> Any:
        with pytest.raises(MCPError) as raised:
            await client.read_resource(uri)
        return raised.value

    error = served(mode, scenario, templated())

    assert error.code == -32602 and error.data == {"uri": uri}


def test_a_template_beyond_what_can_be_matched_is_refused_when_registered():
    tools = ToolServer(PluginHost())
    for template in ["memo://{a}{b}", "memo://{+a}/{+b}", "memo://{unclosed"]:
        with pytest.raises(ValueError, match="template"):
            tools.add_resource_template(ResourceTemplate(template, "bad", lambda v: ""))


def test_a_level_two_template_is_listed_and_completed_as_registered():
    tools = templated()
    tools.add_resource_template(ResourceTemplate("repo://{+ref}", "ref", lambda v: v["ref"],
                                                 complete=lambda argument, value, context: [value + "main"]))

    async def scenario(client: Client) -> Any:
        listed = await client.list_resource_templates()
        completed = await client.complete(types.ResourceTemplateReference(type="ref/resource", uri="repo://{+ref}"),
                                          {"name": "ref", "value": "origin/"})
        return listed, completed

    listed, completed = served("2026-07-28", scenario, tools)

    assert "repo://{+ref}" in [t.uri_template for t in listed.resource_templates]
    assert completed.completion.values == ["origin/main"]


def test_a_variable_left_unchecked_may_climb_as_its_template_allows():
    tools = ToolServer(PluginHost())
    tools.add_resource_template(ResourceTemplate("git://diff/{+range}", "diff", lambda v: f"range={v['range']}",
                                                 unchecked=frozenset({"range"})))

    async def scenario(client: Client) -> Any:
        return await client.read_resource("git://diff/main/../feature")

    assert served("legacy", scenario, tools).contents[0].text == "range=main/../feature"
