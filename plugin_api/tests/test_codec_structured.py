"""The codec kit's structured-output helpers: the schema refused for a model without the feature."""

from __future__ import annotations

import pytest

from agentkit.plugin_api import ModelInfo, ProviderRequest, UserMessage
from agentkit.plugin_api.codec import is_strict, output_name, structured_output
from agentkit.plugin_api.errors import UsageError

SCHEMA = {"type": "object", "title": "Weather report", "properties": {"c": {"type": "number"}},
          "required": ["c"], "additionalProperties": False}


def _request(*, native: bool, schema=SCHEMA) -> ProviderRequest:
    model = ModelInfo(vendor="v", id="m", api="w", base_url="http://x.invalid", context_window=8, max_output=4,
                      structured_output=native)
    return ProviderRequest(model=model, messages=[UserMessage.text("hi")], output_schema=schema)


def test_the_schema_is_given_for_a_model_that_takes_it():
    assert structured_output(_request(native=True), "w") == SCHEMA
    assert structured_output(_request(native=True, schema=None), "w") is None


def test_a_model_without_native_structured_output_refuses_the_schema_naming_itself():
    with pytest.raises(UsageError, match="v/m has no native structured output on w"):
        structured_output(_request(native=False), "w")


def test_the_name_is_the_title_in_allowed_characters():
    assert output_name(SCHEMA) == "Weather_report"
    assert output_name({"type": "object"}) == "result"


@pytest.mark.parametrize(("schema", "strict"), [
    (SCHEMA, True),
    ({**SCHEMA, "additionalProperties": True}, False),
    ({**SCHEMA, "required": []}, False),
    ({**SCHEMA, "properties": {"c": {"type": "object", "properties": {"d": {"type": "string"}}}}}, False),
    ({"type": "array", "items": SCHEMA}, True),
])
def test_strict_means_every_object_closed_with_every_property_required(schema, strict):
    assert is_strict(schema) is strict
