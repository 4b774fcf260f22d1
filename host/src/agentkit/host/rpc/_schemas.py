"""The JSON Schemas of the RPC's three contracts, generated from the code.

Requests and responses come from the method table (:data:`._contracts.METHODS`),
events from the event dataclasses of ``agentkit.plugin_api``: a field added to
an event, or a new event, shows in the schema the next time it is generated.
``agentkit rpc --schemas DIR`` writes them; the published copies live in
``docs/schemas/`` and a test fails when they differ from what the code makes.

Every object schema allows members it does not list: consumers ignore fields
they do not know, so additions keep a contract at its version.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from pathlib import Path
from typing import Any

from agentkit.plugin_api import (
    EVENT_SCHEMA,
    AssistantMessage,
    ContentBlock,
    Event,
    Message,
    Outcome,
    StopReason,
    ToolResultMessage,
    ToolUseBlock,
)

from ._contracts import METHODS, REQUEST_SCHEMA, RESPONSE_SCHEMA, ErrorCode

_DIALECT = "https://json-schema.org/draft/2020-12/schema"
_ID = {"type": ["string", "integer"], "description": "chosen by the client; its response carries it back"}


def schema_path(contract: str) -> Path:
    """Where a contract's schema file goes, relative to the schemas folder: ``agentkit.rpc.request/v1`` ->
    ``v1/agentkit.rpc.request.schema.json``."""
    name, version = contract.split("/")
    return Path(version) / f"{name}.schema.json"


def request_schema() -> dict[str, Any]:
    """The schema of a request line (``agentkit.rpc.request/v1``)."""
    cases = []
    for method in METHODS.values():
        then: dict[str, Any] = {"properties": {"params": method.params}}
        if method.params.get("required"):
            then["required"] = ["params"]
        cases.append({"if": {"properties": {"method": {"const": method.name}}}, "then": then})
    return {
        "$schema": _DIALECT,
        "$id": REQUEST_SCHEMA,
        "title": "A request to agentkit rpc: one JSON object per line on its stdin",
        "type": "object",
        "required": ["schema", "id", "method"],
        "properties": {
            "schema": {"const": REQUEST_SCHEMA},
            "id": _ID,
            "method": {"enum": list(METHODS), "description": "; ".join(
                f"{method.name}: {method.summary}" for method in METHODS.values())},
            "params": {"type": "object", "description": "the method's parameters (default: none)"},
        },
        "allOf": cases,
    }


def response_schema() -> dict[str, Any]:
    """The schema of a response line (``agentkit.rpc.response/v1``); each method's result is under ``$defs``."""
    return {
        "$schema": _DIALECT,
        "$id": RESPONSE_SCHEMA,
        "title": "A response of agentkit rpc: exactly one per request line, in the order the lines came",
        "type": "object",
        "required": ["schema", "id"],
        "properties": {
            "schema": {"const": RESPONSE_SCHEMA},
            "id": {**_ID, "type": ["string", "integer", "null"],
                   "description": "the request's id; null when the line had none that could be read"},
            "result": {"type": "object", "description": "the method's result, as $defs names it"},
            "error": {
                "type": "object",
                "required": ["code", "message"],
                "properties": {
                    "code": {"enum": [code.value for code in ErrorCode]},
                    "message": {"type": "string", "description": "what was wrong and how to fix it"},
                    "session_id": {"type": "string", "description": "the session it concerns, if one"},
                },
            },
        },
        "oneOf": [{"required": ["result"]}, {"required": ["error"]}],
        "$defs": {f"{method.name}.result": method.result for method in METHODS.values()},
    }


def event_schema() -> dict[str, Any]:
    """The schema of an event line (``agentkit.event/v2``, as ``event_to_dict`` makes it)."""
    cases = []
    kinds = []
    for cls in typing.get_args(Event):
        hints = typing.get_type_hints(cls)
        kind = cls.__dataclass_fields__["type"].default
        kinds.append(kind)
        fields = [item.name for item in dataclasses.fields(cls) if item.name != "type"]
        cases.append({"if": {"properties": {"type": {"const": kind}}},
                      "then": {"required": fields, "properties": {name: _schema_of(hints[name]) for name in fields}}})
    return {
        "$schema": _DIALECT,
        "$id": EVENT_SCHEMA,
        "title": "An event of an agent run, as agentkit rpc and 'agentkit run --json' write it",
        "type": "object",
        "required": ["schema", "type"],
        "properties": {
            "schema": {"const": EVENT_SCHEMA},
            "type": {"enum": kinds},
            "session_id": {"type": "string", "description": "agentkit rpc: the session the event belongs to"},
            "seq": {"type": "integer", "minimum": 1,
                    "description": "agentkit rpc: the event's number in its session, from 1, without gaps"},
            "subagent_session_id": {"type": "string", "description": "agentkit rpc, on a subagent event: the "
                                    "subagent's own session (its session_id, before the RPC's replaced it)"},
        },
        "allOf": cases,
        "$defs": _defs(),
    }


