"""MCP peers nobody here wrote, each in a virtual environment of its own.

``peer_python("1.30.0")`` is the interpreter of an environment holding
``mcp==1.30.0`` and nothing of ours, built once with ``uv venv`` and ``uv pip
install`` from the registry under ``.cache/mcp-peers/`` (git-ignored) and
reused after. The reference servers of the npm registry
(``server-everything``, ``server-memory``) are installed the same way, once,
with ``npm install`` (``npm_server``), and run by the machine's ``node``. A
peer that cannot be built (no ``uv``, no ``npm``, no registry) is a failure
that says why, never a hang: every step is bounded.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
CACHE = REPO / ".cache" / "mcp-peers"
SERVERS = Path(__file__).resolve().parent / "servers"
#: The peers the interoperability tests and the benchmark use: the current SDK and the last 1.x line.
MODERN_SDK, LEGACY_SDK = "2.3.0", "1.30.0"
#: The reference servers from npm, pinned: the everything server (every content type) and the memory server.
EVERYTHING = ("@modelcontextprotocol/server-everything", "2026.8.31")
MEMORY = ("@modelcontextprotocol/server-memory", "2026.8.31")
_BUILD_TIMEOUT_S = 300


class PeerUnavailable(Exception):
    """The peer's environment cannot be built here; the message says why."""


def peer_python(version: str) -> Path:
    """The interpreter of the environment with ``mcp==version``, built on first use."""
    home = CACHE / f"mcp-{version}"
    python = home / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
    done = home / ".complete"
    CACHE.mkdir(parents=True, exist_ok=True)
    with _locked(CACHE / f"mcp-{version}.lock"):
        if done.exists():
            return python
        uv = os.environ.get("UV") or shutil.which("uv")  # `uv run` (make test) names itself in UV
        if uv is None:
            raise PeerUnavailable("uv is not on PATH; run the tests with 'make test', or install uv, "
                                  "to build the MCP peer environments")
        shutil.rmtree(home, ignore_errors=True)
        for step in ([uv, "venv", "--quiet", "--python", sys.executable, str(home)],
                     [uv, "pip", "install", "--quiet", "--python", str(python), f"mcp=={version}"]):
            try:
                subprocess.run(step, check=True, capture_output=True, text=True, timeout=_BUILD_TIMEOUT_S,
                               env={**os.environ, "VIRTUAL_ENV": ""})
            except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as exc:
                detail = getattr(exc, "stderr", "") or str(exc)
                raise PeerUnavailable(f"cannot build the mcp=={version} peer: {' '.join(step[:3])}: "
                                      f"{detail.strip()[-500:]}") from exc
        done.write_text(version, encoding="utf-8")
    return python


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """One builder at a time across parallel test processes."""
    with open(path, "a+b") as handle:
        try:
            import fcntl
        except ImportError:  # Windows: parallel first builds may race; each build starts from scratch
            yield
            return
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def npm_server(package: tuple[str, str]) -> list[str]:
    """The command that runs the npm reference server ``(name, version)`` over stdio, installed on first use."""
    name, version = package
    home = CACHE / f"npm-{name.strip('@').replace('/', '-')}-{version}"
    done = home / ".complete"
    entry = home / "node_modules" / name / "dist" / "index.js"
    CACHE.mkdir(parents=True, exist_ok=True)
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        raise PeerUnavailable("node and npm are not on PATH; install Node.js (18 or newer) to run the MCP "
                              "reference servers of the npm registry")
    with _locked(CACHE / f"{home.name}.lock"):
        if not done.exists():
            shutil.rmtree(home, ignore_errors=True)
            home.mkdir(parents=True)
            step = [npm, "install", "--prefix", str(home), "--no-audit", "--no-fund", "--loglevel=error",
                    f"{name}@{version}"]
            try:
                subprocess.run(step, check=True, capture_output=True, text=True, timeout=_BUILD_TIMEOUT_S)
            except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as exc:
                detail = getattr(exc, "stderr", "") or str(exc)
                raise PeerUnavailable(f"cannot install {name}@{version} from npm: {detail.strip()[-500:]}") from exc
            done.write_text(version, encoding="utf-8")
    return [node, str(entry)]


def server_script(version: str) -> Path:
    return SERVERS / ("v1_server.py" if version.startswith("1.") else "v2_server.py")


@contextlib.contextmanager
def http_server(python: Path, script: Path, timeout_s: float = 60) -> Iterator[str]:
    """Run ``script http`` and yield its URL; it prints the port it bound on 127.0.0.1 first."""
    process = subprocess.Popen([str(python), str(script), "http"], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, text=True)
    try:
        first: list[str] = []
        reader = threading.Thread(target=lambda: first.append(process.stdout.readline() if process.stdout else ""),
                                  daemon=True)
        reader.start()
        reader.join(timeout_s)
        if not first or not first[0].startswith("PORT "):
            raise RuntimeError(f"the HTTP test server did not start (said {first!r})")
        yield f"http://127.0.0.1:{int(first[0].split()[1])}/mcp"
    finally:
        process.kill()
        process.wait(timeout=30)


def listening_socket() -> socket.socket:
    """127.0.0.1 on a port the system picks, already listening (so an early client queues, not fails)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    return sock
