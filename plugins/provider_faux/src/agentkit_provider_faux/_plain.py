"""A scripted turn from plain data (a ``--script`` file's entries), checked key by key.

Every problem names the key it is about (``content[0].type``,
``usage.input``), so that ``agentkit run --script`` can say in one line which
turn and which key to fix. The format is documented in ``docs/testing.md``
and as a JSON Schema in ``docs/schemas/v1/agentkit.script.schema.json``.
"""

from __future__ import annotations

import json
from typing import Any

from agentkit.plugin_api import (
    ContentBlock,
    StopReason,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    Usage,
)

TURN_KEYS = ("content", "stop_reason", "raw_stop_reason", "usage", "error", "status", "delay", "hang")
BLOCK_KEYS = {
    "text": ("type", "text"),
    "thinking": ("type", "thinking", "signature", "redacted"),
    "tool_use": ("type", "name", "arguments", "id"),
}
USAGE_KEYS = tuple(Usage.__dataclass_fields__)
STOP_REASONS = tuple(reason.value for reason in StopReason)


class ScriptFormatError(ValueError):
    """A turn's plain data is malformed; ``key`` is where (empty: the turn itself)."""

    def __init__(self, key: str, problem: str) -> None:
        super().__init__(f"{key}: {problem}" if key else problem)
        self.key = key
        self.problem = problem


def _listed(names: tuple[str, ...]) -> str:
    return ", ".join(names[:-1]) + " or " + names[-1]


def _kind(value: object) -> str:
    if value is None or isinstance(value, bool | int | float | str):
        return json.dumps(value)[:40]
    return {"dict": "an object", "list": "a list"}.get(type(value).__name__, type(value).__name__)


def _no_other_keys(data: dict[str, Any], allowed: tuple[str, ...], where: str) -> None:
    for key in data:
        if key not in allowed:
            raise ScriptFormatError(f"{where}{key}", f"unknown key; use {_listed(allowed)}")


def _string(data: dict[str, Any], key: str, where: str, *, required: bool = False) -> str | None:
    value = data.get(key)
    if value is None:
        if required:
            raise ScriptFormatError(f"{where}{key}", "missing; give a string")
        return None
    if not isinstance(value, str):
        raise ScriptFormatError(f"{where}{key}", f"expected a string, not {_kind(value)}")
    return value


def _block(data: object, where: str) -> ContentBlock:
    if not isinstance(data, dict):
        raise ScriptFormatError(where.rstrip("."), f"expected a block object, not {_kind(data)}")
    kind = data.get("type")
    if kind not in BLOCK_KEYS:
        raise ScriptFormatError(f"{where}type", f"unknown block type {_kind(kind)}; use text, thinking or tool_use")
    _no_other_keys(data, BLOCK_KEYS[kind], where)
    if kind == "text":
        return TextBlock(_string(data, "text", where, required=True) or "")
    if kind == "thinking":
        redacted = data.get("redacted", False)
        if not isinstance(redacted, bool):
            raise ScriptFormatError(f"{where}redacted", f"expected true or false, not {_kind(redacted)}")
        signature = _string(data, "signature", where) if "signature" in data else "sig"
        return ThinkingBlock(_string(data, "thinking", where, required=True) or "", signature, redacted)
    name = _string(data, "name", where, required=True) or ""
    arguments = data.get("arguments")
    if not (arguments is None or isinstance(arguments, dict | str)):
        raise ScriptFormatError(f"{where}arguments", f"expected an object or a string, not {_kind(arguments)}")
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments or {}, separators=(",", ":"))
    return ToolUseBlock(_string(data, "id", where) or "", name, raw)


def _usage(data: object) -> Usage:
    if not isinstance(data, dict):
        raise ScriptFormatError("usage", f"expected an object of token counts, not {_kind(data)}")
    _no_other_keys(data, USAGE_KEYS, "usage.")
    for key, value in data.items():
        number = isinstance(value, int | float) if key == "cost" else isinstance(value, int)
        if isinstance(value, bool) or not number or value < 0:
            raise ScriptFormatError(f"usage.{key}", f"expected a count of 0 or more, not {_kind(value)}")
    return Usage.from_dict(data)


