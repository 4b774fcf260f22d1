"""Compatibility profiles: what each OpenAI-compatible server does differently.

Pointing the OpenAI wire at another base URL is not enough: servers that
accept the same request shape still differ in which token-limit field they
read, which system role they accept, where they put reasoning text and
whether they stream usage at all. A :class:`CompatProfile` names those
differences as flags, each tied to the vendor behaviour that needs it, and a
catalog row picks one with ``ModelInfo.options["compat"]`` (a profile name or
a :class:`CompatProfile`), optionally adjusted by
``ModelInfo.options["compat_overrides"]`` (a mapping of flag to value).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import FrozenInstanceError, replace
from operator import attrgetter
from reprlib import recursive_repr
from typing import TYPE_CHECKING, Any, ClassVar, Literal
from urllib.parse import urlsplit

from agentkit.plugin_api import ModelInfo, UsageError

MaxTokensField = Literal["max_tokens", "max_completion_tokens"]
ReasoningEffortStyle = Literal["reasoning_effort", "openrouter", "none"]


class _StandardView:
    """A dataclass attribute of :class:`CompatProfile` (``__dataclass_fields__``,
    ``__dataclass_params__``), taken on first read from the standard dataclass of its fields.

    ``dataclasses.fields``, ``replace``, ``asdict`` and ``is_dataclass`` read them; a profile's
    own use never does, so a process that does not ask makes no field objects.
    """

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, instance: object, owner: type | None = None) -> Any:
        value = getattr(_standard_twin(), self.name)
        type.__setattr__(CompatProfile, self.name, value)  # read once: later reads are the plain attribute
        return value


def _standard_twin() -> type:
    """The standard frozen, slotted dataclass of :class:`CompatProfile`'s fields, annotations and defaults."""
    names = CompatProfile.__slots__
    defaults = CompatProfile.__init__.__defaults__ or ()
    required = len(names) - len(defaults)
    annotations = CompatProfile.__annotations__
    specs: list[Any] = [(name, annotations[name]) for name in names[:required]]
    specs += [(name, annotations[name], dataclasses.field(default=default))
              for name, default in zip(names[required:], defaults, strict=True)]
    return dataclasses.make_dataclass(CompatProfile.__name__, specs, frozen=True, slots=True)


_set = object.__setattr__


