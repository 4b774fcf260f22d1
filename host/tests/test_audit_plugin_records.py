"""A tool's plugin adds records to the run's audit trail through ``ToolContext.audit``, stamped by the host."""

from __future__ import annotations

import json
import tempfile
import threading
from pathlib import Path
from typing import Any

import pytest
from agentkit_provider_faux import Script, Turn, text, tool_call
from host_helpers import ToolsPlugin, make_host
from hypothesis import example, given, settings
from hypothesis import strategies as st

from agentkit.host import Agent, AgentConfig, AuditRecord, Connection, Trust, allow_all
from agentkit.host.sessions import JsonlSessionStore, Session
from agentkit.plugin_api import Tool, ToolContext, ToolResult

# Long and distinctive: it cannot turn up by chance in ids, hashes or timestamps.
SECRET = "correct-horse-battery-staple-" + "Qx8" * 40


THREADS: set[int] = set()  # the threads the sink was called on


def lookup_sync(key: str, context: ToolContext) -> str:
    """Look a key up (a worker thread: the record is handed to the run's loop)."""
    assert context.audit is not None
    context.audit("lookup", found=True, size=3, ratio=0.5, note=None, where="thread")
    return "value"


async def lookup_async(key: str, context: ToolContext) -> str:
    """Look a key up (on the run's loop)."""
    assert context.audit is not None
    context.audit("lookup", found=False, where="loop")
    return "value"


def agent_with(turns: list[Turn], *tools: Tool, **config: Any) -> tuple[Agent, list[AuditRecord]]:
    seen: list[AuditRecord] = []
    config.setdefault("audit", lambda record: (seen.append(record), THREADS.add(threading.get_ident())))
    host = make_host(ToolsPlugin(*tools))
    config.setdefault("trust", Trust(before_tool_call=allow_all))
    agent = Agent(AgentConfig(model="faux/scripted", connection=Connection(transport=Script(turns)), **config),
                  host=host)
    return agent, seen


def test_a_plugin_record_is_named_after_the_plugin_and_stamped_with_the_call_from_either_thread() -> None:
    agent, seen = agent_with(
        [Turn([tool_call("lookup_sync", {"key": SECRET}, id="c1")]),
         Turn([tool_call("lookup_async", {"key": SECRET}, id="c2")]), Turn([text("done")])],
        Tool.from_function(lookup_sync), Tool.from_function(lookup_async))
    THREADS.clear()
    result = agent.run_sync("go")

    assert result.outcome == "completed" and result.problems == []
    assert len(THREADS) == 1  # the loop's thread only, though one record was made in a worker thread
    assert [record.kind for record in seen] == ["session_start", "plugin0.lookup", "tool_call",
                                                "plugin0.lookup", "tool_call", "session_end"]
    threaded, looped = seen[1], seen[3]
    assert (threaded.plugin, threaded.tool_name, threaded.tool_call_id) == ("plugin0", "lookup_sync", "c1")
    assert threaded.details == {"found": True, "size": 3, "ratio": 0.5, "note": None, "where": "thread"}
    assert (looped.plugin, looped.tool_name, looped.tool_call_id) == ("plugin0", "lookup_async", "c2")
    assert looped.details == {"found": False, "where": "loop"}
    assert {record.run_id for record in seen} == {seen[0].run_id}
    assert {record.session_id for record in seen} == {agent.session_id}
    assert all(SECRET not in json.dumps(record.to_dict()) for record in seen)


def test_a_tool_given_in_code_is_stamped_embedder() -> None:
    seen: list[AuditRecord] = []
    agent = Agent(AgentConfig(model="faux/scripted",
                              connection=Connection(transport=Script([Turn([tool_call("lookup_async", {"key": "k"})]),
                                                                       Turn([text("done")])])),
                              tools=["lookup_async"], extra_tools=[Tool.from_function(lookup_async)], audit=seen.append),
                  host=make_host())
    agent.run_sync("go")
    assert [(record.kind, record.plugin) for record in seen if record.plugin] == [("embedder.lookup", "embedder")]


def test_plugin_records_join_the_session_log_with_the_others(tmp_path: Path) -> None:
    store = JsonlSessionStore(tmp_path)
    session = Session.new(store, cwd=tmp_path)
    seen: list[AuditRecord] = []
    script = Script([Turn([tool_call("lookup_sync", {"key": SECRET})]), Turn([text("ok")])])
    agent = Agent(AgentConfig(model="faux/scripted", trust=Trust(before_tool_call=allow_all), audit=seen.append,
                              connection=Connection(transport=script)),
                  host=make_host(ToolsPlugin(Tool.from_function(lookup_sync))), session=session)
    agent.run_sync("go")

    logged = [entry.data["data"] for entry in Session.open(session.id, store).entries
              if entry.type == "custom" and entry.data["custom_type"] == "audit"]
    assert logged == [record.to_dict() for record in seen]
    assert logged[1]["kind"] == "plugin0.lookup" and logged[1]["details"]["where"] == "thread"


