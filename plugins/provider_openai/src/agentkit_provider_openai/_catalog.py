"""Catalog rows served over the OpenAI Chat Completions wire, one vendor each.

Prices are US dollars per million tokens as published by each vendor;
``cache_read_price`` is the cached-input price. Every row names its
compatibility profile in ``options["compat"]``; rows of vendors other than
OpenAI name their own key in ``options["credential_env"]`` (the host reads it
instead of the provider's ``credential_env``; an empty list means no key).
OpenAI's reasoning rows (o3, o4-mini, gpt-5...) refuse ``temperature`` and
``top_p`` (``refused_settings``): those models accept only the default.
"""

from __future__ import annotations

from agentkit.plugin_api import ModelInfo
from agentkit.plugin_api.codec import (
    PDF,
    PLAIN_TEXT,
    PRICED_COLUMNS,
    FileLimits,
    ImageLimits,
    model_rows,
)

API = "openai-completions"

OPENAI_BASE_URL = "https://api.openai.com/v1"
OPENROUTER_BASE_URL = "https://openrouter.ai/api/v1"
DEEPSEEK_BASE_URL = "https://api.deepseek.com"
GROQ_BASE_URL = "https://api.groq.com/openai/v1"
#: llama.cpp's server default; vLLM listens on :8000 and LM Studio on :1234.
LOCAL_BASE_URL = "http://127.0.0.1:8080/v1"

_REASONING = ("low", "medium", "high")
_GPT5_REASONING = ("minimal", *_REASONING)

# vendor: (base URL, credential_env of the row (None: the provider's own)).
_VENDORS: dict[str, tuple[str, tuple[tuple[str, str], ...] | None]] = {
    "openai": (OPENAI_BASE_URL, None),
    "openrouter": (OPENROUTER_BASE_URL, (("OPENROUTER_API_KEY", "api_key"),)),
    "deepseek": (DEEPSEEK_BASE_URL, (("DEEPSEEK_API_KEY", "api_key"),)),
    "groq": (GROQ_BASE_URL, (("GROQ_API_KEY", "api_key"),)),
    "local": (LOCAL_BASE_URL, ()),
}

#: OpenAI's "Images and vision" guide: PNG, JPEG, WEBP and non-animated GIF, by URL or data URL,
#: 20 MB per image; at high detail an image is scaled to fit 2048 x 2048 first. A local server
#: may not reach the internet, so the host sends it the bytes of a URL image.
_IMAGE_FORMATS = frozenset({"image/png", "image/jpeg", "image/webp", "image/gif"})
_IMAGES_BY_URL = ImageLimits(max_edge=2048, max_bytes=20 * 1024 * 1024, formats=_IMAGE_FORMATS, urls=True)
_IMAGES_INLINE = ImageLimits(max_edge=2048, max_bytes=20 * 1024 * 1024, formats=_IMAGE_FORMATS)

# Each row: its vendor, then these columns.
_COLUMNS = (*PRICED_COLUMNS, "image_input", "reasoning_levels", "default")
_ROWS: tuple[tuple[str, str, int, int, float, float, float, bool, tuple[str, ...], bool], ...] = (
    ("openai", "gpt-4.1", 1_047_576, 32_768, 2.0, 8.0, 0.5, True, (), True),
    ("openai", "gpt-4.1-mini", 1_047_576, 32_768, 0.4, 1.6, 0.1, True, (), False),
    ("openai", "gpt-4.1-nano", 1_047_576, 32_768, 0.1, 0.4, 0.025, True, (), False),
    ("openai", "gpt-4o", 128_000, 16_384, 2.5, 10.0, 1.25, True, (), False),
    ("openai", "gpt-4o-mini", 128_000, 16_384, 0.15, 0.6, 0.075, True, (), False),
    ("openai", "o3", 200_000, 100_000, 2.0, 8.0, 0.5, True, _REASONING, False),
    ("openai", "o4-mini", 200_000, 100_000, 1.1, 4.4, 0.275, True, _REASONING, False),
    ("openai", "gpt-5", 400_000, 128_000, 1.25, 10.0, 0.125, True, _GPT5_REASONING, False),
    ("openai", "gpt-5-mini", 400_000, 128_000, 0.25, 2.0, 0.025, True, _GPT5_REASONING, False),
    ("openai", "gpt-4o-audio-preview", 128_000, 16_384, 2.5, 10.0, 0.0, False, (), False),
    ("openrouter", "anthropic/claude-sonnet-4", 200_000, 64_000, 3.0, 15.0, 0.3, True, (), True),
    ("openrouter", "openai/gpt-4.1-mini", 1_047_576, 32_768, 0.4, 1.6, 0.1, True, (), False),
    (
        "openrouter",
        "google/gemini-2.5-flash",
        1_048_576,
        65_535,
        0.3,
        2.5,
        0.075,
        True,
        _REASONING,
        False,
    ),
    ("deepseek", "deepseek-chat", 128_000, 8_192, 0.28, 0.42, 0.028, False, (), True),
    ("deepseek", "deepseek-reasoner", 128_000, 64_000, 0.28, 0.42, 0.028, False, (), False),
    ("groq", "llama-3.3-70b-versatile", 131_072, 32_768, 0.59, 0.79, 0.0, False, (), True),
    ("groq", "openai/gpt-oss-120b", 131_072, 65_536, 0.15, 0.75, 0.075, False, _REASONING, False),
    ("groq", "qwen/qwen3-32b", 131_072, 40_960, 0.29, 0.59, 0.0, False, (), False),
    # A local server serves whatever it loaded; the id is the name it was started with.
    ("local", "default", 32_768, 8_192, 0.0, 0.0, 0.0, False, (), True),
)


