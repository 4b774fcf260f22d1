"""Catalog rows served over the OpenAI Responses wire, under vendor ``openai-responses``.

The vendor name differs from the Chat Completions rows (vendor ``openai``) so
that ``openai-responses/<model>`` picks this wire and ``openai/<model>`` the
other; both read ``OPENAI_API_KEY``. Prices are US dollars per million tokens
from OpenAI's pricing page; ``cache_read_price`` is the cached-input price.
OpenAI bills tokens written to the prompt cache (``cache_write_tokens``, which
the decoder moves out of ``input`` into ``cache_write``) as ordinary input, so
``cache_write_price`` is the input price: left at zero, about half the cost of
a turn that fills the cache went missing. The reasoning rows refuse
``temperature`` and ``top_p`` (``refused_settings``): those models take only the default.
"""

from __future__ import annotations

import dataclasses

from agentkit.plugin_api import ModelInfo
from agentkit.plugin_api.codec import (
    PDF,
    PLAIN_TEXT,
    PRICED_COLUMNS,
    FileLimits,
    ImageLimits,
    model_rows,
)

API = "openai-responses"
VENDOR = "openai-responses"
BASE_URL = "https://api.openai.com/v1"
#: OpenAI's "Images and vision" guide: PNG, JPEG, WEBP and non-animated GIF, by URL or data URL,
#: 20 MB per image; at high detail an image is scaled to fit 2048 x 2048 first.
IMAGE_LIMITS = ImageLimits(
    max_edge=2048,
    max_bytes=20 * 1024 * 1024,
    formats=frozenset({"image/png", "image/jpeg", "image/webp", "image/gif"}),
    urls=True,
)
#: OpenAI's "File inputs" guide: input_file takes a PDF (text and page images, on the vision models
#: every row here is) and text files, by base64 file_data or by file_url, up to 32 MB per request.
DOCUMENT_LIMITS = FileLimits(max_bytes=32 * 1024 * 1024, formats=frozenset({PDF, PLAIN_TEXT}), urls=True)

_O_SERIES = ("low", "medium", "high")
_GPT5 = ("minimal", "low", "medium", "high")

_COLUMNS = (*PRICED_COLUMNS, "reasoning_levels", "default")
_ROWS: tuple[tuple[str, int, int, float, float, float, tuple[str, ...], bool], ...] = (
    ("gpt-5", 400_000, 128_000, 1.25, 10.0, 0.125, _GPT5, True),
    ("gpt-5-mini", 400_000, 128_000, 0.25, 2.0, 0.025, _GPT5, False),
    ("gpt-5-nano", 400_000, 128_000, 0.05, 0.4, 0.005, _GPT5, False),
    ("gpt-5-codex", 400_000, 128_000, 1.25, 10.0, 0.125, _O_SERIES, False),
    ("o3", 200_000, 100_000, 2.0, 8.0, 0.5, _O_SERIES, False),
    ("o4-mini", 200_000, 100_000, 1.1, 4.4, 0.275, _O_SERIES, False),
    ("gpt-4.1", 1_047_576, 32_768, 2.0, 8.0, 0.5, (), False),
    ("gpt-4.1-mini", 1_047_576, 32_768, 0.4, 1.6, 0.1, (), False),
    ("gpt-4.1-nano", 1_047_576, 32_768, 0.1, 0.4, 0.025, (), False),
    # The GPT-4o rows take temperature and top_p: the API range-checks them (0..2, 0..1).
    ("gpt-4o", 128_000, 16_384, 2.5, 10.0, 1.25, (), False),
    ("gpt-4o-mini", 128_000, 16_384, 0.15, 0.6, 0.075, (), False),
)

#: The reasoning rows (o-series, GPT-5) refuse temperature and top_p: OpenAI's GPT-5 guide,
#: "parameter compatibility" (platform.openai.com/docs/guides/latest-model): requests to gpt-5,
#: gpt-5-mini or gpt-5-nano "that include these fields will raise an error"; the o-series answer
#: 400 ``unsupported_parameter`` ("'temperature' is not supported with this model"), as Azure
#: OpenAI's reasoning models page lists them "not supported". Every other row takes them.
_REASONING_REFUSES = frozenset({"temperature", "top_p"})

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

CATALOG: tuple[ModelInfo, ...] = tuple(
    dataclasses.replace(row, cache_write_price=row.input_price, structured_output=True,  # text.format
                        refused_settings=_REASONING_REFUSES if row.reasoning_levels else frozenset(),
                        aliases=_SNAPSHOTS.get(row.id, ()))
    for row in model_rows(_COLUMNS, _ROWS, vendor=VENDOR, api=API, base_url=BASE_URL, image_input=True,
                          image_limits=IMAGE_LIMITS, document_input=True, document_limits=DOCUMENT_LIMITS)
)
