"""The test kit: ``agentkit.conformance.codec`` bound to this wire, Gemini responses and streams
built the way the API sends them, and the ``google-genai`` SDK behind a mock transport."""

from __future__ import annotations

import base64
import copy
import re
from collections.abc import Callable
from typing import Any

import pytest
from agentkit_provider_gemini import GeminiGenerateContent

from agentkit.conformance import codec
from agentkit.plugin_api import AssistantMessage, ProviderRequest

KIT = codec.ProviderKit(GeminiGenerateContent, "google/gemini-2.5-flash")


# -- responses ---------------------------------------------------------


def usage_metadata(
    prompt: int, candidates: int, *, cached: int = 0, thoughts: int = 0
) -> dict[str, Any]:
    """``usageMetadata`` as the API reports it: thoughts beside candidates, cached inside prompt."""
    usage: dict[str, Any] = {
        "promptTokenCount": prompt,
        "candidatesTokenCount": candidates,
        "totalTokenCount": prompt + candidates + thoughts,
        "promptTokensDetails": [{"modality": "TEXT", "tokenCount": prompt}],
    }
    if cached:
        usage["cachedContentTokenCount"] = cached
    if thoughts:
        usage["thoughtsTokenCount"] = thoughts
    return usage


def response(
    parts: list[dict[str, Any]],
    *,
    finish: str | None = "STOP",
    usage: dict[str, Any] | None = None,
    response_id: str = "Xk1saQ-0E7mWz7IPqOSAsAs",
    model_version: str = "gemini-2.5-flash",
) -> dict[str, Any]:
    """A whole ``GenerateContentResponse`` with the fields the API returns."""
    candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}, "index": 0}
    if finish is not None:
        candidate["finishReason"] = finish
    body: dict[str, Any] = {"candidates": [candidate]}
    body["usageMetadata"] = usage or usage_metadata(12, 3)
    body["modelVersion"] = model_version
    body["responseId"] = response_id
    return body


def _split_text(text: str, size: int) -> list[str]:
    return [text[start : start + size] for start in range(0, len(text), size)] or [""]


def stream_chunks(
    whole: dict[str, Any], *, chunk: int = 6, signature_apart: bool = False
) -> list[dict[str, Any]]:
    """The chunks ``streamGenerateContent`` sends for ``whole``.

    As the API streams: text and thought parts arrive in pieces of ``chunk``
    characters, one piece per chunk; a ``functionCall`` part arrives whole; a
    part's ``thoughtSignature`` comes with its last piece, or with
    ``signature_apart`` (a text part's) in a chunk of its own with empty text,
    as the API often sends it. Every chunk carries
    ``usageMetadata`` (cumulative), ``modelVersion`` and ``responseId``; only
    the last carries the ``finishReason``.
    """
    (candidate,) = whole["candidates"]
    pieces: list[dict[str, Any]] = []
    for part in candidate["content"]["parts"]:
        if "text" in part:
            texts = _split_text(part["text"], chunk)
            for text in texts:
                piece = {key: value for key, value in part.items() if key != "thoughtSignature"}
                piece["text"] = text
                pieces.append(piece)
            if "thoughtSignature" in part:
                if signature_apart and not part.get("thought"):
                    pieces.append({"text": "", "thoughtSignature": part["thoughtSignature"]})
                else:
                    pieces[-1]["thoughtSignature"] = part["thoughtSignature"]
        else:
            pieces.append(copy.deepcopy(part))
    chunks = []
    for number, piece in enumerate(pieces or [None]):
        content: dict[str, Any] = {"role": "model", "parts": [piece] if piece else []}
        out: dict[str, Any] = {"candidates": [{"content": content, "index": 0}]}
        if number == len(pieces or [None]) - 1 and "finishReason" in candidate:
            out["candidates"][0]["finishReason"] = candidate["finishReason"]
        out["usageMetadata"] = whole["usageMetadata"]
        out["modelVersion"] = whole["modelVersion"]
        out["responseId"] = whole["responseId"]
        chunks.append(out)
    return chunks


def sse_bytes(chunks: list[dict[str, Any]]) -> bytes:
    """Chunks as the API writes them with ``alt=sse``: ``data:`` lines, ``\\r\\n\\r\\n`` after each."""
    return codec.sse_body(chunks, line_end="\r\n")


