"""``agentkit models [--json] [PROVIDER]``: every model the installed providers know.

One row per catalog row, as ``llm models`` lists them: the model as
``--model`` takes it, the plugin that ships the row, its aliases (other ids
the vendor accepts for it, dated snapshots mostly), context window, maximum
output, prices (US dollars per million tokens: input, output, cache read,
cache write) and capabilities. ``PROVIDER`` keeps the rows of one vendor
(``anthropic``), one wire (``anthropic-messages``) or one plugin. ``--json``
prints the same rows as a list of objects.
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from agentkit.plugin_api.errors import UsageError

from .._terminal import visible_line

if TYPE_CHECKING:
    from agentkit.plugin_api import ModelInfo

    from .._plugins import PluginHost

#: The columns of the table, as ``sessions list`` heads its own.
_COLUMNS = ("MODEL", "PLUGIN", "CONTEXT", "OUTPUT", "$/M IN", "OUT", "CACHE R", "CACHE W", "CAPABILITIES", "ALIASES")
#: Capability -> what says the row has it. Every wire agentkit serves carries tool calls.
_CAPABILITIES: dict[str, Any] = {
    "tools": lambda row: True,
    "vision": lambda row: row.image_input,
    "documents": lambda row: row.document_input,
    "audio": lambda row: row.audio_input,
    "structured_output": lambda row: row.structured_output,
    "thinking": lambda row: bool(row.reasoning_levels),
}


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "models",
        description="List every model the installed providers know: aliases, context window, maximum output, "
                    "prices (US dollars per million tokens) and capabilities.",
    )
    parser.add_argument("provider", nargs="?", default=None, metavar="PROVIDER",
                        help="only this vendor's models (e.g. anthropic), this wire's, or this plugin's")
    parser.add_argument("--json", action="store_true", help="print the list as JSON")
    parser.set_defaults(handler=list_models)


def model_record(row: ModelInfo, plugin: str | None) -> dict[str, Any]:
    """What ``agentkit models --json`` shows of one catalog row."""
    return {
        "model": row.key,
        "vendor": row.vendor,
        "id": row.id,
        "api": row.api,
        "plugin": plugin,
        "aliases": list(row.aliases),
        "families": list(row.families),
        "default": row.default,
        "context_window": row.context_window,
        "max_output": row.max_output,
        "prices": {
            "input": row.input_price,
            "output": row.output_price,
            "cache_read": row.cache_read_price,
            "cache_write": row.cache_write_price,
            "cache_write_1h": row.cache_write_1h_price,
        } if row.priced else None,
        "capabilities": {name: bool(has(row)) for name, has in _CAPABILITIES.items()},
        "reasoning_levels": list(row.reasoning_levels),
        "refused_settings": sorted(row.refused_settings),
    }


def list_models(args: argparse.Namespace) -> int:
    from .._plugins import PluginHost

    host = PluginHost.discover()
    records = [model_record(row, host.plugin_of("model", row.key)) for row in host.models.values()]
    records += [{"model": key, "plugin": None, "claimed_by": plugins}
                for key, plugins in host.registry.contested("model").items()]
    if args.provider is not None:
        records = _of_provider(records, args.provider, host)
    records.sort(key=lambda record: (record.get("plugin") or "", record["model"]))
    if args.json:
        print(json.dumps(records, indent=2, ensure_ascii=False))
        return 0
    if not records:
        print("No models: install a provider plugin (see 'agentkit plugins').")
        return 0
    table = [_COLUMNS, *(_cells(record) for record in records)]
    widths = [max(len(line[column]) for line in table) for column in range(len(_COLUMNS) - 1)]
    for line in table:
        print("  ".join([*(cell.ljust(width) for cell, width in zip(line, widths, strict=False)), line[-1]]).rstrip())
    return 0


def _of_provider(records: list[dict[str, Any]], name: str, host: PluginHost) -> list[dict[str, Any]]:
    """The records of vendor, wire or plugin ``name``; a name that is none of them is a usage error."""
    kept = [record for record in records
            if name in (record.get("vendor"), record.get("api"), record.get("plugin"))
            or name in record.get("claimed_by", ())]
    if kept:
        return kept
    known = sorted({str(value) for record in records for key in ("vendor", "api", "plugin")
                    if (value := record.get(key))})
    raise UsageError(f"no installed provider knows models of {name!r}; name a vendor, wire or plugin of "
                     f"{', '.join(known) or 'none (install a provider plugin)'}")


def _cells(record: dict[str, Any]) -> tuple[str, ...]:
    if record["plugin"] is None:
        claimants = ", ".join(record["claimed_by"])
        return (visible_line(record["model"]), "-", "", "", "", "", "", "", f"not served: claimed by {claimants}", "")
    prices = record["prices"]
    price_cells = ("?",) * 4 if prices is None else tuple(
        _price(prices[key]) for key in ("input", "output", "cache_read", "cache_write"))
    capabilities = ",".join(name.replace("structured_output", "structured")
                            for name, has in record["capabilities"].items() if has)
    return (visible_line(record["model"]), visible_line(record["plugin"]), f"{record['context_window']:,}",
            f"{record['max_output']:,}", *price_cells, capabilities, visible_line(", ".join(record["aliases"])))


def _price(value: float) -> str:
    return f"{value:g}"
