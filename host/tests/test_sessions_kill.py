"""``kill -9`` in the middle of a run, then resume in another process: nothing written is lost.

Two real processes and a real SIGKILL, at points chosen at random (seeded):
with some calls of a tool batch finished and the rest still running, or as
soon as the log has reached a random length (mid-batch, between turns, during
a response). The kill is synchronised on files the child writes (a marker, the
log's lines), never on time. Then another process, the test's own (which never
held the session), resumes the session and runs a turn. What must hold:

* every line of the log read just before the kill is still there, byte for byte,
  in the same order;
* the half-finished turn was repaired as ``docs/sessions.md`` says: every call
  left without a result is answered, in the log, by an error result saying the
  process ended (:data:`INTERRUPTED_RESULT`), before the new user message;
* the request the second process sent carries a well-formed transcript, and
  the resumed history, repaired for each installed wire, is valid for it and
  encodes with its codec.
"""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from agentkit_provider_faux import Script, Turn, text
from session_kill_child import resume
from test_repair import HOST, TARGETS, assert_valid, assert_wire_valid, encode

from agentkit.host import Agent, AgentConfig, Connection
from agentkit.host._repair import repair, tool_call_id_rule
from agentkit.host.sessions import (
    INTERRUPTED_RESULT,
    JsonlSessionStore,
    Session,
    interrupted_results,
)
from agentkit.plugin_api import (
    AssistantMessage,
    ContentBlock,
    StopReason,
    TextBlock,
    ToolResultMessage,
    ToolUseBlock,
    UserMessage,
    message_from_dict,
)

CHILD = Path(__file__).with_name("session_kill_child.py")
SESSION = "killed-session"
WAIT = 60.0  # seconds for the child to reach the kill point: generous, only ever reached on a defect


def plan_for(seed: int) -> tuple[list[list[str]], int | None]:
    """The batches the first process runs, and the log length to kill at (``None``: at the blocked call)."""
    rng = random.Random(seed)
    plan = [["done"] * rng.randint(1, 3) for _ in range(rng.randint(0, 2))]
    if seed % 3:  # a batch of n calls, k of them answered, the rest still running
        size = rng.randint(1, 4)
        finished = rng.randint(0, size - 1)
        plan.append(["done"] * finished + ["block"] + [rng.choice(["done", "block"]) for _ in range(size - finished - 1)])
        return plan, None
    lines = 3 + sum(1 + len(batch) for batch in plan)  # header, model, user; then each batch
    return plan, rng.randint(2, lines)


def complete_lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")[:-1]  # what follows the last newline is a write still under way


