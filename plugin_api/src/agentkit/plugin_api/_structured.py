"""Native structured output: checked once here, written by each wire in its own words.

A request whose ``output_schema`` is set asks that the response's text be one
JSON value fitting that schema. The host sets it only for models whose
catalog row says ``structured_output``; for the others it offers a
final-answer tool instead. A codec asks :func:`structured_output` for the
schema (which refuses it for a model without the feature, so it is never
dropped quietly), :func:`output_name` when its wire wants a name, and
:func:`is_strict` when its wire has a strict mode whose rules a schema may
not meet (OpenAI's: every object closed, every property required).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ._providers import ProviderRequest
from .errors import UsageError


def structured_output(request: ProviderRequest, wire: str) -> Mapping[str, Any] | None:
    """The request's output schema, or ``None`` when it asks for none.

    :raises UsageError: the model's catalog row does not say ``structured_output``.
    """
    schema = request.output_schema
    if schema is None:
        return None
    if not request.model.structured_output:
        raise UsageError(f"{request.model.key} has no native structured output on {wire}; "
                         "leave output_schema unset (the host then offers a final-answer tool)")
    return schema


def output_name(schema: Mapping[str, Any]) -> str:
    """A name for the schema where a wire asks for one: its ``title`` in the characters names allow."""
    title = re.sub(r"[^A-Za-z0-9_-]", "_", str(schema.get("title") or ""))[:64]
    return title or "result"  # what pydantic-ai's recorded requests name an untitled schema


def is_strict(schema: Any) -> bool:
    """Whether ``schema`` meets OpenAI's strict rules: every object closed, with every property required."""
    if isinstance(schema, list):
        return all(is_strict(item) for item in schema)
    if not isinstance(schema, Mapping):
        return True
    properties = schema.get("properties")
    if schema.get("type") == "object" or properties is not None:
        if schema.get("additionalProperties") is not False:
            return False
        if set(properties or {}) != set(schema.get("required") or ()):
            return False
    return all(is_strict(value) for key, value in schema.items() if key not in ("enum", "const", "default"))
