"""What the host sees when it loads the web plugin."""

from __future__ import annotations

from importlib.metadata import entry_points

import agentkit_tools_web


def test_plugin_is_installed_under_the_tools_entry_point():
    found = {ep.name: ep for ep in entry_points(group="agentkit.tools")}
    assert found["web"].load() is agentkit_tools_web


def test_fetch_url_is_registered_but_only_enabled_by_name():
    registered = []
    agentkit_tools_web.agentkit_register_tools(register=registered.append)
    assert [tool.name for tool in registered] == ["fetch_url"]
    tool = registered[0]
    assert tool.default_enabled is False
    assert set(tool.input_schema["properties"]) >= {"url", "method", "headers", "body", "timeout_s"}
    assert tool.input_schema["required"] == ["url"]


def _agentkit(*args: str):
    import json
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    import pytest

    command = shutil.which("agentkit", path=str(Path(sys.executable).parent))
    if command is None:
        pytest.skip("the agentkit command is not installed next to this Python")
    done = subprocess.run([command, *args], capture_output=True, text=True, timeout=300)
    return json.loads(done.stdout)


def test_the_web_plugin_is_listed_and_passes_validation():
    listed = {p["name"]: p for p in _agentkit("plugins", "--json")}
    assert listed["web"]["status"] == "loaded"
    assert listed["web"]["contributions"] == ["tool:fetch_url"]
    validated = {p["name"]: p for p in _agentkit("validate-plugins", "--json")["plugins"]}
    assert validated["web"]["result"] == "PASS", validated["web"]
