"""The RPC server: requests in, responses and events out, over the host's agents and sessions.

One request line gets exactly one response, in the order the lines came. A
``prompt`` starts a run of the session's :class:`~agentkit.host.Agent` (the
same loop as every other front end) and returns at once; the run's events
follow, each appended to the session log (a ``custom`` entry of type
``event``) before it is written out, numbered per session without gaps.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, TypeAlias

from agentkit.plugin_api import event_to_dict
from agentkit.plugin_api._dataclass import dataclass
from agentkit.plugin_api.errors import UsageError

from ..errors import SessionError, SessionNotFound
from ..sessions import CUSTOM, JsonlSessionStore, Session, SessionStore
from ..sessions._entries import EVENT_ENTRY
from ._contracts import (
    MAX_PENDING_BYTES,
    MAX_PENDING_LINES,
    METHODS,
    REQUEST_SCHEMA,
    RESPONSE_SCHEMA,
    ErrorCode,
    RpcError,
)
from ._durable import durable_answer
from ._lines import Backlog, Oversized, feed_queue, held_size

if TYPE_CHECKING:
    from .._agent import Agent

#: Makes the agent of a session (``None``: an agent as a new session would have it, to list its tools)
#: running ``model`` (``None``: the session's, else the server's default). Raises ``UsageError`` naming
#: what is wrong (an unknown model, a missing credential).
AgentFactory: TypeAlias = Callable[[Session | None, str | None], "Agent"]
#: Writes one line of output: a response or an event, as JSON-ready data.
LineWriter: TypeAlias = Callable[[dict[str, Any]], None]


@dataclass
class _OpenSession:
    session: Session
    agent: Agent
    #: The seq of the last event published (0: none yet).
    seq: int
    run: asyncio.Task[None] | None = None
    #: Why its events stopped: the session log could not be written.
    broken: str | None = None

    @property
    def running(self) -> bool:
        return self.run is not None and not self.run.done()


def last_seq(session: Session) -> int:
    """The seq of the last event a session's log holds (0 when none): its events go on from there."""
    return max((entry.data["data"]["seq"] for entry in session.entries
                if entry.type == CUSTOM and entry.data.get("custom_type") == EVENT_ENTRY
                and isinstance(entry.data.get("data"), dict) and isinstance(entry.data["data"].get("seq"), int)),
               default=0)


def _load(session_id: str, store: SessionStore) -> tuple[Session, int]:
    """A stored session and the seq of its last event: all the reading ``session.continue`` does."""
    session = Session.open(session_id, store)
    return session, last_seq(session)


