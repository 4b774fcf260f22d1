"""The tool contract: what a tool plugin registers and what its handler returns."""

from __future__ import annotations

import inspect
import json
import threading
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from ._dataclass import StrEnumBase, dataclass, str_enum
from ._json import one_shot
from ._messages import ImageBlock
from ._schema import schema_from_function

if TYPE_CHECKING:  # the plugin API imports no asyncio: a tool plugin that names a loop has one already
    import asyncio


@str_enum  # the class statement's enum, made cheaper (see str_enum)
class ExecutionMode(StrEnumBase):
    """How a tool may run beside the other calls of one response.

    ``PARALLEL`` calls of a batch run concurrently. One ``SEQUENTIAL`` tool in
    a batch makes the whole batch run one call at a time, in call order.

    ``INLINE`` is for a cheap sync handler (a lookup, a computation in
    memory): it runs on the event loop's own thread, without the hand-off to
    a worker thread that a sync handler otherwise costs, one call after
    another in call order, beside the batch's other calls. It must not block
    (no I/O, no sleeping, no waiting on locks): while it runs nothing else
    of the process's event loop does, and neither its deadline nor an abort
    can interrupt it (they are checked before it starts). An async handler
    ignores it and runs as a task, as with ``PARALLEL``.
    """

    PARALLEL = "parallel"
    SEQUENTIAL = "sequential"
    INLINE = "inline"


