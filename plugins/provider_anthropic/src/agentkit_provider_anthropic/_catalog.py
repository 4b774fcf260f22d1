"""The Claude models this wire serves, as catalog rows.

Prices are US dollars per million tokens, from Anthropic's model pages as of
2026-11: ``cache_write_price`` is the 5-minute write, ``cache_write_1h_price``
the 1-hour write (twice the input price); ``cache_read_price`` is the cache hit.

``refused_settings``: the Claude 5 models take no ``temperature``, ``top_p``
or ``top_k`` (API version 2026-10-21 removed them from the request; the
Claude 4 rows still accept them, as recorded traffic shows), and no model of
this wire takes a ``seed``, which the wire itself refuses. Claude Fable 5.1
also refuses a forced tool choice (``forced_tool_choice``).

``options["thinking"]`` says how a reasoning level reaches the wire:
``"adaptive"`` rows take ``thinking: {"type": "adaptive"}`` plus
``output_config.effort``; ``"budget"`` rows take extended thinking with a
``budget_tokens`` count (see ``_encode.THINKING_BUDGETS``).
"""

from __future__ import annotations

from agentkit.plugin_api import ModelInfo
from agentkit.plugin_api.codec import DOCUMENT_FORMATS, FORCED_TOOL_CHOICE, FileLimits, ImageLimits

#: Anthropic's vision guide: JPEG, PNG, GIF and WebP, by base64 or by URL; an image whose long
#: edge exceeds 1568 px is scaled down by the API anyway (so we send no more), and the API refuses
#: an image over 5 MB, counted on the base64 text: 5 MiB * 3/4 of encoded bytes.
IMAGE_LIMITS = ImageLimits(
    max_edge=1568,
    max_bytes=5 * 1024 * 1024 * 3 // 4,
    formats=frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"}),
    urls=True,
)

#: Anthropic's PDF support guide: PDFs by base64 or URL, plain text as a text source, in a request
#: of at most 32 MB (counted on the base64 text: 32 MiB * 3/4 of file bytes).
DOCUMENT_LIMITS = FileLimits(max_bytes=32 * 1024 * 1024 * 3 // 4, formats=DOCUMENT_FORMATS, urls=True)

API = "anthropic-messages"
VENDOR = "anthropic"
BASE_URL = "https://api.anthropic.com"

_EFFORTS = ("low", "medium", "high", "xhigh", "max")
#: What the Claude 5 models no longer accept.
_NO_SAMPLING = frozenset({"temperature", "top_p", "top_k"})


def _row(
    model_id: str,
    *,
    context: int,
    max_output: int,
    prices: tuple[float, float, float, float],
    levels: tuple[str, ...] = _EFFORTS,
    thinking: str = "adaptive",
    default: bool = False,
    refused: frozenset[str] = _NO_SAMPLING,
) -> ModelInfo:
    input_price, output_price, cache_read, cache_write = prices
    return ModelInfo(
        vendor=VENDOR,
        id=model_id,
        api=API,
        base_url=BASE_URL,
        context_window=context,
        max_output=max_output,
        input_price=input_price,
        output_price=output_price,
        cache_read_price=cache_read,
        cache_write_price=cache_write,
        cache_write_1h_price=2 * input_price,
        refused_settings=refused,
        image_input=True,
        image_limits=IMAGE_LIMITS,
        document_input=True,
        document_limits=DOCUMENT_LIMITS,
        reasoning_levels=levels,
        default=default,
        options={"thinking": thinking},
        structured_output=True,  # output_config.format, from Claude Sonnet 4.5 and Haiku 4.5 on
    )


#: Newest first. Opus 5.5 is the row Anthropic recommends starting from, so an
#: unknown ``anthropic/*`` model is cloned from it.
CATALOG: tuple[ModelInfo, ...] = (
    _row(
        "claude-opus-5-5",
        context=1_000_000,
        max_output=128_000,
        prices=(4.0, 20.0, 0.20, 5.0),
        default=True,
    ),
    # Fable 5.1 answers 400 to a forced tool_choice (any, or a named tool).
    _row(
        "claude-fable-5-1",
        context=1_000_000,
        max_output=128_000,
        prices=(10.0, 50.0, 0.25, 12.5),
        refused=_NO_SAMPLING | {FORCED_TOOL_CHOICE},
    ),
    _row("claude-sonnet-5-5", context=1_000_000, max_output=128_000, prices=(2.0, 10.0, 0.10, 2.5)),
    # Haiku 5.5 is priced in two bands by prompt length; this is the band up to
    # 100,000 prompt tokens, which the catalog cannot express per request.
    _row(
        "claude-haiku-5-5",
        context=1_000_000,
        max_output=128_000,
        prices=(0.10, 0.50, 0.01, 0.125),
        levels=("low", "medium", "high"),
    ),
    _row("claude-opus-5", context=1_000_000, max_output=128_000, prices=(5.0, 25.0, 0.50, 6.25)),
    _row(
        "claude-sonnet-4-6",
        context=1_000_000,
        max_output=128_000,
        prices=(3.0, 15.0, 0.30, 3.75),
        levels=("low", "medium", "high"),
        refused=frozenset(),
    ),
    _row(
        "claude-haiku-4-5",
        context=200_000,
        max_output=64_000,
        prices=(1.0, 5.0, 0.10, 1.25),
        levels=("minimal", "low", "medium", "high"),
        thinking="budget",
        refused=frozenset(),
    ),
)
