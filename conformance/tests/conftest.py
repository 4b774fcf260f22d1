"""Hosts with one plugin registered in code, for checking the checks."""

from __future__ import annotations

import pytest

from agentkit.host import PluginHost


@pytest.fixture
def host_with():
    """``host_with(plugin, name, *also)``: a host with the scripted provider (and ``also``) loaded, plus ``plugin``."""

    def build(plugin: object, name: str = "under_test", *also: str) -> PluginHost:
        host = PluginHost()
        host.load_entry_points(env={"AGENTKIT_LOAD_PLUGINS": ",".join(("faux", *also))})
        record = host.register(plugin, name=name)
        assert record.status == "loaded", record.reason
        return host

    return build
