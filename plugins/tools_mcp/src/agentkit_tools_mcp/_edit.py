"""Add and remove ``[[mcp.servers]]`` entries in an ``agentkit.toml``, keeping every other key.

The file is read with ``tomllib`` and written back with ``tomli-w``: the
user's other tables and keys survive, their comments and layout do not (a
TOML writer that keeps comments would be a new dependency for little).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import tomli_w

from ._config import McpConfigError, parse_server, read_document, server_tables


def add_server(path: Path, entry: dict[str, Any]) -> None:
    """Append ``entry`` to ``path``'s servers (the file is created if missing); a name already there is refused."""
    parse_server(entry, path)  # the same checks as on reading: a bad entry never reaches the file
    document = read_document(path)
    servers = server_tables(document, path)
    if any(isinstance(table, dict) and table.get("name") == entry["name"] for table in servers):
        raise McpConfigError(f"{path}: server {entry['name']!r} is already configured; "
                             f"'agentkit mcp remove {entry['name']}' first to replace it")
    document.setdefault("mcp", {})["servers"] = [*servers, entry]
    _write(path, document)


def remove_server(path: Path, name: str) -> None:
    """Take server ``name`` out of ``path``; one that is not there is an error naming the file."""
    document = read_document(path)
    servers = server_tables(document, path)
    kept = [table for table in servers if not (isinstance(table, dict) and table.get("name") == name)]
    if len(kept) == len(servers):
        raise McpConfigError(f"{path}: no server named {name!r} (see 'agentkit mcp list')")
    document["mcp"]["servers"] = kept
    if not kept:
        del document["mcp"]["servers"]
        if not document["mcp"]:
            del document["mcp"]
    _write(path, document)


def _write(path: Path, document: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(tomli_w.dumps(document), encoding="utf-8")
    os.replace(temporary, path)  # a crash leaves the old file, never half a new one
