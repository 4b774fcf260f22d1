"""What a handler served over MCP may do besides returning: content, progress, logs, questions to the client.

A tool, resource reader or prompt renderer registered in code reaches its
request through :func:`served_call` (``None`` outside a served request). Asking
the client (:meth:`ServedCall.ask`) follows the request's era:

- 2025-11-25 (handshake): the server sends real ``elicitation/create``,
  ``sampling/createMessage`` and ``roots/list`` requests and waits for them.
- 2026-07-28 (MRTR): the handler is run again on every round. The answers it
  lacks end this round with an ``input_required`` result; the client retries
  with ``inputResponses`` and the echoed ``requestState``, in which the server
  kept the earlier rounds' answers, signed (HMAC-SHA256 with a key of this
  process) and bound to the method, the name and the arguments.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import time
import warnings
from collections.abc import Mapping
from contextvars import ContextVar
from typing import Any

import mcp_types as types
from mcp.shared.exceptions import MCPError
from mcp.shared.message import ServerMessageMetadata
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from agentkit.plugin_api import ToolError

#: Seconds a ``requestState`` stays valid: one user's answer, not a session.
STATE_TTL_SECONDS = 600
MISSING_CAPABILITY = -32021
#: The log levels, least severe first.
LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
INVALID_PARAMS = -32602

#: method -> (the request's type, its result's type, the client capability it needs)
_ASKABLE: dict[str, tuple[Any, Any, dict[str, Any]]] = {
    "elicitation/create": (types.ElicitRequest, types.ElicitResult, {"elicitation": {}}),
    "sampling/createMessage": (types.CreateMessageRequest, types.CreateMessageResult, {"sampling": {}}),
    "roots/list": (types.ListRootsRequest, types.ListRootsResult, {"roots": {}}),
}

_current: ContextVar[ServedCall | None] = ContextVar("agentkit_mcp_served_call", default=None)


def served_call() -> ServedCall | None:
    """The MCP request the running handler serves, or ``None`` (not served over MCP)."""
    return _current.get()


def elicitation(message: str, schema: Mapping[str, Any]) -> dict[str, Any]:
    """An ``elicitation/create`` input request: ask the user to fill ``schema`` (a flat object schema)."""
    return {"method": "elicitation/create", "params": {"message": message, "requestedSchema": dict(schema)}}


def sampling(prompt: str, *, max_tokens: int) -> dict[str, Any]:
    """A ``sampling/createMessage`` input request: one user message to the client's model."""
    message = {"role": "user", "content": {"type": "text", "text": prompt}}
    return {"method": "sampling/createMessage", "params": {"messages": [message], "maxTokens": max_tokens}}


def roots() -> dict[str, Any]:
    """A ``roots/list`` input request: the client's roots."""
    return {"method": "roots/list", "params": {}}


class InputRequired(ToolError):
    """The client must answer first (2026-07-28): the round ends with an ``input_required`` result."""

    def __init__(self, keys: list[str]) -> None:
        super().__init__("input_required", f"waiting for the client's answer to {', '.join(keys)}")


class MissingCapability(ToolError):
    """The handler asked for what the client did not declare it can do."""

    def __init__(self, method: str) -> None:
        super().__init__("missing_client_capability",
                         f"the client did not declare the capability {method} needs")


