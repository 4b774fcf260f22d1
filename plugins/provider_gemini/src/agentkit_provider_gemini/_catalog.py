"""Catalog rows served over the Gemini ``generateContent`` wire (vendor ``google``).

Prices are US dollars per million tokens, Google's published paid-tier
prices for prompts up to 200k tokens (the Pro models charge more above that;
the host prices a request at one rate); ``cache_read_price`` is the cached
(context-cache) input price. ``--model google/<id>`` resolves to these rows.

Reasoning is sent per model family (``options["thinking"]``):

* ``"level"`` (Gemini 3): ``thinkingConfig.thinkingLevel``, the row's level
  names sent as they are.
* ``"budget"`` (Gemini 2.5): ``thinkingConfig.thinkingBudget`` in tokens, from
  ``options["thinking_budgets"]`` (level -> tokens). ``off`` is budget 0, and
  only rows whose model can stop thinking list it.
"""

from __future__ import annotations

from collections.abc import Mapping

from agentkit.plugin_api import ModelInfo
from agentkit.plugin_api.codec import (
    AUDIO_FORMATS,
    DOCUMENT_FORMATS,
    PRICED_COLUMNS,
    FileLimits,
    ImageLimits,
    model_rows,
)

#: Gemini's "File input methods" guide: PDFs inline up to 50 MB, other inline data (plain text,
#: audio: WAV, MP3, AIFF, AAC, OGG, FLAC) up to 100 MB, and public or signed HTTPS URLs through
#: fileData, which the API fetches itself.
DOCUMENT_LIMITS = FileLimits(max_bytes=50 * 1000 * 1000, formats=DOCUMENT_FORMATS, urls=True)
AUDIO_LIMITS = FileLimits(max_bytes=100 * 1000 * 1000, formats=AUDIO_FORMATS, urls=True)

API = "google-generative-ai"
VENDOR = "google"
BASE_URL = "https://generativelanguage.googleapis.com/v1beta"
#: Gemini's "Image understanding" guide: PNG, JPEG, WEBP, HEIC and HEIF, inline (a request of at
#: most 20 MB in all) or through the Files API; images are scaled to at most 3072 x 3072. Vertex AI
#: documents 7 MB per inline image. Web URLs are not taken: the host sends the bytes.
IMAGE_LIMITS = ImageLimits(
    max_edge=3072,
    max_bytes=7 * 1024 * 1024,
    formats=frozenset({"image/png", "image/jpeg", "image/webp", "image/heic", "image/heif"}),
)

_FLASH_BUDGETS: Mapping[str, int] = {"off": 0, "low": 1024, "medium": 8192, "high": 24576}
_PRO_BUDGETS: Mapping[str, int] = {"low": 1024, "medium": 8192, "high": 32768}
_LITE_BUDGETS: Mapping[str, int] = {"off": 0, "low": 1024, "medium": 8192, "high": 24576}

_COLUMNS = (*PRICED_COLUMNS, "reasoning_levels", "options", "default")
_ROWS: tuple[tuple[str, int, int, float, float, float, tuple[str, ...], dict, bool], ...] = (
    (
        "gemini-2.5-flash",
        1_048_576,
        65_536,
        0.30,
        2.50,
        0.03,
        ("off", "low", "medium", "high"),
        {"thinking": "budget", "thinking_budgets": _FLASH_BUDGETS},
        True,
    ),
    (
        "gemini-2.5-pro",
        1_048_576,
        65_536,
        1.25,
        10.0,
        0.125,
        ("low", "medium", "high"),
        {"thinking": "budget", "thinking_budgets": _PRO_BUDGETS},
        False,
    ),
    (
        "gemini-2.5-flash-lite",
        1_048_576,
        65_536,
        0.10,
        0.40,
        0.01,
        ("off", "low", "medium", "high"),
        {"thinking": "budget", "thinking_budgets": _LITE_BUDGETS},
        False,
    ),
    (
        "gemini-3-pro-preview",
        1_048_576,
        65_536,
        2.0,
        12.0,
        0.20,
        ("low", "high"),
        {"thinking": "level"},
        False,
    ),
    (
        "gemini-3-flash-preview",
        1_048_576,
        65_536,
        0.50,
        3.0,
        0.05,
        ("minimal", "low", "medium", "high"),
        {"thinking": "level"},
        False,
    ),
)


CATALOG: tuple[ModelInfo, ...] = model_rows(
    _COLUMNS, _ROWS, vendor=VENDOR, api=API, base_url=BASE_URL, image_input=True,
    image_limits=IMAGE_LIMITS,
    document_input=True, document_limits=DOCUMENT_LIMITS, audio_input=True, audio_limits=AUDIO_LIMITS,
    structured_output=True,  # responseJsonSchema, on every Gemini 2.5 and 3 model
)
