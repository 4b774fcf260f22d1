"""Catalog rows served over Ollama's native chat wire.

Two vendors: ``ollama`` is a server on this machine (no key, nothing to pay)
and ``ollama-cloud`` is Ollama's hosted API (``https://ollama.com``, a bearer
key in ``OLLAMA_API_KEY``, billed by subscription rather than per token, so
its prices are zero too).

Context windows are what each model was trained for, not what an Ollama
server allots by default: a local server runs a model with a much shorter
context (``num_ctx``) unless told otherwise, and cuts the prompt to fit. Set
``options["num_ctx"]`` on a row, or the ``num_ctx`` request option, to run
long sessions.

``options["think"]`` says how a reasoning level is sent: ``"levels"`` sends
the level itself (gpt-oss takes ``"low"``/``"medium"``/``"high"``),
``"bool"`` sends ``true`` (qwen3 thinks or does not).
"""

from __future__ import annotations

from agentkit.plugin_api import ModelInfo
from agentkit.plugin_api.codec import ImageLimits

API = "ollama-chat"
#: Where ``ollama serve`` listens by default.
LOCAL_BASE_URL = "http://127.0.0.1:11434"
CLOUD_BASE_URL = "https://ollama.com"
#: The hosted API's key, sent as ``Authorization: Bearer``.
CLOUD_CREDENTIAL_ENV = (("OLLAMA_API_KEY", "bearer"),)

#: Ollama's API reference: ``images`` is a list of base64 images, no URL; it documents no size
#: limit, and its image decoders are PNG and JPEG for every vision model. The edge and size are
#: ours: a vision encoder works on a few hundred pixels a side, and a local request stays small.
IMAGE_LIMITS = ImageLimits(max_edge=2048, max_bytes=5 * 1024 * 1024)

_LEVELS = ("low", "medium", "high")
#: A model that can only think or not: any requested level clamps to this one.
_ON = ("high",)

# (vendor, id, context window, max output, images, reasoning levels, think style, default)
_ROWS: tuple[tuple[str, str, int, int, bool, tuple[str, ...], str | None, bool], ...] = (
    ("ollama", "qwen3", 40_960, 32_768, False, _ON, "bool", True),
    ("ollama", "qwen3-coder", 262_144, 65_536, False, (), None, False),
    ("ollama", "gpt-oss:20b", 131_072, 32_768, False, _LEVELS, "levels", False),
    ("ollama", "gpt-oss:120b", 131_072, 32_768, False, _LEVELS, "levels", False),
    ("ollama", "llama3.1", 131_072, 8_192, False, (), None, False),
    ("ollama", "llama3.2", 131_072, 8_192, False, (), None, False),
    ("ollama", "llama3.3", 131_072, 8_192, False, (), None, False),
    ("ollama", "mistral-small3.2", 131_072, 8_192, True, (), None, False),
    ("ollama", "qwen2.5vl", 128_000, 8_192, True, (), None, False),
    ("ollama-cloud", "gpt-oss:120b", 131_072, 32_768, False, _LEVELS, "levels", True),
    ("ollama-cloud", "gpt-oss:20b", 131_072, 32_768, False, _LEVELS, "levels", False),
    ("ollama-cloud", "qwen3-coder:480b", 262_144, 65_536, False, (), None, False),
)


def _row(
    vendor: str,
    model_id: str,
    window: int,
    max_output: int,
    images: bool,
    reasoning: tuple[str, ...],
    think: str | None,
    default: bool,
) -> ModelInfo:
    options: dict[str, object] = {}
    if think is not None:
        options["think"] = think
    if vendor == "ollama-cloud":
        options["credential_env"] = CLOUD_CREDENTIAL_ENV
    return ModelInfo(
        vendor=vendor,
        id=model_id,
        api=API,
        base_url=CLOUD_BASE_URL if vendor == "ollama-cloud" else LOCAL_BASE_URL,
        context_window=window,
        max_output=max_output,
        image_input=images,
        image_limits=IMAGE_LIMITS if images else None,
        reasoning_levels=reasoning,
        default=default,
        options=options,
        structured_output=True,  # format: a JSON Schema the server constrains the answer to
        # A tagged id (qwen3:8b, llama3.1:70b) is the same model at another size or quantization.
        families=() if ":" in model_id else (model_id,),
    )


CATALOG: tuple[ModelInfo, ...] = tuple(_row(*row) for row in _ROWS)
