"""What the host sees when it loads the web plugin."""

from __future__ import annotations

import json
from importlib.metadata import entry_points

import agentkit_tools_web
import pytest


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


@pytest.mark.slow
def test_the_web_plugin_is_listed_and_passes_validation(agentkit):
    listing = agentkit.inline("plugins", "--check", "--json")
    assert listing.returncode == 0, listing.stderr
    listed = {p["name"]: p for p in json.loads(listing.stdout)}
    assert listed["web"]["status"] == "loaded"
    assert listed["web"]["contributions"] == ["tool:fetch_url"]
    validation = agentkit("validate-plugins", "--json", "web")
    assert validation.returncode == 0, validation.stdout + validation.stderr
    [validated] = json.loads(validation.stdout)["plugins"]
    assert (validated["name"], validated["result"]) == ("web", "PASS"), validated
