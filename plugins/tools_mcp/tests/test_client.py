"""The client against a real MCP server process (the SDK 2.x test server over stdio).

Each test starts at most two server processes and bounds every wait: a
broken client fails the test instead of hanging it.
"""

from __future__ import annotations

import asyncio
import base64
import json
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from agentkit_tools_mcp._config import McpConfigError, ServerConfig
from agentkit_tools_mcp.client import McpAuditRecord, set_audit_sink, set_input_handler
from agentkit_tools_mcp.client._connection import ServerConnection, ServerUnavailable
from agentkit_tools_mcp.client._results import to_tool_result
from mcp import InputRequiredRoundsExceededError, MCPError

from .conftest import V2_SERVER

BOUND_S = 60  # no test waits longer than this on anything


def server(name: str = "calc", **fields: Any) -> ServerConfig:
    # A loaded CI box may take long to start Python and import the SDK: connecting is generously bounded.
    fields.setdefault("connect_timeout_s", BOUND_S / 2)
    return ServerConfig(name=name, command=sys.executable, args=(str(V2_SERVER),), **fields)


def run(test: Callable[[], Awaitable[Any]]) -> Any:
    async def bounded() -> Any:
        async with asyncio.timeout(BOUND_S):
            return await test()

    return asyncio.run(bounded())


@pytest.fixture
def audit_records() -> Any:
    records: list[McpAuditRecord] = []
    set_audit_sink(records.append)
    yield records
    set_audit_sink(None)


@pytest.fixture
def answers() -> Any:
    asked: list[Any] = []
    replies: dict[str, Any] = {}

    def handler(request: Any) -> Any:
        asked.append(request)
        return replies.get(request.method)

    set_input_handler(handler)
    yield asked, replies
    set_input_handler(None)


@pytest.mark.parametrize(("era", "version"), [("auto", "2026-07-28"), ("legacy", "2025-11-25"),
                                              ("2026-07-28", "2026-07-28")])
def test_each_era_setting_reaches_the_dual_era_server(era: str, version: str) -> None:
    async def test() -> None:
        connection = ServerConnection(server(era=era))
        try:
            tools = {tool.name for tool in await connection.list_tools()}
            result = await connection.call_tool("add", {"a": 2, "b": 3}, "calc__add")
        finally:
            await connection.close()
        assert {"add", "echo", "big"} <= tools
        assert connection.protocol_version == version
        assert result.structured_content == {"result": 5}

    run(test)


