"""A large structured answer streams its partial values in work proportional to its length.

The work is counted as the characters handed to the JSON decoder while the
run streams (the partial values, the final validation, the scripted wire's
own events), so the bound cannot flake on a busy machine.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, TypedDict

import pytest
from agentkit_provider_faux import Turn, tool_call
from host_helpers import make_agent

from agentkit.plugin_api import BlockDelta, OutputPartial


class Item(TypedDict):
    name: str
    count: int


class Inventory(TypedDict):
    items: list[Item]


@pytest.fixture
def decoded(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The length of every text the JSON decoder is handed while the test runs."""
    lengths: list[int] = []
    real = json.loads

    def counting(text: Any, *args: Any, **kwargs: Any) -> Any:
        lengths.append(len(text))
        return real(text, *args, **kwargs)

    monkeypatch.setattr(json, "loads", counting)
    return lengths


def test_a_50_kb_answer_streams_partial_values_in_linear_work(decoded: list[int]) -> None:
    answer = {"items": [{"name": f"part number {number:05d} of the big inventory", "count": number}
                        for number in range(900)]}
    arguments = json.dumps(answer)
    assert len(arguments) >= 50_000
    agent, _ = make_agent([Turn([tool_call("final_result", arguments)])], tools=[])

    async def events() -> list[Any]:
        return [event async for event in agent.stream("Count everything", output_type=Inventory)]

    seen = asyncio.run(events())
    deltas = [event for event in seen if isinstance(event, BlockDelta)]
    partials = [event.value for event in seen if isinstance(event, OutputPartial)]
    assert agent.last_result is not None and agent.last_result.output == answer
    assert len(deltas) > 4000  # small pieces, as a wire streams them
    # What the contract promises: values that grow, read after a delta, ending with the whole answer.
    assert partials[-1] == answer
    assert len(partials) >= 100
    sizes = [len(value.get("items", ())) for value in partials]
    assert sizes == sorted(sizes) and sizes[0] < 5
    assert all(value["items"][:-1] == answer["items"][:len(value["items"]) - 1] for value in partials if value)
    assert sum(decoded) <= 100 * len(arguments)  # linear, not a re-read of the whole text per delta
