"""Hosts with one plugin registered in code, for checking the checks; pytest run as a plugin author runs it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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


#: The pytest plugins of this workspace's development environment that a plugin author's does not
#: have: left out, they neither change what the author's run sees nor cost each run their imports.
NOT_THE_AUTHORS = ("anyio", "pytest_postgresql", "xdist", "xdist.looponfail", "hypothesispytest", "randomly")


def run_pytest_as_an_author(directory: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """``pytest *args`` in ``directory``, with pytest and agentkit-conformance's plugin, as an author has them."""
    unplugged = [option for name in NOT_THE_AUTHORS for option in ("-p", f"no:{name}")]
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *unplugged, *args],
                          cwd=directory, env=env, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="session")
def author_pytest():
    """``author_pytest(directory, env, *args)``: see :func:`run_pytest_as_an_author`."""
    return run_pytest_as_an_author
