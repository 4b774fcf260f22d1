"""What the ``agentkit`` command imports before it answers: a help screen must not pay for the loop.

Each check runs the command's own entry point in a fresh interpreter and reads
``sys.modules`` when it is done, so what is asserted is what a user's process
loaded, whatever the machine's speed.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from agentkit.plugin_api.hookspecs import CATEGORIES

#: What only running an agent (or loading a plugin) needs: the HTTP stack, the event loop,
#: schema validation, requirement parsing and the scan of installed distributions.
HEAVY = ("asyncio", "httpx", "httpcore", "anyio", "jsonschema", "packaging", "importlib_metadata",
         "importlib.metadata", "pluggy", "typing_extensions")
#: The host's own modules that only running an agent needs.
LOOP = ("agentkit.host._agent", "agentkit.host._batch", "agentkit.host._config", "agentkit.host.runtime",
        "agentkit.host.wire")

RUN_MAIN = """
import json, sys
from agentkit.host.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
sys.stdout.flush()
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
sys.exit(code)
"""


def _run(*args: str) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """``agentkit *args`` through its entry point; its result and the modules it had loaded at the end."""
    result = subprocess.run([sys.executable, "-c", RUN_MAIN, *args], capture_output=True, text=True, timeout=300,
                            stdin=subprocess.DEVNULL)
    return result, set(json.loads(result.stderr.strip().splitlines()[-1]))


def _loaded(modules: set[str], prefixes: tuple[str, ...]) -> set[str]:
    return {name for name in modules if any(name == p or name.startswith(p + ".") for p in prefixes)}


@pytest.mark.parametrize("args", [("--help",), (), ("new-plugin", "--help"), ("run", "--help")])
def test_help_screens_load_neither_the_loop_nor_its_libraries(args):
    result, modules = _run(*args)
    assert result.returncode in (0, 2), result.stderr
    assert "usage: agentkit" in result.stdout
    assert _loaded(modules, HEAVY + LOOP) == set()


def test_help_loads_no_command_module_but_lists_every_command():
    result, modules = _run("--help")
    assert "logging" not in modules
    commands = [line.split()[0] for line in result.stdout.splitlines() if line[:4] == "    " and line[4:5].isalpha()]
    assert commands == ["plugins", "tools", "tool", "models", "skills", "validate-plugins", "new-plugin", "demo", "run",
                        "sessions", "artifacts", "rpc", "a2a", "chat", "mcp", "runs", "worker"]  # the last five contributed by
    # agentkit-a2a, agentkit-chat, agentkit-tools-mcp and agentkit-durable (two), installed here
    # the listing of the commands plugins contribute reads their metadata; it imports none of them
    assert {name for name in modules if name.startswith("agentkit.host.cli.")} == {"agentkit.host.cli._contributed"}


def test_a_command_loads_its_own_module_only():
    _, modules = _run("new-plugin", "--help")
    assert {name for name in modules if name.startswith("agentkit.host.cli.")} == {"agentkit.host.cli._new_plugin"}


def test_new_plugin_offers_every_category_of_the_plugin_api():
    result, _ = _run("new-plugin", "--help")
    offered = result.stdout.replace("\n", " ")
    for category in CATEGORIES:
        assert category in offered


def test_the_version_is_still_printed_to_stdout():
    result, _ = _run("--version")
    assert result.returncode == 0 and result.stdout.startswith("agentkit-host ")


def test_plugins_lists_every_built_in_from_metadata_without_importing_any():
    import importlib_metadata

    every = importlib_metadata.entry_points()
    built_ins = {ep.name: ep.value for category in CATEGORIES for ep in every.select(group=f"agentkit.{category}")}
    result, modules = _run("plugins")
    assert result.returncode == 0, result.stderr
    for name, module in built_ins.items():
        assert f"{name} = {module}" in result.stdout
    assert _loaded(modules, tuple(built_ins.values())) == set()
    assert _loaded(modules, (*HEAVY, *LOOP, "agentkit.host._plugins")) == set()


def test_plugins_check_loads_the_plugins_but_not_the_loop_nor_what_only_their_calls_need():
    """Checking plugins imports each plugin's entry point; nothing of the agent loop, and, with the
    built-ins installed, no HTTP stack or event loop: a plugin loads those when a call needs them."""
    result, modules = _run("plugins", "--check")
    assert result.returncode == 0 and " loaded" in result.stdout
    assert {"agentkit.host._plugins", "agentkit_provider_faux", "agentkit_tools_web"} <= modules
    assert _loaded(modules, (*LOOP, "httpx", "httpcore", "anyio", "asyncio")) == set()


def test_importing_the_host_loads_the_loop_only_when_a_name_is_used():
    code = ("import sys, json, agentkit.host as host; before = sorted(sys.modules); host.Agent; host.__version__;"
            "print(json.dumps([before, sorted(sys.modules), sorted(host.__all__), sorted(dir(host))]))")
    before, after, exported, listed = json.loads(subprocess.check_output([sys.executable, "-c", code], text=True))
    assert _loaded(set(before), HEAVY + LOOP) == set()
    assert "agentkit.host._agent" in after and "asyncio" in after
    assert set(exported) <= set(listed)


def test_every_public_name_of_the_host_is_still_importable():
    import agentkit.host

    for name in agentkit.host.__all__:
        assert getattr(agentkit.host, name) is not None, name
    from agentkit.host import Agent, PluginHost  # the spelling embedders use

    assert Agent.__module__ == "agentkit.host._agent" and PluginHost.__name__ == "PluginHost"


def test_a_failed_plugin_is_reported_in_the_listing_not_as_a_log_record_on_stderr(agentkit, site_dir):
    """Unconfigured, the host's warnings go nowhere, whichever module first logs."""
    site_dir("broken-plugin", entry_points={"agentkit.tools": {"brokenplugin": "brokenplugin"}},
             requires=["agentkit-plugin-api>=0.1"], files={"brokenplugin.py": "raise RuntimeError('broken on purpose')"})
    result = agentkit("plugins", "--check", site=site_dir.site)
    assert result.returncode == 0 and "broken on purpose" in result.stdout
    assert "broken on purpose" not in result.stderr
