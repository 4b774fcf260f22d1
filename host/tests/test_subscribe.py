"""``Agent.subscribe``: plain functions are called for every event; async ones are refused."""

from __future__ import annotations

import pytest
from agentkit_provider_faux import Turn, text
from host_helpers import make_agent


def test_a_listener_sees_every_event_until_it_unsubscribes():
    agent, _ = make_agent([Turn([text("one")]), Turn([text("two")])])
    seen: list[str] = []
    unsubscribe = agent.subscribe(lambda event: seen.append(event.type))
    agent.run_sync("first")
    assert seen[0] == "agent_start" and seen[-1] == "agent_end"
    unsubscribe()
    count = len(seen)
    agent.run_sync("second")
    assert len(seen) == count


async def _async_listener(event):
    raise AssertionError("never called")


class _AsyncCallable:
    async def __call__(self, event):
        raise AssertionError("never called")


@pytest.mark.parametrize("listener", [_async_listener, _AsyncCallable()], ids=["function", "callable"])
def test_an_async_listener_is_refused_naming_stream(listener):
    agent, _ = make_agent([Turn([text("hi")])])
    with pytest.raises(TypeError, match=r"agent\.stream"):
        agent.subscribe(listener)
    # Nothing was subscribed: the run completes with no coroutine left unawaited.
    assert agent.run_sync("hi").outcome == "completed"
