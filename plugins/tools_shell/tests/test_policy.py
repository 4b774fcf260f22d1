"""read_only_commands, the restrictive example policy, as an embedder's before_tool_call."""

from __future__ import annotations

import pytest
from agentkit_tools_shell import RestrictedPolicy, read_only_commands

from agentkit.plugin_api import Block, ToolUseBlock


def _decide(name: str, arguments: dict, policy=read_only_commands):
    return policy(ToolUseBlock(id="c1", name=name, arguments="{}"), arguments)


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("run_command", {"argv": ["git", "status"]}),
        ("run_command", {"argv": ["git", "--no-pager", "log", "-n", "3"]}),
        ("run_command", {"argv": ["find", ".", "-name", "*.py"]}),
        ("run_command", {"argv": ["rg", "-n", "TODO; rm -rf /"]}),
        ("execute", {"command": "ls -la 'my dir'"}),
        ("execute", {"command": 'grep -rn "def main" src'}),
        ("read_file", {"path": "a.py"}),  # not a process tool: no opinion
    ],
)
def test_read_only_commands_are_allowed(name, arguments):
    assert _decide(name, arguments) is None


@pytest.mark.parametrize(
    ("name", "arguments", "reason_part"),
    [
        ("run_command", {"argv": ["rm", "-rf", "x"]}, "'rm' is not an allowed program"),
        ("run_command", {"argv": ["/tmp/ls"]}, "not an allowed program"),
        ("run_command", {"argv": ["find", ".", "-delete"]}, "find -delete"),
        ("run_command", {"argv": ["find", ".", "-exec", "sh", ";"]}, "find -exec"),
        ("run_command", {"argv": ["rg", "--pre=./evil", "x"]}, "rg --pre"),
        ("run_command", {"argv": ["git", "push"]}, "git push is not allowed"),
        ("run_command", {"argv": ["git", "-c", "core.pager=sh", "log"]}, "git -c"),
        ("run_command", {"argv": ["git", "diff", "--output=x"]}, "git --output"),
        ("execute", {"command": "ls; rm -rf ~"}, "';'"),
        ("execute", {"command": "ls && touch x"}, "'&'"),
        ("execute", {"command": "cat a > b"}, "'>'"),
        ("execute", {"command": "echo $(id)"}, "'$'"),
        ("execute", {"command": 'echo "`id`"'}, "inside double quotes"),
        ("execute", {"command": "ls *"}, "'*'"),
        ("execute", {"command": "PAGER=sh git log"}, "'='"),
        ("execute", {"command": "ls 'unclosed"}, "not closed"),
        ("execute", {"command": "ls\nrm x"}, "'\\n'"),
        ("powershell", {"command": "Get-ChildItem"}, "does not allow powershell"),
    ],
)
def test_anything_else_is_blocked_with_a_reason(name, arguments, reason_part):
    decision = _decide(name, arguments)
    assert isinstance(decision, Block)
    assert reason_part in decision.reason
    assert not decision.terminate


def test_quoted_operators_are_plain_words():
    assert _decide("execute", {"command": "grep -n 'a; b | c > d' notes.txt"}) is None


def test_the_program_list_is_the_embedders_choice():
    policy = RestrictedPolicy(programs={"pytest"})
    assert _decide("run_command", {"argv": ["pytest", "-q"]}, policy) is None
    assert isinstance(_decide("run_command", {"argv": ["ls"]}, policy), Block)