class ServedCall:
    """One served request, as its handler sees it.

    :ivar content: MCP content blocks (``mcp_types.AudioContent``,
        ``EmbeddedResource``, …) a tool adds to its result with :meth:`add_content`.
    """

    def __init__(self, ctx: Any, *, method: str, name: str, arguments: Mapping[str, Any] | None,
                 input_responses: Mapping[str, Any] | None, request_state: str | None, key: bytes,
                 legacy_log_level: str | None = None) -> None:
        self._ctx = ctx
        self.method = method
        self.name = name
        self.modern = ctx.protocol_version in MODERN_PROTOCOL_VERSIONS
        self.content: list[Any] = []
        self._legacy_log_level = legacy_log_level
        self._key = key
        self._binding = _digest({"method": method, "name": name, "arguments": arguments or {}})
        self._responses = dict(input_responses or {}) if self.modern else {}
        self._answers: dict[str, Any] = self._unseal(request_state) if self.modern and request_state else {}
        #: Set when the round ends waiting for the client: the input requests still unanswered.
        self.pending: dict[str, dict[str, Any]] | None = None
        #: Set when the request must fail with this protocol error instead of a result.
        self.error: MCPError | None = None

    # -- what a handler calls ------------------------------------------------------------

    def add_content(self, *blocks: Any) -> None:
        """Add MCP content blocks (audio, embedded resources, …) after the tool's own result."""
        self.content.extend(blocks)

    async def progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        """Report progress on the request's own stream; nothing is sent when the client gave no progress token."""
        await self._ctx.session.report_progress(progress, total, message)

    async def log(self, level: types.LoggingLevel, data: Any, logger: str | None = None) -> None:
        """Send a log message for this request, where the era allows it.

        2026-07-28: only when the request set ``io.modelcontextprotocol/logLevel``,
        at that level or above; 2025-11-25: at the level the session set with
        ``logging/setLevel`` or above, every level when it set none.
        """
        if (not self.modern and self._legacy_log_level in LOG_LEVELS
                and LOG_LEVELS.index(level) < LOG_LEVELS.index(self._legacy_log_level)):
            return
        with warnings.catch_warnings():  # logging is deprecated by 2026-07-28, and still served
            warnings.simplefilter("ignore")
            await self._ctx.session.send_log_message(level, data, logger, related_request_id=self._ctx.request_id)

    def can_ask(self, method: str) -> bool:
        """Whether the client declared the capability that ``method`` (e.g. ``"sampling/createMessage"``) needs."""
        needed = _ASKABLE[method][2]
        declared = self._client_capabilities()
        return declared is not None and all(getattr(declared, name, None) is not None for name in needed)

    async def ask(self, requests: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
        """The client's answers to ``requests`` (key -> :func:`elicitation`, :func:`sampling` or :func:`roots`).

        Asked together, they are one round of a 2026-07-28 client. Each answer
        is the result as JSON (``{"action": "accept", "content": {...}}`` for an
        elicitation).

        :raises MissingCapability: the client cannot answer one of them.
        """
        for request in requests.values():
            method = request["method"]
            if method not in _ASKABLE:
                raise ValueError(f"cannot ask the client for {method!r}; ask for one of {', '.join(_ASKABLE)}")
            if not self.can_ask(method):
                if self.modern:
                    self.error = MCPError(MISSING_CAPABILITY, f"the client did not declare the capability {method} needs",
                                          {"requiredCapabilities": _ASKABLE[method][2]})
                raise MissingCapability(method)
        if not self.modern:
            return {key: await self._send(request) for key, request in requests.items()}
        for key, request in requests.items():
            if key not in self._answers and key in self._responses:
                answer = _valid_answer(request["method"], self._responses[key])
                if answer is not None:
                    self._answers[key] = answer
        missing = [key for key in requests if key not in self._answers]
        if missing:
            self.pending = {key: dict(requests[key]) for key in missing}
            raise InputRequired(missing)
        return {key: self._answers[key] for key in requests}

    # -- what the server calls ------------------------------------------------------------

    def input_required(self) -> types.InputRequiredResult:
        """This round's end: the unanswered requests, and the answers so far, sealed."""
        assert self.pending is not None
        return types.InputRequiredResult.model_validate(  # the request dicts validated into their types
            {"inputRequests": self.pending, "requestState": self._seal()})

    def _client_capabilities(self) -> types.ClientCapabilities | None:
        if not self.modern:
            return self._ctx.session.client_capabilities
        meta = self._ctx.meta
        declared = (meta.get("io.modelcontextprotocol/clientCapabilities") if isinstance(meta, Mapping)
                    else getattr(meta, "model_extra", {}).get("io.modelcontextprotocol/clientCapabilities"))
        try:
            return types.ClientCapabilities.model_validate(declared or {})
        except ValueError:  # pydantic's ValidationError, from the SDK's models
            return None

    async def _send(self, request: Mapping[str, Any]) -> dict[str, Any]:
        request_type, result_type, _ = _ASKABLE[request["method"]]
        typed = request_type.model_validate(dict(request))
        result = await self._ctx.session.send_request(
            typed, result_type, metadata=ServerMessageMetadata(related_request_id=self._ctx.request_id))
        return result.model_dump(by_alias=True, mode="json", exclude_none=True)

    def _seal(self) -> str:
        payload = json.dumps({"bind": self._binding, "at": int(time.time()), "answers": self._answers},
                             separators=(",", ":"), sort_keys=True).encode()
        return f"{_b64(payload)}.{_b64(hmac.new(self._key, payload, hashlib.sha256).digest())}"

    def _unseal(self, token: str) -> dict[str, Any]:
        try:
            body, signature = token.split(".")
            payload = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
            expected = hmac.new(self._key, payload, hashlib.sha256).digest()
            # compared as the exact text issued: base64 decoding forgives altered padding bits and stray characters
            if _b64(payload) != body or not hmac.compare_digest(_b64(expected), signature):
                raise ValueError("signature")
            state = json.loads(payload)
            # a minute of slack: the wall clock may step back between two rounds
            if state["bind"] != self._binding or not -60 <= time.time() - state["at"] <= STATE_TTL_SECONDS:
                raise ValueError("binding")
            answers = state["answers"]
            if not isinstance(answers, dict):
                raise ValueError("answers")
            return answers
        except (ValueError, KeyError, TypeError) as exc:
            raise MCPError(INVALID_PARAMS, "the requestState is not one this server issued for this request "
                           "(altered, expired, or from another call): call again without it") from exc


def new_state_key() -> bytes:
    """A key for sealing request states; states sealed with it are valid only in this process."""
    return secrets.token_bytes(32)


def _valid_answer(method: str, answer: Any) -> dict[str, Any] | None:
    try:
        result = _ASKABLE[method][1].model_validate(answer)
    except ValueError:  # pydantic's ValidationError, from the SDK's models
        return None
    return result.model_dump(by_alias=True, mode="json", exclude_none=True)


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def bind(call: ServedCall) -> Any:
    """Make ``call`` the one :func:`served_call` returns in this context; the token resets it."""
    return _current.set(call)


def unbind(token: Any) -> None:
    _current.reset(token)