def schemas() -> dict[Path, dict[str, Any]]:
    """Every contract's schema, by its path under the schemas folder."""
    return {schema_path(schema["$id"]): schema for schema in (request_schema(), response_schema(), event_schema())}


def render(schema: dict[str, Any]) -> str:
    """A schema as its file holds it."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def write_schemas(folder: str | Path) -> list[Path]:
    """Write every schema under ``folder`` (``docs/schemas`` in the repository); returns the files written."""
    written = []
    for relative, schema in schemas().items():
        path = Path(folder) / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render(schema), encoding="utf-8")
        written.append(path)
    return written


def _ref(name: str) -> dict[str, Any]:
    return {"$ref": f"#/$defs/{name}"}


_NAMED: list[tuple[Any, dict[str, Any]]] = [
    (Message, _ref("message")),
    (AssistantMessage, _ref("assistant_message")),
    (ToolResultMessage, _ref("tool_result_message")),
    (ContentBlock, _ref("block")),
    (ToolUseBlock, _ref("tool_use_block")),
    (Outcome, {"enum": [outcome.value for outcome in Outcome]}),
    (Event, {"$ref": "#"}),  # a subagent's event, nested whole in its parent's
]


def _schema_of(hint: Any) -> dict[str, Any]:
    """The JSON Schema of a value of the Python type ``hint``, in its ``to_dict`` form."""
    for known, schema in _NAMED:
        if hint == known:
            return schema
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Literal:
        return {"enum": list(args)}
    if origin is list:
        return {"type": "array", "items": _schema_of(args[0])}
    if origin in (typing.Union, types.UnionType):
        others = [arg for arg in args if arg is not type(None)]
        if len(others) == len(args):
            return {"anyOf": [_schema_of(arg) for arg in args]}
        rest = others[0] if len(others) == 1 else typing.Union[tuple(others)]  # noqa: UP007
        schema = _schema_of(rest)
        return {"anyOf": [schema, {"type": "null"}]} if len(others) < len(args) else schema
    simple = {int: "integer", str: "string", float: "number", bool: "boolean"}
    if hint in simple:
        return {"type": simple[hint]}
    return {}  # Any: whatever JSON the field holds


def _defs() -> dict[str, Any]:
    roles = [cls.__dataclass_fields__["role"].default for cls in typing.get_args(Message)]
    blocks = [cls.__dataclass_fields__["type"].default for cls in typing.get_args(ContentBlock)]
    content = {"type": "array", "items": _ref("block")}
    return {
        "block": {"type": "object", "required": ["type"], "properties": {"type": {"enum": blocks}}},
        "tool_use_block": {"type": "object", "required": ["type", "id", "name", "arguments"], "properties": {
            "type": {"const": "tool_use"}, "id": {"type": "string"}, "name": {"type": "string"},
            "arguments": {"type": "string", "description": "the argument text as the model wrote it"}}},
        "message": {"type": "object", "required": ["role", "content"],
                    "properties": {"role": {"enum": roles}, "content": content}},
        "assistant_message": {"type": "object", "required": ["role", "content", "stop_reason"], "properties": {
            "role": {"const": "assistant"}, "content": content,
            "stop_reason": {"enum": [reason.value for reason in StopReason]},
            "usage": {"type": "object"}, "error_message": {"type": ["string", "null"]}}},
        "tool_result_message": {"type": "object", "required": ["role", "tool_use_id", "tool_name", "content",
                                                               "is_error"], "properties": {
            "role": {"const": "tool_result"}, "tool_use_id": {"type": "string"}, "tool_name": {"type": "string"},
            "content": content, "is_error": {"type": "boolean"}}},
    }
