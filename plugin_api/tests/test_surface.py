"""The plugin API's public surface and its import cost."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

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


def test_a_provider_codec_loads_no_run_event_and_the_first_run_event_loads_them_all():
    """A provider's stream makes only the provider events; a run's own events load when one is asked for,
    by either name: the package's and the events module's."""
    code = (
        "import sys, json\n"
        "from agentkit.plugin_api import MessageAssembler, Provider, ProviderEvent, StopReason, hookimpl, hookspecs\n"
        "from agentkit.plugin_api.codec import CodecProvider\n"
        "assembler = MessageAssembler(provider='p', api='a', model='m')\n"
        "index, events = assembler.start_block('text')\n"
        "events += assembler.delta(index, 'hi') + assembler.finish(StopReason.STOP)\n"
        "before = sorted(sys.modules)\n"
        "from agentkit.plugin_api._events import AgentStart\n"
        "from agentkit.plugin_api import Event, TurnEnd, event_from_dict, event_to_dict\n"
        "again = event_from_dict(event_to_dict(AgentStart([])))\n"
        "print(json.dumps([before, sorted(sys.modules), [e.type for e in events], again == AgentStart([]),"
        " TurnEnd.__module__]))"
    )
    before, after, kinds, same, where = json.loads(subprocess.check_output([sys.executable, "-c", code], text=True))
    assert "agentkit.plugin_api._events" in before and "agentkit.plugin_api._run_events" not in before
    assert kinds and set(kinds) <= {"message_start", "block_start", "block_delta", "block_end", "message_end"}
    assert "agentkit.plugin_api._run_events" in after and same and where == "agentkit.plugin_api._run_events"


def test_the_events_module_answers_for_every_event_name():
    import agentkit.plugin_api._events as events_module

    for name in ("AgentStart", "TurnEnd", "Event", "event_to_dict", "MessageStart", "ProviderEvent", "EVENT_SCHEMA"):
        assert getattr(events_module, name) is getattr(api, name), name
    assert events_module.MAX_PROGRESS_CHARS == 4096
    with pytest.raises(AttributeError, match="NoSuchEvent"):
        events_module.NoSuchEvent  # noqa: B018 - the read is the test
