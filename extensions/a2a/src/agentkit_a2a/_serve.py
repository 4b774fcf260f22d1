"""The A2A server: the SDK's JSON-RPC endpoint and Agent Card over the conversations' agents, on uvicorn."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.utils.constants import AGENT_CARD_WELL_KNOWN_PATH
from starlette.applications import Starlette

from ._card import RPC_PATH, agent_card
from ._contexts import Contexts
from ._executor import RunExecutor
from ._gate import LOOPBACK_HOSTS, Gate
from ._tasks import SessionTaskStore

if TYPE_CHECKING:
    from agentkit.host import Agent
    from agentkit.host.sessions import Session, SessionStore

#: Seconds the running tasks get to end (their runs aborted) once the server is told to stop.
SHUTDOWN_GRACE = 5


@dataclass(frozen=True)
class Served:
    """What a caller reaches: the base URL and the card's."""

    url: str

    @property
    def card_url(self) -> str:
        return self.url + AGENT_CARD_WELL_KNOWN_PATH


def a2a_app(make_agent: Callable[[Session | None], Agent], *, url: str, store: SessionStore, cwd: Path,
            name: str, description: str, api_key: str | None, loopback: bool) -> tuple[Any, Contexts]:
    """The ASGI app serving the agent ``make_agent`` builds at ``url``, and its open conversations.

    ``make_agent(None)`` builds the agent the card describes (its tools and
    skills); ``make_agent(session)`` the agent of a conversation.
    """
    card = agent_card(make_agent(None), url=url, name=name, description=description, needs_key=api_key is not None)
    contexts = Contexts(make_agent, store, cwd)
    executor = RunExecutor(contexts)
    contexts.executor = executor
    handler = DefaultRequestHandler(agent_executor=executor, task_store=SessionTaskStore(contexts), agent_card=card)
    routes = [*create_agent_card_routes(card),
              *create_jsonrpc_routes(handler, RPC_PATH, enable_v0_3_compat=True)]
    return Gate(Starlette(routes=routes), api_key=api_key, loopback=loopback), contexts


async def serve(make_agent: Callable[[Session | None], Agent], *, host: str = "127.0.0.1", port: int = 0,
                store: SessionStore, cwd: Path, name: str, description: str, api_key: str | None,
                on_ready: Callable[[Served], None] | None = None, public_url: str | None = None) -> None:
    """Serve until cancelled or interrupted; ``on_ready`` once the socket is bound (``port=0``: any free one).

    :param public_url: the base URL callers reach the server at, as the card names it (behind a
        proxy, or bound to ``0.0.0.0``); default ``http://HOST:PORT`` of the bound socket.
    """
    import uvicorn

    sock = _bind(host, port)
    bound = sock.getsockname()
    shown = f"[{bound[0]}]" if ":" in bound[0] else bound[0]
    served = Served(public_url.rstrip("/") if public_url else f"http://{shown}:{bound[1]}")
    app, contexts = a2a_app(make_agent, url=served.url, store=store, cwd=cwd, name=name, description=description,
                            api_key=api_key, loopback=host in LOOPBACK_HOSTS)
    config = uvicorn.Config(app, log_level="warning", lifespan="off", ws="none",
                            timeout_graceful_shutdown=SHUTDOWN_GRACE)
    class _Ready(uvicorn.Server):
        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets)
            if on_ready is not None:
                on_ready(served)

    server = _Ready(config)
    serving = asyncio.ensure_future(server.serve(sockets=[sock]))
    try:
        await asyncio.shield(serving)
    except asyncio.CancelledError:  # the embedder's task was cancelled: stop as on a signal, then go
        server.should_exit = True
        await asyncio.wait([serving])
        raise
    finally:
        # The runs in flight end as aborted (their sessions whole) before their sessions close.
        contexts.executor.abort_all()
        await contexts.executor.idle(SHUTDOWN_GRACE)
        contexts.close()
        sock.close()


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock
