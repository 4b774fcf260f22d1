"""Every file and search tool answers in one envelope, and every truncation marker names a call that works.

The marker test reads each marker the way a model would, performs the call it
names (a tool call, or the shell command for an over-long line) and checks
that the call succeeds and shows what the marker promised.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import agentkit_tools_files
import agentkit_tools_search
import pytest

from agentkit.plugin_api import ExecutionMode, Tool, ToolContext, ToolResult


def _tools() -> dict[str, Tool]:
    found: dict[str, Tool] = {}
    for plugin in (agentkit_tools_files, agentkit_tools_search):
        plugin.agentkit_register_tools(register=lambda tool: found.setdefault(tool.name, tool))
    return found


TOOLS = _tools()


def _call(root: Path, name: str, **arguments: Any) -> ToolResult:
    jsonschema = pytest.importorskip("jsonschema")
    # The host validates before calling; so do we, so a marker naming bad arguments fails here.
    jsonschema.validate(arguments, TOOLS[name].input_schema)
    result = TOOLS[name].handler(arguments, ToolContext(root=root))
    assert isinstance(result, ToolResult)
    return result


def test_the_tool_set():
    assert set(TOOLS) == {
        "read_file",
        "write_file",
        "edit_file",
        "list_files",
        "find_files",
        "search_files",
    }
    for name in ("list_files", "find_files", "search_files"):
        assert TOOLS[name].default_enabled
    for name in ("edit_file", "write_file"):
        assert TOOLS[name].execution_mode is ExecutionMode.PARALLEL


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_schemas_are_closed_objects_that_name_their_required_arguments(name):
    jsonschema = pytest.importorskip("jsonschema")
    schema = TOOLS[name].input_schema
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["type"] == "object" and schema["additionalProperties"] is False
    assert set(schema.get("required", [])) <= set(schema["properties"])
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(
            {"unexpected": 1, **{k: "x" for k in schema.get("required", [])}}, schema
        )


def test_one_envelope_with_metadata_kept_from_the_model(tmp_path: Path):
    (tmp_path / "a.txt").write_text("hello\n" * 3000)
    calls = [
        ("read_file", {"path": "a.txt"}),
        ("read_file", {"path": "../x"}),
        ("write_file", {"path": "b.txt", "content": "hi\n"}),
        ("edit_file", {"path": "b.txt", "edits": [{"old_string": "hi", "new_string": "ho"}]}),
        ("edit_file", {"path": "b.txt", "edits": [{"old_string": "zz", "new_string": "ho"}]}),
        ("list_files", {"path": "."}),
        ("find_files", {"pattern": "*.txt"}),
        ("search_files", {"pattern": "hello", "max_matches": 1}),
        ("search_files", {"pattern": "("}),
    ]
    for name, arguments in calls:
        result = _call(tmp_path, name, **arguments)
        envelope = result.to_model()
        assert set(envelope) <= {"ok", "data", "error", "detail"}
        assert envelope["ok"] is result.ok
        if result.ok:
            assert "error" not in envelope
        else:
            assert envelope["error"] and envelope["detail"]
        text = result.to_text()
        for key in result.metadata:
            assert f'"{key}"' not in text, (name, key)
        json.loads(text)


@pytest.fixture
def big(tmp_path: Path) -> Path:
    (tmp_path / "long.txt").write_text("".join(f"row {n}\n" for n in range(1, 4001)))
    (tmp_path / "min.js").write_text("start\n" + "q" * 60000 + " needle\nend\n")
    many = tmp_path / "many"
    many.mkdir()
    for n in range(1100):
        (many / f"f{n:04d}.txt").write_text("needle\n")
    return tmp_path


SCENARIOS = [
    ("read_file", {"path": "long.txt"}),
    ("read_file", {"path": "min.js"}),
    ("read_file", {"path": "min.js", "offset": 2}),
    ("list_files", {"path": "many"}),
    ("find_files", {"pattern": "*.txt"}),
    ("search_files", {"pattern": "needle"}),
    ("search_files", {"pattern": "needle", "path": "min.js"}),
]


def _markers(result: ToolResult) -> list[tuple[str, str]]:
    """(marker, the text it was attached to) for every marker in a result."""
    data = result.data or {}
    texts = [data.get("content", ""), data.get("notice", "")]
    for match in data.get("matches", []):
        texts += [match["text"], *match["before"], *match["after"]]
    pattern = r"\[[^\[\]]*(?:Use offset=|with: |read_file\()[^\]]*\]"
    return [(m, text) for text in texts for m in re.findall(pattern, text)]


def _items(name: str, data: dict) -> list:
    if name == "search_files":
        return [(m["file"], m["line"]) for m in data["matches"]]
    return data.get("entries", data.get("files", []))


def _truth(root: Path, name: str, arguments: dict) -> list:
    """What a complete answer lists, computed from the disk."""
    if name == "list_files":
        return sorted(p.name for p in (root / arguments["path"]).iterdir())
    if name == "find_files":
        return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.txt"))
    hits = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        if arguments.get("path") not in (None, path.relative_to(root).as_posix()):
            continue
        for number, line in enumerate(path.read_text().split("\n"), start=1):
            if "needle" in line:
                hits.append((path.relative_to(root).as_posix(), number))
    return hits


@pytest.mark.parametrize("name, arguments", SCENARIOS)
def test_every_marker_names_a_call_that_works(big: Path, name: str, arguments: dict):
    result = _call(big, name, **arguments)
    assert result.ok, result.detail
    markers = _markers(result)
    assert markers, f"scenario {name} {arguments} produced no truncation marker"
    for marker, attached_to in markers:
        if found := re.search(r"Use offset=(\d+) to continue", marker):
            offset = int(found.group(1))
            followed = _call(big, name, **{**arguments, "offset": offset})
            assert followed.ok, (marker, followed.detail)
            if name == "read_file":
                content = followed.data["content"]
                assert re.match(rf"\s*{offset}\t", content) or content.startswith(
                    f"[Line {offset} "
                )
            else:
                # The next page starts exactly where this one stopped, with nothing skipped.
                truth = _truth(big, name, arguments)
                assert _items(name, followed.data)[0] == truth[offset - 1]
                assert _items(name, result.data)[-1] == truth[offset - 2]
        if found := re.search(r"with: (sed .*)\]$", marker):
            line = int(re.search(r"sed -n '(\d+)p'", found.group(1)).group(1))
            shown = subprocess.run(
                found.group(1), shell=True, cwd=big, capture_output=True, check=True
            )
            whole = (big / arguments["path"]).read_text().split("\n")[line - 1]
            assert shown.stdout == whole.encode()[:51200]
        for tool, raw in re.findall(r"\b(\w+)\(([^()]*)\)", marker):
            assert tool in TOOLS, marker
            tool_arguments = {k: json.loads(v) for k, v in re.findall(r'(\w+)=("[^"]*"|\d+)', raw)}
            followed = _call(big, tool, **tool_arguments)
            assert followed.ok, (marker, followed.detail)
            shown_prefix = attached_to.split("… [", 1)[0][:100]
            content = followed.data["content"]
            if content.startswith("[Line "):
                # Too long for read_file too: its own marker names that same line.
                assert content.startswith(f"[Line {tool_arguments['offset']} ")
                whole = (
                    (big / tool_arguments["path"])
                    .read_text()
                    .split("\n")[tool_arguments["offset"] - 1]
                )
                assert whole.startswith(shown_prefix)
            else:
                assert content.split("\t", 1)[1].startswith(shown_prefix)
