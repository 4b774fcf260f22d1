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

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any, Literal
from urllib.parse import urlsplit

from agentkit.plugin_api import ModelInfo, UsageError

MaxTokensField = Literal["max_tokens", "max_completion_tokens"]
ReasoningEffortStyle = Literal["reasoning_effort", "openrouter", "none"]


@dataclass(frozen=True, slots=True)
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
    """

    name: str
    max_tokens_field: MaxTokensField = "max_tokens"
    supports_developer_role: bool = False
    supports_stream_usage: bool = True
    supports_strict_tools: bool = False
    reasoning_fields: tuple[str, ...] = ("reasoning_content", "reasoning")
    reasoning_effort_style: ReasoningEffortStyle = "none"
    supports_prompt_cache_key: bool = False
    max_tool_call_id_length: int | None = None
    supports_top_k: bool = False
    max_stop_sequences: int | None = None


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
_FLAG_NAMES = frozenset(field.name for field in fields(CompatProfile)) - {"name"}


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
