"""The plugin as the host sees it: entry point, hook, credentials, catalog."""

from __future__ import annotations

from importlib.metadata import entry_points

from agentkit_provider_anthropic import AnthropicMessages

from agentkit.plugin_api import Credential, Provider


def test_plugin_is_installed_under_the_providers_group() -> None:
    (entry,) = [ep for ep in entry_points(group="agentkit.providers") if ep.name == "anthropic"]
    module = entry.load()
    registered: list[Provider] = []
    module.agentkit_register_providers(register=registered.append)
    assert len(registered) == 1
    provider = registered[0]
    assert isinstance(provider, AnthropicMessages)
    assert provider.api == "anthropic-messages"


def test_credentials_in_precedence_order() -> None:
    assert list(AnthropicMessages.credential_env) == [
        ("ANTHROPIC_AUTH_TOKEN", "bearer"),
        ("ANTHROPIC_OAUTH_TOKEN", "oauth"),
        ("ANTHROPIC_API_KEY", "api_key"),
    ]


def test_auth_headers_per_credential_kind() -> None:
    provider = AnthropicMessages()
    assert provider.auth_headers(Credential("api_key", "sk-key")) == {
        "x-api-key": "sk-key",
    }
    assert provider.auth_headers(Credential("bearer", "tok")) == {
        "Authorization": "Bearer tok",
    }
    assert provider.auth_headers(Credential("oauth", "oat")) == {
        "Authorization": "Bearer oat",
        "anthropic-beta": "oauth-2025-04-20",
    }


def test_catalog_rows_are_complete_and_one_is_the_default() -> None:
    rows = AnthropicMessages().catalog()
    assert len(rows) >= 4
    assert sum(row.default for row in rows) == 1
    assert len({row.id for row in rows}) == len(rows)
    for row in rows:
        assert (row.vendor, row.api, row.base_url) == (
            "anthropic",
            "anthropic-messages",
            "https://api.anthropic.com",
        )
        assert row.context_window > row.max_output > 0
        assert 0 < row.cache_read_price < row.input_price < row.cache_write_price
        assert row.input_price < row.output_price
        assert row.image_input and row.reasoning_levels
        assert row.options["thinking"] in {"adaptive", "budget"}
