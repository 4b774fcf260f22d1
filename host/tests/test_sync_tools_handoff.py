"""Plain sync tools: a batch goes to a worker thread in one hand-off, and a call that blocks holds up nothing.

Counts are taken on a loop whose clock never moves (no timer ever falls due),
so that a loaded machine cannot change them: the hand-offs a batch starts
with are all there is. The batch's sync calls are handed to worker threads
(counted at the host's worker pool) and ``inspect.iscoroutinefunction`` is
counted where the host asks it. What blocks is observed by what the calls
themselves can do: meet, signal one another, or be given up on.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import threading
from typing import Any

import pytest
from agentkit_provider_faux import Turn, text, tool_call
from host_helpers import ToolsPlugin, make_agent

from agentkit.host import Timeouts, Trust, _guard, allow_all
from agentkit.plugin_api import ExecutionMode, Tool, ToolResultMessage

LONG_ENOUGH = 30  # seconds a test's own wait may take before it fails instead of hanging


class StillClock(asyncio.SelectorEventLoop):
    """A loop whose clock never moves: nothing scheduled for later ever runs."""

    def time(self) -> float:
        return 0.0


def run_on_a_still_clock(agent: Any) -> Any:
    loop = StillClock()
    try:
        return loop.run_until_complete(agent.run("go"))
    finally:
        loop.close()


def batches(count: int, calls: int) -> list[Turn]:
    return [Turn([tool_call("note", {"n": n}) for n in range(calls)]) for _ in range(count)] + [Turn([text("done")])]


def note_tool(mode: ExecutionMode = ExecutionMode.PARALLEL) -> Tool:
    def note(n: int) -> int:
        """Note n."""
        return n

    return Tool.from_function(note, execution_mode=mode)


def envelopes(result: Any) -> list[dict[str, Any]]:
    return [json.loads(m.text) for m in result.messages if isinstance(m, ToolResultMessage)]


def hand_offs(monkeypatch: pytest.MonkeyPatch, mode: ExecutionMode, batch_count: int) -> int:
    """Jobs handed to the host's worker threads during one run of ``batch_count`` batches of three calls."""
    handed = [0]
    submit = _guard._WORKERS.submit

    def counting(job: Any, name: str) -> None:
        handed[0] += 1
        submit(job, name)

    monkeypatch.setattr(_guard._WORKERS, "submit", counting)
    agent, _ = make_agent(batches(batch_count, 3), ToolsPlugin(note_tool(mode)),
                          trust=Trust(before_tool_call=allow_all))
    result = run_on_a_still_clock(agent)
    monkeypatch.undo()
    assert result.outcome == "completed"
    assert [e["data"] for e in envelopes(result)] == [0, 1, 2] * batch_count
    return handed[0]