def _options(vendor: str) -> dict[str, object]:
    """A row's options: its compatibility profile, and its own key unless it is the provider's."""
    credential_env = _VENDORS[vendor][1]
    if credential_env is None:
        return {"compat": vendor}
    return {"compat": vendor, "credential_env": credential_env}


#: OpenAI's reasoning models answer 400 to a temperature or top_p: OpenAI's GPT-5 guide, "parameter
#: compatibility" (platform.openai.com/docs/guides/latest-model), for gpt-5, gpt-5-mini and
#: gpt-5-nano; for o3 and o4-mini the API's own 400 ``unsupported_parameter``, and Azure OpenAI's
#: reasoning models page ("not supported"). Every other row takes both (the API range-checks them).
_REASONING_REFUSES = frozenset({"temperature", "top_p"})


def _refused(vendor: str, levels: tuple[str, ...]) -> frozenset[str]:
    return _REASONING_REFUSES if vendor == "openai" and levels else frozenset()


#: The rows that take ``response_format`` json_schema (native structured output): OpenAI's models,
#: and what OpenRouter and Groq document for it; the rest get the host's final-answer tool.
_STRUCTURED = frozenset({
    "openai/gpt-4.1", "openai/gpt-4.1-mini", "openai/gpt-4.1-nano", "openai/gpt-4o", "openai/gpt-4o-mini", "openai/o3",
    "openai/o4-mini", "openai/gpt-5", "openai/gpt-5-mini", "openrouter/openai/gpt-4.1-mini",
    "openrouter/google/gemini-2.5-flash", "groq/openai/gpt-oss-120b",
})

#: OpenAI's "File inputs" guide: Chat Completions takes PDFs only, as a ``file`` part of base64
#: ``file_data`` (no URL), on the vision models, up to 32 MB per request; a plain-text document is
#: sent as a text part, as the guide says. OpenRouter documents the same part for every model.
_DOCUMENTS = FileLimits(max_bytes=32 * 1024 * 1024, formats=frozenset({PDF, PLAIN_TEXT}))
#: OpenAI's "Audio and speech" guide: ``input_audio`` of base64 WAV or MP3 on the audio models; no
#: URL. The cap is the 20 MB the images have (the guide names none below the request's size).
_AUDIO = FileLimits(max_bytes=20 * 1024 * 1024, formats=frozenset({"audio/wav", "audio/mpeg"}))
_AUDIO_ROWS = frozenset({"openai/gpt-4o-audio-preview"})


#: The dated snapshot ids OpenAI's model pages list for each row (the undated id points at one of them).
_SNAPSHOTS = {
    "gpt-4.1": ("gpt-4.1-2025-04-14",),
    "gpt-4.1-mini": ("gpt-4.1-mini-2025-04-14",),
    "gpt-4.1-nano": ("gpt-4.1-nano-2025-04-14",),
    "gpt-4o": ("gpt-4o-2024-08-06", "gpt-4o-2024-11-20"),
    "gpt-4o-mini": ("gpt-4o-mini-2024-07-18",),
    "o3": ("o3-2025-04-16",),
    "o4-mini": ("o4-mini-2025-04-16",),
    "gpt-5": ("gpt-5-2025-08-07",),
    "gpt-5-mini": ("gpt-5-mini-2025-08-07",),
    "gpt-5-nano": ("gpt-5-nano-2025-08-07",),
}


def _vendor_rows(vendor: str, base_url: str) -> tuple[ModelInfo, ...]:
    """The rows of ``vendor``, each built once: its table values, then what the sets above say of it."""
    table = []
    for row in _ROWS:
        if row[0] != vendor:
            continue
        model_id, image_input, levels = row[1], row[7], row[8]
        key = f"{vendor}/{model_id}"
        documents = image_input and vendor in ("openai", "openrouter")
        audio = key in _AUDIO_ROWS
        table.append((*row[1:], _refused(vendor, levels), key in _STRUCTURED,
                      _SNAPSHOTS.get(model_id, ()) if vendor == "openai" else (),
                      documents, _DOCUMENTS if documents else None, audio, _AUDIO if audio else None))
    return model_rows(
        (*_COLUMNS, "refused_settings", "structured_output", "aliases",
         "document_input", "document_limits", "audio_input", "audio_limits"),
        table,
        vendor=vendor,
        api=API,
        base_url=base_url,
        options=_options(vendor),
        image_limits=_IMAGES_INLINE if vendor == "local" else _IMAGES_BY_URL,
    )


CATALOG: tuple[ModelInfo, ...] = tuple(
    row for vendor, (base_url, _) in _VENDORS.items() for row in _vendor_rows(vendor, base_url)
)
