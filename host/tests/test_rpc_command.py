"""``agentkit rpc`` driven as another program drives it: a real process, NDJSON on its stdin and stdout.

Every line the server writes is checked against the published schemas (docs/schemas/) as it is read.
"""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest
from rpc_helpers import PATIENCE, RpcProcess, request

from agentkit.host.sessions import parse_log
from agentkit.testing import Turn, text, tool_call, write_script

MIB = 1024 * 1024


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "work"
    root.mkdir()
    (root / "notes.txt").write_text("the notes say hello\n")
    return root


@pytest.fixture
def data(tmp_path: Path) -> dict[str, str]:
    return {"AGENTKIT_DATA_DIR": str(tmp_path / "data")}


def say(text: str, **extra: Any) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], **extra}


def log_seqs(data: dict[str, str], session_id: str) -> list[int]:
    """The seqs of the events the session's log file holds, in the order written.

    Read as the loader reads it: the server may be writing the next line at that moment.
    """
    path = Path(data["AGENTKIT_DATA_DIR"]) / "sessions" / f"{session_id}.jsonl"
    return [entry.data["data"]["seq"] for entry in parse_log(path.read_bytes()).entries
            if entry.type == "custom" and entry.data["custom_type"] == "event"]


def run_to_end(rpc: RpcProcess, data: dict[str, str], session_id: str) -> list[dict[str, Any]]:
    """Read the run's events up to its agent_end; each is in the session log by the time it is read."""
    events = []
    while True:
        event = rpc.next_event()
        assert event["session_id"] == session_id
        assert event["seq"] in log_seqs(data, session_id)  # persisted before it was published
        events.append(event)
        if event["type"] == "agent_end":
            return events


def test_a_whole_session_prompts_steers_lists_and_continues_in_a_second_server(
        agentkit: Any, tmp_path: Path, workspace: Path, data: dict[str, str]) -> None:
    turns = str(write_script(tmp_path / "first.json", [
        Turn([text("Reading."), tool_call("read_file", {"path": "notes.txt"})]),
        say("They say hello."), say("Second answer."),
    ]))
    rpc = RpcProcess(agentkit, "--model", "faux/scripted", "--script", turns, "--root", str(workspace),
                     env=data, cwd=tmp_path)
    try:
        started = rpc.call(1, "session.start")["result"]
        session_id = started["session_id"]
        assert started == {"session_id": session_id, "model": "faux/scripted", "next_seq": 1}
        tools = rpc.call("t", "tools.list", session_id=session_id)["result"]["tools"]
        assert "read_file" in [tool["name"] for tool in tools]
        # A steer between runs waits for the next one, which takes it before its first request.
        assert rpc.call(2, "steer", session_id=session_id, text="Be brief.")["result"]["running"] is False

        assert rpc.call(3, "prompt", session_id=session_id, text="What do the notes say?")["result"] == {
            "session_id": session_id}
        first = run_to_end(rpc, data, session_id)
        assert [event["seq"] for event in first] == list(range(1, len(first) + 1))
        assert first[0]["type"] == "agent_start"
        ends = [event for event in first if event["type"] == "tool_call_end"]
        assert len(ends) == 1 and not ends[0]["result"]["is_error"]
        assert "the notes say hello" in ends[0]["result"]["content"][0]["text"]
        end = first[-1]
        assert end["outcome"] == "completed"
        said = [block["text"] for message in end["messages"] if message["role"] == "user"
                for block in message["content"]]
        assert said == ["What do the notes say?", "Be brief."]
        # the steer shows where it joined the history: taken by the run's first turn, before its request
        types = [event["type"] for event in first]
        assert types[:3] == ["agent_start", "steering_message", "turn_start"]
        assert first[1]["message"]["content"][0]["text"] == "Be brief."

        assert rpc.call(4, "prompt", session_id=session_id[:6], text="And now?")["result"] == {"session_id": session_id}
        second = run_to_end(rpc, data, session_id)
        assert second[0]["seq"] == len(first) + 1 and second[-1]["outcome"] == "completed"
        deltas = "".join(event["delta"] for event in second if event["type"] == "block_delta")
        assert deltas == "Second answer."

        listed = rpc.call(5, "sessions.list")["result"]["sessions"]
        assert [(item["id"], item["open"]) for item in listed] == [(session_id, True)]
        # the fields agentkit sessions list --json has, named and written as it writes them
        [cli] = json.loads(agentkit.inline("sessions", "list", "--json", env=data).stdout)
        assert {key: listed[0][key] for key in cli} == cli
        assert rpc.call(6, "session.close", session_id=session_id)["result"] == {"session_id": session_id}
        assert rpc.call(7, "abort", session_id=session_id)["error"]["code"] == "session_not_found"
        assert rpc.finish() == 0
    finally:
        rpc.kill()
    assert log_seqs(data, session_id) == list(range(1, len(first) + len(second) + 1))
    shown = agentkit.inline("sessions", "show", session_id, env=data)
    assert shown.returncode == 0, shown.stderr
    assert "[custom event]" not in shown.stdout  # the events are kept, not listed one by one
    assert shown.stdout.splitlines()[-1] == f"{len(first) + len(second)} published events on this branch (see --json)"

    # Another server continues the stored session: its events go on from the last seq the log holds.
    later = RpcProcess(agentkit, "--script", str(write_script(tmp_path / "later.json", [say("Third answer.")])),
                       "--root", str(workspace), env=data, cwd=tmp_path)
    try:
        continued = later.call(1, "session.continue", session_id=session_id[:8])["result"]
        assert continued == {"session_id": session_id, "model": "faux/scripted",
                             "next_seq": len(first) + len(second) + 1}
        later.call(2, "prompt", session_id=session_id, text="Once more")
        third = run_to_end(later, data, session_id)
        assert third[0]["seq"] == continued["next_seq"] and third[-1]["outcome"] == "completed"
        history = [message["role"] for message in third[0]["messages"]]
        assert history == ["user"]  # agent_start carries the prompt only
        assert later.finish() == 0
    finally:
        later.kill()