def wait_for(child: subprocess.Popen[bytes], ready: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT
    while not ready():
        if child.poll() is not None:
            raise AssertionError(f"the child ended ({child.returncode}): {child.stderr.read().decode() if child.stderr else ''}")
        if time.monotonic() > deadline:
            raise AssertionError("the child never reached the kill point")
        time.sleep(0.01)


def kill_at_random_point(folder: Path, seed: int, env: dict[str, str]) -> list[bytes]:
    """Run the first process, kill it at the seed's point; the log's complete lines read just before."""
    plan, at_lines = plan_for(seed)
    log = folder / f"{SESSION}.jsonl"
    child = subprocess.Popen([sys.executable, str(CHILD), "run", str(folder), SESSION, json.dumps(plan)], cwd=folder,
                             env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        if at_lines is None:
            wait_for(child, lambda: any(folder.glob("blocked-*")))
        else:
            wait_for(child, lambda: (folder / "hanging").exists() or (
                log.exists() and len(complete_lines(log.read_bytes())) >= at_lines))
        before = complete_lines(log.read_bytes())
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=WAIT)
    assert child.returncode == -signal.SIGKILL
    return before


@pytest.mark.parametrize("seed", range(8))
def test_a_run_killed_at_a_random_point_resumes_in_another_process_with_nothing_lost(
        agentkit: Any, tmp_path: Path, seed: int) -> None:
    env = agentkit.environment({"AGENTKIT_DATA_DIR": str(tmp_path / "data")})  # no keys, no user's data
    before = kill_at_random_point(tmp_path, seed, env)

    resumed = resume(tmp_path, SESSION)
    assert (resumed["outcome"], resumed["text"]) == ("completed", "resumed"), resumed

    after = (tmp_path / f"{SESSION}.jsonl").read_bytes().split(b"\n")
    assert after[: len(before)] == before  # nothing written before the kill is lost or changed

    session = Session.open(SESSION, JsonlSessionStore(tmp_path))
    history = session.messages()
    assert isinstance(history[-2], UserMessage) and history[-2].content[0].text == "Go on"  # type: ignore[union-attr]
    assert isinstance(history[-1], AssistantMessage) and history[-1].text == "resumed"
    written_before = sum(json.loads(line)["type"] == "message" for line in before[1:])
    for message in history[written_before:-2]:  # what the resume added: the answers to the calls left open
        assert isinstance(message, ToolResultMessage) and message.is_error
        assert message.content[0].text == INTERRUPTED_RESULT  # type: ignore[union-attr]
    faux = HOST.models["faux/scripted"]
    assert_valid(history[:-1], faux, tool_call_id_rule(HOST.providers[faux.api]))  # the log itself is well formed
    sent = [message_from_dict(message) for message in resumed["request"]]
    assert_valid(sent, faux, tool_call_id_rule(HOST.providers[faux.api]))
    assert isinstance(sent[-1], UserMessage) and not any(
        isinstance(message, AssistantMessage) and message.stop_reason.value in ("error", "aborted") for message in sent)

    for target in TARGETS:
        provider = HOST.providers[target.api]
        rule = tool_call_id_rule(provider)
        view = repair(history, target=target, provider=provider)
        assert_valid(view, target, rule)
        assert_wire_valid(target.api, encode(target, view), rule)


# -- the rule, in one process --------------------------------------------------------

CALLS: list[ContentBlock] = [ToolUseBlock("c1", "step", "{}"), ToolUseBlock("c2", "step", "{}"), ToolUseBlock("c3", "step", "{}")]


def test_only_the_calls_of_the_last_turn_left_open_are_answered_in_call_order() -> None:
    asked = UserMessage.text("Begin")
    turn = AssistantMessage(CALLS, StopReason.TOOL_USE)
    second = ToolResultMessage("c2", "step", [TextBlock("done")])
    answers = interrupted_results([asked, turn, second])
    assert [(answer.tool_use_id, answer.tool_name, answer.is_error) for answer in answers] == [
        ("c1", "step", True), ("c3", "step", True)]
    assert [answer.content for answer in answers] == [[TextBlock(INTERRUPTED_RESULT)]] * 2
    assert interrupted_results([asked, turn, *[ToolResultMessage(f"c{n}", "step", []) for n in (1, 2, 3)]]) == []
    assert interrupted_results([asked, turn, UserMessage.text("later")]) == []  # not the end of the branch
    assert interrupted_results([asked]) == interrupted_results([]) == []
    doubled = AssistantMessage(CALLS[:1] * 2, StopReason.TOOL_USE)
    assert [answer.tool_use_id for answer in interrupted_results([asked, doubled])] == ["c1"]


@pytest.mark.parametrize("stop", [StopReason.ERROR, StopReason.ABORTED])
def test_a_failed_response_needs_no_answers(stop: StopReason) -> None:
    assert interrupted_results([UserMessage.text("Begin"), AssistantMessage(CALLS, stop, error_message="x")]) == []


def test_without_a_session_the_history_is_left_as_it_is(tmp_path: Path) -> None:
    agent = Agent(AgentConfig(model="faux/scripted", tools=[],
                              connection=Connection(transport=Script([Turn([text("ok")])]))), host=HOST)
    agent.history = [UserMessage.text("Begin"), AssistantMessage(CALLS, StopReason.TOOL_USE)]
    result = agent.run_sync("Go on")
    assert [message.role for message in result.messages] == ["user", "assistant"]  # the send-time repair covers it
