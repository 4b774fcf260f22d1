"""``agentkit run`` with an installed guardrail plugin and a tool that asks for a retry."""

from __future__ import annotations

import json

import pytest

from agentkit.testing import write_script

GUARD = """
from agentkit.plugin_api import Block, hookimpl

@hookimpl
def agentkit_input_guardrail(text):
    return Block("no passwords here") if "password" in text else None

@hookimpl
def agentkit_output_guardrail(text):
    return Block("the answer names a password") if "hunter2" in text else None
"""

PICKY = """
from agentkit.plugin_api import Retry, Tool, hookimpl

def lookup(key: str) -> str:
    \"\"\"Look a key up.\"\"\"
    if key != key.lower():
        raise Retry("keys are lower-case")
    return "found " + key

@hookimpl
def agentkit_register_tools(register):
    register(Tool.from_function(lookup))
"""


@pytest.fixture
def site(site_dir):
    site_dir("guard-plugin", entry_points={"agentkit.hooks": {"guard": "guardplugin"}},
             requires=["agentkit-plugin-api>=0.1"], files={"guardplugin.py": GUARD})
    site_dir("picky-plugin", entry_points={"agentkit.tools": {"picky": "pickyplugin"}},
             requires=["agentkit-plugin-api>=0.1"], files={"pickyplugin.py": PICKY})
    return site_dir.site


def run(agentkit, site, tmp_path, prompt, turns):
    script = str(write_script(tmp_path / "turns.json", turns))
    result = agentkit.inline("run", prompt, "--model", "faux/scripted", "--script", script, "--root", str(tmp_path),
                             "--json", site=site)
    return result, [json.loads(line) for line in result.stdout.splitlines()]


def test_a_blocked_prompt_exits_1_before_any_request(agentkit, site, tmp_path):
    result, events = run(agentkit, site, tmp_path, "what is the password?", ["never"])
    assert result.returncode == 1
    assert "run ended: guardrail: plugin:guard blocked the prompt: no passwords here" in result.stderr
    assert [event["type"] for event in events] == ["agent_start", "prompt_blocked", "agent_end"]  # no turn_start
    assert events[-1]["outcome"] == "guardrail"


def test_a_refused_answer_is_retried_then_the_run_completes(agentkit, site, tmp_path):
    result, events = run(agentkit, site, tmp_path, "hi", ["it is hunter2", "I cannot say"])
    assert result.returncode == 0, result.stderr
    retries = [event for event in events if event["type"] == "retry_requested"]
    assert [(event["by"], event["reason"], event["retried"]) for event in retries] == [
        ("plugin:guard", "the answer names a password", True)]
    assert events[-1]["outcome"] == "completed"


def test_an_answer_refused_past_its_retries_exits_1_as_guardrail(agentkit, site, tmp_path):
    result, _events = run(agentkit, site, tmp_path, "hi", ["hunter2", "hunter2 again"])
    assert result.returncode == 1
    assert "run ended: guardrail: plugin:guard refused the answer after 1 retry" in result.stderr


def test_a_tool_retry_is_a_tool_result_and_an_event(agentkit, site, tmp_path):
    turns = [{"content": [{"type": "tool_use", "name": "lookup", "arguments": {"key": "ABC"}}]},
             {"content": [{"type": "tool_use", "name": "lookup", "arguments": {"key": "abc"}}]}, "found it"]
    result, events = run(agentkit, site, tmp_path, "look", turns)
    assert result.returncode == 0, result.stderr
    retry = next(event for event in events if event["type"] == "retry_requested")
    assert (retry["by"], retry["reason"], retry["retried"]) == ("tool:lookup", "keys are lower-case", True)
    ends = [event["result"] for event in events if event["type"] == "tool_call_end"]
    assert [end["is_error"] for end in ends] == [True, False]
    assert '"error": "retry"' in ends[0]["content"][0]["text"]