@pytest.mark.parametrize("misuse", [
    lambda audit: audit("tool_call.x"),                  # a kind that is not an identifier
    lambda audit: audit("call", kind="tool_call"),      # a field the host stamps
    lambda audit: audit("call", run_id="forged"),
    lambda audit: audit("call", arguments={"a": 1}),    # not a scalar: the arguments do not fit
    lambda audit: audit("call", Bad=1),
])
@pytest.mark.parametrize("kept", [True, False])
def test_misuse_raises_in_the_plugin_and_forges_nothing(misuse: Any, kept: bool) -> None:
    def misuses(context: ToolContext) -> str:
        """Misuse the audit."""
        misuse(context.audit)
        return "not reached"

    agent, seen = agent_with([Turn([tool_call("misuses", {})]), Turn([text("done")])], Tool.from_function(misuses),
                             **({} if kept else {"audit": None}))
    result = agent.run_sync("go")

    assert result.outcome == "completed"
    answer = json.loads(result.messages[2].text)
    assert answer["ok"] is False and "ToolContext.audit" in answer["detail"]
    assert [record.kind for record in seen] == (["session_start", "tool_call", "session_end"] if kept else [])


def test_a_sink_that_raises_on_plugin_records_never_changes_the_run() -> None:
    def broken(record: AuditRecord) -> None:
        if record.plugin:
            raise RuntimeError("sink bug")

    agent, _ = agent_with([Turn([tool_call("lookup_sync", {"key": "k"})]), Turn([text("done")])],
                          Tool.from_function(lookup_sync), audit=broken)
    result = agent.run_sync("go")

    assert result.outcome == "completed" and json.loads(result.messages[2].text) == {"ok": True, "data": "value"}
    assert result.problems == ["the audit sink raised RuntimeError: sink bug; the plugin0.lookup record was not kept"]


def test_a_record_made_after_the_run_ended_is_dropped() -> None:
    kept: list[ToolContext] = []

    def remember(context: ToolContext) -> ToolResult:
        """Keep the context for later."""
        kept.append(context)
        return ToolResult.success("ok")

    agent, seen = agent_with([Turn([tool_call("remember", {})]), Turn([text("done")])], Tool.from_function(remember))
    agent.run_sync("go")
    before = list(seen)
    assert kept[0].audit is not None
    kept[0].audit("late", where="after")  # the run's loop is closed: never raises, never records

    assert seen == before and seen[-1].kind == "session_end"


def test_sessions_show_prints_a_plugin_record(agentkit: Any, tmp_path: Path) -> None:
    store = JsonlSessionStore(tmp_path / "data" / "sessions")
    session = Session.new(store, cwd=tmp_path)
    script = Script([Turn([tool_call("lookup_async", {"key": SECRET})]), Turn([text("ok")])])
    agent = Agent(AgentConfig(model="faux/scripted", trust=Trust(before_tool_call=allow_all),
                              audit=lambda record: None,
                              connection=Connection(transport=script)),
                  host=make_host(ToolsPlugin(Tool.from_function(lookup_async))), session=session)
    agent.run_sync("go")

    shown = agentkit("sessions", "show", session.id, env={"AGENTKIT_DATA_DIR": str(tmp_path / "data")})
    assert shown.returncode == 0, shown.stderr
    assert "[audit] plugin0.lookup lookup_async found=False where=loop" in shown.stdout


_FIELD_NAMES = st.from_regex(r"[a-z][a-z0-9_]{0,20}", fullmatch=True).filter(
    lambda name: name not in {"kind", "plugin", "session_id", "run_id", "timestamp", "tool_name", "tool_call_id"})
_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=40))


@settings(max_examples=25, deadline=None)
@given(fields=st.dictionaries(_FIELD_NAMES, _SCALARS, max_size=6))
@example(fields={"lone": "x\ud800y", "big": 2**80, "tiny": -1e-300})  # a lone surrogate, past int64
def test_any_scalar_fields_reach_the_sink_and_the_log_as_given(fields: dict[str, Any]) -> None:
    def report(context: ToolContext) -> str:
        """Report the fields."""
        assert context.audit is not None
        context.audit("event", **fields)
        return "ok"

    with tempfile.TemporaryDirectory() as directory:
        store = JsonlSessionStore(Path(directory))
        session = Session.new(store, cwd=directory)
        seen: list[AuditRecord] = []
        script = Script([Turn([tool_call("report", {})]), Turn([text("ok")])])
        agent = Agent(AgentConfig(model="faux/scripted", trust=Trust(before_tool_call=allow_all), audit=seen.append,
                                  connection=Connection(transport=script)),
                      host=make_host(ToolsPlugin(Tool.from_function(report))), session=session)
        result = agent.run_sync("go")

        assert result.outcome == "completed" and result.problems == []
        [record] = [record for record in seen if record.plugin]
        assert record.details == fields
        logged = [entry.data["data"] for entry in Session.open(session.id, store).entries
                  if entry.type == "custom" and entry.data["custom_type"] == "audit"]
        assert logged == [record.to_dict() for record in seen]