def streamed_and_whole(
    whole: dict[str, Any],
    *,
    chunk: int = 6,
    signature_apart: bool = False,
    request: ProviderRequest | None = None,
) -> tuple[AssistantMessage, AssistantMessage]:
    """The message decoded from the SSE stream of ``whole`` and from ``whole`` itself."""
    chunks = stream_chunks(whole, chunk=chunk, signature_apart=signature_apart)
    streamed = KIT.final_message(KIT.decode(KIT.frame_sse(sse_bytes(chunks)), request=request))
    return streamed, KIT.final_message(KIT.decode(KIT.frame_json(whole), request=request))


# -- the SDK -----------------------------------------------------------


def sdk_client(handler: Callable[[Any], Any]) -> Any:
    """A ``google.genai.Client`` whose HTTP goes to ``handler`` (``httpx2.MockTransport``)."""
    genai = pytest.importorskip("google.genai")
    httpx2 = pytest.importorskip("httpx2")
    types = genai.types
    return genai.Client(
        api_key="test-key",
        http_options=types.HttpOptions(
            api_version="v1beta",
            httpx_client=httpx2.Client(transport=httpx2.MockTransport(handler)),
        ),
    )


# Fields whose value is free-form JSON (not proto messages): their keys are
# the caller's and are never renamed.
_FREE_FORM = {"args", "response", "parametersJsonSchema", "responseJsonSchema"}


def _camel(key: str) -> str:
    return re.sub(r"_([a-z0-9])", lambda match: match.group(1).upper(), key)


def _bytes_field(value: Any) -> Any:
    """A base64 field as its bytes: the API reads standard and URL-safe base64 alike."""
    if not isinstance(value, str):
        return value
    return base64.urlsafe_b64decode(value.replace("+", "-").replace("/", "_"))


def proto_json(value: Any, *, parent: str = "") -> Any:
    """``value`` with every proto field name in lowerCamelCase.

    The SDK writes some nested field names in their proto spelling
    (``mime_type``, ``parameters_json_schema``, ``thinking_budget``); the API's
    JSON parser accepts both spellings of a field, so they are the same
    request. Values of free-form fields (call arguments, function responses,
    JSON Schemas) are left as they are. Base64 fields become bytes, and an
    empty ``generationConfig`` (which the SDK always sends) is dropped.
    """
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            name = _camel(key)
            if name in _FREE_FORM:
                out[name] = item
            elif name == "thoughtSignature" or (name == "data" and parent == "inlineData"):
                out[name] = _bytes_field(item)
            else:
                out[name] = proto_json(item, parent=name)
        if parent == "" and out.get("generationConfig") == {}:
            del out["generationConfig"]
        return out
    if isinstance(value, list):
        return [proto_json(item, parent=parent) for item in value]
    return value


def _sdk_part(part: dict[str, Any]) -> dict[str, Any]:
    """One wire part as the SDK's ``Part`` takes it: bytes fields as bytes."""
    out = dict(part)
    if "thoughtSignature" in out:
        out["thoughtSignature"] = base64.b64decode(out["thoughtSignature"])
    if "inlineData" in out:
        blob = dict(out["inlineData"])
        blob["data"] = base64.b64decode(blob["data"])
        out["inlineData"] = blob
    return out


def sdk_arguments(body: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments of ``client.models.generate_content`` for the same request."""
    contents = [
        {**content, "parts": [_sdk_part(part) for part in content["parts"]]}
        for content in body["contents"]
    ]
    config: dict[str, Any] = dict(body.get("generationConfig", {}))
    for key in ("systemInstruction", "tools", "toolConfig"):
        if key in body:
            config[key] = body[key]
    return {"contents": contents, "config": config or None}


@pytest.fixture(scope="session")
def kit() -> codec.ProviderKit:
    """The helpers, for test modules (which cannot import each other)."""
    return KIT.with_helpers(
        usage_metadata=usage_metadata,
        response=response,
        stream_chunks=stream_chunks,
        sse_bytes=sse_bytes,
        streamed_and_whole=streamed_and_whole,
        sdk_client=sdk_client,
        proto_json=proto_json,
        sdk_arguments=sdk_arguments,
    )
