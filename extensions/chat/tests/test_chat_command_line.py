"""``agentkit chat`` as a command: listed by ``agentkit --help``, usage errors in one line, light imports."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest


def test_agentkit_help_lists_chat_from_its_distribution(agentkit) -> None:
    result = agentkit.inline("--help")
    assert result.returncode == 0
    entries = " ".join(result.stdout.split()).split(" chat ", 1)  # an entry may wrap over lines
    assert len(entries) == 2 and "(from agentkit-chat " in entries[1].split(" mcp ")[0]


def test_chat_help_names_its_options(agentkit) -> None:
    result = agentkit.inline("chat", "--help")
    assert result.returncode == 0
    for option in ("--model", "--session", "--resume", "--allow-all-tools", "--theme", "--plain"):
        assert option in result.stdout


@pytest.mark.parametrize(
    ("args", "says"),
    [
        ((), "--model"),
        (("--model", "nosuchvendor/model"), "nosuchvendor"),
        (("--model", "faux/scripted"), "--script"),
        (("--session", "0123456789abcdef"), "0123456789abcdef"),
        (("--resume",), "no session to resume"),
        (("--model", "faux/scripted", "--max-turns", "0"), "--max-turns"),
    ],
)
def test_usage_errors_exit_2_with_one_line(agentkit, tmp_path, args: tuple[str, ...], says: str) -> None:
    result = agentkit.inline("chat", *args, env={"AGENTKIT_DATA_DIR": str(tmp_path / "data")}, cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
    assert says in result.stderr
    assert not list((tmp_path / "data").glob("sessions/*.jsonl"))  # nothing was written


def test_importing_the_host_imports_no_terminal_library() -> None:
    code = ("import sys, agentkit.host, agentkit.host.sessions, agentkit.host.cli; "
            "print(sorted({name.split('.')[0] for name in sys.modules} & {'prompt_toolkit', 'rich', 'agentkit_chat'}))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_the_store_option_keeps_the_chat_where_it_says(agentkit, tmp_path) -> None:
    script = tmp_path / "turns.json"
    script.write_text('[{"content": [{"type": "text", "text": "Hello."}]}]')
    elsewhere = tmp_path / "elsewhere"
    env = {"AGENTKIT_DATA_DIR": str(tmp_path / "data")}
    result = agentkit.inline("chat", "--model", "faux/scripted", "--script", str(script), "--root", str(tmp_path),
                             "--store", str(elsewhere), input="hi\n", env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert not list((tmp_path / "data").rglob("*.jsonl"))
    listed = agentkit.inline("sessions", "list", "--json", "--store", str(elsewhere), env=env, cwd=tmp_path)
    assert listed.returncode == 0 and len(json.loads(listed.stdout)) == 1, listed.stderr