class RpcServer:
    """Answers ``agentkit.rpc.request/v1`` lines; see ``docs/rpc.md``.

    :param make_agent: builds each session's agent (see :data:`AgentFactory`).
    :param write: writes one output line; called on the event loop's thread, in order.
    :param store: where sessions are kept (default: the file store in the data directory).
    :param cwd: the directory new sessions record as theirs.
    :param max_pending_lines: :meth:`serve` reads no further while this many lines wait for their answer.
    :param max_pending_bytes: ... nor while the lines waiting hold this many bytes (one line always fits).
    :raises ValueError: a bound below 1.
    """

    def __init__(self, make_agent: AgentFactory, write: LineWriter, *, store: SessionStore | None = None,
                 cwd: str | Path = ".", max_pending_lines: int = MAX_PENDING_LINES,
                 max_pending_bytes: int = MAX_PENDING_BYTES) -> None:
        if max_pending_lines < 1 or max_pending_bytes < 1:
            raise ValueError("max_pending_lines and max_pending_bytes must be at least 1")
        self.max_pending_lines = max_pending_lines
        self.max_pending_bytes = max_pending_bytes
        self._make_agent = make_agent
        self._write = write
        self.store = store if store is not None else JsonlSessionStore()
        self.cwd = Path(cwd).resolve()
        self._open: dict[str, _OpenSession] = {}

    # -- the lines ---------------------------------------------------------------------

    async def handle_line(self, line: bytes | Oversized) -> None:
        """Answer one request line (or report one that was too long); never raises for what the client sent."""
        request_id: str | int | None = None
        try:
            if isinstance(line, Oversized):
                raise RpcError(ErrorCode.LINE_TOO_LONG,
                               f"the line has {line.size} bytes, over the limit of {line.limit}; "
                               "send one request of at most that per line")
            request_id, data = _read(line)
            method, params = _method(data)
            result = await getattr(self, "_" + method.replace(".", "_"))(params)
        except RpcError as exc:
            self._write_error(request_id, exc.code, str(exc))
            return
        except Exception as exc:  # a defect of ours: say so, and keep serving
            self._write_error(request_id, ErrorCode.INTERNAL, f"{type(exc).__name__}: {exc}")
            return
        self._write({"schema": RESPONSE_SCHEMA, "id": request_id, "result": result})

    async def serve(self, stream: BinaryIO, stop: asyncio.Event | None = None) -> None:
        """Answer every line of ``stream`` until it ends (or ``stop`` is set), then :meth:`shutdown`.

        ``stream`` is read on a daemon thread. When ``stop`` may end the serving
        while that thread still waits for input, pass a reader of its own
        (``open(os.dup(sys.stdin.fileno()), "rb")``), not ``sys.stdin.buffer``:
        the interpreter's shutdown waits for the lock of ``sys.stdin``'s buffer.

        Back-pressure: while :attr:`max_pending_lines` lines, or
        :attr:`max_pending_bytes` bytes of them, wait for their answer, the
        stream is not read; a client writing faster than the server answers
        (or than it reads the answers) blocks in its own writes.
        """
        queue: asyncio.Queue[bytes | Oversized | None] = asyncio.Queue()
        backlog = Backlog(self.max_pending_lines, self.max_pending_bytes)
        feed_queue(stream, queue, backlog=backlog)
        stopping = asyncio.ensure_future(stop.wait()) if stop is not None else None
        try:
            while True:
                getting = asyncio.ensure_future(queue.get())
                waits = {getting} if stopping is None else {getting, stopping}
                await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
                if not getting.done():
                    getting.cancel()
                    break
                line = getting.result()
                if line is None:
                    break
                try:
                    await self.handle_line(line)
                finally:
                    backlog.give_back(held_size(line))
        finally:
            backlog.close()
            if stopping is not None:
                stopping.cancel()
            await self.shutdown()

    async def shutdown(self) -> None:
        """Abort every running turn, wait for each run to end (its ``agent_end`` is published), close every session."""
        for open_session in list(self._open.values()):
            await self._close(open_session)

    # -- the methods -------------------------------------------------------------------

    async def _session_start(self, params: dict[str, Any]) -> dict[str, Any]:
        session = Session.new(self.store, cwd=self.cwd)
        return self._adopt(session, params.get("model"), seq=0)

    async def _session_continue(self, params: dict[str, Any]) -> dict[str, Any]:
        try:
            return self._describe(self._find(params["session_id"]))
        except RpcError:
            pass
        try:
            # Off the event loop: reading a large log takes time, and every other session's run goes on meanwhile.
            session, seq = await asyncio.to_thread(_load, params["session_id"], self.store)
        except SessionNotFound as exc:
            raise RpcError(ErrorCode.SESSION_NOT_FOUND, str(exc)) from None
        except SessionError as exc:
            raise RpcError(ErrorCode.INVALID_PARAMS, str(exc)) from None
        if session.id in self._open:  # a prefix naming a session already open
            return self._describe(self._open[session.id])
        return self._adopt(session, params.get("model") or session.model, seq=seq)

    async def _session_close(self, params: dict[str, Any]) -> dict[str, Any]:
        open_session = self._find(params["session_id"])
        await self._close(open_session)
        return {"session_id": open_session.session.id}

    async def _prompt(self, params: dict[str, Any]) -> dict[str, Any]:
        open_session = self._find(params["session_id"])
        if open_session.running:
            raise RpcError(ErrorCode.BUSY, f"session {open_session.session.id} is running a turn: steer it, abort "
                           "it, or send the prompt after its agent_end")
        if open_session.broken is not None:
            raise RpcError(ErrorCode.SESSION_WRITE_FAILED, open_session.broken)
        # Started here, run from the next await on: this response goes out before the run's first event.
        open_session.run = asyncio.ensure_future(self._publish_run(open_session, params["text"]))
        return {"session_id": open_session.session.id}

    async def _steer(self, params: dict[str, Any]) -> dict[str, Any]:
        open_session = self._find(params["session_id"])
        open_session.agent.steer(params["text"])
        return {"session_id": open_session.session.id, "running": open_session.running}

    async def _abort(self, params: dict[str, Any]) -> dict[str, Any]:
        open_session = self._find(params["session_id"])
        running = open_session.running
        if running:
            open_session.agent.abort()
        return {"session_id": open_session.session.id, "running": running}

    async def _sessions_list(self, params: dict[str, Any]) -> dict[str, Any]:
        listings = sorted(await asyncio.to_thread(self.store.list_sessions), key=lambda item: (item.updated, item.id), reverse=True)
        return {"sessions": [{**item.record(), "open": item.id in self._open} for item in listings]}

    async def _runs_answer(self, params: dict[str, Any]) -> dict[str, Any]:
        answer = durable_answer()
        try:  # off the event loop: it reads and writes the durable runs' database
            answered = await asyncio.to_thread(
                answer, params["run_id"], params["call_id"], approved=params["approved"],
                reason=params.get("reason"), arguments_sha256=params["arguments_sha256"])
        except UsageError as exc:  # no such run, not waiting, other arguments
            raise RpcError(ErrorCode.RUN_NOT_WAITING, str(exc)) from None
        except Exception as exc:  # the database cannot be used: the extension's one line (no password)
            raise RpcError(ErrorCode.DURABLE_UNAVAILABLE, str(exc)) from None
        return {"run_id": answered.run_id, "call_id": answered.call_id, "tool": answered.tool,
                "approved": answered.approved}

    async def _tools_list(self, params: dict[str, Any]) -> dict[str, Any]:
        if "session_id" in params:
            agent = self._find(params["session_id"]).agent
        else:
            agent = self._agent_for(None, None)
        return {"tools": [{"name": tool.name, "description": tool.description, "input_schema": tool.input_schema}
                          for tool in sorted(agent.tools.values(), key=lambda tool: tool.name)]}

    # -- sessions and runs -------------------------------------------------------------

    def _agent_for(self, session: Session | None, model: str | None) -> Agent:
        try:
            return self._make_agent(session, model)
        except UsageError as exc:  # an unknown model, a missing credential, a bad setting
            raise RpcError(ErrorCode.INVALID_PARAMS, str(exc)) from None

    def _adopt(self, session: Session, model: str | None, *, seq: int) -> dict[str, Any]:
        agent = self._agent_for(session, model)
        open_session = self._open[session.id] = _OpenSession(session, agent, seq)
        return self._describe(open_session)

    @staticmethod
    def _describe(open_session: _OpenSession) -> dict[str, Any]:
        return {"session_id": open_session.session.id, "model": open_session.agent.config.model,
                "next_seq": open_session.seq + 1}

    def _find(self, session_id: str) -> _OpenSession:
        if session_id in self._open:
            return self._open[session_id]
        matches = [item for key, item in self._open.items() if key.startswith(session_id)]
        if len(matches) == 1:
            return matches[0]
        problem = "no open session" if not matches else "more than one open session starting with"
        raise RpcError(ErrorCode.SESSION_NOT_FOUND,
                       f"{problem} {session_id!r}: start one with session.start, or open a stored one with "
                       "session.continue")

    async def _close(self, open_session: _OpenSession) -> None:
        if open_session.running:
            open_session.agent.abort()
        if open_session.run is not None:
            await asyncio.gather(open_session.run, return_exceptions=True)
        open_session.session.close()
        self._open.pop(open_session.session.id, None)

    async def _publish_run(self, open_session: _OpenSession, text: str) -> None:
        """Run the prompt; persist each event in the session log, then write it out."""
        session_id = open_session.session.id
        try:
            async for event in open_session.agent.stream(text):
                if open_session.broken is not None:
                    continue  # the run is stopping; what it still emits can be neither kept nor shown
                data = event_to_dict(event)
                if data["type"] == "subagent":  # its own session_id names the child's session: kept, as the RPC's
                    data["subagent_session_id"] = data["session_id"]  # session_id names the session of every line
                data["session_id"], data["seq"] = session_id, open_session.seq + 1
                try:
                    open_session.session.append_custom(EVENT_ENTRY, data)
                except Exception as exc:  # a full disk, a lost lock: an event not kept is not published
                    open_session.broken = (f"the session log {session_id} could not be written "
                                           f"({type(exc).__name__}: {exc}); the run was aborted")
                    open_session.agent.abort()
                    self._write_error(None, ErrorCode.SESSION_WRITE_FAILED, open_session.broken, session_id)
                    continue
                open_session.seq += 1
                self._write(data)
        except Exception as exc:  # a defect: the run's events end here, and the client is told
            self._write_error(None, ErrorCode.INTERNAL, f"the run of session {session_id} failed: "
                              f"{type(exc).__name__}: {exc}", session_id)

    def _write_error(self, request_id: str | int | None, code: ErrorCode, message: str,
                     session_id: str | None = None) -> None:
        error: dict[str, Any] = {"code": code.value, "message": message}
        if session_id is not None:
            error["session_id"] = session_id
        self._write({"schema": RESPONSE_SCHEMA, "id": request_id, "error": error})