def turn_fields(data: object) -> tuple[Any, ...]:
    """The fields of a ``Turn`` (in order) that ``data`` describes.

    :raises ScriptFormatError: naming the key that is wrong.
    """
    if not isinstance(data, dict):
        raise ScriptFormatError("", f"expected an object with \"content\" (a list of blocks), not {_kind(data)}")
    _no_other_keys(data, TURN_KEYS, "")
    content = data.get("content", [])
    if not isinstance(content, list):
        raise ScriptFormatError("content", f"expected a list of blocks, not {_kind(content)}")
    blocks = [_block(block, f"content[{index}].") for index, block in enumerate(content)]
    stop_reason = data.get("stop_reason")
    if stop_reason is not None and stop_reason not in STOP_REASONS:
        raise ScriptFormatError("stop_reason", f"{_kind(stop_reason)} is no stop reason; use {_listed(STOP_REASONS)}")
    status = data.get("status")
    if status is not None and (isinstance(status, bool) or not isinstance(status, int) or not 400 <= status <= 599):
        raise ScriptFormatError("status", f"expected an HTTP error status from 400 to 599, not {_kind(status)}")
    delay = data.get("delay", 0.0)
    if isinstance(delay, bool) or not isinstance(delay, int | float) or not 0 <= delay < float("inf"):
        raise ScriptFormatError("delay", f"expected seconds (a number of 0 or more), not {_kind(delay)}")
    hang = data.get("hang", False)
    if not isinstance(hang, bool):
        raise ScriptFormatError("hang", f"expected true or false, not {_kind(hang)}")
    return (
        blocks,
        stop_reason,
        _string(data, "raw_stop_reason", ""),
        _usage(data.get("usage", {})),
        _string(data, "error", ""),
        status,
        float(delay),
        hang,
    )


def script_schema() -> dict[str, Any]:
    """The JSON Schema of a ``--script`` file, from the same key lists the reader checks against.

    Published as ``docs/schemas/v1/agentkit.script.schema.json``; a test holds the file to this.
    """
    string = {"type": "string"}
    nullable_string = {"type": ["string", "null"]}

    def block(kind: str, required: list[str], properties: dict[str, Any]) -> dict[str, Any]:
        return {"type": "object", "required": ["type", *required], "additionalProperties": False,
                "properties": {"type": {"const": kind}, **properties}}

    blocks = [
        block("text", ["text"], {"text": string}),
        block("thinking", ["thinking"], {"thinking": string, "signature": nullable_string,
                                         "redacted": {"type": "boolean"}}),
        block("tool_use", ["name"], {"name": string, "arguments": {"type": ["object", "string", "null"]},
                                     "id": nullable_string}),
    ]
    count = {"type": "integer", "minimum": 0}
    usage = {name: ({"type": "number", "minimum": 0} if name == "cost" else count) for name in USAGE_KEYS}
    properties: dict[str, Any] = {
        "content": {"type": "array", "items": {"oneOf": blocks},
                    "description": "the blocks of the response, in order"},
        "stop_reason": {"enum": [*STOP_REASONS, None],
                        "description": "default: tool_use when there are tool calls, else stop"},
        "raw_stop_reason": {**nullable_string, "description": "what the wire said; default: stop_reason"},
        "usage": {"type": "object", "additionalProperties": False, "properties": usage},
        "error": {**nullable_string, "description": "after the content, end the response with this error"},
        "status": {"type": ["integer", "null"], "minimum": 400, "maximum": 599,
                   "description": "answer with this HTTP error status instead (body: error)"},
        "delay": {"type": "number", "minimum": 0, "description": "seconds to wait before each event"},
        "hang": {"type": "boolean",
                 "description": "after the content, keep the response open until the client leaves"},
    }
    if tuple(properties) != TURN_KEYS:  # the reader's list and this one are one list
        raise AssertionError(f"the schema's turn keys {tuple(properties)} are not the reader's {TURN_KEYS}")
    turn = {"type": "object", "additionalProperties": False, "properties": properties}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "agentkit.script/v1",
        "title": "A script for the scripted model (agentkit run --script FILE): a JSON list of turns",
        "type": "array",
        "items": turn,
    }


def turn_to_dict(fields: dict[str, Any]) -> dict[str, Any]:
    """A turn's fields (``dataclasses.asdict``-like, blocks as values) as a ``--script`` file holds it.

    Only what differs from the defaults is written, so a file reads as a test wrote it.
    """
    data: dict[str, Any] = {"content": [_block_to_dict(block) for block in fields["content"]]}
    usage: Usage = fields["usage"]
    if usage != Usage():
        data["usage"] = {key: value for key, value in usage.to_dict().items() if value}
    for key in ("stop_reason", "raw_stop_reason", "error", "status"):
        if fields[key] is not None:
            data[key] = str(fields[key]) if key == "stop_reason" else fields[key]
    if fields["delay"]:
        data["delay"] = fields["delay"]
    if fields["hang"]:
        data["hang"] = True
    return data


def _block_to_dict(block: ContentBlock) -> dict[str, Any]:
    if isinstance(block, TextBlock):
        return {"type": "text", "text": block.text}
    if isinstance(block, ThinkingBlock):
        return {"type": "thinking", "thinking": block.thinking, "signature": block.signature,
                "redacted": block.redacted}
    if isinstance(block, ToolUseBlock):
        try:  # an object where the arguments are one, so the file reads as written; else the text verbatim
            value = json.loads(block.arguments)
            arguments: Any = value if isinstance(value, dict) and _compact(value) == block.arguments else block.arguments
        except ValueError:
            arguments = block.arguments
        return {"type": "tool_use", "name": block.name, "arguments": arguments, **({"id": block.id} if block.id else {})}
    raise ValueError(f"a script plays text, thinking and tool_use blocks, not {type(block).__name__}")


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))
