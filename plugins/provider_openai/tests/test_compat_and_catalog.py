"""Compatibility profiles, the catalog rows that choose them, and the plugin's registration."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from agentkit_provider_openai import PROFILES, CompatProfile, OpenAICompletions, profile_for

from agentkit.host import PluginHost
from agentkit.plugin_api import ModelInfo, UsageError

VENDORS = {
    "openai": "https://api.openai.com/v1",
    "openrouter": "https://openrouter.ai/api/v1",
    "deepseek": "https://api.deepseek.com",
    "groq": "https://api.groq.com/openai/v1",
    "local": "http://127.0.0.1:8080/v1",
}


def test_the_plugin_is_installed_and_registers_the_openai_completions_wire() -> None:
    host = PluginHost.discover({"AGENTKIT_LOAD_PLUGINS": "openai"})
    provider = host.providers["openai-completions"]
    assert isinstance(provider, OpenAICompletions)
    assert host.plugin_of("provider", "openai-completions") == "openai"
    assert {row.vendor for row in host.models.values()} == set(VENDORS)


def test_every_vendor_has_exactly_one_default_row_its_base_url_and_its_profile() -> None:
    rows = OpenAICompletions().catalog()
    for vendor, base_url in VENDORS.items():
        mine = [row for row in rows if row.vendor == vendor]
        assert len([row for row in mine if row.default]) == 1, vendor
        assert {row.base_url for row in mine} == {base_url}
        assert {profile_for(row).name for row in mine} == {vendor}
        assert {row.api for row in mine} == {"openai-completions"}


def test_other_vendors_name_their_own_key_and_a_local_server_needs_none() -> None:
    rows = {row.vendor: row for row in OpenAICompletions().catalog() if row.default}
    assert OpenAICompletions.credential_env == (("OPENAI_API_KEY", "api_key"),)
    assert "credential_env" not in rows["openai"].options
    assert rows["deepseek"].options["credential_env"] == (("DEEPSEEK_API_KEY", "api_key"),)
    assert rows["openrouter"].options["credential_env"] == (("OPENROUTER_API_KEY", "api_key"),)
    assert rows["groq"].options["credential_env"] == (("GROQ_API_KEY", "api_key"),)
    assert rows["local"].options["credential_env"] == ()


def test_an_unknown_model_of_a_vendor_keeps_the_vendors_profile(kit: Any) -> None:
    host = PluginHost.discover({"AGENTKIT_LOAD_PLUGINS": "openai"})
    row = host.resolve_model("deepseek/deepseek-v9")
    wire = host.providers["openai-completions"].encode(kit.request_for(model=row, max_tokens=5))
    body = json.loads(wire.body)
    assert (body["model"], body["max_tokens"]) == ("deepseek-v9", 5)


def _row(**options: Any) -> ModelInfo:
    return ModelInfo(
        "acme", "m1", "openai-completions", "https://llm.acme.test/v1", 8000, 1000, options=options
    )


def test_without_a_named_profile_the_base_url_decides_and_unknown_servers_get_local() -> None:
    assert profile_for(_row()).name == "local"
    assert (
        profile_for(dataclasses.replace(_row(), base_url="https://api.groq.com/openai/v1")).name
        == "groq"
    )


def test_a_row_can_override_single_flags_of_its_profile() -> None:
    profile = profile_for(
        _row(
            compat="deepseek",
            compat_overrides={"supports_strict_tools": True, "reasoning_fields": ["reasoning"]},
        )
    )
    assert profile == dataclasses.replace(
        PROFILES["deepseek"], supports_strict_tools=True, reasoning_fields=("reasoning",)
    )


def test_a_row_can_carry_its_own_profile_object() -> None:
    mine = CompatProfile("mine", max_tokens_field="max_completion_tokens")
    assert profile_for(_row(compat=mine)) is mine


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"compat": "openia"}, "deepseek, groq, local, openai, openrouter"),
        ({"compat": "openai", "compat_overrides": {"max_token_field": "x"}}, "max_tokens_field"),
        ({"compat": 3}, "profile name"),
    ],
)
def test_a_bad_profile_choice_is_a_usage_error_naming_the_fix(
    options: dict[str, Any], named: str
) -> None:
    with pytest.raises(UsageError, match=named):
        profile_for(_row(**options))


MiB = 1024 * 1024


@pytest.mark.parametrize(("key", "expected"), [
    ("openai/o3", {"refused_settings": frozenset({"temperature", "top_p"}), "structured_output": True,
                   "aliases": ("o3-2025-04-16",), "document_input": True, "audio_input": False,
                   "reasoning_levels": ("low", "medium", "high"), "context_window": 200_000}),
    ("openai/gpt-4o-audio-preview", {"refused_settings": frozenset(), "structured_output": False, "aliases": (),
                                     "image_input": False, "document_input": False, "document_limits": None,
                                     "audio_input": True, "cache_read_price": 0.0}),
    ("openrouter/anthropic/claude-sonnet-4", {"refused_settings": frozenset(), "structured_output": False,
                                              "aliases": (), "document_input": True, "audio_limits": None,
                                              "default": True}),
    ("groq/openai/gpt-oss-120b", {"refused_settings": frozenset(), "structured_output": True, "aliases": (),
                                  "document_input": False, "document_limits": None, "output_price": 0.75}),
    ("local/default", {"structured_output": False, "document_input": False, "audio_input": False,
                       "input_price": 0.0, "default": True}),
])
def test_each_catalog_row_has_its_table_values_and_what_its_vendor_and_model_give_it(key: str, expected: dict) -> None:
    row = {row.key: row for row in OpenAICompletions().catalog()}[key]
    assert {name: getattr(row, name) for name in expected} == expected
    if row.document_input:
        assert row.document_limits is not None and row.document_limits.max_bytes == 32 * MiB
    if row.audio_input:
        assert row.audio_limits is not None and row.audio_limits.formats == {"audio/wav", "audio/mpeg"}
    assert row.image_limits is not None and row.image_limits.urls is (row.vendor != "local")