class CompatProfile:
    """The quirks of one family of OpenAI Chat Completions servers.

    :param name: how catalog rows name the profile.
    :param max_tokens_field: the body field carrying the output-token limit.
        OpenAI's reasoning models (o1, o3, gpt-5...) reject ``max_tokens``
        ("Use 'max_completion_tokens' instead"), and OpenAI deprecated it for
        every model; DeepSeek and most local servers only read ``max_tokens``.
    :param supports_developer_role: send the system prompt as a ``developer``
        message to reasoning models (rows with ``reasoning_levels``). OpenAI
        introduced the role with o1; other vendors answer 400 to an unknown
        role, so they always get ``system``.
    :param supports_stream_usage: ask for the final usage chunk with
        ``stream_options: {"include_usage": true}``. OpenAI sends no usage on
        a stream without it; Groq reports streamed usage unasked in
        ``x_groq.usage``, which the decoder reads anyway.
    :param supports_strict_tools: forward ``strict: true`` on tool definitions
        when the request asks for it (``ProviderRequest.options["strict_tools"]``).
        DeepSeek accepts ``strict`` only on its beta endpoint, and local
        servers ignore or reject it, so it is dropped for them.
    :param reasoning_fields: the delta/message fields that carry reasoning
        text, read in order; the first non-empty one wins per chunk. DeepSeek
        (and llama.cpp, older vLLM) send ``reasoning_content``; OpenRouter,
        Groq, Cerebras and newer vLLM send ``reasoning``. Some servers send
        both with the same text, which is why only one is taken per chunk.
        OpenAI's Chat Completions never returns reasoning text.
    :param reasoning_effort_style: how ``ProviderRequest.reasoning`` is sent:
        OpenAI and Groq take a top-level ``reasoning_effort``; OpenRouter a
        ``reasoning: {"effort": ...}`` object; DeepSeek chooses reasoning by
        model (``deepseek-reasoner``), so ``none`` sends nothing.
    :param supports_prompt_cache_key: send ``ProviderRequest.session_id`` as
        OpenAI's ``prompt_cache_key`` (sticky routing to a warm cache; at most
        64 characters). Other vendors reject or ignore the unknown field.
    :param max_tool_call_id_length: OpenAI rejects a ``tool_call_id`` longer
        than 40 characters ("string too long"), which ids minted by other
        wires can be; longer ids are replaced by a stable digest when sent.
        ``None``: no limit known.
    :param supports_top_k: send ``top_k``. OpenAI's Chat Completions has no
        such field; OpenRouter, vLLM and llama.cpp's server take it.
    :param max_stop_sequences: the most ``stop`` sequences the server takes
        (OpenAI: 4); ``None``: no limit known.

    :class:`CompatProfile` is a frozen dataclass of these fields for everything
    but its declaration: it prints, compares, hashes, copies and pickles as the
    standard decorator's class does, and ``dataclasses.fields`` and ``replace``
    take it (``tests/test_compat_profile.py`` holds it to that). The standard
    decorator writes and compiles five methods when the module is imported,
    which every process that loads this provider paid for (about 5 M of a
    first use's instructions, docs/decisions/0066).
    """

    __slots__ = (  # noqa: RUF023  (in field order: the order of repr, equality and match)
        "name",
        "max_tokens_field",
        "supports_developer_role",
        "supports_stream_usage",
        "supports_strict_tools",
        "reasoning_fields",
        "reasoning_effort_style",
        "supports_prompt_cache_key",
        "max_tool_call_id_length",
        "supports_top_k",
        "max_stop_sequences",
    )
    __match_args__ = (  # spelled out, as type checkers read it
        "name", "max_tokens_field", "supports_developer_role", "supports_stream_usage", "supports_strict_tools",
        "reasoning_fields", "reasoning_effort_style", "supports_prompt_cache_key", "max_tool_call_id_length",
        "supports_top_k", "max_stop_sequences",
    )
    if TYPE_CHECKING:  # what a standard dataclass declares, for ``dataclasses.fields`` and ``replace``
        __dataclass_fields__: ClassVar[dict[str, dataclasses.Field[Any]]]
    else:
        __dataclass_fields__ = _StandardView()
        __dataclass_params__ = _StandardView()

    name: str
    max_tokens_field: MaxTokensField
    supports_developer_role: bool
    supports_stream_usage: bool
    supports_strict_tools: bool
    reasoning_fields: tuple[str, ...]
    reasoning_effort_style: ReasoningEffortStyle
    supports_prompt_cache_key: bool
    max_tool_call_id_length: int | None
    supports_top_k: bool
    max_stop_sequences: int | None

    def __init__(
        self,
        name: str,
        max_tokens_field: MaxTokensField = "max_tokens",
        supports_developer_role: bool = False,
        supports_stream_usage: bool = True,
        supports_strict_tools: bool = False,
        reasoning_fields: tuple[str, ...] = ("reasoning_content", "reasoning"),
        reasoning_effort_style: ReasoningEffortStyle = "none",
        supports_prompt_cache_key: bool = False,
        max_tool_call_id_length: int | None = None,
        supports_top_k: bool = False,
        max_stop_sequences: int | None = None,
    ) -> None:
        _set(self, "name", name)
        _set(self, "max_tokens_field", max_tokens_field)
        _set(self, "supports_developer_role", supports_developer_role)
        _set(self, "supports_stream_usage", supports_stream_usage)
        _set(self, "supports_strict_tools", supports_strict_tools)
        _set(self, "reasoning_fields", reasoning_fields)
        _set(self, "reasoning_effort_style", reasoning_effort_style)
        _set(self, "supports_prompt_cache_key", supports_prompt_cache_key)
        _set(self, "max_tool_call_id_length", max_tool_call_id_length)
        _set(self, "supports_top_k", supports_top_k)
        _set(self, "max_stop_sequences", max_stop_sequences)

    @recursive_repr()
    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={value!r}" for name, value in zip(_FIELDS, _values(self), strict=True))
        return f"{self.__class__.__qualname__}({shown})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return _values(self) == _values(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(_values(self))

    def __setattr__(self, name: str, value: object) -> None:
        if type(self) is CompatProfile or name in CompatProfile.__slots__:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        if type(self) is CompatProfile or name in CompatProfile.__slots__:
            raise FrozenInstanceError(f"cannot delete field {name!r}")
        super().__delattr__(name)

    # What the standard library gives a frozen slotted dataclass, so that copy and pickle can fill one.
    def __getstate__(self) -> list[Any]:
        return [getattr(self, f.name) for f in dataclasses.fields(self)]

    def __setstate__(self, state: list[Any]) -> None:
        for f, value in zip(dataclasses.fields(self), state, strict=False):
            _set(self, f.name, value)

    def __replace__(self, /, **changes: Any) -> CompatProfile:
        """``copy.replace`` (Python 3.13), as a standard dataclass has it there."""
        return replace(self, **changes)


