"""The plugin as the host sees it: discovery, catalog, credentials."""

from __future__ import annotations

from agentkit_provider_openai_responses import OpenAIResponses

from agentkit.host import PluginHost
from agentkit.plugin_api import Credential


def test_the_plugin_is_installed_and_registers_the_responses_wire() -> None:
    host = PluginHost.discover({"AGENTKIT_LOAD_PLUGINS": "openai-responses"})
    provider = host.providers["openai-responses"]
    # By name: a conformance run in this process may have re-imported the module.
    assert type(provider).__name__ == "OpenAIResponses" and provider.api == "openai-responses"
    assert host.plugin_of("provider", "openai-responses") == "openai-responses"
    assert {row.vendor for row in host.models.values()} == {"openai-responses"}


def test_the_catalog_has_one_default_row_and_prices() -> None:
    rows = OpenAIResponses().catalog()
    assert [row.id for row in rows if row.default] == ["gpt-5"]
    for row in rows:
        assert (row.vendor, row.api) == ("openai-responses", "openai-responses")
        assert row.base_url == "https://api.openai.com/v1"
        assert row.input_price > 0 and row.output_price > row.input_price
        assert 0 < row.cache_read_price < row.input_price
        assert row.cache_write_price == row.input_price  # writes are billed as input
    assert {row.id: row.reasoning_levels for row in rows}["gpt-5"] == (
        "minimal",
        "low",
        "medium",
        "high",
    )


def test_a_model_name_resolves_to_this_wire_beside_chat_completions() -> None:
    host = PluginHost.discover()
    assert host.resolve_model("openai-responses/o3").api == "openai-responses"
    unknown = host.resolve_model("openai-responses/gpt-5-2026-preview")
    assert unknown.api == "openai-responses" and unknown.id == "gpt-5-2026-preview"
    if "openai-completions" in host.providers:
        assert host.resolve_model("openai/gpt-4.1").api == "openai-completions"


def test_the_key_is_openai_api_key_sent_as_a_bearer_token() -> None:
    provider = OpenAIResponses()
    assert tuple(provider.credential_env) == (("OPENAI_API_KEY", "api_key"),)
    assert provider.auth_headers(Credential("api_key", "sk-x")) == {"Authorization": "Bearer sk-x"}
