"""A live status while the model is awaited and while a tool runs, cleared before anything else is written;
tool durations that leave out the time the person took to answer."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

SLOW_TOOL = """
import os, time
from agentkit.plugin_api import Tool, hookimpl

def slow_tool() -> str:
    '''Wait until the test says go.'''
    deadline = time.monotonic() + 60
    while not os.path.exists(os.environ["SLOW_TOOL_GO"]) and time.monotonic() < deadline:
        time.sleep(0.02)
    return "went"

@hookimpl
def agentkit_register_tools(register):
    register(Tool.from_function(slow_tool))
"""


def text_turn(text: str, **extra: Any) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], **extra}


def test_a_status_shows_while_the_model_is_awaited_and_is_gone_after(chat) -> None:
    script = chat.script([text_turn("Here now.", delay=0.2)])
    terminal = chat.start("--model", "faux/scripted", "--script", script)
    terminal.prompt("anyone?")
    before = terminal.expect("waiting for the model")  # drawn as the request leaves, before any answer
    rest = terminal.expect(re.compile(r"turn: [\d,]+ in"))
    assert terminal.leave() == 0
    lines = terminal.lines(before + "waiting for the model" + rest)
    assert "Here now." in lines
    assert not any("waiting for the model" in line for line in lines), lines


def test_a_status_shows_while_a_tool_runs_and_is_gone_after(chat, site_dir, tmp_path: Path) -> None:
    site_dir("slow-plugin", entry_points={"agentkit.tools": {"slow": "slowplugin"}},
             requires=["agentkit-plugin-api>=0.1"], files={"slowplugin.py": SLOW_TOOL})
    go = tmp_path / "go"
    script = chat.script([{"content": [{"type": "tool_use", "name": "slow_tool", "arguments": {}}]},
                          text_turn("Done waiting.")])
    terminal = chat.start("--model", "faux/scripted", "--script", script, site=site_dir.site,
                          env={"SLOW_TOOL_GO": str(go)})
    terminal.prompt("wait")
    before = terminal.expect("running slow_tool")
    go.touch()
    rest = terminal.expect(re.compile(r"turn: [\d,]+ in"))
    assert terminal.leave() == 0
    lines = terminal.lines(before + "running slow_tool" + rest)
    assert any(line.startswith("✓ slow_tool (") for line in lines) and "Done waiting." in lines
    assert not any("running slow_tool" in line for line in lines), lines


def test_a_tool_duration_leaves_out_the_time_the_person_took_to_answer(chat) -> None:
    script = chat.script([{"content": [{"type": "tool_use", "name": "run_command", "arguments": {"argv": ["true"]}}]},
                          text_turn("Ran it.")])
    terminal = chat.start("--model", "faux/scripted", "--script", script)
    terminal.prompt("run true")
    terminal.expect("[y]es once, [a]lways (this session), [n]o:")
    time.sleep(2)  # the person reads the call before answering
    answered = time.monotonic()
    terminal.answer("y")
    terminal.expect(re.compile(r"✓ run_command \((\d+\.\d)s\)"))
    after_answer = time.monotonic() - answered
    shown = float(terminal.process.match.group(1))
    terminal.expect(re.compile(r"turn: [\d,]+ in"))
    assert terminal.leave() == 0
    assert shown <= after_answer + 0.05  # what ran after the answer, never the 2 s of reading before it
