"""The floor of a first use: what ``_first_use.py`` does, with its dependencies alone and no agentkit.

It imports what the host and the provider stand on (httpx, asyncio, pluggy),
calls one hook through a ``pluggy.PluginManager``, and sends the same request
over the same kind of ``httpx.MockTransport`` on an ``asyncio`` loop, reading
the same answer. ``bench_startup.py`` times it beside ``_first_use.py`` and
``python -c "import httpx"``: the first use less this floor is what agentkit's
own code costs.
"""

from __future__ import annotations

import asyncio
import json
import os

import httpx
import pluggy

# The answer _first_use.py's transport gives.
REPLY = (b'{"id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4.1", "choices": [{"index": 0, '
         b'"message": {"role": "assistant", "content": "done"}, "finish_reason": "stop"}], '
         b'"usage": {"prompt_tokens": 9, "completion_tokens": 1}}')

spec = pluggy.HookspecMarker("floor")
impl = pluggy.HookimplMarker("floor")


class _Specs:
    @spec
    def floor_register_tools(self, register: object) -> None:
        """Register tools."""


class _Plugin:
    @impl
    def floor_register_tools(self, register: list[str]) -> None:
        register.append("count")


async def request(tools: list[str]) -> str:
    transport = httpx.MockTransport(lambda request: httpx.Response(
        200, headers={"content-type": "application/json"}, content=REPLY))
    async with httpx.AsyncClient(transport=transport) as client:
        response = await client.post(
            "https://api.openai.com/v1/chat/completions",
            headers={"authorization": f"Bearer {os.environ['OPENAI_API_KEY']}"},
            json={"model": "gpt-4.1", "messages": [{"role": "user", "content": "go"}],
                  "tools": [{"type": "function", "function": {"name": name}} for name in tools]})
        return json.loads(response.content)["choices"][0]["message"]["content"]  # type: ignore[no-any-return]


def main() -> None:
    os.environ["OPENAI_API_KEY"] = "sk-bench-not-a-real-key"
    manager = pluggy.PluginManager("floor")
    manager.add_hookspecs(_Specs)
    manager.register(_Plugin(), name="first-use")
    tools: list[str] = []
    manager.hook.floor_register_tools(register=tools)
    assert asyncio.run(request(tools)) == "done"


if __name__ == "__main__":
    main()
