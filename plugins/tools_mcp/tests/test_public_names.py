"""The package's public names are the embedder's settings, loaded when first named."""

from __future__ import annotations

import agentkit_tools_mcp
import pytest
from agentkit_tools_mcp import client

EMBEDDER_NAMES = ("InputRequest", "McpAuditRecord", "set_audit_sink", "set_input_handler")


def test_the_package_and_the_client_give_the_embedder_settings() -> None:
    from agentkit_tools_mcp.client import _embedder

    for name in EMBEDDER_NAMES:
        assert getattr(agentkit_tools_mcp, name) is getattr(client, name) is getattr(_embedder, name), name
    assert agentkit_tools_mcp.close_all is client.close_all
    assert sorted(agentkit_tools_mcp.__all__) == sorted([*EMBEDDER_NAMES, "close_all"])


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no_such_name"):
        agentkit_tools_mcp.no_such_name  # noqa: B018
    with pytest.raises(AttributeError, match="no_such_name"):
        client.no_such_name  # noqa: B018
