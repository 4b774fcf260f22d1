"""A network that can only reach loopback: stub DNS, a recording connect, local servers.

No test here can send a packet to a non-loopback address. Names are answered
by :class:`StubResolver`; every connect goes through :class:`RecordingBackend`,
which records the address and opens a socket only when the address is
loopback or is routed to a local server by the test's own ``routes`` table (a
public-looking address standing in for "some server on the internet").
Anything else is refused after being recorded, so a guard that wrongly
allows an address shows up as a recorded connect, never as traffic.
"""

from __future__ import annotations

import ipaddress
import ssl
import subprocess
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpcore
import pytest
from agentkit_tools_web import make_fetch_url_tool

from agentkit.plugin_api import CancelToken, Tool, ToolContext, ToolResult

# Public-looking addresses the stub DNS hands out. They are never dialled:
# RecordingBackend routes them to loopback servers or refuses them.
PUBLIC_A = "93.184.215.14"
PUBLIC_B = "151.101.65.69"
CERT_NAMES = ("site-a.test", "site-b.test", "rebind.test")
#: Seconds between a local server's looks at whether it was asked to shut down.
SERVER_POLL = 0.01


class StubResolver:
    """Answers from a table; an entry may be a list of answers used one per query."""

    def __init__(self, table: dict[str, Any], default: list[str] | None = None) -> None:
        self.table = table
        self.default = default
        self.queries: list[str] = []

    def __call__(self, host: str, port: int) -> list[str]:
        self.queries.append(host)
        entry = self.table.get(host)
        if entry is None:
            if self.default is None:
                raise httpcore.ConnectError(f"stub DNS: no such name {host!r}")
            return list(self.default)
        if callable(entry):
            return list(entry())
        return list(entry)


def answers_in_turn(*answers: list[str]) -> Callable[[], list[str]]:
    """A DNS entry that gives each answer once, then repeats the last."""
    remaining = list(answers)

    def next_answer() -> list[str]:
        return remaining.pop(0) if len(remaining) > 1 else remaining[0]

    return next_answer


class RecordingBackend(httpcore.NetworkBackend):
    """The only way out of a test: records every connect, opens loopback sockets only."""

    def __init__(self, resolver: StubResolver) -> None:
        self.routes: dict[str, int] = {}
        self.connects: list[tuple[str, int]] = []
        self._resolver = resolver
        self._real = httpcore.SyncBackend()

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        self.connects.append((host, port))
        try:
            ipaddress.ip_address(host)
        except ValueError:
            # Handed a name: resolve it like the operating system would, so
            # a guard that connects by name is seen to reach the answer.
            host = self._resolver(host, port)[0]
            self.connects.append((host, port))
        if host in self.routes:
            return self._real.connect_tcp("127.0.0.1", self.routes[host], timeout=timeout)
        if ipaddress.ip_address(host).is_loopback:
            return self._real.connect_tcp(host, port, timeout=timeout)
        raise httpcore.ConnectError(f"test network: refusing to dial non-loopback {host}")

    def connect_unix_socket(self, *args, **kwargs):
        raise httpcore.ConnectError("test network: no unix sockets")

    def sleep(self, seconds):
        self._real.sleep(seconds)

    def dialled(self) -> list[str]:
        return [host for host, _port in self.connects]


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


Route = Callable[[BaseHTTPRequestHandler], None]


@dataclass
class LocalServer:
    """An HTTP(S) server on 127.0.0.1 whose paths are test functions."""

    routes: dict[str, Route] = field(default_factory=dict)
    seen: list[Seen] = field(default_factory=list)
    port: int = 0
    release: threading.Event = field(default_factory=threading.Event)

    def route(self, path: str) -> Callable[[Route], Route]:
        def register(function: Route) -> Route:
            self.routes[path] = function
            return function

        return register

    def handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                server.seen.append(
                    Seen(
                        self.command,
                        self.path,
                        {k.lower(): v for k, v in self.headers.items()},
                        body,
                    )
                )
                route = server.routes.get(self.path.split("?")[0])
                if route is None:
                    self.send_error(404)
                    return
                route(self)

            do_GET = do_POST = do_HEAD = do_PUT = _serve

            def log_message(self, *args: Any) -> None:
                pass

        return Handler


def reply(
    status: int = 200, body: bytes = b"", content_type: str = "text/plain", **headers: str
) -> Route:
    def send(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(status)
        handler.send_header("Content-Type", content_type)
        handler.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            handler.send_header(name.replace("_", "-"), value)
        handler.end_headers()
        if handler.command != "HEAD":
            handler.wfile.write(body)

    return send


@pytest.fixture(scope="session")
def certificate(tmp_path_factory) -> tuple[Path, Path]:
    """A self-signed certificate for the test names, made with the openssl command."""
    folder = tmp_path_factory.mktemp("tls")
    key, cert = folder / "key.pem", folder / "cert.pem"
    names = ",".join(f"DNS:{name}" for name in CERT_NAMES)
    try:
        subprocess.run(
            ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key),
             "-out", str(cert), "-days", "2", "-subj", f"/CN={CERT_NAMES[0]}",
             "-addext", f"subjectAltName={names}"],
            check=True, capture_output=True,
        )  # fmt: skip
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"the openssl command is needed to make a test certificate: {exc}")
    return key, cert


class Network:
    """Stub DNS + recording connect + servers, and the fetch_url tool wired to them."""

    PUBLIC_A = PUBLIC_A
    PUBLIC_B = PUBLIC_B
    reply = staticmethod(reply)
    answers_in_turn = staticmethod(answers_in_turn)

    def __init__(self, certificate: tuple[Path, Path]) -> None:
        self.resolver = StubResolver({"site-a.test": [PUBLIC_A], "site-b.test": [PUBLIC_B]})
        self.backend = RecordingBackend(self.resolver)
        self._key, self._cert = certificate
        self._servers: list[tuple[ThreadingHTTPServer, LocalServer]] = []
        client_context = ssl.create_default_context(cafile=str(self._cert))
        self.tool: Tool = make_fetch_url_tool(
            resolver=self.resolver, network_backend=self.backend, ssl_context=client_context
        )

    def server(self, *, tls: bool = True, answers_for: str | None = None) -> LocalServer:
        """Start a server; ``answers_for`` routes that public address to it."""
        local = LocalServer()
        httpd = ThreadingHTTPServer(("127.0.0.1", 0), local.handler_class())
        httpd.daemon_threads = True
        if tls:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(str(self._cert), str(self._key))
            httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
        local.port = httpd.server_address[1]
        # shutdown() waits for serve_forever to look at its flag, which it does once per poll interval:
        # at the default half second, every test's teardown waited that long for each server.
        threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": SERVER_POLL}, daemon=True).start()
        self._servers.append((httpd, local))
        if answers_for:
            self.backend.routes[answers_for] = local.port
        return local

    def fetch(
        self, arguments: dict[str, Any], *, options: dict[str, Any] | None = None,
        cancel: CancelToken | None = None,
    ) -> ToolResult:  # fmt: skip
        context = ToolContext(root=Path("."), cancel=cancel or CancelToken(), options=options or {})
        return self.tool.handler(arguments, context)

    def close(self) -> None:
        for httpd, local in self._servers:
            local.release.set()
            httpd.shutdown()
            httpd.server_close()


@pytest.fixture
def network(certificate) -> Iterator[Network]:
    net = Network(certificate)
    try:
        yield net
    finally:
        net.close()
