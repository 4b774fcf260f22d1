"""Plugins found and loaded from their distributions' metadata files load as ``importlib_metadata`` loads them.

The plugin host reads ``entry_points.txt`` and ``METADATA`` itself where the
path holds only directories of metadata; each record (name, distribution,
version, module, status, reason) must be the one the ``importlib_metadata``
loading gives, which the host uses where the path holds a zip.
"""

from __future__ import annotations

import sys
import zipfile

from agentkit.host import PluginHost

TOOL = """
from agentkit.plugin_api import Tool, hookimpl


class Holder:
    class Inner:
        @staticmethod
        @hookimpl
        def agentkit_register_tools(register):
            register(Tool("nested_tool", "A tool.", {"type": "object"}, lambda args, ctx: "ok"))
"""


def records(env) -> dict[str, dict[str, object]]:
    host = PluginHost.discover(env=env)
    return {name: record.to_dict() for name, record in host.records.items()}


def install(site_dir) -> dict[str, str]:
    site_dir("Nested.Plugin", version="1.2.0", requires=["mcp<3", "agentkit-plugin-api>=0.1,<0.2"],
             entry_points={"agentkit.tools": {"nested": "nestedplugin:Holder.Inner"}},
             files={"nestedplugin.py": TOOL})
    site_dir("bad-reference", entry_points={"agentkit.tools": {"badref": "not a reference!"}},
             requires=["agentkit-plugin-api>=0.1"])
    site_dir("missing-module", entry_points={"agentkit.tools": {"missing": "no_such_module_here:thing"}},
             requires=["agentkit-plugin-api>=0.1"])
    site_dir("missing-attr", entry_points={"agentkit.tools": {"noattr": "nestedplugin:Holder.Nowhere"}},
             requires=["agentkit-plugin-api>=0.1"])
    return {"AGENTKIT_LOAD_PLUGINS": "nested,badref,missing,noattr"}


def test_a_plugin_read_from_the_files_loads_as_importlib_metadata_loads_it(site_dir, tmp_path, monkeypatch):
    env = install(site_dir)
    from_files = records(env)
    assert from_files["nested"]["status"] == "loaded"
    assert from_files["nested"]["distribution"] == "Nested.Plugin" and from_files["nested"]["version"] == "1.2.0"
    assert from_files["nested"]["contributions"] == ["tool:nested_tool"]
    assert from_files["nested"]["warnings"] == []
    assert "Invalid object reference" in str(from_files["badref"]["reason"])
    assert "No module named 'no_such_module_here'" in str(from_files["missing"]["reason"])
    assert "has no attribute 'Nowhere'" in str(from_files["noattr"]["reason"])

    for module in ("nestedplugin",):
        sys.modules.pop(module, None)
    archive = tmp_path / "empty.zip"  # a zip on the path: the files alone cannot tell, importlib_metadata reads
    with zipfile.ZipFile(archive, "w"):
        pass
    monkeypatch.syspath_prepend(str(archive))
    through_library = records(env)
    for name, record in through_library.items():
        if name in ("noattr",):  # the location in the reason is the loader's own frame
            record["reason"] = str(record["reason"]).partition(" (")[0]
            from_files[name]["reason"] = str(from_files[name]["reason"]).partition(" (")[0]
    assert from_files == through_library
