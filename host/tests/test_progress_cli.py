"""``agentkit run`` shows a tool's progress reports on stderr, beside its other tool lines."""

from __future__ import annotations

from agentkit.testing import write_script

STEPS = """
from agentkit.plugin_api import Tool, ToolContext, hookimpl

def build(context: ToolContext) -> str:
    \"\"\"Build in steps.\"\"\"
    context.progress("compiling")
    context.progress("linking\\x1b[2J")
    return "built"

@hookimpl
def agentkit_register_tools(register):
    register(Tool.from_function(build))
"""


def test_run_prints_each_progress_report_between_the_call_and_the_answer(agentkit, site_dir, tmp_path):
    site_dir("steps-plugin", entry_points={"agentkit.tools": {"steps": "stepsplugin"}},
             requires=["agentkit-plugin-api>=0.1"], files={"stepsplugin.py": STEPS})
    script = str(write_script(tmp_path / "turns.json", [
        {"content": [{"type": "tool_use", "name": "build", "arguments": {}}]}, "Built."]))
    result = agentkit.inline("run", "build it", "--model", "faux/scripted", "--script", script,
                             "--root", str(tmp_path), site=site_dir.site)

    assert result.returncode == 0, result.stderr
    assert result.stdout == "Built.\n"
    lines = [line for line in result.stderr.splitlines() if line.startswith("[tool]")]
    assert lines[0].startswith("[tool] build ")
    assert lines[1:] == ["[tool] build: compiling", "[tool] build: linking\u241b[2J"]  # a control is shown, not obeyed
    assert "\x1b" not in result.stderr
