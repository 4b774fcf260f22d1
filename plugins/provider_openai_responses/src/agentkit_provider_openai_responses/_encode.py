"""Canonical request -> OpenAI Responses request body (``POST /responses``).

Wire decisions (documented in ``docs/providers.md``, section *openai-responses*):

* Stateless: ``store: false``, and nothing refers to an earlier response
  (no ``previous_response_id``). Every turn sends the whole transcript as
  ``input`` items. Reasoning survives between turns only as the items'
  ``encrypted_content``, which ``include: ["reasoning.encrypted_content"]``
  asks for; it is sent whenever the model row can reason.
* The system prompt is ``instructions``, tools are flat
  ``{"type": "function", "name", "description", "parameters", "strict"}``
  (``strict`` is sent as ``false`` unless the ``strict_tools`` option is set:
  the field is required and strict mode rejects ordinary schemas).
* An assistant message becomes its items in block order: a ``reasoning`` item
  per thinking block this wire produced (id, summary, encrypted content), one
  ``message`` item (string content) per run of text, one ``function_call`` item per call with
  its ``call_id``, its item ``id`` when the canonical id carries one (see
  ``_ids``) and the argument text byte for byte.
* A reasoning item that cannot be replayed (no encrypted content) is left out,
  and then so are the item ids of that message's calls: the server rejects a
  ``function_call`` item whose reasoning item is missing. A reasoning item
  with nothing after it in its message is left out too.
* One ``function_call_output`` per canonical tool result, keyed by the
  ``call_id`` alone. There is no error flag: an error result's text starts
  with :data:`ERROR_PREFIX`. Images travel inside the output as
  ``input_image`` parts.
* ``tool_choice``: ``auto``, ``none``, ``required``, or
  ``{"type": "function", "name": ...}`` for a tool's name; not sent without
  tools (refused by the server), and ``required`` or a name without tools is
  refused before sending.
* Sampling: ``temperature`` (0..2) and ``top_p``. The wire has no ``top_k``,
  stop sequences or seed: those are refused, naming the wire.

The body is ``bytes`` of JSON serialized as the host would (UTF-8, compact,
no NaN). Each message's items and each tool definition are serialized once
(keyed by object identity: the host reuses history messages and
:class:`ToolSpec` objects across turns), and per session the last encoded
transcript is kept, so a turn that extends it serializes only what is new.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

from agentkit.plugin_api import (
    AssistantMessage,
    AudioBlock,
    DocumentBlock,
    ImageBlock,
    Message,
    ProviderRequest,
    TextBlock,
    ThinkingBlock,
    ToolResultMessage,
    ToolSpec,
    ToolUseBlock,
    UserContent,
    UserMessage,
    WireRequest,
)
from agentkit.plugin_api.codec import (
    PLAIN_TEXT,
    IdentityCache,
    SamplingRules,
    ToolChoice,
    TranscriptEncoder,
    array,
    dumps,
    file_data_url,
    image_url,
    inline_file,
    is_strict,
    output_name,
    sampling,
    structured_output,
    tool_choice,
    unsendable,
)

from ._ids import ReasoningRef, split_call_id

SAMPLING = SamplingRules("openai-responses", {"temperature": "temperature", "top_p": "top_p"})
#: Prepended to the text of a tool result whose ``is_error`` is set.
ERROR_PREFIX = "Error: "
#: Longest ``prompt_cache_key`` OpenAI accepts.
PROMPT_CACHE_KEY_LIMIT = 64
#: What ``include`` asks for so reasoning can be replayed without server state.
INCLUDE_REASONING = "reasoning.encrypted_content"

# Body fields written around the serialized input and tools; extra_body may not replace them.
_ASSEMBLED = frozenset({"model", "instructions", "input", "tools"})


class ResponsesEncoder:
    """Builds request bodies; one per provider object, holding its caches."""

    def __init__(self) -> None:
        self.tools: IdentityCache[bytes] = IdentityCache(1024)
        # Each message's items, serialized and joined by commas; None: it has none.
        self.messages: IdentityCache[bytes | None] = IdentityCache(16384)
        self.transcript: TranscriptEncoder[tuple[bytes, ...]] = TranscriptEncoder(self._extend)

    def encode(self, request: ProviderRequest) -> WireRequest:
        extra = request.options.get("extra_body") or {}
        parts = [b'{"model":', dumps(request.model.id)]
        if request.system:
            parts += [b',"instructions":', dumps(request.system)]
        parts += [b',"input":', *array(self.transcript.encode(request.messages))]
        if request.tools:
            strict = bool(request.options.get("strict_tools"))
            tools = [self.tools.get(spec, partial(_tool, spec, strict), strict) for spec in request.tools]
            parts += [b',"tools":', *array(tools)]
        rest = _settings(request)
        rest.update({key: value for key, value in extra.items() if key not in _ASSEMBLED})
        parts += [b",", dumps(rest)[1:-1], b"}"]
        return WireRequest(
            path="/responses",
            body=b"".join(parts),
            framing="sse" if request.stream else "json",
        )

    def _extend(self, done: tuple[bytes, ...] | None, new: Sequence[Message]) -> tuple[bytes, ...]:
        """The serialized items after ``new``; a message without items adds none."""
        items = [self.messages.get(message, partial(_items, message)) for message in new]
        return (*(done or ()), *(item for item in items if item is not None))


def _settings(request: ProviderRequest) -> dict[str, Any]:
    """Every body field after the tools, in wire order."""
    body: dict[str, Any] = {}
    choice = tool_choice(request)
    if choice is not None and request.tools:
        # Like Chat Completions, a tool_choice without tools is refused.
        body["tool_choice"] = _tool_choice(choice)
    if request.max_tokens is not None:
        body["max_output_tokens"] = request.max_tokens
    body.update(sampling(request, SAMPLING))
    schema = structured_output(request, SAMPLING.wire)
    if schema is not None:  # strict where the schema meets OpenAI's strict rules, which it would otherwise refuse
        body["text"] = {"format": {"type": "json_schema", "name": output_name(schema), "schema": schema,
                                   "strict": is_strict(schema)}}
    summary = request.options.get("reasoning_summary")
    if request.reasoning is not None or summary:
        reasoning: dict[str, Any] = {}
        if request.reasoning is not None:
            reasoning["effort"] = request.reasoning
        if summary:
            reasoning["summary"] = summary
        body["reasoning"] = reasoning
    if request.model.reasoning_levels or request.reasoning is not None:
        body["include"] = [INCLUDE_REASONING]
    body["store"] = False
    if request.session_id:
        body["prompt_cache_key"] = request.session_id[:PROMPT_CACHE_KEY_LIMIT]
    body["stream"] = request.stream
    return body


def input_items(message: Message) -> list[dict[str, Any]]:
    """The ``input`` items of one canonical message (possibly none)."""
    if isinstance(message, UserMessage):
        if not message.content:
            return []
        content = [_input_part(block) for block in message.content]
        return [{"type": "message", "role": "user", "content": content}]
    if isinstance(message, AssistantMessage):
        return _assistant(message)
    if isinstance(message, ToolResultMessage):
        return [_tool_result(message)]
    raise TypeError(f"openai-responses cannot encode a {type(message).__name__}")


def _items(message: Message) -> bytes | None:
    """One message's items serialized, without the enclosing brackets."""
    items = input_items(message)
    return b",".join(dumps(item) for item in items) if items else None


