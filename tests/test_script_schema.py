"""The ``--script`` format's JSON Schema (docs/schemas/v1/agentkit.script.schema.json) is the scripted
provider's, accepts every script the repository ships, and rejects what the reader refuses."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

import pytest
from agentkit_provider_faux import Script, script_schema
from jsonschema import Draft202012Validator

REPO = Path(__file__).resolve().parents[1]
PUBLISHED = REPO / "docs" / "schemas" / "v1" / "agentkit.script.schema.json"
VALIDATOR = Draft202012Validator(json.loads(PUBLISHED.read_text(encoding="utf-8")))
JSON_FENCE = re.compile(r"^```json\n(.*?)^```", re.S | re.M)
ECHOED = re.compile(r"^echo ('.*?') > \S+\.json$", re.M)


def shipped() -> dict[str, Any]:
    """Every script of the repository: its script files, the JSON lists of its docs, the ones its READMEs echo."""
    scripts = {str(path.relative_to(REPO)): json.loads(path.read_text(encoding="utf-8"))
               for path in sorted((REPO / "testdata" / "scripts").glob("*.json"))}
    pages = [*sorted((REPO / "docs").glob("*.md")), *sorted(REPO.glob("*/**/README.md"))]
    for page in pages:
        if ".venv" in page.parts:
            continue
        text = page.read_text(encoding="utf-8")
        found = [json.loads(block) for block in JSON_FENCE.findall(text)]
        found += [json.loads(shlex.split(quoted)[0]) for quoted in ECHOED.findall(text)]
        for number, value in enumerate(found, 1):
            if isinstance(value, list):
                scripts[f"{page.relative_to(REPO)} #{number}"] = value
    return scripts


SHIPPED = shipped()


def test_the_published_schema_is_the_scripted_providers() -> None:
    assert json.loads(PUBLISHED.read_text(encoding="utf-8")) == script_schema(), (
        "regenerate it: python -c 'import json, agentkit_provider_faux as f; "
        "print(json.dumps(f.script_schema(), indent=2, ensure_ascii=False))' > " + str(PUBLISHED.relative_to(REPO)))


def test_the_repository_ships_scripts_in_its_docs_and_testdata() -> None:
    assert any(name.startswith("docs/testing.md") for name in SHIPPED)
    assert any(name.startswith("testdata/") for name in SHIPPED)
    assert any("rpc_client" in name for name in SHIPPED)


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_every_shipped_script_fits_the_schema_and_plays(name: str) -> None:
    VALIDATOR.validate(SHIPPED[name])
    Script(SHIPPED[name])  # and the reader takes it


MALFORMED = [
    [["hello"]],
    {"content": []},
    [{"content": "hello"}],
    [{"content": [{"type": "txt", "text": "a"}]}],
    [{"content": [{"type": "text"}]}],
    [{"content": [{"type": "text", "text": 3}]}],
    [{"content": [{"type": "text", "text": "a", "extra": 1}]}],
    [{"content": [{"type": "tool_use", "arguments": {}}]}],
    [{"content": [{"type": "tool_use", "name": "f", "arguments": [1]}]}],
    [{"content": [{"type": "thinking", "thinking": "t", "redacted": "no"}]}],
    [{"content": [], "stop_reason": "done"}],
    [{"content": [], "usage": {"input": "ten"}}],
    [{"content": [], "usage": {"input": -1}}],
    [{"content": [], "usage": {"tokens": 3}}],
    [{"content": [], "delay": "soon"}],
    [{"content": [], "delay": -1}],
    [{"content": [], "status": "500"}],
    [{"content": [], "status": 200}],
    [{"content": [], "hang": "yes"}],
    [{"content": [], "error": 5}],
    [{"contents": []}],
]


@pytest.mark.parametrize("script", MALFORMED, ids=[json.dumps(s)[:60] for s in MALFORMED])
def test_a_malformed_script_is_refused_by_the_schema_and_the_reader(script: Any) -> None:
    assert not VALIDATOR.is_valid(script)
    with pytest.raises((ValueError, TypeError)):
        Script(script)
