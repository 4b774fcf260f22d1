"""Every MCP call reaches the host's audit trail (the embedder's sink and the session log), never its arguments."""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path
from typing import Any

import pytest
import tomli_w
from agentkit_provider_faux import Script, Turn, text, tool_call
from agentkit_tools_mcp._config import user_config_file

from agentkit.host import Agent, AgentConfig, AuditRecord, Connection, JsonlAuditSink, PluginHost
from agentkit.host.sessions import JsonlSessionStore, Session

from .conftest import v2_stdio_entry

# Long and distinctive: it cannot turn up by chance in ids, hashes or timestamps.
SECRET = "correct-horse-battery-staple-" + "Wm5" * 40


def configure(*entries: dict[str, Any]) -> None:
    # the user's own file: a project's servers need trust (test_project_trust.py)
    user_config_file().write_text(tomli_w.dumps({"mcp": {"servers": list(entries)}}), encoding="utf-8")


def compact_sha256(arguments: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(arguments, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def audit_entries(session: Session) -> list[dict[str, Any]]:
    return [entry.data["data"] for entry in Session.open(session.id, session.store).entries
            if entry.type == "custom" and entry.data["custom_type"] == "audit"]


@pytest.mark.parametrize(("era", "version"), [("auto", "2026-07-28"), ("legacy", "2025-11-25")])
def test_an_mcp_call_reaches_the_embedders_sink_and_the_session_log_without_its_arguments(
        config_home: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture, era: str, version: str) -> None:
    import agentkit_tools_mcp

    configure(v2_stdio_entry("calc", era=era))
    caplog.set_level(logging.INFO, logger="agentkit.mcp.audit")
    plugin_records: list[Any] = []
    agentkit_tools_mcp.set_audit_sink(plugin_records.append)  # still served, beside the host's trail
    try:
        host = PluginHost.discover()
        session = Session.new(JsonlSessionStore(tmp_path / "sessions"), cwd=Path.cwd())
        seen: list[AuditRecord] = []
        jsonl = JsonlAuditSink(tmp_path / "audit.jsonl")
        arguments = {"text": SECRET}
        script = Script([Turn([tool_call("calc__echo", arguments, id="c1")]),
                         Turn([tool_call("calc__fail", {}, id="c2")]), Turn([text("Done.")])])
        agent = Agent(AgentConfig(model="faux/scripted", root=Path.cwd(), tools=["calc__echo", "calc__fail"],
                                  connection=Connection(transport=script),
                                  audit=lambda record: (seen.append(record), jsonl.record(record))),
                      host=host, session=session)
        result = agent.run_sync("Say it, then fail.")
    finally:
        agentkit_tools_mcp.set_audit_sink(None)

    assert result.outcome == "completed" and result.problems == []
    assert [record.kind for record in seen] == ["session_start", "mcp.call", "tool_call", "mcp.call", "tool_call",
                                                "session_end"]
    assert seen[0].mcp_servers == ({"name": "calc", "transport": "stdio", "era": "modern" if era == "auto" else "legacy",
                                    "protocol_version": version},)
    echo, failed = seen[1], seen[3]
    assert (echo.plugin, echo.tool_name, echo.tool_call_id) == ("mcp", "calc__echo", "c1")
    assert echo.details is not None and failed.details is not None
    assert (echo.details["server"], echo.details["tool"], echo.details["is_error"]) == ("calc", "echo", False)
    assert echo.details["arguments_sha256"] == compact_sha256(arguments)
    assert echo.details["protocol_version"] == version
    assert (failed.tool_call_id, failed.details["tool"], failed.details["is_error"]) == ("c2", "fail", True)
    assert seen[4].is_error is True

    # The same records, in the same order, in the session log; the arguments in none of them, anywhere.
    assert audit_entries(session) == [record.to_dict() for record in seen]
    assert all(SECRET not in json.dumps(record.to_dict()) for record in seen)
    assert SECRET.encode() not in (tmp_path / "audit.jsonl").read_bytes()
    assert SECRET not in caplog.text
    assert SECRET in json.dumps(result.messages[1].to_dict())  # planted where the model put it, so the checks mean something
    # An embedder that set the plugin's own sink still gets its records.
    assert [record.kind for record in plugin_records if record.kind == "call"] == ["call", "call"]


def test_an_mcp_call_without_the_plugin_sink_is_audited_by_the_host_and_logged(
        config_home: Path, caplog: pytest.LogCaptureFixture) -> None:
    configure(v2_stdio_entry("calc"))
    caplog.set_level(logging.INFO, logger="agentkit.mcp.audit")
    seen: list[AuditRecord] = []
    script = Script([Turn([tool_call("calc__add", {"a": 1, "b": 2})]), Turn([text("3")])])
    agent = Agent(AgentConfig(model="faux/scripted", root=Path.cwd(), tools=["calc__add"], audit=seen.append,
                              connection=Connection(transport=script)),
                  host=PluginHost.discover())
    agent.run_sync("add")

    assert [record.kind for record in seen].count("mcp.call") == 1
    assert '"kind": "call"' in caplog.text  # the plugin's logger keeps its record, as before


def test_the_start_record_lists_only_the_servers_behind_the_agents_tools(config_home: Path) -> None:
    configure(v2_stdio_entry("calc"))
    host = PluginHost.discover()
    seen: list[AuditRecord] = []
    script = Script([Turn([text("nothing to call")])])
    agent = Agent(AgentConfig(model="faux/scripted", root=Path.cwd(), tools=["mcp_servers"], audit=seen.append,
                              connection=Connection(transport=script)), host=host)
    agent.run_sync("hello")

    assert seen[0].kind == "session_start" and seen[0].mcp_servers == ()


@pytest.mark.parametrize("failure", [RuntimeError("sink bug"), KeyboardInterrupt()])
def test_a_sink_that_raises_on_mcp_records_never_changes_the_run(config_home: Path, failure: BaseException) -> None:
    configure(v2_stdio_entry("calc"))
    host = PluginHost.discover()

    def run(audit: Any) -> Any:
        script = Script([Turn([tool_call("calc__add", {"a": 20, "b": 22})]), Turn([text("It is 42.")])])
        agent = Agent(AgentConfig(model="faux/scripted", root=Path.cwd(), tools=["calc__add"], audit=audit,
                                  connection=Connection(transport=script)), host=host)
        return agent.run_sync("What is 20 + 22?")

    def broken(record: AuditRecord) -> None:
        if record.kind == "mcp.call":
            raise failure

    steady, shaken = run(lambda record: None), run(broken)
    assert shaken.outcome == steady.outcome == "completed"
    assert [message.text for message in shaken.messages] == [message.text for message in steady.messages]
    assert shaken.problems == [f"the audit sink raised {type(failure).__name__}: {failure}; the mcp.call record "
                               "was not kept"]


def test_parallel_calls_each_get_their_own_record_before_their_result(config_home: Path) -> None:
    configure(v2_stdio_entry("calc"))
    calls = {f"c{index}": {"a": index, "b": 100 * index} for index in range(1, 7)}
    seen: list[AuditRecord] = []
    script = Script([Turn([tool_call("calc__add", arguments, id=call_id) for call_id, arguments in calls.items()]),
                     Turn([text("Done.")])])
    agent = Agent(AgentConfig(model="faux/scripted", root=Path.cwd(), tools=["calc__add"], audit=seen.append,
                              connection=Connection(transport=script)), host=PluginHost.discover())
    result = agent.run_sync("Add them all at once.")

    assert result.outcome == "completed"
    mcp_calls = {record.tool_call_id: record for record in seen if record.kind == "mcp.call"}
    assert set(mcp_calls) == set(calls)
    for call_id, arguments in calls.items():  # never another call's hash: each record is its own call's
        details = mcp_calls[call_id].details
        assert details is not None and details["arguments_sha256"] == compact_sha256(arguments)
    order = [(record.kind, record.tool_call_id) for record in seen]
    assert all(order.index(("mcp.call", call_id)) < order.index(("tool_call", call_id)) for call_id in calls)


def test_a_call_the_agent_gives_up_on_is_still_recorded_as_made() -> None:
    """The agent's deadline or abort cancels the handler, and so the call on the pool's loop: it was made all the same."""
    import asyncio
    import sys

    from agentkit_tools_mcp._config import ServerConfig
    from agentkit_tools_mcp.client._connection import ServerConnection

    from .conftest import V2_SERVER

    reported: list[tuple[str, dict[str, Any]]] = []

    async def scenario() -> None:
        connection = ServerConnection(ServerConfig(name="calc", command=sys.executable, args=(str(V2_SERVER),),
                                                   connect_timeout_s=30))
        try:
            await connection.connect()
            call = asyncio.ensure_future(connection.call_tool("hang", {"x": SECRET}, "calc__hang",
                                                              lambda kind, **fields: reported.append((kind, fields))))
            await asyncio.sleep(0)  # connected and unlocked: the call runs until it waits for the server's answer
            call.cancel()
            with pytest.raises(asyncio.CancelledError):
                await call
        finally:
            await connection.close()

    asyncio.run(asyncio.wait_for(scenario(), 60))
    [(kind, fields)] = reported
    assert (kind, fields["tool"], fields["is_error"], fields["detail"]) == ("call", "hang", True, "cancelled")
    assert SECRET not in json.dumps(fields)


@pytest.mark.parametrize(("era", "version"), [("auto", "2026-07-28"), ("legacy", "2025-11-25")])
def test_a_server_s_questions_reach_the_trail_as_hashes_never_their_content(
        config_home: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture, era: str, version: str) -> None:
    """The question (planted in the server's elicitation) and the answer (the sampled text) are in no record."""
    import agentkit_tools_mcp

    question, answer = f"Really? {SECRET}", f"hi there, {SECRET[::-1]}"
    configure(v2_stdio_entry("calc", era=era, allow_sampling=True, env={"AGENTKIT_TEST_QUESTION": question}))
    caplog.set_level(logging.INFO, logger="agentkit.mcp.audit")
    asked: list[Any] = []

    def handler(request: Any) -> Any:
        asked.append(request)
        if request.method == "elicitation/create":
            return {"action": "accept", "content": {"ok": True}}
        return {"role": "assistant", "model": "test-model", "content": {"type": "text", "text": answer}}

    agentkit_tools_mcp.set_input_handler(handler)
    plugin_records: list[Any] = []
    agentkit_tools_mcp.set_audit_sink(plugin_records.append)
    try:
        session = Session.new(JsonlSessionStore(tmp_path / "sessions"), cwd=Path.cwd())
        seen: list[AuditRecord] = []
        script = Script([Turn([tool_call("calc__confirm", {}, id="c1")]),
                         Turn([tool_call("calc__summarize", {}, id="c2")]), Turn([text("Done.")])])
        agent = Agent(AgentConfig(model="faux/scripted", root=Path.cwd(), tools=["calc__confirm", "calc__summarize"],
                                  connection=Connection(transport=script),
                                  audit=seen.append), host=PluginHost.discover(), session=session)
        result = agent.run_sync("Confirm, then summarize.")
    finally:
        agentkit_tools_mcp.set_input_handler(None)
        agentkit_tools_mcp.set_audit_sink(None)

    assert result.outcome == "completed" and result.problems == []
    assert [(record.kind, record.tool_call_id) for record in seen] == [
        ("session_start", None), ("mcp.input", "c1"), ("mcp.call", "c1"), ("tool_call", "c1"),
        ("mcp.input", "c2"), ("mcp.sampling", "c2"), ("mcp.call", "c2"), ("tool_call", "c2"), ("session_end", None)]
    elicited, sampled = seen[1].details, seen[5].details
    assert elicited is not None and sampled is not None
    assert (elicited["server"], elicited["tool"], elicited["detail"], elicited["is_error"]) == (
        "calc", "confirm", "elicitation/create", False)
    assert (sampled["tool"], sampled["protocol_version"], sampled["is_error"]) == ("summarize", version, False)
    assert len(elicited["request_sha256"]) == 64 and elicited["request_sha256"] != sampled["request_sha256"]

    # Planted where the server asked and where the embedder answered, so the checks below mean something.
    assert question in json.dumps(asked[0].params) and answer in json.dumps([m.to_dict() for m in result.messages])
    for planted in (SECRET, SECRET[::-1]):
        assert all(planted not in json.dumps(record.to_dict()) for record in seen)
        assert planted not in json.dumps(audit_entries(session))
        assert planted not in json.dumps([record.to_dict() for record in plugin_records])
        assert planted not in caplog.text
    assert {record.kind for record in plugin_records} >= {"input", "sampling", "call"}


def test_questions_of_parallel_calls_are_each_recorded_with_the_call_that_asked(config_home: Path) -> None:
    """On the modern era each question comes back inside its own call: parallel calls never swap records."""
    import agentkit_tools_mcp

    configure(v2_stdio_entry("calc", allow_sampling=True))
    agentkit_tools_mcp.set_input_handler(lambda request: (
        {"action": "accept", "content": {"ok": True}} if request.method == "elicitation/create"
        else {"role": "assistant", "model": "m", "content": {"type": "text", "text": "hi"}}))
    try:
        calls = {f"e{n}": "calc__confirm" for n in range(3)} | {f"s{n}": "calc__summarize" for n in range(3)}
        seen: list[AuditRecord] = []
        script = Script([Turn([tool_call(name, {}, id=call_id) for call_id, name in calls.items()]),
                         Turn([text("Done.")])])
        agent = Agent(AgentConfig(model="faux/scripted", root=Path.cwd(), tools=sorted(set(calls.values())),
                                  connection=Connection(transport=script),
                                  audit=seen.append), host=PluginHost.discover())
        assert agent.run_sync("All at once.").outcome == "completed"
    finally:
        agentkit_tools_mcp.set_input_handler(None)

    questions = [record for record in seen if record.kind in ("mcp.input", "mcp.sampling")]
    assert len(questions) == 9  # one elicitation per confirm; an input and a sampling record per summarize
    for record in questions:
        assert record.details is not None and f"calc__{record.details['tool']}" == calls[record.tool_call_id or ""]


def test_an_agent_giving_up_on_a_handler_cancels_its_call_on_the_pools_loop(tmp_path: Path) -> None:
    """The handler waits on the agent's loop for a call on the pool's: cancelling the wait cancels the call."""
    import asyncio
    import sys
    import time

    from agentkit_tools_mcp._config import ServerConfig
    from agentkit_tools_mcp.client._pool import ServerPool
    from agentkit_tools_mcp.client._tools import agent_tools

    from agentkit.plugin_api import ToolContext

    from .conftest import V2_SERVER

    records: list[tuple[str, dict[str, Any]]] = []
    pool = ServerPool([ServerConfig(name="calc", command=sys.executable, args=(str(V2_SERVER),),
                                    connect_timeout_s=60)])
    try:
        tools = {tool.name: tool for tool in agent_tools(pool, pool.list_all())}
        context = ToolContext(root=tmp_path, audit=lambda kind, **fields: records.append((kind, fields)))

        async def give_up() -> None:
            with pytest.raises(TimeoutError):  # the agent's deadline, far shorter than the entry's timeout_s
                await asyncio.wait_for(tools["calc__hang"].handler({"x": 1}, context), 1.0)

        asyncio.run(give_up())
        for _ in range(600):  # the record is written on the pool's loop once the cancelled call has ended there
            if records:
                break
            time.sleep(0.05)
        assert [(kind, fields["detail"]) for kind, fields in records] == [("call", "cancelled")]
    finally:
        pool.close()
