"""``agentkit run`` end to end against recorded real exchanges: in this process where the test is about
what the command says, in its own where it is about the process (text on the pipe while a response streams).

Recordings: pydantic-ai's VCR cassettes (pydantic/pydantic-ai, MIT), kept in
``testdata/pydantic-ai/`` (``test_anthropic/`` and ``test_openai/``; see its
``PROVENANCE.md``). Each is converted to JSON and handed to the command with
the ``AGENTKIT_REPLAY`` test seam, so the real command, plugins, runtime and
codecs run and nothing reaches the network. Expected answers are read from the
recordings themselves.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from agentkit.plugin_api import EVENT_SCHEMA
from agentkit.testing import write_script

# libyaml's parser where PyYAML has it: the cassettes are megabytes of YAML read at collection.
FAST_YAML = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

CASSETTES = Path(__file__).resolve().parents[2] / "testdata" / "pydantic-ai"
PLANTED = "sk-planted-0123456789-abcdefghijklmnop-SECRET"


def cassette(path: str) -> dict[str, Any]:
    file = CASSETTES / path
    return yaml.load(file.read_bytes(), Loader=FAST_YAML)


def replay(tmp_path: Path, recording: dict[str, Any]) -> tuple[dict[str, str], Path]:
    """The environment that makes ``run`` answer from ``recording``, and where it logs what it sent."""
    file = tmp_path / "recording.json"
    file.write_text(json.dumps(recording), encoding="utf-8")
    log = tmp_path / "sent.jsonl"
    return {"AGENTKIT_REPLAY": str(file), "AGENTKIT_REPLAY_LOG": str(log)}, log


def sent(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()] if log.exists() else []


def sse_data(body: str) -> list[Any]:
    return [json.loads(line[5:]) for line in body.splitlines()
            if line.startswith("data:") and line[5:].strip() not in ("", "[DONE]")]


def anthropic_text(body: str) -> str:
    return "".join(event["delta"]["text"] for event in sse_data(body)
                   if event.get("type") == "content_block_delta" and event["delta"].get("type") == "text_delta")


def openai_text(body: str) -> str:
    return "".join(chunk["choices"][0]["delta"].get("content") or "" for chunk in sse_data(body) if chunk["choices"])


def test_an_anthropic_text_answer_streams_to_stdout(agentkit, tmp_path: Path) -> None:
    """Cassette test_anthropic/test_request_stream_fallback_for_high_max_tokens: a streamed "2"."""
    recording = cassette("test_anthropic/test_request_stream_fallback_for_high_max_tokens.yaml")
    (interaction,) = recording["interactions"]
    recorded = interaction["request"]["parsed_body"]
    task = recorded["messages"][0]["content"][0]["text"]
    env, log = replay(tmp_path, recording)
    env["ANTHROPIC_API_KEY"] = PLANTED

    result = agentkit.inline("run", task, "--model", f"anthropic/{recorded['model']}", "--root", str(tmp_path), env=env)

    assert result.returncode == 0, result.stderr
    assert result.stdout == anthropic_text(interaction["response"]["body"]["string"]) + "\n"
    (request,) = sent(log)
    assert request["method"] == "POST" and request["url"] == "https://api.anthropic.com/v1/messages"
    assert request["body"]["model"] == recorded["model"] and request["body"]["stream"] is True
    assert request["body"]["messages"][0]["content"][0]["text"] == task
    assert "x-api-key" in request["header_names"]
    assert PLANTED not in result.stdout + result.stderr


def test_an_openai_tool_call_runs_and_the_answer_follows(agentkit, tmp_path: Path) -> None:
    """Cassette test_openai/test_run_stream_sync_streams_real_model: a streamed tool call, then the answer.

    The recorded tool (``get_capital``) is not installed here: the loop answers
    the call with an error result under the recorded call id and goes on.
    """
    recording = cassette("test_openai/test_run_stream_sync_streams_real_model.yaml")
    first, second = recording["interactions"]
    task = first["request"]["parsed_body"]["messages"][0]["content"]
    call_id = second["request"]["parsed_body"]["messages"][1]["tool_calls"][0]["id"]
    env, log = replay(tmp_path, recording)
    env["OPENAI_API_KEY"] = PLANTED

    result = agentkit.inline("run", task, "--model", "openai/gpt-4o-mini", "--root", str(tmp_path), env=env)

    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == openai_text(second["response"]["body"]["string"]).strip()
    assert "[tool] get_capital" in result.stderr
    requests = sent(log)
    assert len(requests) == 2
    tool_messages = [m for m in requests[1]["body"]["messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_messages] == [call_id]
    assert PLANTED not in result.stdout + result.stderr


def test_json_events_stream_text_deltas_before_the_end(agentkit, tmp_path: Path) -> None:
    recording = cassette("test_anthropic/test_request_stream_fallback_for_high_max_tokens.yaml")
    env, _ = replay(tmp_path, recording)
    env["ANTHROPIC_API_KEY"] = PLANTED
    result = agentkit.inline("run", "What is 1+1?", "--model", "anthropic/claude-sonnet-4-5", "--json", "--root", str(tmp_path),
                      env=env)
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    types = [event["type"] for event in events]
    assert types[0] == "agent_start" and types[-1] == "agent_end"
    assert types.index("block_delta") < types.index("message_end")
    assert events[-1]["outcome"] == "completed" and "stop_reason" not in events[-1]
    assert {event["schema"] for event in events} == {EVENT_SCHEMA}


def test_without_a_key_it_exits_2_with_one_line_naming_the_variables(agentkit, tmp_path: Path) -> None:
    env, log = replay(tmp_path, {"interactions": []})
    result = agentkit.inline("run", "hello", "--model", "anthropic/claude-opus-5-5", "--root", str(tmp_path), env=env)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_OAUTH_TOKEN"):
        assert name in lines[0]
    assert result.stdout == "" and sent(log) == []


def test_dry_run_prints_the_request_without_the_key_and_sends_nothing(agentkit, tmp_path: Path) -> None:
    env, log = replay(tmp_path, {"interactions": []})
    env["ANTHROPIC_API_KEY"] = PLANTED
    result = agentkit.inline("run", "hello there", "--model", "anthropic/claude-sonnet-4-6", "--dry-run", "--root", str(tmp_path),
                      env=env)
    assert result.returncode == 0, result.stderr
    assert PLANTED not in result.stdout and PLANTED not in result.stderr
    shown = json.loads(result.stdout)
    assert shown["method"] == "POST" and shown["url"] == "https://api.anthropic.com/v1/messages"
    assert shown["body"]["model"] == "claude-sonnet-4-6"
    assert shown["body"]["messages"][0]["content"][0]["text"] == "hello there"
    assert "x-api-key" in shown["headers"]
    assert sent(log) == []


def test_dry_run_without_a_key_still_shows_the_request_and_says_what_to_set(agentkit, tmp_path: Path) -> None:
    result = agentkit.inline("run", "hi", "--model", "openai/gpt-4.1", "--dry-run", "--root", str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["url"] == "https://api.openai.com/v1/chat/completions"
    assert "OPENAI_API_KEY" in result.stderr


def test_shell_tools_need_allow_all_tools(agentkit, tmp_path: Path) -> None:
    base = ("hi", "--model", "anthropic/claude-sonnet-4-6", "--dry-run", "--root", str(tmp_path))
    without = agentkit.inline("run", *base)
    with_all = agentkit.inline("run", *base, "--allow-all-tools")
    shell = {"run_command", "execute"}
    names_without = {tool["name"] for tool in json.loads(without.stdout)["body"]["tools"]}
    names_with = {tool["name"] for tool in json.loads(with_all.stdout)["body"]["tools"]}
    if not shell & names_with:
        pytest.skip("no shell tool plugin installed")
    assert not shell & names_without and "--allow-all-tools" in without.stderr
    assert shell & names_with and "read_file" in names_without


def test_the_scripted_model_plays_a_script_file(agentkit, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha\n")
    script = str(write_script(tmp_path / "turns.json", [
        {"content": [{"type": "tool_use", "name": "read_file", "arguments": {"path": "a.txt"}}]},
        {"content": [{"type": "text", "text": "The file says alpha."}]},
    ]))
    result = agentkit.inline("run", "read a.txt", "--model", "faux/scripted", "--script", script, "--root", str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert result.stdout == "The file says alpha.\n"
    assert "[tool] read_file" in result.stderr


@pytest.mark.parametrize(
    ("turns", "reason"),
    [
        ([{"content": [{"type": "text", "text": "partial"}], "error": "overloaded"}], "error"),
        ([{"content": [{"type": "tool_use", "name": "list_files", "arguments": {}}]}] * 3, "max_turns"),
    ],
)
def test_a_run_that_does_not_complete_exits_1_and_says_why(agentkit, tmp_path: Path, turns: list[Any], reason: str) -> None:
    script = str(write_script(tmp_path / "turns.json", turns))
    result = agentkit.inline("run", "go", "--model", "faux/scripted", "--script", script, "--max-turns", "2",
                      "--root", str(tmp_path))
    assert result.returncode == 1
    assert f"run ended: {reason}" in result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ("hi", "--model", "nosuchvendor/model"),
        ("hi", "--model", "no-slash"),
        ("hi", "--model", "faux/scripted"),  # no --script
        ("hi", "--model", "faux/scripted", "--script", "/nonexistent/turns.json"),
        ("hi", "--model", "faux/scripted", "--root", "/nonexistent/dir"),
    ],
)
def test_usage_errors_exit_2_with_one_line(agentkit, tmp_path: Path, args: tuple[str, ...]) -> None:
    result = agentkit.inline("run", *args, cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


def test_text_reaches_stdout_while_the_response_is_still_streaming(agentkit, tmp_path: Path) -> None:
    """The scripted response sends its text, then stays open: the text must already be on stdout."""
    import threading

    script = str(write_script(tmp_path / "turns.json", [{"content": [{"type": "text", "text": "streaming works"}], "hang": True}]))
    process = agentkit.start("run", "go", "--model", "faux/scripted", "--script", script, "--root", str(tmp_path))
    seen = bytearray()
    found = threading.Event()

    def read() -> None:
        assert process.stdout is not None
        while chunk := process.stdout.read1(64):
            seen.extend(chunk)
            if b"streaming works" in seen:
                found.set()
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert found.wait(60), f"no streamed text while the response was open; got {bytes(seen)!r}"
        assert process.poll() is None  # the response had not ended
    finally:
        process.kill()
        process.wait()


def test_a_script_file_nested_too_deep_is_a_usage_error(agentkit, tmp_path: Path) -> None:
    file = tmp_path / "turns.json"
    file.write_text("[" * 50_000 + "]" * 50_000, encoding="utf-8")
    result = agentkit.inline("run", "go", "--model", "faux/scripted", "--script", str(file))
    assert result.returncode == 2, result.stderr
    assert "cannot read a JSON list of turns" in result.stderr and "Traceback" not in result.stderr


WEATHER_SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}, "celsius": {"type": "number"}},
                  "required": ["city", "celsius"], "additionalProperties": False}


def _schema_file(tmp_path: Path, schema: Any = WEATHER_SCHEMA) -> str:
    file = tmp_path / "schema.json"
    file.write_text(json.dumps(schema), encoding="utf-8")
    return str(file)


@pytest.mark.parametrize(("model", "answer"), [
    ("faux/scripted", {"type": "tool_use", "name": "final_result", "arguments": {"city": "Oslo", "celsius": -2}}),
    ("faux/structured", {"type": "text", "text": '{"city": "Oslo", "celsius": -2}'}),
], ids=["final-answer-tool", "native"])
def test_output_schema_prints_the_validated_value_as_json(agentkit, tmp_path: Path, model: str, answer: dict) -> None:
    script = str(write_script(tmp_path / "turns.json", [{"content": [answer]}]))
    result = agentkit.inline("run", "weather?", "--model", model, "--script", script, "--root", str(tmp_path),
                      "--output-schema", _schema_file(tmp_path))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"city": "Oslo", "celsius": -2}
    assert result.stdout.count("\n") == 1  # the value alone, not the model's text beside it


def test_output_schema_that_is_never_met_exits_1_naming_the_problem(agentkit, tmp_path: Path) -> None:
    script = str(write_script(tmp_path / "turns.json", [{"content": [{"type": "text", "text": "cold"}]}] * 2))
    result = agentkit.inline("run", "weather?", "--model", "faux/structured", "--script", script, "--root", str(tmp_path),
                      "--output-schema", _schema_file(tmp_path))
    assert result.returncode == 1
    assert "did not fit" in result.stderr and result.stdout == ""


@pytest.mark.parametrize("content", ["not json", json.dumps([1]), json.dumps({"type": "no-such-type"})])
def test_an_unreadable_output_schema_is_a_usage_error(agentkit, tmp_path: Path, content: str) -> None:
    file = tmp_path / "schema.json"
    file.write_text(content, encoding="utf-8")
    script = str(write_script(tmp_path / "turns.json", []))
    result = agentkit.inline("run", "x", "--model", "faux/scripted", "--script", script, "--output-schema", str(file))
    assert result.returncode == 2 and "schema" in result.stderr.lower()
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and str(file) in result.stderr  # names the file to fix


def test_dry_run_shows_the_final_answer_tool_of_an_output_schema(agentkit, tmp_path: Path) -> None:
    script = str(write_script(tmp_path / "turns.json", []))
    result = agentkit.inline("run", "x", "--model", "faux/scripted", "--script", script, "--dry-run",
                      "--output-schema", _schema_file(tmp_path))
    body = json.loads(result.stdout)["body"]
    assert [tool["name"] for tool in body["tools"]][-1] == "final_result" and body["tool_choice"] == "required"


def test_a_failed_tool_call_says_why(agentkit, tmp_path: Path) -> None:
    script = str(write_script(tmp_path / "turns.json", [
        {"content": [{"type": "tool_use", "name": "read_file", "arguments": {"path": "missing.txt"}}]},
        {"content": [{"type": "text", "text": "No such file."}]},
    ]))
    result = agentkit.inline("run", "read missing.txt", "--model", "faux/scripted", "--script", script,
                             "--root", str(tmp_path))
    assert result.returncode == 0, result.stderr
    failed = [line for line in result.stderr.splitlines() if line.startswith("[tool] read_file failed")]
    assert len(failed) == 1 and "missing.txt" in failed[0], result.stderr
    assert failed[0].startswith("[tool] read_file failed: ")
