"""``agentkit a2a serve`` as a user starts it: a real process, its refusals, and the SDK's client in front of it."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from a2a.helpers import get_artifact_text
from a2a.types import TaskState
from agentkit_a2a import Served

from .conftest import events, sdk_client, user_message

KEY = "a2a-test-key-" + "x" * 24
AGENTKIT = [str(Path(sys.executable).parent / "agentkit")]


def serve_command(tmp_path: Path, *options: str) -> list[str]:
    script = tmp_path / "turns.json"
    script.write_text(json.dumps([{"content": [{"type": "text", "text": "served"}]}]))
    return [*AGENTKIT, "a2a", "serve", "--model", "faux/scripted", "--script", str(script), "--root", str(tmp_path),
            "--store", str(tmp_path / "sessions"), *options]


def environment(**extra: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key != "AGENTKIT_A2A_API_KEY"}
    return {**env, **extra}


@pytest.mark.parametrize(("options", "key", "says"), [
    (["--http", "0.0.0.0:0"], None, "needs an API key: set AGENTKIT_A2A_API_KEY"),
    (["--http", "0.0.0.0:0", "--no-auth"], None, "--no-auth is refused on 0.0.0.0"),
    (["--http", "127.0.0.1:0"], None, "or pass --no-auth on a loopback address"),
    (["--http", "127.0.0.1:0"], "short", "has 5 characters: use at least 16"),
    (["--http", "localhost"], KEY, "is not HOST:PORT"),
])
def test_a_server_the_key_rule_does_not_allow_is_refused_in_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], options: list[str],
        key: str | None, says: str) -> None:
    from agentkit.host.cli import main

    monkeypatch.delenv("AGENTKIT_A2A_API_KEY", raising=False)
    if key:
        monkeypatch.setenv("AGENTKIT_A2A_API_KEY", key)
    assert main(serve_command(tmp_path, *options)[1:]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("agentkit a2a serve: error: ") and says in lines[0], lines


def test_the_served_agent_answers_the_sdks_client_with_the_key(tmp_path: Path) -> None:
    server = subprocess.Popen(serve_command(tmp_path, "--http", "127.0.0.1:0"),
                              env=environment(AGENTKIT_A2A_API_KEY=KEY), stderr=subprocess.PIPE, text=True)
    try:
        line = server.stderr.readline() if server.stderr else ""
        assert "listening on http://127.0.0.1:" in line, line
        url = line.split("listening on ", 1)[1].split(" ", 1)[0]

        async def ask() -> str:
            async with sdk_client(Served(url), streaming=False, key=KEY) as client:
                (last,) = await events(client, user_message("hello"))
                assert last.task.status.state == TaskState.TASK_STATE_COMPLETED
                return get_artifact_text(last.task.artifacts[0])

        assert asyncio.run(ask()) == "served"
    finally:
        server.terminate()
        server.wait(timeout=60)
    assert server.returncode == 0
