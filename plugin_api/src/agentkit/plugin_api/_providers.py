"""The provider contract: a pure codec for one wire API.

A provider turns a canonical :class:`ProviderRequest` into a
:class:`WireRequest` (a description: path, headers, body) and turns the wire
events the host decoded from the response back into canonical events. It does
no I/O: the host owns HTTP, framing (SSE, NDJSON), JSON decoding, retries and
credentials, the same for every wire.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import field
from types import MappingProxyType
from typing import Any, ClassVar, Literal, Protocol, overload

from ._dataclass import dataclass
from ._events import ProviderEvent
from ._images import ImageLimits
from ._media import FileLimits
from ._messages import AssistantMessage, Message, StopReason


@dataclass(frozen=True, slots=True)
class ModelInfo:
    """One row of the model catalog, shipped by the provider plugin that serves it.

    Prices are US dollars per million tokens. ``default`` marks the row an
    unknown model of the same vendor is cloned from. ``cache_write_1h_price``
    prices the tokens written to a one-hour cache (Anthropic's longer
    retention), which cost more than the default write. ``refused_settings``
    names the sampling settings (of ``temperature``, ``top_p``, ``top_k``,
    ``stop_sequences``, ``seed``) the model does not accept, and
    ``forced_tool_choice`` when it refuses ``required`` and named tool
    choices: a request that sets one fails with an error naming the model,
    see :func:`agentkit.plugin_api.codec.sampling` and
    :func:`agentkit.plugin_api.codec.tool_choice`. ``structured_output``
    says the model takes a request's ``output_schema`` natively (the wire's
    own structured-output field); without it the host asks for a structured
    answer through a final-answer tool. ``image_limits`` are the images the
    wire takes (sizes and formats from the vendor's documentation); a row
    with ``image_input`` and no limits gets
    :data:`~agentkit.plugin_api.codec.DEFAULT_IMAGE_LIMITS`.
    ``document_input`` and ``audio_input`` say the model takes documents
    (PDF, plain text) and audio as input; a request that carries one to a
    model without the capability is refused before it is sent.
    ``document_limits`` and ``audio_limits`` say what the wire takes of each
    (size cap, formats, URLs); a row with the capability and no limits gets
    :data:`~agentkit.plugin_api.codec.DEFAULT_DOCUMENT_LIMITS` or
    :data:`~agentkit.plugin_api.codec.DEFAULT_AUDIO_LIMITS`.

    How the host resolves a model id to a row (``docs/providers.md``):
    ``aliases`` are other ids the vendor accepts for exactly this model
    (dated snapshots such as ``claude-haiku-4-5-20251001``, ``-latest``
    pointers); ``families`` are id prefixes this row stands for when an id has
    no row of its own (``claude-haiku-4``: ``claude-haiku-4-7`` would take this
    row; the longest matching family wins). ``priced`` is ``False`` on a row
    whose prices are unknown (the host's row for an id in no family): the cost
    of its responses is reported as unknown (``Usage.cost`` is ``None``),
    never as zero.
    """

    vendor: str
    id: str
    api: str
    base_url: str
    context_window: int
    max_output: int
    input_price: float = 0.0
    output_price: float = 0.0
    cache_read_price: float = 0.0
    cache_write_price: float = 0.0
    image_input: bool = False
    reasoning_levels: tuple[str, ...] = ()
    default: bool = False
    headers: Mapping[str, str] = field(default_factory=dict)
    options: Mapping[str, Any] = field(default_factory=dict)
    cache_write_1h_price: float = 0.0
    refused_settings: frozenset[str] = frozenset()
    structured_output: bool = False
    image_limits: ImageLimits | None = None
    document_input: bool = False
    audio_input: bool = False
    document_limits: FileLimits | None = None
    audio_limits: FileLimits | None = None
    aliases: tuple[str, ...] = ()
    families: tuple[str, ...] = ()
    priced: bool = True

    @property
    def key(self) -> str:
        """``vendor/model``, how users name the model."""
        return f"{self.vendor}/{self.id}"


CredentialKind = Literal["api_key", "bearer", "oauth"]


@dataclass(frozen=True, slots=True)
class Credential:
    """A secret the host resolved for one request; its ``repr`` never shows the value.

    :param kind: ``api_key`` (the vendor's key header), ``bearer`` (an auth
        token sent as ``Authorization: Bearer``) or ``oauth`` (an OAuth access
        token, also a bearer token, which may need extra headers).
    :param expires_at: POSIX time after which it is invalid; ``None`` never expires.
    """

    kind: CredentialKind
    value: str = field(repr=False)
    expires_at: float | None = None


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """The part of a tool a wire sends: name, description, JSON Schema.

    The host builds one per tool per session and sends the same objects on
    every request, so a codec may cache their wire form by identity.
    ``deferred`` marks a tool added after the session's first request: the
    host lists it after every tool that was there before, and a codec keeps
    it outside the cached prefix (after the last cache breakpoint), so that
    adding it does not invalidate what the provider cached. Once deferred, a
    tool stays deferred.
    """

    name: str
    description: str
    input_schema: Mapping[str, Any]
    deferred: bool = False


@dataclass(slots=True)
class ProviderRequest:
    """One canonical request, the same whatever wire carries it.

    :param tool_choice: ``None`` sends nothing (the wire's default);
        ``"auto"`` (the model decides), ``"none"`` (no tool call),
        ``"required"`` (some tool call), or the name of one of ``tools`` to
        force that tool. A wire that cannot express a choice refuses it with
        an error naming the wire (see :func:`agentkit.plugin_api.codec.tool_choice`).
    :param reasoning: a reasoning effort level the model supports, or ``None``.
    :param options: wire-specific extras a provider documents.
    :param top_p: nucleus sampling, ``None`` for the model's default; like
        ``temperature``, clamped to the range the wire accepts.
    :param top_k: sample from the ``top_k`` likeliest tokens, ``None`` for the default.
    :param stop_sequences: texts that end the response when the model writes one.
    :param seed: a seed for reproducible sampling, where the wire has one.
    :param output_schema: a JSON Schema the response's text must fit, as one
        JSON value (native structured output); set only for a model whose
        catalog row says ``structured_output``, see
        :func:`agentkit.plugin_api.codec.structured_output`.

    A sampling setting the wire cannot carry, or the model refuses (its
    catalog row's ``refused_settings``), fails the request with an error that
    names the wire or the model and the setting: it is never dropped quietly.
    """

    model: ModelInfo
    messages: Sequence[Message]
    system: str | None = None
    tools: Sequence[ToolSpec] = ()
    max_tokens: int | None = None
    temperature: float | None = None
    tool_choice: str | None = None
    reasoning: str | None = None
    stream: bool = True
    session_id: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    top_p: float | None = None
    top_k: int | None = None
    stop_sequences: Sequence[str] = ()
    seed: int | None = None
    output_schema: Mapping[str, Any] | None = None


Framing = Literal["sse", "ndjson", "json"]


@dataclass(slots=True)
class WireRequest:
    """What to send: the host joins ``path`` to the model's base URL.

    ``body`` is a JSON value, which the host serializes, or ``bytes`` of JSON
    the codec serialized itself (to reuse the unchanged prefix of a growing
    transcript). ``framing`` names how the response is cut into events.
    """

    path: str
    body: Any
    headers: dict[str, str] = field(default_factory=dict)
    method: str = "POST"
    framing: Framing = "sse"


@dataclass(frozen=True, slots=True)
class WireEvent:
    """One decoded frame of a response: its JSON ``data`` and SSE ``event`` name."""

    data: Any
    event: str | None = None


class StreamDecoder(Protocol):
    """Turns the wire events of one response into canonical events.

    The host calls :meth:`feed` per wire event, then exactly one of
    :meth:`finish` (the stream ended) or :meth:`fail` (it broke, or was
    cancelled). Both must end the output with a :class:`MessageEnd`.
    """

    def feed(self, event: WireEvent) -> list[ProviderEvent]: ...

    def finish(self) -> list[ProviderEvent]: ...

    def fail(self, stop_reason: StopReason, error_message: str) -> list[ProviderEvent]: ...


#: ``(character_class, max_length)``: the tool-call ids a wire accepts, e.g. ``("[A-Za-z0-9_-]", 64)``.
ToolCallIdRule = tuple[str, int]

#: What a provider that declares no ``tool_call_id_rule`` gets: the narrowest
#: alphabet and length any wire we know accepts (Anthropic's).
DEFAULT_TOOL_CALL_ID_RULE: ToolCallIdRule = ("[A-Za-z0-9_-]", 64)


class ConformanceResponder(Protocol):
    """Plays a wire's server for the conformance suite: canonical answers as that wire's events.

    Written from the vendor's documentation, never from the decoder it helps
    check. ``agentkit.conformance`` feeds what it renders to the provider's
    decoder and expects the canonical message back.

    :cvar api: the wire it renders.
    :cvar features: which optional things the wire carries, of ``thinking``,
        ``signature`` (thinking signatures), ``cache_write`` (cached input
        tokens written) and ``reasoning`` (reasoning tokens).
    :cvar lacks: optional (default empty): which of the things every wire is
        taken to carry this one does not, of ``cache_read``, ``tool_ids`` and
        ``argument_text``.
    """

    api: str
    features: frozenset[str]

    def stream(self, message: AssistantMessage) -> list[WireEvent]:
        """The events of a streamed response carrying ``message``."""
        ...

    def whole(self, message: AssistantMessage) -> list[WireEvent] | None:
        """The event(s) of a non-streamed response, or ``None`` when the wire has no such form."""
        ...

    def error(self, text: str) -> list[WireEvent]:
        """The events of a wire error reported mid-response, saying ``text``."""
        ...


class Provider(Protocol):
    """A wire API codec, registered through ``agentkit_register_providers``.

    Required: ``api``, ``credential_env`` and the four methods. Optional: the
    members after them, each with the default a provider without it gets.
    The host and the conformance suite read an optional member only through
    :func:`provider_member`, so a provider may leave any of them out; a class
    that subclasses :class:`Provider` explicitly inherits the defaults.

    :cvar api: the wire API name (``anthropic-messages``, ``faux``...); unique
        among installed providers.
    :cvar credential_env: environment variables the host reads for a
        credential, in precedence order, each with its :data:`CredentialKind`;
        empty when the wire needs none.
    """

    api: ClassVar[str]
    credential_env: ClassVar[Sequence[tuple[str, CredentialKind]]]

    def auth_headers(self, credential: Credential) -> dict[str, str]:
        """The headers that carry ``credential`` on this wire."""
        ...

    def catalog(self) -> Sequence[ModelInfo]:
        """The models this provider serves."""
        ...

    def encode(self, request: ProviderRequest) -> WireRequest:
        """The wire request for ``request``; pure, no I/O."""
        ...

    def decoder(self, request: ProviderRequest) -> StreamDecoder:
        """A fresh decoder for the response to ``request``."""
        ...

    # -- optional ------------------------------------------------------------

    @property
    def tool_call_id_rule(self) -> ToolCallIdRule:
        """The tool-call ids the wire accepts, ``(character_class, max_length)``.

        The host rewrites ids that came from another model to fit it before
        sending (ids of the same model are never rewritten). Default:
        :data:`DEFAULT_TOOL_CALL_ID_RULE`, the narrowest any known wire takes.
        """
        return DEFAULT_TOOL_CALL_ID_RULE

    @property
    def conformance_responder(self) -> ConformanceResponder | None:
        """The wire's :class:`ConformanceResponder`, for the conformance suite's decode checks.

        Default ``None``: only the encode, error and abort checks run, and
        the report says so.
        """
        return None

    @property
    def script(self) -> Callable[[list[Any]], Any] | None:
        """For a scripted (test double) provider: ``script(turns)`` makes the transport that
        plays ``turns`` (a list of plain-data turns), which ``agentkit run --script`` uses.

        Default ``None``: the provider plays no scripts.
        """
        return None


#: The optional members of :class:`Provider` and their defaults.
_OPTIONAL: Mapping[str, object] = MappingProxyType(
    {"tool_call_id_rule": DEFAULT_TOOL_CALL_ID_RULE, "conformance_responder": None, "script": None}
)


@overload
def provider_member(provider: object, name: Literal["tool_call_id_rule"]) -> ToolCallIdRule: ...
@overload
def provider_member(
    provider: object, name: Literal["conformance_responder"]
) -> ConformanceResponder | None: ...
@overload
def provider_member(
    provider: object, name: Literal["script"]
) -> Callable[[list[Any]], Any] | None: ...
def provider_member(provider: object, name: str) -> Any:
    """An optional :class:`Provider` member of ``provider``, or its default.

    A provider that leaves the member out, or sets it to ``None``, gets the
    default the protocol documents.

    :raises ValueError: ``name`` is not an optional member of the protocol.
    """
    if name not in _OPTIONAL:
        raise ValueError(f"{name!r} is not an optional Provider member; those are {sorted(_OPTIONAL)}")
    value = getattr(provider, name, None)
    return _OPTIONAL[name] if value is None else value
