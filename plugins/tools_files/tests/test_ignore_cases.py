"""The ignore engine against node-ignore's gitignore cases.

Source: kaelzhang/node-ignore (MIT), ``test/fixtures/cases.js``, exported as
``data/node-ignore/node-ignore-cases.json`` beside this file (see its
``PROVENANCE.md``). Its authors check each expectation against real
``git check-ignore``; ``1`` means ignored, a trailing ``/`` marks a directory.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentkit.plugin_api.workspace import IgnoreEngine

CASES_FILE = Path(__file__).parent / "data" / "node-ignore" / "node-ignore-cases.json"


def _cases() -> list:
    cases = json.loads(CASES_FILE.read_text(encoding="utf-8"))
    return [
        pytest.param(case, id=f"{index}-{case['description'][:40]}")
        for index, case in enumerate(cases)
    ]


def _rule_file(patterns: str | list) -> str:
    if isinstance(patterns, str):
        return patterns
    return "\n".join(p["pattern"] if isinstance(p, dict) else p for p in patterns) + "\n"


@pytest.mark.parametrize("case", _cases())
def test_node_ignore_case(case, tmp_path: Path):
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / ".gitignore").write_bytes(_rule_file(case["patterns"]).encode("utf-8"))
    engine = IgnoreEngine(root, env={"HOME": str(tmp_path / "home")})
    verdicts = {
        path: int(engine.is_ignored(path, is_dir=path.endswith("/"))) for path in case["paths"]
    }
    assert verdicts == case["paths"]