def test_bad_lines_get_an_error_naming_the_problem_and_the_server_keeps_serving(
        agentkit: Any, tmp_path: Path, workspace: Path, data: dict[str, str]) -> None:
    rpc = RpcProcess(agentkit, "--model", "faux/scripted", "--script", str(write_script(tmp_path / "t.json", [say("hi")])),
                     "--root", str(workspace), env=data, cwd=tmp_path)
    bad: list[tuple[bytes, Any, str, str]] = [
        (b"x" * (MIB + 1) + b"\n", None, "line_too_long", f"{MIB + 1} bytes"),
        (b'{"schema": "agentkit.rpc.request/v1", "id": 1, "method": "sessions.list", "params": {"pad": "'
         + b"y" * (2 * MIB) + b'"}}\n', None, "line_too_long", "limit of 1048576"),
        (b"{not json\n", None, "malformed", "not JSON"),
        (b"\n", None, "malformed", "empty"),
        (b"  \r\n", None, "malformed", "empty"),
        (b"\xff\xfe\xfa\n", None, "malformed", "not JSON"),
        (b"[1, 2]\n", None, "malformed", "JSON object"),
        (b'{"schema": "agentkit.rpc.request/v1", "method": "sessions.list"}\n', None, "malformed", "'id'"),
        (b'{"schema": "agentkit.rpc.request/v2", "id": "v", "method": "sessions.list"}\n', "v",
         "unsupported_version", "agentkit.rpc.request/v1"),
        (b'{"id": "n", "method": "sessions.list"}\n', "n", "unsupported_version", "'schema' is None"),
        (b'{"schema": "agentkit.rpc.request/v1", "id": 9, "method": "fly"}\n', 9, "unknown_method", "'fly'"),
        (b'{"schema": "agentkit.rpc.request/v1", "id": 10, "method": "prompt", "params": {"session_id": "s"}}\n',
         10, "invalid_params", "'text' is a required property"),
        (b'{"schema": "agentkit.rpc.request/v1", "id": 11, "method": "prompt", "params": {"session_id": "s", '
         b'"text": "hi"}}\n', 11, "session_not_found", "session.start"),
        (b'{"schema": "agentkit.rpc.request/v1", "id": 12, "method": "session.start", "params": '
         b'{"model": "nobody/nothing"}}\n', 12, "invalid_params", "vendor 'nobody'"),
    ]
    try:
        for number, (line, request_id, code, words) in enumerate(bad):
            rpc.send(line)
            error = rpc.response()
            assert error["id"] == request_id and error["error"]["code"] == code, error
            assert words in error["error"]["message"], error
            # ... and the next good request is answered as usual.
            assert "sessions" in rpc.call(f"after-{number}", "sessions.list")["result"]
        assert rpc.finish() == 0
    finally:
        rpc.kill()
    assert b"Traceback" not in rpc.stderr