#: A profile's field values in order: what it compares and hashes by.
_FIELDS = CompatProfile.__slots__
_values = attrgetter(*_FIELDS)


OPENAI = CompatProfile(
    name="openai",
    max_tokens_field="max_completion_tokens",
    supports_developer_role=True,
    supports_stream_usage=True,
    supports_strict_tools=True,
    reasoning_fields=(),
    reasoning_effort_style="reasoning_effort",
    supports_prompt_cache_key=True,
    max_tool_call_id_length=40,
    max_stop_sequences=4,
)

OPENROUTER = CompatProfile(
    name="openrouter",
    # OpenRouter normalizes `max_tokens` for every upstream it routes to.
    max_tokens_field="max_tokens",
    supports_stream_usage=True,
    # Forwarded to upstreams that support structured tool calling.
    supports_strict_tools=True,
    reasoning_fields=("reasoning",),
    reasoning_effort_style="openrouter",
    supports_top_k=True,
)

DEEPSEEK = CompatProfile(
    name="deepseek",
    max_tokens_field="max_tokens",
    supports_stream_usage=True,
    reasoning_fields=("reasoning_content",),
)

GROQ = CompatProfile(
    name="groq",
    # Groq documents `max_completion_tokens` and keeps `max_tokens` as deprecated.
    max_tokens_field="max_completion_tokens",
    supports_stream_usage=False,
    reasoning_fields=("reasoning",),
    reasoning_effort_style="reasoning_effort",
)

LOCAL = CompatProfile(
    name="local",
    # vLLM, llama.cpp's server and LM Studio all read `max_tokens`.
    max_tokens_field="max_tokens",
    # All three stream a usage chunk when asked; a server that ignores the
    # option just sends no usage.
    supports_stream_usage=True,
    reasoning_fields=("reasoning_content", "reasoning"),
    supports_top_k=True,
)

PROFILES: Mapping[str, CompatProfile] = {
    profile.name: profile for profile in (OPENAI, OPENROUTER, DEEPSEEK, GROQ, LOCAL)
}

_HOSTS = {
    "api.openai.com": OPENAI,
    "openrouter.ai": OPENROUTER,
    "api.deepseek.com": DEEPSEEK,
    "api.groq.com": GROQ,
}
_FLAG_NAMES = frozenset(CompatProfile.__slots__) - {"name"}


def profile_for(model: ModelInfo) -> CompatProfile:
    """The profile a catalog row asks for.

    ``options["compat"]`` names a profile (or is one); without it the vendor
    name, then the base URL's host decide, and anything unknown gets the
    cautious ``local`` profile. ``options["compat_overrides"]`` then replaces
    single flags.
    """
    chosen = model.options.get("compat")
    if isinstance(chosen, CompatProfile):
        profile = chosen
    elif isinstance(chosen, str):
        try:
            profile = PROFILES[chosen]
        except KeyError:
            raise UsageError(
                f"model {model.key!r} asks for compat profile {chosen!r}; "
                f"use one of {', '.join(sorted(PROFILES))}"
            ) from None
    elif chosen is None:
        profile = PROFILES.get(model.vendor) or _HOSTS.get(_host(model.base_url), LOCAL)
    else:
        raise UsageError(
            f"model {model.key!r}: options['compat'] must be a profile name, "
            f"not {type(chosen).__name__}"
        )
    overrides: Mapping[str, Any] = model.options.get("compat_overrides") or {}
    if overrides:
        unknown = sorted(set(overrides) - _FLAG_NAMES)
        if unknown:
            raise UsageError(
                f"model {model.key!r}: unknown compat flag(s) {', '.join(unknown)}; "
                f"known flags: {', '.join(sorted(_FLAG_NAMES))}"
            )
        changes: dict[str, Any] = {
            key: tuple(value) if isinstance(value, list) else value for key, value in overrides.items()
        }
        profile = replace(profile, **changes)
    return profile


def _host(base_url: str) -> str:
    return (urlsplit(base_url).hostname or "").lower()
