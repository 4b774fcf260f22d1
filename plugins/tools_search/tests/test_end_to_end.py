"""The file and search tools through the agentkit command and the real agent loop.

A broken project in a temporary directory is searched, read, edited and
fixed by a scripted model (the faux provider), with the tools loaded from
their entry points the way an embedder's agent loads them.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytest.importorskip("agentkit.host", reason="the agentkit host is needed for the end-to-end run")
pytest.importorskip("agentkit_provider_faux", reason="the scripted provider is needed")

from agentkit_provider_faux import Script, Turn, text, tool_call

from agentkit.host import Agent, AgentConfig, Connection, PluginHost, Trust, allow_all
from agentkit.plugin_api import ToolResultMessage

OURS = {"read_file", "write_file", "edit_file", "list_files", "find_files", "search_files"}


def test_agentkit_plugins_lists_both_plugins_and_their_tools(agentkit):
    listing = agentkit.inline("plugins", "--check", "--json")
    assert listing.returncode == 0, listing.stderr
    plugins = {plugin["name"]: plugin for plugin in json.loads(listing.stdout)}
    assert plugins["files"]["distribution"] == "agentkit-tools-files"
    assert plugins["search"]["distribution"] == "agentkit-tools-search"
    contributions = set()
    for name in ("files", "search"):
        assert plugins[name]["status"] == "loaded", plugins[name]
        assert plugins[name]["categories"] == ["tools"]
        contributions |= set(plugins[name]["contributions"])
    assert contributions == {f"tool:{tool}" for tool in OURS}
    human = agentkit.inline("plugins", "--check")
    assert human.returncode == 0 and "tool:search_files" in human.stdout


@pytest.mark.slow
def test_validate_plugins_passes_both(agentkit):
    report = agentkit("validate-plugins", "--json", "files", "search")
    assert report.returncode == 0, report.stdout + report.stderr
    results = {plugin["name"]: plugin for plugin in json.loads(report.stdout)["plugins"]}
    for name in ("files", "search"):
        failed = [check for check in results[name]["checks"] if check["outcome"] == "fail"]
        assert results[name]["result"] == "PASS" and not failed, failed
        assert results[name]["warnings"] == 0


@pytest.fixture(scope="module")
def plugin_host() -> PluginHost:
    discovered = PluginHost.discover()
    missing = OURS - set(discovered.tools)
    if missing:
        pytest.skip(f"tools not installed: {sorted(missing)}")
    return discovered


def _results(messages) -> dict[str, dict]:
    return {
        m.tool_use_id: {"is_error": m.is_error, **json.loads(m.text)}
        for m in messages
        if isinstance(m, ToolResultMessage)
    }


BROKEN = '''"""Prices with tax."""

TAX_RATE = 0.2


def total_with_tax(net):
    return net * TAX_RATE
'''

CHECK = "from shop.pricing import total_with_tax\nassert total_with_tax(100) == 120, total_with_tax(100)\n"


def test_a_broken_project_is_searched_read_edited_and_fixed(plugin_host, tmp_path):
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / ".gitignore").write_text("build/\n")
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "__init__.py").write_text("")
    (tmp_path / "shop" / "pricing.py").write_text(BROKEN)
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "pricing.py").write_text(BROKEN)  # a stale copy the search must not offer
    (tmp_path / "check.py").write_text(CHECK)
    fix = {
        "path": "shop/pricing.py",
        "edits": [
            {
                "old_string": "    return net * TAX_RATE\n",
                "new_string": "    return net * (1 + TAX_RATE)\n",
            }
        ],
    }
    script = Script(
        [
            Turn(
                [
                    tool_call(
                        "search_files",
                        {"pattern": r"def total_with_tax", "context_lines": 1},
                        id="search",
                    ),
                    tool_call("find_files", {"pattern": "**/*.py"}, id="find"),
                ]
            ),
            Turn([tool_call("read_file", {"path": "shop/pricing.py"}, id="read")]),
            Turn(
                [
                    tool_call("edit_file", fix, id="edit"),
                    tool_call(
                        "write_file", {"path": "NOTES.md", "content": "tax fixed\n"}, id="notes"
                    ),
                ]
            ),
            Turn([tool_call("search_files", {"pattern": "1 \\+ TAX_RATE"}, id="verify")]),
            Turn([text("Fixed: the total now adds the tax.")]),
        ]
    )
    agent = Agent(
        AgentConfig(
            model="faux/scripted",
            root=tmp_path,
            trust=Trust(before_tool_call=allow_all),
            connection=Connection(transport=script),
            tools=None,
        ),
        host=plugin_host,
    )
    result = agent.run_sync("total_with_tax(100) should be 120; fix it")

    assert result.outcome == "completed"
    results = _results(result.messages)
    assert all(not r["is_error"] and r["ok"] for r in results.values()), results
    search = results["search"]["data"]
    assert [(m["file"], m["line"]) for m in search["matches"]] == [("shop/pricing.py", 6)]
    assert search["matches"][0]["after"] == ["    return net * TAX_RATE"]
    assert "build/pricing.py" not in results["find"]["data"]["files"]
    assert "     7\t    return net * TAX_RATE" in results["read"]["data"]["content"]
    assert results["edit"]["data"] == {"edits_applied": 1}
    assert results["notes"]["data"] == {"written": "NOTES.md", "bytes": 10}
    assert [m["file"] for m in results["verify"]["data"]["matches"]] == ["shop/pricing.py"]
    checked = subprocess.run(
        [sys.executable, "check.py"], cwd=tmp_path, capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stderr
    assert (tmp_path / "build" / "pricing.py").read_text() == BROKEN

    offered = {tool["name"] for tool in script.requests[0].tools}
    assert offered >= OURS
