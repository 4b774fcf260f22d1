"""The Claude models this wire serves, as catalog rows.

Prices are US dollars per million tokens, from Anthropic's model pages as of
2026-11: ``cache_write_price`` is the 5-minute write, ``cache_write_1h_price``
the 1-hour write (twice the input price); ``cache_read_price`` is the cache hit.

Sampling (``refused_settings``, each row group cites its source below): API
version 2026-10-21, what this wire sends by default, took ``temperature``,
``top_p`` and ``top_k`` out of the request for every model (Anthropic's
versioning page: "2026-10-21"); the models that still take them take them on
version 2023-06-01, so their rows carry ``anthropic-version: 2023-06-01`` in
``headers`` (the row's headers win over the wire's). The models that reject
them whatever the version refuse them here. No model of this wire takes a
``seed``: the wire has no such field, which the wire itself refuses.

``options["thinking"]`` says how a reasoning level reaches the wire:
``"adaptive"`` rows take ``thinking: {"type": "adaptive"}`` plus
``output_config.effort``; ``"budget"`` rows take extended thinking with a
``budget_tokens`` count (see ``_encode.THINKING_BUDGETS``).

``aliases`` are the dated snapshot ids Anthropic's models overview lists for a
row; ``families`` make an unlisted id of a known line (``claude-sonnet-5-7``)
take the newest row of that line rather than the default row.
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
#: Opus 4.6 takes no xhigh (a recorded request for it answered 400); xhigh came with Opus 4.7.
_OPUS_4_6_EFFORTS = ("low", "medium", "high", "max")
_BUDGET_LEVELS = ("minimal", "low", "medium", "high")
#: What the models that reject sampling whatever the API version refuse.
_NO_SAMPLING = frozenset({"temperature", "top_p", "top_k"})
#: The API version whose request still has ``temperature``, ``top_p`` and ``top_k``.
SAMPLING_API_VERSION = "2023-06-01"
_SAMPLING_HEADERS = {"anthropic-version": SAMPLING_API_VERSION}


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
    aliases: tuple[str, ...] = (),
    families: tuple[str, ...] = (),
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
        # A model that takes sampling settings takes them on the version that has them.
        headers={} if refused >= _NO_SAMPLING else _SAMPLING_HEADERS,
        image_input=True,
        image_limits=IMAGE_LIMITS,
        document_input=True,
        document_limits=DOCUMENT_LIMITS,
        reasoning_levels=levels,
        default=default,
        options={"thinking": thinking},
        structured_output=True,  # output_config.format, from Claude Sonnet 4.5, Opus 4.1 and Haiku 4.5 on
        aliases=aliases,
        families=families,
    )


#: Newest first. Opus 5.5 is the row Anthropic recommends starting from, so an
#: ``anthropic/*`` model of no known family is sent with its limits.
CATALOG: tuple[ModelInfo, ...] = (
    # Claude 5: sampling parameters removed, adaptive thinking only (Anthropic's migration guide,
    # platform.claude.com/docs/en/about-claude/models/migration-guide, "Migrating to Claude 5").
    _row(
        "claude-opus-5-5",
        context=1_000_000,
        max_output=128_000,
        prices=(4.0, 20.0, 0.20, 5.0),
        default=True,
        families=("claude-opus-5",),
    ),
    # Fable 5.1 answers 400 to a forced tool_choice (any, or a named tool).
    _row(
        "claude-fable-5-1",
        context=1_000_000,
        max_output=128_000,
        prices=(10.0, 50.0, 0.25, 12.5),
        refused=_NO_SAMPLING | {FORCED_TOOL_CHOICE},
        families=("claude-fable-5",),
    ),
    _row("claude-sonnet-5-5", context=1_000_000, max_output=128_000, prices=(2.0, 10.0, 0.10, 2.5),
         families=("claude-sonnet-5",)),
    # Haiku 5.5 is priced in two bands by prompt length; this is the band up to
    # 100,000 prompt tokens, which the catalog cannot express per request.
    _row(
        "claude-haiku-5-5",
        context=1_000_000,
        max_output=128_000,
        prices=(0.10, 0.50, 0.01, 0.125),
        levels=("low", "medium", "high"),
        families=("claude-haiku-5",),
    ),
    _row("claude-opus-5", context=1_000_000, max_output=128_000, prices=(5.0, 25.0, 0.50, 6.25)),
    # Opus 4.7 and 4.8: "temperature, top_p and top_k removed" and "extended thinking removed"
    # (migration guide, "Migrating to Claude Opus 4.7", breaking changes); $5 / $25, 1M context,
    # 128k output ("the same set of features as Claude Opus 4.6").
    _row("claude-opus-4-8", context=1_000_000, max_output=128_000, prices=(5.0, 25.0, 0.50, 6.25),
         families=("claude-opus-4",)),
    _row("claude-opus-4-7", context=1_000_000, max_output=128_000, prices=(5.0, 25.0, 0.50, 6.25)),
    # The Claude 4.6 models keep sampling (migration guide, "Migrating to Claude 4.6": only one
    # of temperature and top_p per request), adaptive thinking recommended, budget deprecated.
    _row(
        "claude-opus-4-6",
        context=1_000_000,
        max_output=128_000,
        prices=(5.0, 25.0, 0.50, 6.25),
        levels=_OPUS_4_6_EFFORTS,
        refused=frozenset(),
    ),
    _row(
        "claude-sonnet-4-6",
        context=1_000_000,
        max_output=128_000,
        prices=(3.0, 15.0, 0.30, 3.75),
        levels=("low", "medium", "high"),
        refused=frozenset(),
    ),
    # The Claude 4.5 and 4.1 models take sampling and extended thinking with a budget
    # (models overview, platform.claude.com/docs/en/about-claude/models/overview; its dated ids).
    _row(
        "claude-opus-4-5",
        context=200_000,
        max_output=64_000,
        prices=(5.0, 25.0, 0.50, 6.25),
        levels=_BUDGET_LEVELS,
        thinking="budget",
        refused=frozenset(),
        aliases=("claude-opus-4-5-20251101",),
    ),
    _row(
        "claude-sonnet-4-5",
        context=200_000,
        max_output=64_000,
        prices=(3.0, 15.0, 0.30, 3.75),
        levels=_BUDGET_LEVELS,
        thinking="budget",
        refused=frozenset(),
        aliases=("claude-sonnet-4-5-20250929",),
        # Every Sonnet 4 takes budget thinking (4.6 too, deprecated but served); only 4.6 is adaptive.
        families=("claude-sonnet-4",),
    ),
    _row(
        "claude-haiku-4-5",
        context=200_000,
        max_output=64_000,
        prices=(1.0, 5.0, 0.10, 1.25),
        levels=_BUDGET_LEVELS,
        thinking="budget",
        refused=frozenset(),
        aliases=("claude-haiku-4-5-20251001",),
        families=("claude-haiku-4",),
    ),
    _row(
        "claude-opus-4-1",
        context=200_000,
        max_output=32_000,
        prices=(15.0, 75.0, 1.50, 18.75),
        levels=_BUDGET_LEVELS,
        thinking="budget",
        refused=frozenset(),
        aliases=("claude-opus-4-1-20250805",),
    ),
)
