"""A2A server tests: the server started by the test on loopback, the SDK's own client in front of it."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
from a2a.client import Client, ClientConfig, create_client
from a2a.types import Message, Part, Role, SendMessageRequest
from agentkit_a2a import Served, serve

from agentkit.host import Agent, AgentConfig, Connection
from agentkit.host.sessions import JsonlSessionStore


def agent_factory(root: Path, transport: Callable[[], Any], tools: list[str] | None = None) -> Callable[..., Agent]:
    """What ``agentkit a2a serve`` gives the server, with a scripted model: each agent gets ``transport()``."""

    def make(session: Any) -> Agent:
        return Agent(AgentConfig(model="faux/scripted", root=root, tools=tools if tools is not None else ["read_file"],
                                 connection=Connection(transport=transport())), session=session)

    return make


@contextlib.asynccontextmanager
async def running(make_agent: Callable[..., Agent], sessions: Path, *, api_key: str | None = None,
                  name: str = "helper", description: str = "Answers questions.") -> AsyncIterator[Served]:
    """The server on 127.0.0.1 (a free port) until the block ends; sessions in ``sessions``."""
    ready: asyncio.Future[Served] = asyncio.get_running_loop().create_future()
    task = asyncio.ensure_future(serve(make_agent, port=0, store=JsonlSessionStore(sessions), cwd=sessions,
                                       name=name, description=description, api_key=api_key,
                                       on_ready=ready.set_result))
    await asyncio.wait([ready, task], return_when=asyncio.FIRST_COMPLETED)
    if task.done():
        task.result()  # it failed to start: say why
    try:
        yield ready.result()
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


@contextlib.asynccontextmanager
async def sdk_client(served: Served, *, streaming: bool = True, key: str | None = None) -> AsyncIterator[Client]:
    """The SDK's client, its card read from the server's well-known path."""
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    async with httpx.AsyncClient(headers=headers, timeout=30) as http:
        client = await create_client(served.url, ClientConfig(httpx_client=http, streaming=streaming))
        try:
            yield client
        finally:
            await client.close()


def user_message(text: str, context_id: str = "", task_id: str = "") -> SendMessageRequest:
    return SendMessageRequest(message=Message(role=Role.ROLE_USER, message_id=uuid.uuid4().hex,
                                              parts=[Part(text=text)], context_id=context_id, task_id=task_id))


async def events(client: Client, request: SendMessageRequest) -> list[Any]:
    """Every ``StreamResponse`` of one send, in order."""
    return [event async for event in client.send_message(request)]