class CancelToken:
    """A flag a running handler polls (or waits on) to learn the run was aborted.

    Thread-safe: set from any thread, read from handlers running in threads or
    as asyncio tasks.
    """

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block up to ``timeout`` seconds; true when cancelled."""
        return self._event.wait(timeout)


@dataclass(slots=True)
class ToolContext:
    """What a handler knows about the call it serves.

    :param root: the workspace root the embedder chose; file tools must keep
        every path inside it.
    :param call_id: the model's id for this call.
    :param cancel: set when the run is aborted; long-running handlers stop early.
    :param options: per-tool options the embedder passed (``AgentConfig.tool_options``
        under the tool's name), for example an environment allow-list.
    :param add_tools: enables more tools on the agent running this call, for a
        plugin whose tools change while it runs (an MCP server that lists a new
        one). Call it from an async handler (on the agent's loop). Tools added
        after the session's first request are declared after those already sent,
        so the provider's cached prefix survives; a name an enabled tool already
        has raises ``AgentkitError``. ``None`` outside an agent's run.
    :param audit: ``audit(kind, **fields)`` adds a record to the run's audit
        trail (the embedder's ``AgentConfig.audit`` sink and the session log),
        for an event of this call a plugin must answer for (the MCP client: a
        ``tools/call`` it made). The host names the record's kind
        ``<plugin>.<kind>`` and stamps it with the plugin, the tool, the call
        id and the run's ids; ``kind`` and the field names are lowercase
        identifiers and the values JSON scalars (``str``, ``int``, ``float``,
        ``bool``, ``None``), anything else raises ``ValueError``. Never give it
        the arguments or a secret: the trail is for whoever audits the run.
        Callable from any thread; a record made after the run ended is
        dropped, and a trail nobody keeps costs nothing. ``None`` outside an
        agent's run.
    :param run_id: the id of the run making the call (a durable run's is its
        workflow id, the same in every process that runs it); ``""`` outside
        an agent's run.
    :param progress: ``progress(message)`` reports how the call is going (a
        step done, a remote task's state), shown to whoever watches the run as
        a ``tool_call_progress`` event between the call's ``tool_call_start``
        and ``tool_call_end``; never seen by the model. ``message`` is a
        ``str`` (anything else raises ``TypeError``), cut past 4096
        characters. Callable from any thread; a report made after the call
        or its run ended is dropped. ``None`` outside an agent's run.

    .. versionchanged:: 0.2
        ``add_tools``, ``audit``, ``run_id``, ``progress`` and :attr:`idempotency_key`.
    """

    root: Path
    call_id: str = ""
    cancel: CancelToken = field(default_factory=CancelToken)
    options: Mapping[str, Any] = field(default_factory=dict)
    add_tools: Callable[..., None] | None = None
    audit: Callable[..., None] | None = None
    run_id: str = ""
    progress: Callable[[str], None] | None = None

    @property
    def idempotency_key(self) -> str:
        """``"<run id>:<call id>"``: the same for every execution of this call, and no other call's.

        A durable run that a crash interrupted runs a call again when its tool
        is ``retry_safe``; a tool whose effect must happen once passes this key
        to the service it changes (an ``Idempotency-Key`` header, a unique
        column) so that the second execution changes nothing. See ``docs/durable.md``.
        """
        return f"{self.run_id}:{self.call_id}"


@dataclass(slots=True)
class ToolResult:
    """The envelope every tool returns: ``ok``, ``data``, ``error``, ``detail``.

    ``metadata`` is for the embedder and the events (timings, truncation
    facts); it is never shown to the model. ``images`` are attached to the
    tool-result message beside the envelope's JSON text, after the host
    normalized them for the model (``ImageBlock.from_path`` names a file inside
    the workspace; an image whose bytes the host cannot decode becomes a
    one-line note in its place, and the rest of the result still arrives; a
    path outside the workspace, or a model without vision, makes the result an
    ``invalid_image`` error).
    """

    ok: bool
    data: Any = None
    error: str | None = None
    detail: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    images: list[ImageBlock] = field(default_factory=list)

    @classmethod
    def success(cls, data: Any = None, **metadata: Any) -> ToolResult:
        return cls(True, data=data, metadata=dict(metadata))

    @classmethod
    def failure(cls, error: str, detail: str | None = None, **metadata: Any) -> ToolResult:
        """An error result; ``error`` is a short code (``path_not_allowed``), ``detail`` the prose."""
        return cls(False, error=error, detail=detail, metadata=dict(metadata))

    def to_model(self) -> dict[str, Any]:
        """The envelope as the model sees it: no metadata, no empty fields."""
        envelope: dict[str, Any] = {"ok": self.ok}
        if self.ok or self.data is not None:
            envelope["data"] = self.data
        if self.error is not None:
            envelope["error"] = self.error
        if self.detail is not None:
            envelope["detail"] = self.detail
        return envelope

    def to_text(self) -> str:
        return _envelope_text(self.to_model())


# ``json.dumps`` with options builds an encoder per call; this one keeps no
# state between calls (its cycle check is per call), so it is shared.
_ENVELOPE_ENCODER = json.JSONEncoder(ensure_ascii=False, default=str)
_envelope_text = one_shot(_ENVELOPE_ENCODER)  # and without building a C encoder per call either


class ToolError(Exception):
    """Raise from a handler to return an error result with a code and detail.

    Any other exception also becomes an error result; this one lets a tool
    choose the code the model sees.
    """

    def __init__(self, error: str, detail: str | None = None) -> None:
        super().__init__(detail or error)
        self.error = error
        self.detail = detail


Handler: TypeAlias = Callable[[dict[str, Any], ToolContext], "ToolResult | Any | Awaitable[Any]"]


@dataclass(slots=True)
class Tool:
    """A tool a plugin contributes.

    :param name: what the model calls it; letters, digits, ``_`` and ``-``, at
        most 64 characters (the strictest wire's rule).
    :param description: what it does, for the model.
    :param input_schema: a JSON Schema object describing the arguments.
    :param handler: ``handler(arguments, context)``, sync or async, returning a
        :class:`ToolResult` or any JSON value (taken as success data). Sync
        handlers run in a worker thread, unless the tool is ``INLINE``.
    :param execution_mode: see :class:`ExecutionMode`.
    :param prompt_guidelines: text the host may add to the system prompt when
        the tool is enabled.
    :param default_enabled: false for tools an embedder must ask for by name.
    :param requires_authorization: true for tools that run arbitrary commands
        (shells); the host refuses to build an agent that has one unless the
        embedder set a ``before_tool_call`` policy.
    :param timeout: seconds one call may run before the host answers it with
        a ``timeout`` error; ``None`` (the default) leaves it to the agent's
        ``AgentConfig.tool_timeout``. A sync handler past it is abandoned in
        its thread, an async one cancelled.
    :param retry_safe: true for a tool whose call may run again with the same
        effect: it only reads (``read_file``, ``grep``), or it deduplicates
        its side effects by :attr:`ToolContext.idempotency_key`. A durable run
        whose process died while the call ran runs such a call again; any
        other interrupted call is answered as interrupted (see ``docs/durable.md``).
    :param max_retries: how many turns in a row the handler may raise
        :class:`~agentkit.plugin_api.Retry` and have the model asked to call
        it again; past that, the call's result is a ``retries_exhausted``
        error. A turn in which the tool does not ask for a retry starts the
        count again. Default 1; 0: a ``Retry`` is an error at once.
    :param home_loop: the event loop an async handler's resources live on
        (connections a plugin holds open on a loop in a thread of its own),
        or ``None``. A run started from sync code (``run_sync``,
        ``agentkit run``) whose enabled tools name a running one runs on that
        loop, so the handler is awaited where its connections are, with no
        hand-off between threads. An async run stays on its caller's loop.

    .. versionchanged:: 0.2
        ``retry_safe``, ``max_retries``, ``home_loop``.
    """

    name: str
    description: str
    input_schema: dict[str, Any]
    handler: Handler
    execution_mode: ExecutionMode = ExecutionMode.PARALLEL
    prompt_guidelines: str | None = None
    default_enabled: bool = True
    requires_authorization: bool = False
    timeout: float | None = None
    retry_safe: bool = False
    max_retries: int = 1
    home_loop: asyncio.AbstractEventLoop | None = None

    def __post_init__(self) -> None:
        if isinstance(self.max_retries, bool) or not isinstance(self.max_retries, int) or self.max_retries < 0:
            raise ValueError(f"tool {self.name!r}: max_retries must be a whole number, 0 or more, got {self.max_retries!r}")
        if self.timeout is not None and not self.timeout > 0:
            raise ValueError(f"tool {self.name!r}: timeout must be a positive number of seconds or None, got {self.timeout!r}")

    @property
    def is_async(self) -> bool:
        return inspect.iscoroutinefunction(self.handler)

    @classmethod
    def from_function(
        cls,
        function: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        execution_mode: ExecutionMode = ExecutionMode.PARALLEL,
        prompt_guidelines: str | None = None,
        default_enabled: bool = True,
        requires_authorization: bool = False,
        timeout: float | None = None,
        retry_safe: bool = False,
        max_retries: int = 1,
    ) -> Tool:
        """Build a tool from a typed function; its docstring describes it.

        The schema comes from the signature (see ``schema_from_function``).
        A parameter annotated :class:`ToolContext` receives the context and is
        not part of the schema. The function may be sync or async.
        """
        schema, summary, context_param = schema_from_function(function, context_type=ToolContext)
        wrapper = _call_with_keywords(function, context_param)
        return cls(
            name=name or function.__name__,
            description=description or summary,
            input_schema=schema,
            handler=wrapper,
            execution_mode=execution_mode,
            prompt_guidelines=prompt_guidelines,
            default_enabled=default_enabled,
            requires_authorization=requires_authorization,
            timeout=timeout,
            retry_safe=retry_safe,
            max_retries=max_retries,
        )


def _call_with_keywords(function: Callable[..., Any], context_param: str | None) -> Handler:
    if inspect.iscoroutinefunction(function):

        async def call_async(arguments: dict[str, Any], context: ToolContext) -> Any:
            extra = {context_param: context} if context_param else {}
            return await function(**arguments, **extra)

        call_async.__name__ = getattr(function, "__name__", "handler")
        return call_async

    def call(arguments: dict[str, Any], context: ToolContext) -> Any:
        extra = {context_param: context} if context_param else {}
        return function(**arguments, **extra)

    call.__name__ = getattr(function, "__name__", "handler")
    return call
