"""The published JSON Schemas (docs/schemas/) are the code's, and what a real run emits fits them."""

from __future__ import annotations

import json
from pathlib import Path

from agentkit_provider_faux import Turn, text, thinking, tool_call
from host_helpers import make_agent
from rpc_helpers import EVENTS, SCHEMAS, rpc_schema_files

from agentkit.host import Connection, Trust, allow_all
from agentkit.host.rpc import schemas
from agentkit.plugin_api import Tool, event_to_dict


def test_the_published_schemas_are_what_the_code_generates() -> None:
    generated = {str(path): json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
                 for path, schema in schemas().items()}
    published = {str(path.relative_to(SCHEMAS)): path.read_text(encoding="utf-8")
                 for path in rpc_schema_files()}
    assert published.keys() == generated.keys(), "regenerate them: agentkit rpc --schemas docs/schemas"
    for name, content in generated.items():
        assert published[name] == content, f"{name} is stale; regenerate: agentkit rpc --schemas docs/schemas"


def test_every_event_of_a_run_with_thinking_tools_and_a_failed_call_fits_the_event_schema(tmp_path: Path) -> None:
    def shout(word: str) -> str:
        """Say a word louder."""
        return word.upper()

    agent, _ = make_agent(
        [Turn([thinking("Which word?"), text("Shouting."), tool_call("shout", {"word": "hi"}),
               tool_call("missing_tool", {}), tool_call("shout", {"word": 3})]),
         Turn([text("HI")])],
        root=tmp_path, tools=["shout"], extra_tools=[Tool.from_function(shout)],
        trust=Trust(before_tool_call=allow_all),
    )
    seen: list[dict] = []
    agent.subscribe(lambda event: seen.append(json.loads(json.dumps(event_to_dict(event)))))
    agent.run_sync("Shout hi")
    kinds = {event["type"] for event in seen}
    assert {"agent_start", "block_delta", "tool_call_end", "turn_end", "agent_end"} <= kinds
    assert [event["result"]["is_error"] for event in seen if event["type"] == "tool_call_end"] == [False, True, True]
    for event in seen:
        EVENTS.validate(event)


def test_the_schemas_are_stamped_with_the_contracts_they_describe() -> None:
    assert {json.loads(path.read_text())["$id"] for path in rpc_schema_files()} == {
        "agentkit.rpc.request/v1", "agentkit.rpc.response/v1", "agentkit.event/v2"}


def test_a_subagents_events_fit_the_schema_nested_in_their_parents() -> None:
    from agentkit_provider_faux import Script

    from agentkit.host import Agent, AgentConfig, Subagent

    child = AgentConfig(model="faux/scripted", trust=Trust(before_tool_call=allow_all),
                        connection=Connection(transport=Script([Turn([text("found")])])))
    research = Subagent("research", "Finds.", child).as_tool()
    parent = Agent(AgentConfig(model="faux/scripted", tools=["research"], extra_tools=[research],
                               trust=Trust(before_tool_call=allow_all),
                               connection=Connection(transport=Script([Turn([tool_call("research", {"task": "Find."})]),
                                                 Turn([text("ok")])]))))
    seen: list[dict] = []
    parent.subscribe(lambda event: seen.append(json.loads(json.dumps(event_to_dict(event)))))
    parent.run_sync("Go.")
    nested = [event for event in seen if event["type"] == "subagent"]
    assert [event["event"]["type"] for event in nested][::len(nested) - 1] == ["agent_start", "agent_end"]
    for event in seen:
        EVENTS.validate(event)
    broken = {**nested[-1], "event": {**nested[-1]["event"], "outcome": "no such outcome"}}
    assert not EVENTS.is_valid(broken)  # the nested event is checked against the whole schema