def test_a_transport_error_during_the_probe_is_never_taken_as_era_evidence() -> None:
    """An endpoint that answers every POST with 503 gets the probe only: no fallback to initialize."""
    import http.server
    import threading

    methods: list[str] = []

    class Unavailable(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length", 0)))
            methods.append(json.loads(body).get("method", "?"))
            self.send_response(503)
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    endpoint = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Unavailable)
    threading.Thread(target=endpoint.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{endpoint.server_address[1]}/mcp"

        async def test() -> None:
            connection = ServerConnection(ServerConfig(name="down", url=url, connect_timeout_s=BOUND_S / 2))
            with pytest.raises(ServerUnavailable, match=r"era probe .* with HTTP 503"):
                await connection.list_tools()
            assert connection.protocol_version is None

        run(test)
    finally:
        endpoint.shutdown()
        endpoint.server_close()
    assert methods and set(methods) == {"server/discover"}


def test_the_stdio_server_gets_the_reduced_environment_and_its_entry_s_env() -> None:
    parent = {"PATH": "/usr/bin:/bin", "HOME": "/tmp", "AGENTKIT_TEST_SECRET_VALUE": "s3cr3t-value-kept-back",
              "TOKEN_FOR_SERVER": "given-to-the-server"}

    async def test() -> tuple[str, str]:
        config = server(env={"SERVER_TOKEN": "${TOKEN_FOR_SERVER}"})
        connection = ServerConnection(config, environ={**parent, "PATH": __import__("os").environ["PATH"]})
        try:
            kept_back = await connection.call_tool("env", {"name": "AGENTKIT_TEST_SECRET_VALUE"}, "calc__env")
            given = await connection.call_tool("env", {"name": "SERVER_TOKEN"}, "calc__env")
        finally:
            await connection.close()
        return kept_back.content[0].text, given.content[0].text

    assert run(test) == ("<unset>", "given-to-the-server")


def test_variables_are_read_when_the_server_is_started_not_when_the_connection_is_made(
        monkeypatch: pytest.MonkeyPatch) -> None:
    connection = ServerConnection(server(env={"LATE": "${AGENTKIT_SET_AFTER_CONFIGURING}"}))
    monkeypatch.setenv("AGENTKIT_SET_AFTER_CONFIGURING", "set-late")

    async def test() -> str:
        try:
            return (await connection.call_tool("env", {"name": "LATE"}, "calc__env")).content[0].text
        finally:
            await connection.close()

    assert run(test) == "set-late"


def test_an_unset_variable_is_a_configuration_error_at_spawn_naming_it() -> None:
    async def test() -> None:
        connection = ServerConnection(server(env={"T": "${AGENTKIT_UNSET_FOR_TEST}"}), environ={})
        await connection.list_tools()

    with pytest.raises(McpConfigError, match=r"\$\{AGENTKIT_UNSET_FOR_TEST\} is not set"):
        run(test)


def test_a_dead_server_is_an_error_then_a_bounded_number_of_reconnects(audit_records: list[Any]) -> None:
    async def test() -> list[str]:
        connection = ServerConnection(server(reconnect_limit=1))
        outcomes = []
        try:
            for tool in ("crash", "echo", "crash", "echo"):
                try:
                    await connection.call_tool(tool, {"text": "hi"} if tool == "echo" else {}, f"calc__{tool}")
                    outcomes.append(f"{tool}:ok")
                except ServerUnavailable as exc:
                    outcomes.append(f"{tool}:{'limit' if 'reconnect_limit' in str(exc) else 'down'}")
        finally:
            await connection.close()
        assert connection.reconnects == 1
        return outcomes

    # first crash: down; echo reconnects (1 of 1); second crash: down; echo: the limit is spent
    assert run(test) == ["crash:down", "echo:ok", "crash:down", "echo:limit"]
    calls = [record for record in audit_records if record.kind == "call"]
    assert [record.is_error for record in calls] == [True, False, True, True]


def test_calls_racing_a_crash_reconnect_once_and_a_stale_failure_never_drops_the_new_connection() -> None:
    async def test() -> None:
        connection = ServerConnection(server(reconnect_limit=1))
        try:
            await connection.list_tools()
            calls = [connection.call_tool("echo", {"text": str(n)}, "calc__echo") for n in range(4)]
            outcomes = await asyncio.gather(connection.call_tool("crash", {}, "calc__crash"), *calls,
                                            return_exceptions=True)
            for outcome in outcomes:  # each call ends: a result, or the server's absence said in words
                assert isinstance(outcome, ServerUnavailable | MCPError) or not outcome.is_error, outcome
            after = await connection.call_tool("echo", {"text": "after"}, "calc__echo")
            assert after.content[0].text == "after"
            assert connection.reconnects == 1
        finally:
            await connection.close()

    run(test)


def test_a_server_that_never_starts_is_tried_a_bounded_number_of_times() -> None:
    async def test() -> list[str]:
        config = ServerConfig(name="gone", command=sys.executable, args=("-c", "raise SystemExit(1)"),
                              reconnect_limit=2)
        connection = ServerConnection(config)
        outcomes = []
        for _ in range(5):
            try:
                await connection.call_tool("echo", {}, "gone__echo")
            except ServerUnavailable as exc:
                outcomes.append("limit" if "reconnect_limit" in str(exc) else "down")
        return outcomes

    assert run(test) == ["down", "down", "down", "limit", "limit"]


def test_a_hung_server_is_answered_with_an_error_at_its_deadline_and_replaced() -> None:
    async def test() -> str:
        # 'hang' never answers; 'echo', on the new connection (its start is bounded apart), needs milliseconds.
        connection = ServerConnection(server(timeout_s=2.0))
        try:
            with pytest.raises(ServerUnavailable, match="within 2 s"):
                await connection.call_tool("hang", {}, "calc__hang")
            result = await connection.call_tool("echo", {"text": "back"}, "calc__echo")
        finally:
            await connection.close()
        assert connection.reconnects == 1
        return result.content[0].text

    assert run(test) == "back"


def test_the_per_session_call_limit_refuses_calls_beyond_it() -> None:
    async def test() -> None:
        connection = ServerConnection(server(per_session_call_limit=2))
        try:
            for _ in range(2):
                await connection.call_tool("echo", {"text": "x"}, "calc__echo")
            with pytest.raises(ServerUnavailable, match="per_session_call_limit"):
                await connection.call_tool("echo", {"text": "x"}, "calc__echo")
        finally:
            await connection.close()

    run(test)


def test_every_call_is_audited_with_server_tool_hash_and_error_never_the_arguments(audit_records: list[Any]) -> None:
    sentinel = "ARGUMENT-TEXT-THAT-MUST-NEVER-REACH-THE-AUDIT"

    async def test() -> None:
        connection = ServerConnection(server())
        try:
            await connection.call_tool("echo", {"text": sentinel}, "calc__echo")
            await connection.call_tool("fail", {}, "calc__fail")
        finally:
            await connection.close()

    run(test)
    connect, echo, fail = audit_records
    assert (connect.kind, connect.era, connect.protocol_version) == ("connect", "modern", "2026-07-28")
    assert (echo.server, echo.tool, echo.qualified_name, echo.is_error) == ("calc", "echo", "calc__echo", False)
    assert (fail.tool, fail.is_error) == ("fail", True)
    assert len(echo.arguments_sha256 or "") == 64 and echo.arguments_sha256 != fail.arguments_sha256
    assert sentinel not in json.dumps([record.to_dict() for record in audit_records])


@pytest.mark.parametrize("era", ["auto", "legacy"])
def test_an_elicitation_goes_to_the_embedder_s_handler(era: str, answers: Any) -> None:
    asked, replies = answers
    replies["elicitation/create"] = {"action": "accept", "content": {"ok": True}}

    async def test() -> str:
        connection = ServerConnection(server(era=era))
        try:
            result = await connection.call_tool("confirm", {}, "calc__confirm")
        finally:
            await connection.close()
        return result.content[0].text

    assert run(test) == "confirmed=True"
    [request] = asked
    assert (request.server, request.method, request.params["message"]) == ("calc", "elicitation/create",
                                                                            "Really do it?")


def test_without_a_handler_an_elicitation_is_declined() -> None:
    async def test() -> bool:
        connection = ServerConnection(server())
        try:
            return bool((await connection.call_tool("confirm", {}, "calc__confirm")).is_error)
        finally:
            await connection.close()

    assert run(test) is True


def test_input_required_rounds_are_bounded_to_three(answers: Any) -> None:
    asked, replies = answers
    replies["elicitation/create"] = {"action": "accept", "content": {"ok": True}}

    async def test() -> None:
        connection = ServerConnection(server())
        try:
            await connection.call_tool("four_questions", {}, "calc__four_questions")
        finally:
            await connection.close()

    with pytest.raises(InputRequiredRoundsExceededError, match="3 rounds"):
        run(test)
    assert len(asked) == 3


@pytest.mark.parametrize("era", ["auto", "legacy"])
def test_sampling_is_refused_unless_the_entry_allows_it(era: str, answers: Any, audit_records: list[Any]) -> None:
    asked, replies = answers
    replies["sampling/createMessage"] = {"role": "assistant", "model": "test-model",
                                         "content": {"type": "text", "text": "hi there"}}

    async def call(allow: bool) -> Any:
        connection = ServerConnection(server(era=era, allow_sampling=allow))
        try:
            return await connection.call_tool("summarize", {}, "calc__summarize")
        except Exception as exc:  # a modern server refuses before running: an MCP error
            return exc
        finally:
            await connection.close()

    refused = run(lambda: call(False))
    assert getattr(refused, "is_error", True) is True
    assert asked == [] and not [r for r in audit_records if r.kind == "sampling"]

    allowed = run(lambda: call(True))
    assert allowed.content[0].text == "sampled: hi there"
    [sampling] = [record for record in audit_records if record.kind == "sampling"]
    assert (sampling.server, sampling.is_error) == ("calc", False)


def test_a_tool_added_mid_session_is_listed_after_the_list_changed_notice() -> None:
    async def test() -> set[str]:
        connection = ServerConnection(server())
        try:
            assert "late" not in {tool.name for tool in await connection.list_tools()}
            await connection.call_tool("grow", {}, "calc__grow")
            assert connection.tools_changed is not None
            await asyncio.wait_for(connection.tools_changed.wait(), BOUND_S / 2)
            return {tool.name for tool in await connection.list_tools()}
        finally:
            await connection.close()

    assert "late" in run(test)


class _Result:
    def __init__(self, content: list[Any], structured: Any = None, is_error: bool = False) -> None:
        self.content, self.structured_content, self.is_error = content, structured, is_error


class _Text:
    type = "text"

    def __init__(self, text: str) -> None:
        self.text = text


def test_results_are_capped_across_the_whole_result_with_a_note() -> None:
    whole = to_tool_result(_Result([_Text("a" * 30_000), _Text("b" * 30_000)]))
    text = whole.data
    assert len(text) < 50_000 + 300 and text.startswith("a" * 30_000)
    assert "[truncated: the result had 60,001 characters; the first 50,000 are shown" in text
    assert whole.metadata["truncated"] is True

    structured = to_tool_result(_Result([_Text("t" * 100)], structured={"rows": ["r" * 60_000]}))
    assert isinstance(structured.data, str) and "[truncated" in structured.data and len(structured.data) < 50_300

    small = to_tool_result(_Result([_Text("fine")], structured={"n": 1}))
    assert small.data == {"text": "fine", "structured": {"n": 1}} and small.metadata["truncated"] is False


def test_a_large_result_from_a_real_server_reaches_the_model_capped() -> None:
    async def test() -> Any:
        connection = ServerConnection(server())
        try:
            return await connection.call_tool("big", {"size": 120_000}, "calc__big")
        finally:
            await connection.close()

    result = to_tool_result(run(test))
    assert result.ok and len(result.to_text()) < 50_000 + 400 and "[truncated" in result.data


def test_images_become_image_blocks_and_errors_error_results() -> None:
    async def test() -> tuple[Any, Any]:
        connection = ServerConnection(server())
        try:
            return (await connection.call_tool("picture", {}, "calc__picture"),
                    await connection.call_tool("fail", {}, "calc__fail"))
        finally:
            await connection.close()

    picture, failure = (to_tool_result(result) for result in run(test))
    [image] = picture.images
    assert image.mime_type == "image/png" and image.data
    assert not failure.ok and failure.error == "mcp_tool_error" and "Error executing tool fail" in (failure.detail or "")


@pytest.mark.parametrize("era", ["auto", "legacy"])
def test_audio_and_embedded_resources_are_named_or_shown_never_their_base64(era: str) -> None:
    async def test() -> Any:
        connection = ServerConnection(server(era=era))
        try:
            return await connection.call_tool("media", {}, "calc__media")
        finally:
            await connection.close()

    raw = run(test)
    result = to_tool_result(raw)
    assert result.ok and isinstance(result.data, str)
    lines = result.data.splitlines()
    assert lines[0] == ("[audio (audio/wav, 1,000 bytes) not shown: agentkit passes no audio from tools "
                        "to the model]")
    assert lines[1:4] == ["[resource memo://notes (text/markdown)]", "# Notes", "kept in the server"]
    assert lines[4] == "[embedded resource memo://report.pdf (application/pdf, 2,048 bytes) not shown]"
    [picture] = result.images
    assert (picture.mime_type, base64.b64decode(picture.data)) == ("image/png", bytes.fromhex("89504e470d0a1a0a"))
    for block in raw.content:  # no base64 payload reaches the model's text
        payload = getattr(block, "data", None) or getattr(getattr(block, "resource", None), "blob", None)
        assert payload is None or payload not in result.data


class _Blob:
    type = "resource"

    def __init__(self, uri: str, mime_type: str | None, blob: str | None = None, text: str | None = None) -> None:
        self.resource = type("Contents", (), {"uri": uri, "mime_type": mime_type, "blob": blob, "text": text})()


def test_an_image_blob_the_host_cannot_decode_is_named_not_shown_and_the_cap_holds_across_resources() -> None:
    svg = b"<svg xmlns='http://www.w3.org/2000/svg'/>" * 10
    mixed = to_tool_result(_Result([_Blob("memo://logo.svg", "image/svg+xml", blob=base64.b64encode(svg).decode()),
                                    _Blob("memo://raw", None, blob="AAAA")]))
    assert mixed.images == []
    assert mixed.data == (f"[embedded resource memo://logo.svg (image/svg+xml, {len(svg)} bytes) not shown]\n"
                          "[embedded resource memo://raw (application/octet-stream, 3 bytes) not shown]")

    capped = to_tool_result(_Result([_Text("a" * 30_000), _Blob("memo://long", "text/plain", text="b" * 30_000)]))
    assert capped.metadata["truncated"] is True and len(capped.data) < 50_000 + 300
    assert "[resource memo://long (text/plain)]" in capped.data and "[truncated" in capped.data


def test_structured_content_that_the_text_repeats_reaches_the_model_and_the_cap_once() -> None:
    rows = {"rows": [f"row {index:05d} " + "z" * 20 for index in range(1_000)]}  # 33,000 characters as JSON
    # A server repeats its structured content as text (the spec's SHOULD), here pretty-printed as server-memory does.
    repeated = to_tool_result(_Result([_Text(json.dumps(rows, indent=2))], rows))
    assert repeated.metadata["truncated"] is False
    assert repeated.data == {"structured": rows}
    assert repeated.to_text().count("row 00999") == 1

    # The SDK's server wraps a value that is not an object as {"result": value}; server-memory names its list.
    assert to_tool_result(_Result([_Text("5")], {"result": 5})).data == {"structured": {"result": 5}}
    assert to_tool_result(_Result([_Text("Sunny")], {"result": "Sunny"})).data == {"structured": {"result": "Sunny"}}
    entities = [{"name": "Ada", "entityType": "person", "observations": []}]
    assert to_tool_result(_Result([_Text(json.dumps(entities))], {"entities": entities})).data == {
        "structured": {"entities": entities}}

    # Text that says something else is kept beside it; so is the text of an error.
    both = to_tool_result(_Result([_Text("Added."), _Text("5")], {"result": 5}))
    assert both.data == {"text": "Added.", "structured": {"result": 5}}
    assert to_tool_result(_Result([_Text("no")], {"a": 1})).data == {"text": "no", "structured": {"a": 1}}
    failed = to_tool_result(_Result([_Text('{"a": 1}')], {"a": 1}, is_error=True))
    assert failed.detail == '{"a": 1}'
