"""A long command output through the real agent loop: an artifact of the session, never a workspace file.

The scripted model runs a command whose output is over the inline limit, then
pages through the artifact the preview names with the host's ``read_artifact``.
"""

from __future__ import annotations

import json

import pytest

pytest.importorskip("agentkit.host", reason="the agentkit host is needed for the end-to-end run")
pytest.importorskip("agentkit_provider_faux", reason="the scripted provider is needed")

from agentkit_provider_faux import Script, Turn, text, tool_call

from agentkit.host import Agent, AgentConfig, Connection, PluginHost, Trust, allow_all
from agentkit.host.sessions import ArtifactStore
from agentkit.plugin_api import ArtifactCreated, ToolResultMessage

COUNT = "".join(f"{i}\n" for i in range(1, 100001))


@pytest.fixture(scope="module")
def plugin_host() -> PluginHost:
    discovered = PluginHost.discover()
    if "execute" not in discovered.tools:
        pytest.skip("the shell tools must be installed")
    return discovered


def test_a_long_output_is_an_artifact_the_model_pages_through(plugin_host, tmp_path):
    (tmp_path / "keep.txt").write_text("the user's own file")
    script = Script([
        Turn([tool_call("execute", {"command": "seq 1 100000"}, id="run")]),
        Turn([text("placeholder: replaced once the artifact id is known")]),
        Turn([text("Read it.")]),
    ])
    agent = Agent(AgentConfig(model="faux/scripted", root=tmp_path, trust=Trust(before_tool_call=allow_all),
                              connection=Connection(transport=script)),
                  host=plugin_host)

    def read_back(event):
        if isinstance(event, ArtifactCreated):
            script.turns[1] = Turn([tool_call("read_artifact", {"id": event.artifact_id, "limit": 40}, id="read")])

    agent.subscribe(read_back)
    result = agent.run_sync("count to a hundred thousand")

    assert result.outcome == "completed", result.error
    results = {m.tool_use_id: json.loads(m.text) for m in result.messages if isinstance(m, ToolResultMessage)}
    preview, page = results["run"], results["read"]
    stored = json.loads(ArtifactStore().read(agent.session_id, preview["artifact"]))
    assert stored["data"]["output"] == COUNT and stored["data"]["truncated"] is False
    assert page["ok"] and page["data"]["text"] == json.dumps(stored, ensure_ascii=False)[:40]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"]  # nothing written to the workspace


def test_a_hostile_workspace_has_nothing_to_redirect(plugin_host, tmp_path):
    """The old spill directory's place, a symlink out of the root, is never written through."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / ".agentkit").symlink_to(outside)
    script = Script([Turn([tool_call("execute", {"command": "seq 1 100000"}, id="run")]), Turn([text("done")])])
    agent = Agent(AgentConfig(model="faux/scripted", root=root, trust=Trust(before_tool_call=allow_all),
                              connection=Connection(transport=script)),
                  host=plugin_host)
    result = agent.run_sync("count")
    assert result.outcome == "completed", result.error
    assert list(outside.iterdir()) == []
