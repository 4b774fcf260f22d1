"""Random fault schedules through the public Agent API: the run's invariants hold on every one.

A schedule says which call of which batch does what (answers, raises any kind
of exception, returns data that cannot be JSON, sends bad arguments, never
returns), whether the plugin hooks raise, whether the provider's decoder
raises, and at which events the run is aborted, its task cancelled, or every
task on the loop cancelled at once (as ``asyncio.run`` does when the
application's main fails), any number of times. Whatever the schedule, the history is well-formed, the end
is reported once and the same everywhere, and the outcome is what happened.
"""

from __future__ import annotations

import asyncio
import threading
import time

from agentkit_provider_faux import Script, Turn, text, tool_call
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from loop_faults import (
    KINDS_OF_RAISE,
    UNSERIALIZABLE,
    HostileProvider,
    RaisingHooks,
    assert_well_formed,
    recorded_agent,
    tools,
)

from agentkit.host import Limits, Timeouts
from agentkit.plugin_api import Tool

CALL_FAULTS = ["ok", "slow", "unserializable", "bad_arguments", "stuck", "stuck_cooperative", "stuck_async",
               *(f"raise:{kind}" for kind in KINDS_OF_RAISE), *(f"raise_async:{kind}" for kind in KINDS_OF_RAISE)]
EVENTS = ["tool_call_start", "tool_call_end", "turn_end", "message_end", "block_delta", "turn_start"]


def fault_tool() -> Tool:
    """One tool that does what its ``fault`` argument says."""

    def handler(arguments: dict, context) -> object:
        fault = arguments.get("fault", "ok")
        if fault == "slow":
            time.sleep(0.01)
        elif fault == "unserializable":
            return UNSERIALIZABLE["circular_list"]()
        elif fault == "stuck":
            threading.Event().wait()
        elif fault == "stuck_cooperative":
            context.cancel.wait()
        elif fault.startswith("raise:"):
            raise KINDS_OF_RAISE[fault.split(":", 1)[1]]("scheduled fault")
        return fault

    return Tool("fault", "does what it is told", {"type": "object"}, handler)


def async_fault_tool() -> Tool:
    async def handler(arguments: dict, context) -> object:
        fault = arguments.get("fault", "ok")
        if fault == "stuck_async":
            await asyncio.sleep(3600)  # cancelled at its deadline or at the abort
        elif fault.startswith("raise_async:"):
            raise KINDS_OF_RAISE[fault.split(":", 1)[1]]("scheduled fault")
        return fault

    return Tool("async_fault", "does what it is told, asynchronously", {"type": "object"}, handler)


def call_for(fault: str):
    if fault == "bad_arguments":
        return tool_call("fault", '{"fault": NaN}')
    name = "async_fault" if fault.startswith(("raise_async:", "stuck_async")) else "fault"
    return tool_call(name, {"fault": fault})


schedules = st.fixed_dictionaries({
    "batches": st.lists(st.lists(st.sampled_from(CALL_FAULTS), min_size=1, max_size=3), min_size=0, max_size=3),
    "hooks": st.sampled_from([None, *KINDS_OF_RAISE]),
    "provider": st.sampled_from([None, None, None, "raise:exception", "raise:keyboard_interrupt"]),
    "interrupts": st.lists(
        st.tuples(st.sampled_from(EVENTS), st.integers(0, 3), st.sampled_from(["abort", "cancel", "abort_thread", "cancel_every_task"])),
        max_size=4,
    ),
})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schedules)
def test_every_fault_schedule_ends_with_a_well_formed_run(schedule):
    turns = [Turn([call_for(fault) for fault in batch]) for batch in schedule["batches"]] + [Turn([text("done")])]
    plugins = [tools(fault_tool(), async_fault_tool())]
    if schedule["hooks"] is not None:
        plugins.append(RaisingHooks(KINDS_OF_RAISE[schedule["hooks"]]))
    provider = HostileProvider(schedule["provider"]) if schedule["provider"] else None
    agent, recorder = recorded_agent(Script(turns), *plugins, provider=provider, limits=Limits(max_turns=None),
                                     timeouts=Timeouts(tool=0.1))

    pending = list(schedule["interrupts"])
    counts: dict[str, int] = {}
    fired: list[str] = []  # the interrupts that fired before agent_end
    task: list[asyncio.Future] = []
    driver: list[asyncio.Task] = []

    def interrupt(event) -> None:
        counts[event.type] = counts.get(event.type, 0) + 1
        due = [item for item in pending if item[0] == event.type and item[1] < counts[event.type]]
        for item in due:
            pending.remove(item)
            action = item[2]
            if event.type != "agent_end":
                fired.append(action)
            if action == "abort":
                agent.abort()
            elif action == "abort_thread":
                threading.Thread(target=agent.abort).start()
            elif action == "cancel_every_task":  # what asyncio.run does when the application's main fails
                for each in asyncio.all_tasks():
                    if each is not driver[0]:
                        each.cancel()
            else:
                task[0].cancel()

    agent.subscribe(interrupt)

    async def scenario():
        driver.append(asyncio.current_task())
        task.append(asyncio.ensure_future(agent.run("go")))
        try:
            return await task[0]
        except asyncio.CancelledError:
            return "raised CancelledError"

    returned = asyncio.run(scenario())
    assert_well_formed(agent, recorder)
    outcome = agent.last_result.outcome
    event(f"outcome {outcome}, interrupted {bool(fired)}")
    natural = "error" if schedule["provider"] else "completed"
    if not fired:
        assert outcome == natural, (outcome, agent.last_result.error)
    else:
        first = "aborted" if fired[0].startswith("abort") else "cancelled"
        assert outcome in (natural, first, "aborted", "cancelled"), outcome
        assert outcome != "completed" or natural == "completed"
    if "cancel" in fired or "cancel_every_task" in fired:
        assert returned == "raised CancelledError"
    elif returned != "raised CancelledError":
        assert returned is agent.last_result
