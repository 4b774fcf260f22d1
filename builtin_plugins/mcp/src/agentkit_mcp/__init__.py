"""MCP for agentkit: MCP servers' tools in an agent, and agentkit's tools served over MCP."""
