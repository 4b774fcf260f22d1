"""Spill files through the real agent loop: readable by read_file during the run, gone after.

The scripted model runs a command whose output overflows the cap, then reads
the spill file the truncation marker names, with the file tools' own
``read_file`` (which reads only inside the workspace root).
"""

from __future__ import annotations

import json
import re

import pytest

pytest.importorskip("agentkit.host", reason="the agentkit host is needed for the end-to-end run")
pytest.importorskip("agentkit_provider_faux", reason="the scripted provider is needed")

from agentkit_provider_faux import Script, Turn, text, tool_call
from agentkit_provider_faux._script import ScriptedRequest

from agentkit.host import Agent, AgentConfig, PluginHost, allow_all
from agentkit.plugin_api import ToolResultMessage

MARKER = re.compile(r"The full output is in (.+?);")


class ReadsTheSpill(Script):
    """Turn 2 reads whatever file the marker of turn 1's result names."""

    def __init__(self) -> None:
        super().__init__(
            [
                Turn([tool_call("execute", {"command": "seq 1 100000"}, id="run")]),
                Turn([text("placeholder: replaced once the marker is known")]),
                Turn([text("Read it.")]),
            ]
        )
        self.spill_path: str | None = None

    async def handle_async_request(self, request):
        if self._next == 1:
            messages = ScriptedRequest(await request.aread()).messages
            (result,) = [m for m in messages if isinstance(m, ToolResultMessage)]
            self.spill_path = MARKER.search(json.loads(result.text)["data"]["output"]).group(1)
            read = {"path": self.spill_path, "limit": 3}
            self.turns[1] = Turn([tool_call("read_file", read, id="read")])
        return await super().handle_async_request(request)


@pytest.fixture(scope="module")
def plugin_host() -> PluginHost:
    discovered = PluginHost.discover()
    if {"execute", "read_file"} - set(discovered.tools):
        pytest.skip("the shell and file tools must both be installed")
    return discovered


def _agent(plugin_host, root, script) -> Agent:
    config = AgentConfig(
        model="faux/scripted", root=root, before_tool_call=allow_all, transport=script
    )
    return Agent(config, host=plugin_host)


def test_the_spill_file_is_readable_during_the_run_and_gone_after(plugin_host, tmp_path):
    (tmp_path / "keep.txt").write_text("the user's own file")
    script = ReadsTheSpill()
    result = _agent(plugin_host, tmp_path, script).run_sync("count to a hundred thousand")

    assert result.outcome == "completed", result.error
    results = {m.tool_use_id: m for m in result.messages if isinstance(m, ToolResultMessage)}
    assert not results["read"].is_error, results["read"].text
    read = json.loads(results["read"].text)
    numbered = read["data"]["content"].split("\n")[:3]
    assert read["ok"] and [line.split() for line in numbered] == [
        ["1", "1"],
        ["2", "2"],
        ["3", "3"],
    ]

    spill = tmp_path / script.spill_path
    assert not spill.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"]


def test_a_run_that_ends_in_an_error_removes_its_spill_files_too(plugin_host, tmp_path):
    script = Script(
        [
            Turn([tool_call("execute", {"command": "seq 1 100000"}, id="run")]),
            Turn(status=400, error="the provider refused the next turn"),
        ]
    )
    result = _agent(plugin_host, tmp_path, script).run_sync("count")
    assert result.outcome == "error"
    (spilled,) = [m for m in result.messages if isinstance(m, ToolResultMessage)]
    named = MARKER.search(json.loads(spilled.text)["data"]["output"]).group(1)
    assert not (tmp_path / named).exists()
    assert list(tmp_path.iterdir()) == []


def _spill_then_look(plugin_host, root, outside):
    """Run an overflowing command, then list ``outside`` while the run is still going."""
    script = Script(
        [
            Turn([tool_call("execute", {"command": "seq 1 100000"}, id="run")]),
            Turn([tool_call("execute", {"command": f"find {outside} | sort"}, id="look")]),
            Turn([text("done")]),
        ]
    )
    result = _agent(plugin_host, root, script).run_sync("count")
    assert result.outcome == "completed", result.error
    results = {m.tool_use_id: json.loads(m.text)["data"] for m in result.messages if isinstance(m, ToolResultMessage)}
    assert results["run"]["truncated"]
    return results["look"]["output"].split()


def test_a_hostile_workspace_cannot_send_spill_files_out_of_the_root_by_a_symlink(plugin_host, tmp_path):
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / ".agentkit").symlink_to(outside)
    assert _spill_then_look(plugin_host, root, outside) == [str(outside)]
    assert list(outside.iterdir()) == []


def test_a_planted_gitignore_symlink_is_never_written_through(plugin_host, tmp_path):
    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / ".agentkit" / "shell-output").mkdir(parents=True)
    outside.mkdir()
    (root / ".agentkit" / "shell-output" / ".gitignore").symlink_to(outside / "planted")
    assert _spill_then_look(plugin_host, root, outside) == [str(outside)]
    assert list(outside.iterdir()) == []
