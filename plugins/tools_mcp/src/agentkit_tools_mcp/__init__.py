"""MCP for agentkit: MCP servers' tools in an agent, and agentkit's tools served over MCP.

What an embedder sets for the client (see ``docs/mcp.md``): where MCP audit
records go, and who answers a server's questions. Importing this package does
not import the MCP SDK.
"""

from __future__ import annotations

from .client import InputRequest, McpAuditRecord, close_all, set_audit_sink, set_input_handler

__all__ = ["InputRequest", "McpAuditRecord", "close_all", "set_audit_sink", "set_input_handler"]
