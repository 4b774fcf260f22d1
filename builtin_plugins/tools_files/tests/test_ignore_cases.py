"""The ignore engine against node-ignore's gitignore cases.

Source: kaelzhang/node-ignore (MIT), ``test/fixtures/cases.js``, exported as
``gitignore/node-ignore-cases.json`` in the shared test data. Its authors check
each expectation against real ``git check-ignore``; ``1`` means ignored, a
trailing ``/`` marks a directory.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agentkit.plugin_api.workspace import IgnoreEngine

REPO_ROOT = Path(__file__).resolve().parents[3]
TESTDATA = Path(os.environ.get("AGENTKIT_TESTDATA", REPO_ROOT / ".." / "shared" / "testdata"))
CASES_FILE = TESTDATA / "gitignore" / "node-ignore-cases.json"


def _cases() -> list:
    if not CASES_FILE.is_file():
        return [
            pytest.param(
                None,
                id="missing",
                marks=pytest.mark.skip(
                    reason=f"{CASES_FILE} not found; set AGENTKIT_TESTDATA to the shared testdata folder"
                ),
            )
        ]
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
