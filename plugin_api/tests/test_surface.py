"""The plugin API's public surface and its import cost."""

from __future__ import annotations

import json
import subprocess
import sys

import agentkit.plugin_api as api

PINNED = [
    "DEFAULT_TOOL_CALL_ID_RULE", "EVENT_SCHEMA", "PROJECT_NAME", "AgentEnd", "AgentStart", "AgentkitError", "ArtifactCreated", "AssistantMessage", "Block",
    "BlockDelta", "BlockEnd", "BlockStart", "CancelToken", "ConformanceResponder", "ContentBlock", "Credential", "CredentialKind", "Defer",
    "Event", "ExecutionMode", "ImageBlock", "Message", "MessageAssembler", "MessageEnd", "MessageStart",
    "ModelFallback", "ModelInfo", "Outcome", "OutputPartial", "PluginError", "Project", "Provider", "ProviderError", "ProviderEvent", "ProviderRequest", "SchemaError",
    "SessionInfo", "Skill", "SteeringMessage", "StopReason", "StreamDecoder", "SubagentEvent", "TextBlock", "ThinkingBlock", "Tool",
    "ToolCallEnd", "ToolCallStart", "ToolContext", "ToolError", "ToolResult", "ToolResultMessage", "ToolSpec",
    "ToolUseBlock", "TurnEnd", "TurnStart", "Usage", "UsageError", "UserMessage", "WireEvent", "WireRequest",
    "__version__", "block_from_dict", "event_from_dict", "event_to_dict", "hookimpl", "message_from_dict",
    "provider_member", "schema_from_function", "user_config_file",
    "PromptBlocked", "Retry", "RetryRequested",
    "AudioBlock", "DocumentBlock", "UserContent",
    "ToolCallProgress",
]


def test_all_is_pinned():
    """Adding to or removing from the plugin API is a decision: update this list on purpose."""
    assert sorted(api.__all__) == sorted(PINNED)
    for name in api.__all__:
        assert hasattr(api, name), name


def test_importing_the_plugin_api_stays_cheap():
    code = (
        "import sys, json, agentkit.plugin_api, agentkit.plugin_api.hookspecs;"
        "print(json.dumps(sorted(m for m in sys.modules)))"
    )
    loaded = set(json.loads(subprocess.check_output([sys.executable, "-c", code], text=True)))
    heavy = {m for m in loaded if m.split(".")[0] in {"httpx", "libcst", "jsonschema", "asyncio", "packaging",
                                                       "importlib_metadata"}}
    assert heavy == set()
    assert "importlib.metadata" not in loaded  # the version is read when asked for, not on import
    host = {m for m in loaded if m.startswith(("agentkit.host", "agentkit.lint", "agentkit.conformance"))}
    assert host == set()
    # The tool helpers are paid for by the plugins that import them.
    assert {"agentkit.plugin_api.workspace", "agentkit.plugin_api.results"} & loaded == set()


def test_the_plugin_api_loads_a_part_when_one_of_its_names_is_used():
    code = (
        "import sys, json, agentkit.plugin_api as api; before = sorted(sys.modules); api.Outcome;"
        "print(json.dumps([before, sorted(sys.modules)]))"
    )
    before, after = (set(names) for names in json.loads(subprocess.check_output([sys.executable, "-c", code], text=True)))
    assert {m for m in before if m.startswith("agentkit.plugin_api.") or m == "pluggy"} == set()
    assert "agentkit.plugin_api._outcome" in after
    assert "pluggy" not in after and "agentkit.plugin_api._tools" not in after


def test_the_version_is_the_installed_distributions():
    from importlib.metadata import version

    assert api.__version__ == version("agentkit-plugin-api")


def test_one_project_name_builds_the_marker():
    assert api.PROJECT_NAME == "agentkit"
    assert api.hookimpl.project_name == "agentkit"
