"""``--script FILE``: a malformed script is one line naming the turn and the key, and a script that runs
out ends the run with an error naming how many turns it had."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest


def write(tmp_path: Path, turns: Any) -> str:
    file = tmp_path / "turns.json"
    file.write_text(json.dumps(turns), encoding="utf-8")
    return str(file)


@pytest.mark.parametrize(
    ("turns", "named"),
    [
        ([["hello"]], "turn 1:"),
        ([{"content": [{"type": "text", "text": "a"}]}, "hello"], "turn 2:"),
        ([{"content": "hello"}], "turn 1, content:"),
        ([{"content": [{"type": "txt", "text": "a"}]}], "turn 1, content[0].type:"),
        ([{"content": [{"type": "text"}]}], "turn 1, content[0].text:"),
        ([{"content": [{"type": "tool_use", "arguments": {}}]}], "turn 1, content[0].name:"),
        ([{"content": [], "stop_reason": "done"}], "turn 1, stop_reason:"),
        ([{"content": [], "usage": {"input": "ten"}}], "turn 1, usage.input:"),
        ([{"content": [], "usage": {"tokens": 3}}], "turn 1, usage.tokens:"),
        ([{"content": [], "delay": "soon"}], "turn 1, delay:"),
        ([{"content": [], "status": "500"}], "turn 1, status:"),
        ([{"contents": []}], "turn 1, contents:"),
    ],
    ids=["turn-not-object", "second-turn", "content-not-list", "block-type", "text-missing", "tool-name-missing",
         "stop-reason", "usage-value", "usage-key", "delay", "status", "unknown-key"],
)
def test_a_malformed_script_is_one_line_naming_the_turn_and_key(agentkit, tmp_path: Path, turns: Any,
                                                                named: str) -> None:
    result = agentkit.inline("run", "go", "--model", "faux/scripted", "--script", write(tmp_path, turns),
                             "--root", str(tmp_path))
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert named in lines[0]


def test_a_script_that_runs_out_ends_the_run_with_an_error_naming_its_turns(agentkit, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha\n")
    script = write(tmp_path, [
        {"content": [{"type": "tool_use", "name": "read_file", "arguments": {"path": "a.txt"}}]},
        {"content": [{"type": "tool_use", "name": "read_file", "arguments": {"path": "a.txt"}}]},
    ])
    result = agentkit.inline("run", "read a.txt", "--model", "faux/scripted", "--script", script,
                             "--root", str(tmp_path))
    assert result.returncode == 1, result.stderr
    assert "run ended: error" in result.stderr
    assert "script ran out" in result.stderr and "2 turns" in result.stderr
    assert result.stdout == ""