def test_eof_with_a_turn_in_flight_aborts_it_publishes_its_end_and_exits_0(
        agentkit: Any, tmp_path: Path, workspace: Path, data: dict[str, str]) -> None:
    turns = str(write_script(tmp_path / "hang.json", [say("Thinking it over", hang=True)]))
    rpc = RpcProcess(agentkit, "--model", "faux/scripted", "--script", turns, "--root", str(workspace),
                     env=data, cwd=tmp_path)
    try:
        session_id = rpc.call(1, "session.start")["result"]["session_id"]
        rpc.call(2, "prompt", session_id=session_id, text="Take your time")
        assert "Thinking it over".startswith(rpc.until("block_delta")["delta"])  # the response is open, and stays so
        assert rpc.finish() == 0
    finally:
        rpc.kill()
    end = rpc.events[-1]
    assert end["type"] == "agent_end" and end["outcome"] == "aborted"
    assert [event["seq"] for event in rpc.events] == list(range(1, len(rpc.events) + 1))
    assert log_seqs(data, session_id) == [event["seq"] for event in rpc.events]
    # The log is well formed: another process (this one) continues the session where it stopped.
    again = agentkit.inline("run", "Go on", "--session", session_id, "--root", str(workspace),
                     "--script", str(write_script(tmp_path / "again.json", [say("Done.")])), env=data)
    assert again.returncode == 0, again.stderr
    assert again.stdout == "Done.\n"


def test_ctrl_c_with_a_turn_in_flight_ends_it_like_eof_and_exits_130(
        agentkit: Any, tmp_path: Path, workspace: Path, data: dict[str, str]) -> None:
    turns = str(write_script(tmp_path / "hang.json", [say("Still going", hang=True)]))
    rpc = RpcProcess(agentkit, "--model", "faux/scripted", "--script", turns, "--root", str(workspace),
                     env=data, cwd=tmp_path)
    try:
        session_id = rpc.call(1, "session.start")["result"]["session_id"]
        rpc.call(2, "prompt", session_id=session_id, text="Go")
        rpc.until("block_delta")
        rpc.process.send_signal(signal.SIGINT)  # stdin stays open: the server stops without EOF
        end = rpc.until("agent_end")
        assert end["outcome"] == "aborted"
        assert rpc.process.wait(timeout=PATIENCE) == 130
    finally:
        rpc.kill()
    assert log_seqs(data, session_id)[-1] == end["seq"]


