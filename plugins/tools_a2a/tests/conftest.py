"""A2A client tests: remote agents started by the test on loopback, each in a thread of its own.

A thread, because the plugin reads each card while the host is built, from
synchronous code: a peer on the test's own event loop could not answer it.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty user config directory and an empty project directory (the working directory)."""
    home = tmp_path / "config"
    home.mkdir()
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.setenv("AGENTKIT_CONFIG_DIR", str(home))
    monkeypatch.chdir(project)
    return home


def configure(path: Path, *entries: dict[str, object]) -> None:
    """Write ``entries`` as the ``[[a2a.agents]]`` of the ``agentkit.toml`` in ``path``."""
    import tomli_w

    (path / "agentkit.toml").write_text(tomli_w.dumps({"a2a": {"agents": list(entries)}}), encoding="utf-8")


class Peer:
    """A server run on an event loop of its own thread until :meth:`stop`."""

    def __init__(self, start: Callable[[Callable[[str], None]], Coroutine[Any, Any, None]]) -> None:
        self.url = ""
        self._ready = threading.Event()
        self._loop = asyncio.new_event_loop()
        self._start = start
        self._task: asyncio.Task[None] | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        if not self._ready.wait(60):
            raise RuntimeError("the peer did not start")

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)

        def ready(url: str) -> None:
            self.url = url
            self._ready.set()

        self._task = self._loop.create_task(self._start(ready))
        with contextlib.suppress(asyncio.CancelledError):
            self._loop.run_until_complete(self._task)
        left = asyncio.all_tasks(self._loop)  # the server's helpers (sse-starlette's watcher): end them too
        for task in left:
            task.cancel()
        self._loop.run_until_complete(asyncio.gather(*left, return_exceptions=True))
        self._ready.set()
        self._loop.close()

    def call(self, coroutine: Coroutine[Any, Any, Any]) -> Any:
        """Run ``coroutine`` on the peer's loop; its value."""
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(60)

    def stop(self) -> None:
        if self._task is not None:
            self._loop.call_soon_threadsafe(self._task.cancel)
        self._thread.join(60)


def asgi_peer(make_app: Callable[[str, int], Any]) -> Peer:
    """``make_app(host, port)`` served by uvicorn on a free loopback port."""

    async def start(ready: Callable[[str], None]) -> None:
        import uvicorn

        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        server = uvicorn.Server(uvicorn.Config(make_app("127.0.0.1", port), log_level="warning", lifespan="off"))
        server.install_signal_handlers = lambda: None  # type: ignore[method-assign]  # not the main thread
        serving = asyncio.ensure_future(server.serve(sockets=[sock]))
        while not server.started:
            await asyncio.sleep(0.01)
        ready(f"http://127.0.0.1:{port}")
        try:
            await asyncio.shield(serving)
        except asyncio.CancelledError:
            server.should_exit = True
            await asyncio.wait([serving])
            raise
        finally:
            sock.close()

    return Peer(start)


def agentkit_peer(root: Path, transport: Callable[[], Any]) -> Peer:
    """``agentkit a2a serve``'s server (no key, loopback) over an agent whose model is ``transport()``."""
    from agentkit_a2a import serve

    from agentkit.host import Agent, AgentConfig, Connection, PluginHost
    from agentkit.host.sessions import JsonlSessionStore

    # The peer's own agent has no remote agents: the a2a plugin would read the test's configuration.
    host = PluginHost.discover(env={"AGENTKIT_DISABLE_PLUGINS": "a2a"})

    def make(session: Any) -> Agent:
        return Agent(AgentConfig(model="faux/scripted", root=root, tools=["read_file"],
                                 connection=Connection(transport=transport())), host=host, session=session)

    async def start(ready: Callable[[str], None]) -> None:
        await serve(make, port=0, store=JsonlSessionStore(root / "peer-sessions"), cwd=root, name="helper",
                    description="Answers questions about the weather.", api_key=None,
                    on_ready=lambda served: ready(served.url))

    return Peer(start)


@contextlib.contextmanager
def running(peer: Peer) -> Iterator[Peer]:
    try:
        yield peer
    finally:
        peer.stop()
