"""What the audit trail says a batch decided about each call, whoever was asked."""

from __future__ import annotations

from typing import Any

import pytest
from agentkit_provider_faux import Script, Turn, text, tool_call
from host_helpers import ToolsPlugin, make_host

from agentkit.host import Agent, AgentConfig, AuditRecord, Connection, Trust, allow_all
from agentkit.plugin_api import Block, Tool, hookimpl

ECHO = Tool("echo", "Say a word back.", {"type": "object", "properties": {"word": {"type": "string"}}},
            lambda arguments, context: arguments["word"])


class Objects:
    """A plugin that objects only to the word ``no``."""

    @hookimpl
    def agentkit_before_tool_call(self, arguments):
        return Block("not that word") if arguments.get("word") == "no" else None


def embedder_policy(call: Any, arguments: dict[str, Any]) -> Block | None:
    return Block("the embedder says no") if arguments.get("word") == "no" else None


def audited_calls(policy: Any, *plugins: object) -> list[tuple[str | None, str | None, bool | None]]:
    records: list[AuditRecord] = []
    turns = [Turn([tool_call("echo", {"word": "yes"}), tool_call("echo", {"word": "no"})]), Turn([text("ok")])]
    agent = Agent(AgentConfig(model="faux/scripted", trust=Trust(before_tool_call=policy),
                              connection=Connection(transport=Script(turns)),
                              audit=records.append), host=make_host(ToolsPlugin(ECHO), *plugins))
    assert agent.run_sync("go").outcome == "completed"
    return [(record.decision, record.blocked_by, record.is_error) for record in records if record.kind == "tool_call"]


@pytest.mark.parametrize(("policy", "plugins", "blocker"), [
    (embedder_policy, (), "before_tool_call"),
    (allow_all, (Objects(),), "plugin:plugin1"),
    (embedder_policy, (Objects(),), "before_tool_call"),  # the embedder is asked first
], ids=["embedder", "plugin", "both"])
def test_a_call_an_authorizer_let_through_is_audited_as_allowed_next_to_the_one_it_blocked(policy, plugins, blocker):
    assert audited_calls(policy, *plugins) == [("allowed", None, False), ("blocked", blocker, True)]
