"""What the host sees when it loads the shell plugin."""

from __future__ import annotations

from importlib.metadata import entry_points

import agentkit_tools_shell

from agentkit.plugin_api import ExecutionMode


def test_plugin_is_installed_under_the_tools_entry_point():
    found = {ep.name: ep for ep in entry_points(group="agentkit.tools")}
    assert found["shell"].load() is agentkit_tools_shell


def test_the_three_process_tools_are_sequential_and_need_authorization(tools):
    assert tuple(tools) == agentkit_tools_shell.SHELL_TOOL_NAMES
    for tool in tools.values():
        assert tool.execution_mode is ExecutionMode.SEQUENTIAL
        assert tool.requires_authorization
        assert tool.prompt_guidelines
        assert tool.default_enabled
        assert not tool.is_async


def test_timeout_is_optional_and_has_no_default(tools):
    for tool in tools.values():
        timeout = tool.input_schema["properties"]["timeout_s"]
        assert "timeout_s" not in tool.input_schema["required"]
        assert "default" not in timeout
        assert timeout["exclusiveMinimum"] == 0


def test_powershell_is_registered_whatever_the_platform_has(tools, monkeypatch):
    """The tool list heads the cached prompt: it must not depend on the machine."""
    before = [(t.name, t.description, t.input_schema) for t in tools.values()]
    monkeypatch.setenv("PATH", "/nonexistent")
    registered = []
    agentkit_tools_shell.agentkit_register_tools(register=registered.append)
    assert [(t.name, t.description, t.input_schema) for t in registered] == before
