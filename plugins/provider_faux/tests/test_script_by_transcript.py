"""``Script(by_transcript=True)``: the turn answering a request is the one its transcript has reached, whichever
process asks; ``log``: every request is counted in a file another process can read."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx
from agentkit_provider_faux import Script, Turn, text


def ask(script: Script, messages: list[dict[str, object]]) -> str:
    """Send one request with ``messages`` to ``script``; the id of the response it streams back."""
    async def send() -> str:
        async with httpx.AsyncClient(transport=script, base_url="http://faux") as client:
            response = await client.post("/v1/script", json={"messages": messages})
            body = (await response.aread()).decode()
        start = next(line for line in body.splitlines() if line.startswith("data: "))
        return str(json.loads(start.removeprefix("data: "))["id"])

    return asyncio.run(send())


USER = {"role": "user", "content": [{"type": "text", "text": "go"}]}
ASSISTANT = {"role": "assistant", "content": [{"type": "text", "text": "one"}]}


def test_a_fresh_script_answers_a_transcript_in_the_middle_with_the_turn_it_reached(tmp_path: Path) -> None:
    turns = [Turn([text("one")]), Turn([text("two")]), Turn([text("three")])]
    log = tmp_path / "requests.jsonl"
    recovered = Script(turns, by_transcript=True, log=str(log))

    assert ask(recovered, [USER, ASSISTANT, USER, ASSISTANT, ASSISTANT]) == "faux-3"  # two answers since the prompt
    assert ask(recovered, [USER]) == "faux-1"
    assert [json.loads(line) for line in log.read_text().splitlines()] == [{"turn": 3}, {"turn": 1}]


def test_by_default_a_script_plays_its_turns_in_the_order_requests_arrive() -> None:
    script = Script([Turn([text("one")]), Turn([text("two")])])
    assert ask(script, [USER, ASSISTANT, ASSISTANT]) == "faux-1"
    assert ask(script, [USER]) == "faux-2"