def _input_part(block: UserContent) -> dict[str, Any]:
    if isinstance(block, TextBlock):
        return {"type": "input_text", "text": block.text}
    if isinstance(block, AudioBlock):
        raise unsendable(block, "openai-responses")
    if isinstance(block, DocumentBlock):
        if block.url and not block.path:
            return {"type": "input_file", "file_url": block.url}  # the API downloads it
        inline_file(block, "openai-responses")
        default = "document.txt" if block.mime_type == PLAIN_TEXT else "document.pdf"
        return {"type": "input_file", "file_data": file_data_url(block), "filename": block.name or default}
    return {
        "type": "input_image",
        "image_url": image_url(block),
        "detail": "auto",
    }


def _assistant(message: AssistantMessage) -> list[dict[str, Any]]:
    refs = [
        ReasoningRef.from_signature(block.signature)
        for block in message.content
        if isinstance(block, ThinkingBlock)
    ]
    # A reasoning item's summary parts are thinking blocks of their own, one after another, each
    # naming the item; the item's encrypted content is on one of them (the decoder puts it on the last).
    encrypted: dict[str, str | None] = {}
    for ref in refs:
        if ref is not None:
            encrypted[ref.id] = encrypted.get(ref.id) or ref.encrypted_content
    # A call's item id may only come back together with the reasoning item before it.
    keep_item_ids = all(ref is None or encrypted[ref.id] for ref in refs)
    items: list[dict[str, Any]] = []
    text: list[str] = []

    def flush_text() -> None:
        if text:
            # The plain-string form: the output-message form would need the
            # message item's id, which the canonical text block does not keep.
            items.append({"type": "message", "role": "assistant", "content": "".join(text)})
            text.clear()

    for block in message.content:
        if isinstance(block, TextBlock):
            if block.text:
                text.append(block.text)
            continue
        if isinstance(block, ThinkingBlock):
            ref = ReasoningRef.from_signature(block.signature)
            if ref is None or not encrypted[ref.id]:
                # Thinking from another wire, or reasoning kept without its
                # encrypted content: nothing the server could accept.
                continue
            part = [{"type": "summary_text", "text": block.thinking}] if block.thinking else []
            if not text and items and items[-1]["type"] == "reasoning" and items[-1]["id"] == ref.id:
                items[-1]["summary"] += part  # the next summary part of the same item
                continue
            flush_text()
            items.append(
                {
                    "type": "reasoning",
                    "id": ref.id,
                    "summary": part,
                    "encrypted_content": encrypted[ref.id],
                }
            )
        elif isinstance(block, ToolUseBlock):
            flush_text()
            call_id, item_id = split_call_id(block.id)
            call: dict[str, Any] = {
                "type": "function_call",
                "call_id": call_id,
                "name": block.name,
                # Blank text (arguments that arrived as null or "") is no JSON object: send {}.
                "arguments": block.arguments if block.arguments.strip() else "{}",
            }
            if item_id is not None and keep_item_ids:
                call["id"] = item_id
            items.append(call)
    flush_text()
    # A reasoning item must be followed by an item of its own response (the
    # API rejects it otherwise); one left last, say by a response cut off
    # while reasoning, is dropped.
    while items and items[-1]["type"] == "reasoning":
        items.pop()
    return items


def _tool_result(message: ToolResultMessage) -> dict[str, Any]:
    call_id, _ = split_call_id(message.tool_use_id)
    text = "".join(block.text for block in message.content if isinstance(block, TextBlock))
    if message.is_error:
        text = ERROR_PREFIX + text
    output: str | list[dict[str, Any]]
    if any(isinstance(block, ImageBlock) for block in message.content):
        output = [_input_part(block) for block in message.content]
        if message.is_error:
            output.insert(0, {"type": "input_text", "text": ERROR_PREFIX.rstrip()})
    else:
        output = text
    return {"type": "function_call_output", "call_id": call_id, "output": output}


def _tool(spec: ToolSpec, strict: bool) -> bytes:
    return dumps(
        {
            "type": "function",
            "name": spec.name,
            "description": spec.description,
            "parameters": dict(spec.input_schema),
            "strict": strict,
        }
    )


def _tool_choice(choice: ToolChoice) -> str | dict[str, Any]:
    if choice.mode == "tool":
        return {"type": "function", "name": choice.name}
    return choice.mode
