"""A durable run killed with SIGKILL (between two steps, inside a model request, inside a tool) and recovered
by ``agentkit runs resume``: no completed step runs again, and the transcript is an uninterrupted run's."""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

from agentkit.testing import Turn, text, tool_call

from .conftest import TIMEOUT, DurableWorld, wait_for


def uninterrupted(tmp_path: Path, agentkit: Any, turns: list[Turn]) -> bytes:
    """The transcript of the same script run durably to its end, in a world of its own (its gate open)."""
    folder = tmp_path / "uninterrupted"
    folder.mkdir()
    world = DurableWorld(folder, agentkit)
    world.gate.touch()
    world.script(turns)
    done = world.run(*world.run_args())
    assert done.returncode == 0, done.stderr
    return world.transcript()


def resume(world: DurableWorld) -> str:
    """``agentkit runs resume``: it must end well; its stdout."""
    resumed = world.run("runs", "resume")
    assert resumed.returncode == 0, resumed.stderr
    return resumed.stdout


def session_holds(world: DurableWorld, fragment: str) -> bool:
    sessions = world.data / "sessions"
    return any(fragment in path.read_text("utf-8", errors="replace") for path in sessions.rglob("*.jsonl"))


def test_killed_between_two_steps_resumes_without_running_a_completed_step(
        world: DurableWorld, tmp_path: Path, agentkit: Any) -> None:
    turns = [Turn([tool_call("write_note", {"name": "first"})]),
             Turn([tool_call("read_note", {"name": "second"})], delay=0.3),  # slow: the kill comes first
             Turn([text("all noted")])]
    world.script(turns)
    running = world.start(*world.run_args())
    try:
        run_id = running.run_id()
        # The first call's result is in the session: its step is checkpointed, the next not yet.
        wait_for(lambda: session_holds(world, "wrote first"), "the first call's result in the session")
        running.kill()
    finally:
        running.end()
    assert world.requested_turns()[0] == 1
    killed_requests = len(world.requested_turns())

    assert "all noted" in resume(world)

    assert [line["name"] for line in world.ledger_lines()].count("first") == 1  # never run again
    assert 1 not in world.requested_turns()[killed_requests:]  # its response was never asked for again
    assert world.ledger_lines()[0]["key"] == f"{run_id}:call_1_1"
    assert world.transcript() == uninterrupted(tmp_path, agentkit, turns)
    # What the first process reported is not reported again: the replay delivers no event.
    events = world.observed_events()
    assert [event["call"] for event in events if event["type"] == "tool_call_end"] == ["call_1_1", "call_2_1"]
    assert [event["type"] for event in events].count("agent_start") == 1
    assert [event["type"] for event in events].count("message_end") == 3


def test_killed_inside_a_model_request_sends_only_that_request_again(
        world: DurableWorld, tmp_path: Path, agentkit: Any) -> None:
    turns = [Turn([tool_call("write_note", {"name": "first"})]),
             Turn([text("a long answer, streamed slowly")], delay=0.5)]
    world.script(turns)
    running = world.start(*world.run_args())
    try:
        wait_for(lambda: 2 in world.requested_turns(), "the second request")
        running.kill()  # its response takes seconds to stream: the process dies inside it
    finally:
        running.end()
    assert world.requested_turns() == [1, 2]

    assert "a long answer" in resume(world)

    assert world.requested_turns() == [1, 2, 2]  # the interrupted request again, and nothing before it
    assert [line["name"] for line in world.ledger_lines()] == ["first"]
    assert world.transcript() == uninterrupted(tmp_path, agentkit, turns)


def test_a_retry_safe_tool_killed_inside_its_call_runs_again(
        world: DurableWorld, tmp_path: Path, agentkit: Any) -> None:
    turns = [Turn([tool_call("write_note", {"name": "first"})]),
             Turn([tool_call("read_note", {"name": "slow-read"})]),
             Turn([text("read it")])]
    world.script(turns)
    running = world.start(*world.run_args())
    try:
        wait_for(lambda: any(line["name"] == "slow-read" for line in world.ledger_lines()), "the slow call")
        running.kill()  # the call waits for the gate, which is not there
    finally:
        running.end()
    world.gate.touch()

    assert "read it" in resume(world)

    names = [line["name"] for line in world.ledger_lines()]
    assert names == ["first", "slow-read", "slow-read"]  # the interrupted call ran again; the completed one did not
    first_try, second_try = world.ledger_lines()[1:]
    assert first_try["key"] == second_try["key"] and first_try["pid"] != second_try["pid"]
    assert world.requested_turns().count(1) == 1 and world.requested_turns().count(2) == 1
    assert world.transcript() == uninterrupted(tmp_path, agentkit, turns)


def test_a_tool_not_safe_to_retry_killed_inside_its_call_is_answered_interrupted(world: DurableWorld) -> None:
    world.script([Turn([tool_call("write_note", {"name": "slow-write"})]), Turn([text("carried on")])])
    running = world.start(*world.run_args())
    try:
        wait_for(lambda: world.ledger_lines(), "the slow call")
        running.kill()
    finally:
        running.end()
    world.gate.touch()

    assert "carried on" in resume(world)

    assert [line["name"] for line in world.ledger_lines()] == ["slow-write"]  # never run a second time
    session = world.session()
    try:
        results = [message for message in session.resume().messages if message.role == "tool_result"]
    finally:
        session.close()
    assert len(results) == 1 and results[0].is_error
    assert "may or may not have taken effect" in json.loads(results[0].content[0].text)["detail"]


def test_ctrl_c_aborts_the_run_and_records_it_as_aborted(world: DurableWorld) -> None:
    world.script([Turn([tool_call("write_note", {"name": "first"})]), Turn([text("a slow answer")], delay=0.5)])
    running = world.start(*world.run_args())
    try:
        wait_for(lambda: 2 in world.requested_turns(), "the second request")
        running.process.send_signal(signal.SIGINT)
        assert running.process.wait(TIMEOUT) == 130
    finally:
        running.end()
    assert "agentkit: aborted" in running.stderr.read_text("utf-8")

    resumed = world.run("runs", "resume")  # ended, not pending: there is nothing to resume
    assert resumed.returncode == 0 and "no durable run is pending" in resumed.stderr
    assert world.requested_turns() == [1, 2]
