"""A tool's argument validator: a quick yes for the plainest schemas, jsonschema for everything else.

Most tool schemas are an object of a few typed properties, some required.
For such a schema, a handful of dict look-ups and ``type()`` comparisons can
tell that the arguments are valid; jsonschema spends many Python calls on it.
The quick check is conservative: it says yes only when jsonschema (Draft
2020-12) would, and anything it is not sure of (a float where an integer is
expected, a keyword it does not know, a missing property) goes to jsonschema,
which decides and words the errors.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from agentkit.plugin_api import Tool

from .wire import json as strict_json

if TYPE_CHECKING:
    import jsonschema

__all__ = ["MAX_ARGUMENT_DEPTH", "ArgumentValidator", "parse_arguments", "quick_check"]

# What a JSON value decoded by the strict decoder is, per JSON Schema type: each
# test accepts a subset of what jsonschema accepts (1.0 is an integer there, not here).
_TYPE_TESTS: dict[str, Callable[[Any], bool]] = {
    "string": lambda value: type(value) is str,
    "integer": lambda value: type(value) is int,
    "number": lambda value: type(value) is int or type(value) is float,
    "boolean": lambda value: type(value) is bool,
    "null": lambda value: value is None,
    "array": lambda value: type(value) is list,
    "object": lambda value: type(value) is dict,
}

# Keywords that never make an instance invalid.
_ANNOTATIONS = frozenset(
    {"title", "description", "examples", "default", "$comment", "deprecated", "readOnly", "writeOnly"}
)
_ROOT_KEYWORDS = _ANNOTATIONS | {"type", "properties", "required", "additionalProperties"}


def _anything(value: Any) -> bool:
    return True


def _property_test(schema: Any) -> Callable[[Any], bool] | None:
    if schema is True:
        return _anything
    if not isinstance(schema, dict) or not set(schema) <= _ANNOTATIONS | {"type"}:
        return None
    if "type" not in schema:
        return _anything
    kind = schema["type"]
    return _TYPE_TESTS.get(kind) if isinstance(kind, str) else None


def quick_check(schema: Any) -> Callable[[Mapping[str, Any]], bool] | None:
    """A test that says yes only to arguments ``schema`` accepts, or ``None`` when the schema is beyond it.

    The schema must be an object schema of ``properties`` (each a type, or
    anything), ``required`` names and a boolean ``additionalProperties``,
    with annotations anywhere. A no means "ask jsonschema", not "invalid".
    """
    if not isinstance(schema, dict) or not set(schema) <= _ROOT_KEYWORDS or schema.get("type", "object") != "object":
        return None
    properties = schema.get("properties", {})
    required = schema.get("required", [])
    additional = schema.get("additionalProperties", True)
    if not isinstance(properties, dict) or not isinstance(required, list) or not isinstance(additional, bool):
        return None
    if not all(isinstance(name, str) for name in required):
        return None
    tests = {}
    for name, subschema in properties.items():
        test = _property_test(subschema)
        if test is None:
            return None
        tests[name] = test
    names = tuple(required)

    def check(arguments: Mapping[str, Any]) -> bool:
        for name in names:
            if name not in arguments:
                return False
        for key, value in arguments.items():
            test = tests.get(key)
            if test is None:
                if not additional:
                    return False
            elif not test(value):
                return False
        return True

    return check


class ArgumentValidator:
    """One tool's argument validator, compiled once: the quick check first, jsonschema when it says no.

    jsonschema is imported and its validator built only when the quick check
    first says no (or cannot answer for the schema): a run whose arguments
    all pass the quick check never loads it.
    """

    def __init__(self, schema: Mapping[str, Any]) -> None:
        self._schema = schema
        self._full: jsonschema.Draft202012Validator | None = None
        self._quick = quick_check(schema)

    def _validator(self) -> jsonschema.Draft202012Validator:
        if self._full is None:
            import jsonschema  # only arguments the quick check cannot vouch for pay for it

            self._full = jsonschema.Draft202012Validator(self._schema)
        return self._full

    def is_valid(self, arguments: Mapping[str, Any]) -> bool:
        if self._quick is not None and self._quick(arguments):
            return True
        return bool(self._validator().is_valid(arguments))

    def iter_errors(self, arguments: Mapping[str, Any]) -> Iterator[jsonschema.ValidationError]:
        return self._validator().iter_errors(arguments)


#: Nesting deeper than this in tool arguments is refused (no schema needs more).
MAX_ARGUMENT_DEPTH = 64


def parse_arguments(raw: Any, tool: Tool,
                    validators: dict[str, tuple[Tool, ArgumentValidator]]) -> tuple[dict[str, Any], str | None]:
    """A call's arguments parsed (strict JSON, bounded depth) and checked against ``tool``'s schema.

    :param validators: each tool's compiled validator by tool name, kept by the caller for all its batches.
    :returns: the arguments and ``None``; or ``{}`` and the problem, in words the model can act on.
    """
    if not isinstance(raw, str):
        return {}, (f"The arguments arrived as {type(raw).__name__}, not as JSON text "
                    "(a provider defect). Send the call again.")
    try:
        arguments = strict_json.loads(raw, max_depth=MAX_ARGUMENT_DEPTH) if raw.strip() else {}
    except Exception as exc:  # WireDecodeError, and whatever a decoder defect raises
        return {}, f"The arguments are not valid JSON ({exc}). Send a JSON object matching the tool's schema."
    if not isinstance(arguments, dict):
        return {}, f"The arguments must be a JSON object, got {type(arguments).__name__}."
    known = validators.get(tool.name)
    if known is None or known[0] is not tool:
        known = validators[tool.name] = (tool, ArgumentValidator(tool.input_schema))
    validator = known[1]
    if validator.is_valid(arguments):  # the common case, without collecting errors
        return arguments, None
    # Not valid, so there is at least one error to name.
    errors = sorted(validator.iter_errors(arguments), key=lambda error: list(error.absolute_path))
    lines = [f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}" for e in errors[:5]]
    return {}, ("The arguments do not match the tool's schema: " + "; ".join(lines)
                + f". Arguments received: {raw[:2000]}")
