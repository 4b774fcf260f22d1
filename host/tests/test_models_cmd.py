"""``agentkit models [--json] [PROVIDER]``: every model the installed providers know, with its plugin."""

from __future__ import annotations

import json

from agentkit.host import PluginHost

#: A third-party provider distribution: a wire of its own, with one row that takes documents and audio.
ACME_PROVIDER = '''
from agentkit_provider_faux import FauxProvider
from agentkit.plugin_api import ModelInfo, hookimpl


class Acme(FauxProvider):
    api = "acme-wire"

    def catalog(self):
        return (ModelInfo("acme", "listener-1", "acme-wire", "http://acme.invalid", 32000, 4000,
                          input_price=0.5, output_price=1.5, cache_read_price=0.05, cache_write_price=0.6,
                          document_input=True, audio_input=True, reasoning_levels=("low",),
                          aliases=("listener-1-20260101",), default=True),)


@hookimpl
def agentkit_register_providers(register):
    register(Acme())
'''


def _install_acme(site_dir) -> None:
    site_dir("acme-provider", entry_points={"agentkit.providers": {"acmeprovider": "acmeprovider"}},
             requires=["agentkit-plugin-api>=0.1,<0.2"], files={"acmeprovider.py": ACME_PROVIDER})


def _listed(agentkit, *args: str) -> list[dict]:
    result = agentkit.inline("models", "--json", *args)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_every_catalog_row_is_listed_once_with_its_plugin_prices_and_limits(agentkit) -> None:
    host = PluginHost.discover()
    records = {record["model"]: record for record in _listed(agentkit)}
    assert set(records) == set(host.models)
    for key, row in host.models.items():
        record = records[key]
        assert record["plugin"] == host.plugin_of("model", key)
        assert (record["context_window"], record["max_output"]) == (row.context_window, row.max_output)
        assert record["prices"] == {"input": row.input_price, "output": row.output_price,
                                    "cache_read": row.cache_read_price, "cache_write": row.cache_write_price,
                                    "cache_write_1h": row.cache_write_1h_price}
        assert record["capabilities"]["vision"] is row.image_input
        assert record["capabilities"]["structured_output"] is row.structured_output
        assert record["capabilities"]["thinking"] is bool(row.reasoning_levels)
        assert record["aliases"] == list(row.aliases)


def test_dated_ids_show_as_aliases_and_resolve_to_their_row(agentkit) -> None:
    records = {record["model"]: record for record in _listed(agentkit, "anthropic")}
    assert "claude-haiku-4-5-20251001" in records["anthropic/claude-haiku-4-5"]["aliases"]
    openai = {record["model"]: record for record in _listed(agentkit, "openai")}
    assert "gpt-4o-2024-08-06" in openai["openai/gpt-4o"]["aliases"]
    host = PluginHost.discover()
    for record in [*records.values(), *openai.values()]:
        for alias in record["aliases"]:
            row = host.resolve_model(f"{record['vendor']}/{alias}")
            assert (row.id, row.input_price, row.options) == (
                alias, record["prices"]["input"], host.models[record["model"]].options)


def test_a_third_party_plugins_rows_show_with_their_plugin_and_capabilities(agentkit, site_dir) -> None:
    _install_acme(site_dir)
    (record,) = _listed(agentkit, "acme")
    assert record["model"] == "acme/listener-1" and record["plugin"] == "acmeprovider"
    assert record["capabilities"] == {"tools": True, "vision": False, "documents": True, "audio": True,
                                      "structured_output": False, "thinking": True}
    assert record["aliases"] == ["listener-1-20260101"]
    assert _listed(agentkit, "acmeprovider") == _listed(agentkit, "acme-wire") == [record]
    table = agentkit.inline("models", "acme")
    header, line = table.stdout.splitlines()
    assert header.split()[:4] == ["MODEL", "PLUGIN", "CONTEXT", "OUTPUT"]
    assert line.split()[:8] == ["acme/listener-1", "acmeprovider", "32,000", "4,000", "0.5", "1.5", "0.05", "0.6"]
    assert "documents" in line and "audio" in line and line.rstrip().endswith("listener-1-20260101")


def test_the_table_has_a_line_per_model_under_its_header(agentkit) -> None:
    result = agentkit.inline("models")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("MODEL") and len(lines) == 1 + len(PluginHost.discover().models)


def test_an_unknown_provider_is_a_usage_error_naming_the_known_ones(agentkit) -> None:
    result = agentkit.inline("models", "no-such-vendor")
    assert result.returncode == 2
    assert "no-such-vendor" in result.stderr and "anthropic" in result.stderr
    assert "Traceback" not in result.stderr


def test_models_is_in_the_help(agentkit) -> None:
    assert "models" in agentkit.inline("--help").stdout