def test_a_client_that_closes_stdout_ends_the_server_without_a_traceback(
        agentkit: Any, tmp_path: Path, workspace: Path, data: dict[str, str]) -> None:
    turns = str(write_script(tmp_path / "hang.json", [say("Pondering", hang=True)]))
    process = subprocess.Popen([agentkit.path(), "rpc", "--model", "faux/scripted", "--script", turns, "--root",
                                str(workspace)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, cwd=tmp_path, env=agentkit.environment(data))
    try:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(json.dumps(request(1, "session.start")).encode() + b"\n")
        process.stdin.flush()
        session_id = json.loads(process.stdout.readline())["result"]["session_id"]
        process.stdin.write(json.dumps(request(2, "prompt", session_id=session_id, text="Go")).encode() + b"\n")
        process.stdin.flush()
        while json.loads(process.stdout.readline()).get("type") != "block_delta":
            pass
        process.stdout.close()  # the client leaves while the turn hangs; the next line written finds it gone
        process.stdin.write(json.dumps(request(3, "sessions.list")).encode() + b"\n")
        process.stdin.flush()
        _, stderr = process.communicate(timeout=PATIENCE)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=PATIENCE)
    assert process.returncode == 1
    assert b"Traceback" not in stderr and b"the client closed stdout" in stderr
    ends = [entry.data["data"] for entry in parse_log((Path(data["AGENTKIT_DATA_DIR"]) / "sessions"
                                                        / f"{session_id}.jsonl").read_bytes()).entries
            if entry.type == "custom" and entry.data["data"]["type"] == "agent_end"]
    assert [end["outcome"] for end in ends] == ["aborted"]  # the run was ended and its end kept


def test_abort_ends_the_running_turn_and_the_session_takes_the_next_prompt(
        agentkit: Any, tmp_path: Path, workspace: Path, data: dict[str, str]) -> None:
    turns = str(write_script(tmp_path / "t.json", [say("Working on it", hang=True), say("Fresh start.")]))
    rpc = RpcProcess(agentkit, "--model", "faux/scripted", "--script", turns, "--root", str(workspace),
                     env=data, cwd=tmp_path)
    try:
        session_id = rpc.call(1, "session.start")["result"]["session_id"]
        rpc.call(2, "prompt", session_id=session_id, text="Start")
        rpc.until("block_delta")  # the response is open, and stays open until aborted
        busy = rpc.call("b", "prompt", session_id=session_id, text="Me too")["error"]
        assert busy["code"] == "busy" and "abort" in busy["message"]
        assert rpc.call("s", "steer", session_id=session_id, text="Hurry")["result"]["running"] is True
        assert rpc.call(3, "abort", session_id=session_id)["result"] == {"session_id": session_id, "running": True}
        assert rpc.until("agent_end")["outcome"] == "aborted"
        rpc.call(4, "prompt", session_id=session_id, text="Again")
        assert rpc.until("agent_end")["outcome"] == "completed"
        assert rpc.finish() == 0
    finally:
        rpc.kill()


def test_schemas_option_writes_the_published_schemas(agentkit: Any, tmp_path: Path) -> None:
    written = agentkit.inline("rpc", "--schemas", str(tmp_path / "schemas"))
    assert written.returncode == 0, written.stderr
    made = sorted(path.relative_to(tmp_path / "schemas") for path in (tmp_path / "schemas").rglob("*.json"))
    assert [str(path) for path in made] == ["v1/agentkit.rpc.request.schema.json",
                                            "v1/agentkit.rpc.response.schema.json", "v2/agentkit.event.schema.json"]


def test_the_store_option_keeps_the_sessions_where_it_says(
        agentkit: Any, tmp_path: Path, workspace: Path, data: dict[str, str]) -> None:
    elsewhere = tmp_path / "elsewhere"
    rpc = RpcProcess(agentkit, "--model", "faux/scripted", "--script", str(write_script(tmp_path / "t.json", [say("Hi.")])),
                     "--root", str(workspace), "--store", str(elsewhere), env=data, cwd=tmp_path)
    try:
        session_id = rpc.call(1, "session.start")["result"]["session_id"]
        rpc.call(2, "prompt", session_id=session_id, text="Hello?")
        while rpc.next_event()["type"] != "agent_end":
            pass
        assert [item["id"] for item in rpc.call(3, "sessions.list")["result"]["sessions"]] == [session_id]
        assert rpc.finish() == 0
    finally:
        rpc.kill()
    assert [path.stem for path in elsewhere.rglob("*.jsonl")] == [session_id]
    assert not list((tmp_path / "data").rglob("*.jsonl"))