def test_the_sync_calls_of_a_batch_are_handed_to_a_worker_thread_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # Against the same run with the tool INLINE (no hand-off at all): whatever else a run hands to
    # threads cancels out, and what is left is the hand-offs of the tool calls.
    for batch_count in (2, 5):
        threaded = hand_offs(monkeypatch, ExecutionMode.PARALLEL, batch_count)
        inline = hand_offs(monkeypatch, ExecutionMode.INLINE, batch_count)
        assert threaded - inline == batch_count, "one hand-off per batch, not one per call"


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_whether_a_handler_is_async_is_never_asked_per_call(monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    """``inspect.iscoroutinefunction`` runs as often for a batch of one call as for a batch of six."""

    def note(n: int) -> int:
        """Note n."""
        return n

    async def note_async(n: int) -> int:
        """Note n."""
        return n

    def asked_during(calls: int) -> int:
        tool = Tool.from_function(note if kind == "sync" else note_async, name="note")
        agent, _ = make_agent(batches(2, calls), ToolsPlugin(tool), trust=Trust(before_tool_call=allow_all))
        asked = [0]
        real = inspect.iscoroutinefunction

        def counting(function: Any) -> bool:
            asked[0] += 1
            return real(function)

        monkeypatch.setattr(inspect, "iscoroutinefunction", counting)
        try:
            assert agent.run_sync("go").outcome == "completed"
        finally:
            monkeypatch.undo()
        return asked[0]

    assert asked_during(1) == asked_during(6), "asked per call"


def test_a_sync_call_that_blocks_does_not_hold_up_the_calls_queued_behind_it() -> None:
    """The first call waits for a signal only the last call of its batch can give."""
    signal = threading.Event()

    def step(n: int) -> str:
        """Wait for the last step (the first), or signal it (the last)."""
        if n == 0:
            return "signalled" if signal.wait(LONG_ENOUGH) else "never signalled"
        if n == 2:
            signal.set()
        return "done"

    agent, _ = make_agent([Turn([tool_call("step", {"n": n}) for n in range(3)]), Turn([text("ok")])],
                          ToolsPlugin(Tool.from_function(step)))
    result = agent.run_sync("go")
    assert [e["data"] for e in envelopes(result)] == ["signalled", "done", "done"]


def test_a_blocking_sync_call_leaves_the_loop_free_for_the_coroutines_of_its_batch() -> None:
    signal = threading.Event()

    def wait_for_it() -> str:
        """Wait until the coroutine signals."""
        return "signalled" if signal.wait(LONG_ENOUGH) else "the loop was frozen"

    async def give_it() -> str:
        """Signal the waiting thread, from the loop."""
        await asyncio.sleep(0)
        signal.set()
        return "given"

    plugin = ToolsPlugin(Tool.from_function(wait_for_it), Tool.from_function(give_it))
    agent, _ = make_agent([Turn([tool_call("wait_for_it"), tool_call("give_it")]), Turn([text("ok")])], plugin)
    result = agent.run_sync("go")
    assert [e["data"] for e in envelopes(result)] == ["signalled", "given"]


def test_a_sync_call_past_its_deadline_does_not_take_the_calls_queued_behind_it() -> None:
    release = threading.Event()

    def slow(n: int) -> int:
        """The first call never finishes in time."""
        if n == 0:
            release.wait(LONG_ENOUGH)
        return n

    agent, _ = make_agent([Turn([tool_call("slow", {"n": n}) for n in range(3)]), Turn([text("ok")])],
                          ToolsPlugin(Tool.from_function(slow, timeout=0.2)))
    try:
        result = agent.run_sync("go")
    finally:
        release.set()
    first, *rest = envelopes(result)
    assert first["error"] == "timeout"
    assert rest == [{"ok": True, "data": 1}, {"ok": True, "data": 2}]


def test_an_abort_ends_a_batch_of_sync_calls_that_all_block() -> None:
    release = threading.Event()
    holder: list[Any] = []
    started = threading.Semaphore(0)

    def stuck(n: int) -> int:
        """Block until released, ignoring the abort."""
        started.release()
        release.wait(LONG_ENOUGH)
        return n

    def abort_when_all_started() -> None:
        for _ in range(3):
            started.acquire(timeout=LONG_ENOUGH)
        holder[0].abort()

    agent, _ = make_agent([Turn([tool_call("stuck", {"n": n}) for n in range(3)]), Turn([text("never")])],
                          ToolsPlugin(Tool.from_function(stuck)))
    holder.append(agent)
    aborter = threading.Thread(target=abort_when_all_started, daemon=True)
    aborter.start()
    try:
        result = agent.run_sync("go")  # all three overlap, or the abort never comes and the calls wait it out
    finally:
        release.set()
        aborter.join(LONG_ENOUGH)
    assert result.outcome == "aborted"
    assert [e["error"] for e in envelopes(result)] == ["aborted"] * 3


def test_a_call_given_up_on_never_keeps_the_batch_from_settling_when_its_sibling_returns() -> None:
    """One call is past its deadline and never returns; its sibling, with no deadline, returns later."""
    release = threading.Event()

    def stuck() -> str:
        """Never return in time."""
        release.wait(LONG_ENOUGH)
        return "too late"

    def later() -> str:
        """Return after the sibling was given up on."""
        threading.Event().wait(0.6)
        return "later"

    plugin = ToolsPlugin(Tool.from_function(stuck, timeout=0.2), Tool.from_function(later))
    agent, _ = make_agent([Turn([tool_call("later"), tool_call("stuck")]), Turn([text("ok")])], plugin,
                          timeouts=Timeouts(tool=None))
    watchdog = threading.Timer(LONG_ENOUGH / 2, release.set)  # a batch that waited for the stuck call ends here
    watchdog.start()
    try:
        result = agent.run_sync("go")
        released_first = release.is_set()
    finally:
        release.set()
        watchdog.cancel()
    assert not released_first, "the batch waited for a call it had given up on"
    assert [e.get("data", e.get("error")) for e in envelopes(result)] == ["later", "timeout"]
