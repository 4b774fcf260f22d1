"""The check of a tool's structured result against its output schema: a quick yes, else the SDK's own check.

The SDK checks every structured result against the ``outputSchema`` the
server listed (``ClientSession.validate_tool_result``, jsonschema): about a
tenth of a ``tools/call``'s work in the SDK client, for a schema that is most
often an object of a few typed properties (what the SDK's own servers declare
for a function's return value). For such a schema a few dict look-ups and
``type()`` comparisons tell that a result is valid; the host's argument
validator does the same for tool arguments (``agentkit.host._arguments``, which
a plugin does not import).

The quick check only ever says yes, and only when the SDK's check would:
anything it is not sure of (a keyword it does not know, a float where an
integer is expected, a missing property, no structured content) goes to the
SDK's check, which decides and words the error, as it did before. A schema is
checked quickly only after the SDK has accepted one result against that very
schema object, so a schema the SDK would refuse as invalid JSON Schema is
always the SDK's to refuse. The schema is the one the SDK itself holds for the
tool (``ClientSession._tool_output_schemas``, its only internal read here):
whatever listing the SDK absorbed last, ours or its own re-list.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

_Test = Callable[[Any], bool]

#: What a JSON value parsed from the wire is, per JSON Schema type: each test accepts a subset of what
#: jsonschema accepts (1.0 is an integer there, not here; a bool is never a number here).
_TYPE_TESTS: dict[str, _Test] = {
    "string": lambda value: type(value) is str,
    "integer": lambda value: type(value) is int,
    "number": lambda value: type(value) is int or type(value) is float,
    "boolean": lambda value: type(value) is bool,
    "null": lambda value: value is None,
    "array": lambda value: type(value) is list,
    "object": lambda value: type(value) is dict,
}
#: Keywords that never make an instance invalid.
_ANNOTATIONS = frozenset({"title", "description", "examples", "default", "$comment", "deprecated", "readOnly",
                          "writeOnly"})
_ROOT_KEYWORDS = _ANNOTATIONS | {"type", "properties", "required", "additionalProperties"}


def _anything(value: Any) -> bool:
    return True


def _property_test(schema: Any) -> _Test | None:
    if schema is True:
        return _anything
    if not isinstance(schema, dict) or not schema.keys() <= _ANNOTATIONS | {"type"}:
        return None
    kind = schema.get("type")
    if kind is None:
        return _anything if "type" not in schema else None
    return _TYPE_TESTS.get(kind) if isinstance(kind, str) else None


def quick_check(schema: Any) -> Callable[[Any], bool] | None:
    """A test that says ``True`` only for values the schema surely accepts; ``None`` for a schema it cannot
    read (anything but an object of typed properties, some required, extra properties allowed or not)."""
    if not isinstance(schema, dict) or schema.get("type") != "object" or not schema.keys() <= _ROOT_KEYWORDS:
        return None
    properties, required = schema.get("properties", {}), schema.get("required", [])
    closed = schema.get("additionalProperties", True)
    if not isinstance(properties, dict) or not isinstance(required, list) or closed not in (True, False) \
            or not all(isinstance(name, str) for name in required):
        return None
    checks: list[tuple[str, _Test]] = []
    for name, sub in properties.items():
        test = _property_test(sub)
        if test is None:
            return None
        if test is not _anything:
            checks.append((name, test))
    typed, needed = tuple(checks), tuple(required)
    allowed = frozenset(properties) if closed is False else None

    def check(value: Any) -> bool:
        if type(value) is not dict:
            return False
        for name in needed:
            if name not in value:
                return False
        for name, test in typed:
            if name in value and not test(value[name]):
                return False
        return allowed is None or value.keys() <= allowed

    return check


_SdkCheck = Callable[[str, Any], Awaitable[None]]


class OutputCheck:
    """Stands in for one ``ClientSession``'s ``validate_tool_result``: the quick yes, else the SDK's check.

    ``quick_passes`` counts the results the quick check let through (the tests read it).
    """

    def __init__(self, session: Any) -> None:
        self._session = session
        self._sdk_check: _SdkCheck = session.validate_tool_result  # the SDK's own, bound before it is replaced
        #: Per tool: the schema object the quick test is for, and the test (``None``: not yet, or never).
        self._tests: dict[str, tuple[Any, Callable[[Any], bool] | None]] = {}
        self.quick_passes = 0

    def install(self) -> None:
        """Take the place of the session's ``validate_tool_result`` (where the SDK's ``call_tool`` calls it)."""
        self._session.validate_tool_result = self.validate_tool_result

    async def validate_tool_result(self, name: str, result: Any) -> None:
        known = self._tests.get(name)
        if known is not None and known[1] is not None and result.structured_content is not None \
                and known[0] is self._session._tool_output_schemas.get(name) and known[1](result.structured_content):
            self.quick_passes += 1  # the schema the SDK holds for the tool now, which it vouched for: surely valid
            return
        await self._check(name, result)

    async def _check(self, name: str, result: Any) -> None:
        schemas: Mapping[str, Any] | None = getattr(self._session, "_tool_output_schemas", None)
        schema = None if schemas is None else schemas.get(name)
        if schema is None and schemas is not None and name in schemas:
            return  # the tool declares no output schema: the SDK checks nothing either
        if schema is not None and result.structured_content is not None:
            known = self._tests.get(name)
            if known is None or known[0] is not schema:
                await self._sdk_check(name, result)  # raises as the SDK does, an invalid schema included
                # The SDK accepted a result against this very schema: it is valid JSON Schema.
                self._tests[name] = (schema, quick_check(schema))
                return
        await self._sdk_check(name, result)