def _read(line: bytes) -> tuple[str | int, dict[str, Any]]:
    """The id of a request line, and the request.

    :raises RpcError: the line is no JSON object with an id.
    """
    if not line.strip():  # a line like any other: answered, so that a client counting answers never waits
        raise RpcError(ErrorCode.MALFORMED, "the line is empty; send one JSON object per line")
    try:
        data = json.loads(line)
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise RpcError(ErrorCode.MALFORMED, f"the line is not JSON ({exc}); send one JSON object per line") from None
    if not isinstance(data, dict):
        raise RpcError(ErrorCode.MALFORMED, f"a request is a JSON object, not {type(data).__name__}")
    request_id = data.get("id")
    if isinstance(request_id, bool) or not isinstance(request_id, (str, int)):
        raise RpcError(ErrorCode.MALFORMED, "a request needs an 'id': a string or an integer")
    return request_id, data


def _method(data: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The method a request names and its params, checked against the method's schema.

    :raises RpcError: another version, an unknown method, params that do not fit.
    """
    if data.get("schema") != REQUEST_SCHEMA:
        raise RpcError(ErrorCode.UNSUPPORTED_VERSION,
                       f"this server speaks {REQUEST_SCHEMA}; the request's 'schema' is {data.get('schema')!r}")
    method = data.get("method")
    if not isinstance(method, str) or method not in METHODS:
        raise RpcError(ErrorCode.UNKNOWN_METHOD, f"no method {method!r}; the methods are {', '.join(METHODS)}")
    params = data.get("params", {})
    _check_params(method, params)
    return method, params


def _check_params(method: str, params: Any) -> None:
    from jsonschema import Draft202012Validator  # only a server pays for it

    validator = Draft202012Validator(METHODS[method].params)
    problem = next(iter(sorted(validator.iter_errors(params), key=lambda error: list(error.path))), None)
    if problem is not None:
        where = "params" + "".join(f"[{part!r}]" for part in problem.path)
        raise RpcError(ErrorCode.INVALID_PARAMS, f"{method}: {where}: {problem.message}")
