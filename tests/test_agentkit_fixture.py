"""The ``agentkit`` fixture's two forms answer alike: ``agentkit.inline`` may stand in for the process.

A test that asserts only output and exit code runs the command in-process; these
checks keep that form true to the real command, and to the test around it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path


def test_inline_answers_as_the_process_does(agentkit, tmp_path: Path) -> None:
    script = tmp_path / "turns.json"
    script.write_text(json.dumps([{"content": [{"type": "text", "text": "ok\r\nthen"}]}]), encoding="utf-8")
    env = {"AGENTKIT_DATA_DIR": str(tmp_path / "data")}
    commands = [
        ("--version",),
        ("run", "hi", "--model", "nosuchvendor/model"),  # a usage error: exit 2, one line
        ("run", "hi", "--model", "faux/scripted", "--script", str(script), "--root", str(tmp_path)),
        ("sessions", "list", "--json"),
    ]
    for args in commands:
        process, inline = agentkit(*args, env=env, cwd=tmp_path), agentkit.inline(*args, env=env, cwd=tmp_path)
        assert (inline.returncode, inline.stdout, inline.stderr) == (
            process.returncode, process.stdout, process.stderr), args


def test_inline_leaves_the_test_process_as_it_found_it(agentkit, tmp_path: Path) -> None:
    before = dict(os.environ), Path.cwd()
    result = agentkit.inline("sessions", "list", env={"AGENTKIT_DATA_DIR": str(tmp_path / "data")}, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (dict(os.environ), Path.cwd()) == before
