"""The example RPC client (examples/rpc_client) holds a whole session, importing nothing of agentkit's."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
CLIENT = REPO / "examples" / "rpc_client" / "client.py"


def test_the_example_client_drives_a_session_through_agentkit_rpc(agentkit: Any, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("the notes say hello\n")
    turns = tmp_path / "turns.json"
    turns.write_text(json.dumps([
        {"content": [{"type": "thinking", "thinking": "Let me look."}, {"type": "text", "text": "Reading."},
                     {"type": "tool_use", "name": "read_file", "arguments": {"path": "notes.txt"}}]},
        {"content": [{"type": "text", "text": "They say hello."}]},
        {"content": [{"type": "text", "text": "Still hello."}]},
    ]))
    # -I -S: no site-packages, so the client could not import agentkit even if it tried.
    done = subprocess.run(
        [sys.executable, "-I", "-S", str(CLIENT), "What do the notes say?", "Sure?", "--",
         agentkit.path(), "rpc", "--model", "faux/scripted", "--script", str(turns), "--root", str(tmp_path)],
        capture_output=True, text=True, cwd=tmp_path, timeout=300,
        env=agentkit.environment({"AGENTKIT_DATA_DIR": str(tmp_path / "data")}),
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("session ") and lines[0].endswith(" with faux/scripted")
    assert lines[1:] == [
        "> What do the notes say?", "Reading.", '[tool] read_file {"path":"notes.txt"}', "They say hello.",
        "(completed)", "> Sure?", "Still hello.", "(completed)", "1 stored session(s)",
    ]
