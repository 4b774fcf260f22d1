"""The plugin as the host sees it: entry point, hook, credentials, catalog."""

from __future__ import annotations

from importlib.metadata import entry_points

from agentkit_provider_gemini import GeminiGenerateContent

from agentkit.host import PluginHost
from agentkit.plugin_api import Credential, Provider


def test_plugin_is_installed_under_the_providers_group() -> None:
    (entry,) = [ep for ep in entry_points(group="agentkit.providers") if ep.name == "gemini"]
    module = entry.load()
    registered: list[Provider] = []
    module.agentkit_register_providers(register=registered.append)
    assert len(registered) == 1
    provider = registered[0]
    assert isinstance(provider, module.GeminiGenerateContent)
    assert provider.api == "google-generative-ai"


def test_credentials_in_precedence_order_and_the_key_header() -> None:
    assert list(GeminiGenerateContent.credential_env) == [
        ("GEMINI_API_KEY", "api_key"),
        ("GOOGLE_API_KEY", "api_key"),
    ]
    provider = GeminiGenerateContent()
    assert provider.auth_headers(Credential("api_key", "k")) == {"x-goog-api-key": "k"}
    assert provider.auth_headers(Credential("oauth", "t")) == {"Authorization": "Bearer t"}


def test_catalog_rows_are_complete_and_one_is_the_default() -> None:
    rows = GeminiGenerateContent().catalog()
    assert len(rows) >= 4
    assert sum(row.default for row in rows) == 1
    assert len({row.id for row in rows}) == len(rows)
    for row in rows:
        assert (row.vendor, row.api, row.base_url) == (
            "google",
            "google-generative-ai",
            "https://generativelanguage.googleapis.com/v1beta",
        )
        assert row.context_window > row.max_output > 0
        assert 0 < row.cache_read_price < row.input_price < row.output_price
        assert row.image_input and row.reasoning_levels
        if row.options["thinking"] == "budget":
            assert set(row.reasoning_levels) <= set(row.options["thinking_budgets"])
        else:
            assert row.options["thinking"] == "level"


def test_the_host_resolves_google_models_to_this_wire() -> None:
    host = PluginHost.discover()
    assert host.resolve_model("google/gemini-2.5-pro").api == "google-generative-ai"
    # A model released after this plugin is cloned from the default row.
    newer = host.resolve_model("google/gemini-9-ultra")
    assert (newer.id, newer.api) == ("gemini-9-ultra", "google-generative-ai")
