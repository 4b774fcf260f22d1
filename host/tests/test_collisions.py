"""Name collisions: a name two plugins register is served by neither, whichever loads first.

Through real entry points (a third-party distribution beside the built-in
``files`` plugin) and through ``PluginHost.register`` in code, in every order.
"""

from __future__ import annotations

import itertools
import json

import pytest
from agentkit_provider_faux import FauxProvider

from agentkit.host import PluginHost
from agentkit.host.cli import main
from agentkit.host.errors import ModelNotFound
from agentkit.plugin_api import ModelInfo, Skill, Tool, hookimpl

#: Sorts before "files": the order of names once gave it read_file and failed the built-in plugin whole.
NEWCOMER = """
from agentkit.plugin_api import Tool, hookimpl

@hookimpl
def agentkit_register_tools(register):
    register(Tool("read_file", "My own read_file.", {"type": "object"}, lambda arguments, context: "mine"))
    register(Tool("aaa_only", "A tool nobody else has.", {"type": "object"}, lambda arguments, context: "ok"))
"""


@pytest.fixture
def newcomer(site_dir, monkeypatch):
    site_dir("aaa-tools", entry_points={"agentkit.tools": {"aaa": "aaa_tools"}},
             requires=["agentkit-plugin-api>=0.1,<0.2"], files={"aaa_tools.py": NEWCOMER})
    monkeypatch.setenv("AGENTKIT_LOAD_PLUGINS", "aaa,files")


def test_a_newcomer_never_takes_a_builtin_name_and_the_builtin_keeps_its_other_tools(newcomer):
    host = PluginHost.discover()
    assert "read_file" not in host.tools and host.plugin_of("tool", "read_file") is None
    assert {"write_file", "edit_file", "list_files"} <= set(host.tools) and "aaa_only" in host.tools
    for name, other in (("aaa", "files"), ("files", "aaa")):
        record = host.records[name]
        assert record.status == "loaded"
        assert len(record.collisions) == 1
        assert "tool 'read_file'" in record.collisions[0] and repr(other) in record.collisions[0]
        assert "AGENTKIT_DISABLE_PLUGINS" in record.collisions[0]


def test_disabling_one_side_gives_the_name_back_to_the_other(newcomer, monkeypatch):
    monkeypatch.setenv("AGENTKIT_DISABLE_PLUGINS", "aaa-tools")
    host = PluginHost.discover()
    assert host.plugin_of("tool", "read_file") == "files" and host.records["files"].collisions == []


def test_agentkit_plugins_reports_the_collision_on_both_plugins(newcomer, capsys):
    assert main(["plugins", "--check"]) == 0
    sections: dict[str, list[str]] = {}
    current: list[str] = []
    for line in capsys.readouterr().out.splitlines():
        if not line.startswith(" "):
            current = sections[line.split()[0]] = []
        current.append(line.strip())
    for name in ("aaa", "files"):
        collisions = [line for line in sections[name] if line.startswith("collision:")]
        assert len(collisions) == 1 and "read_file" in collisions[0], sections[name]
    assert main(["plugins", "--check", "--json"]) == 0
    records = {record["name"]: record for record in json.loads(capsys.readouterr().out)}
    assert records["aaa"]["collisions"] and records["files"]["collisions"]


def test_agentkit_tools_lists_the_contested_name_as_served_by_nobody(newcomer, capsys):
    assert main(["tools"]) == 0
    out = capsys.readouterr().out
    contested = [line for line in out.splitlines() if line.startswith("read_file ")]
    assert len(contested) == 1 and "not served" in contested[0], out
    assert "'aaa'" in contested[0] and "'files'" in contested[0]
    assert main(["tools", "--json"]) == 0
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)}
    assert rows["read_file"]["plugin"] is None and rows["read_file"]["claimed_by"] == ["aaa", "files"]
    assert rows["write_file"]["plugin"] == "files" and rows["write_file"]["claimed_by"] == ["files"]


def test_running_a_contested_tool_names_both_plugins(newcomer, capsys, tmp_path):
    assert main(["tool", "run", "read_file", "--root", str(tmp_path)]) == 2
    error = capsys.readouterr().err
    assert "'aaa'" in error and "'files'" in error and "no tool named" not in error


# -- in code, in every order ---------------------------------------------------------------


def tools_plugin(*names: str):
    class Plugin:
        @hookimpl
        def agentkit_register_tools(self, register):
            for name in names:
                register(Tool(name, "A tool.", {"type": "object"}, lambda arguments, context: "ok"))

    return Plugin()


def skills_plugin(*names: str):
    class Plugin:
        @hookimpl
        def agentkit_register_skills(self, register):
            for name in names:
                register(Skill(name, "A skill.", "Do it."))

    return Plugin()


def provider_plugin(api: str, *models: str):
    class Provider(FauxProvider):
        def catalog(self):
            return tuple(ModelInfo(*model.split("/"), api, "http://x.invalid", 1000, 100) for model in models)

    Provider.api = api

    class Plugin:
        @hookimpl
        def agentkit_register_providers(self, register):
            register(Provider())

    return Plugin()


PLUGINS = {
    "alpha": lambda: tools_plugin("shared", "alpha_only"),
    "beta": lambda: tools_plugin("shared", "beta_only", "third"),
    "gamma": lambda: tools_plugin("third"),
    "skills1": lambda: skills_plugin("review", "tidy"),
    "skills2": lambda: skills_plugin("review"),
    "wire1": lambda: provider_plugin("wire", "v/a", "v/b"),
    "wire2": lambda: provider_plugin("wire", "v/c"),
    "model1": lambda: provider_plugin("wire-x", "w/one", "w/both"),
    "model2": lambda: provider_plugin("wire-y", "w/two", "w/both"),
}


def snapshot(host: PluginHost) -> dict:
    return {
        "tools": {name: host.plugin_of("tool", name) for name in host.tools},
        "providers": {api: host.plugin_of("provider", api) for api in host.providers},
        "skills": {name: host.plugin_of("skill", name) for name in host.skills},
        "models": sorted(host.models),
        "records": {name: (r.status, sorted(r.contributions), sorted(r.collisions)) for name, r in host.records.items()},
    }


def load(order) -> PluginHost:
    host = PluginHost()
    for name in order:
        assert host.register(PLUGINS[name](), name=name).status == "loaded"
    return host


def test_the_outcome_is_the_same_whichever_plugin_loads_first():
    names = list(PLUGINS)
    expected = snapshot(load(names))
    assert expected["tools"] == {"alpha_only": "alpha", "beta_only": "beta"}
    assert expected["skills"] == {"tidy": "skills1"}
    assert expected["providers"] == {"wire-x": "model1", "wire-y": "model2"}
    assert expected["models"] == ["w/one", "w/two"]  # v/* have no wire; w/both is contested
    for name in ("alpha", "beta", "gamma", "skills1", "skills2", "wire1", "wire2", "model1", "model2"):
        assert expected["records"][name][2], f"{name} is not told about its collision"
    orders = [list(reversed(names))] + [list(order) for order in itertools.islice(itertools.permutations(names), 0, 40320, 997)]
    for order in orders:
        assert snapshot(load(order)) == expected, order


def test_a_contested_model_is_refused_by_name_never_cloned_from_one_side():
    host = load(["model1", "model2"])
    with pytest.raises(ModelNotFound, match=r"'model1'.*'model2'"):
        host.resolve_model("w/both")
    assert host.resolve_model("w/one").api == "wire-x"


def test_a_plugin_that_fails_frees_the_names_it_contested():
    class Fails:
        @hookimpl
        def agentkit_register_tools(self, register):
            register(Tool("shared", "A tool.", {"type": "object"}, lambda arguments, context: "ok"))
            raise RuntimeError("broken after registering")

    for order in (["alpha", "fails"], ["fails", "alpha"]):
        host = PluginHost()
        for name in order:
            host.register(Fails() if name == "fails" else PLUGINS[name](), name=name)
        assert host.records["fails"].status == "failed"
        assert host.plugin_of("tool", "shared") == "alpha" and host.records["alpha"].collisions == []


def test_a_plugin_registering_one_name_twice_fails_itself():
    record = PluginHost().register(tools_plugin("twice", "twice"), name="double")
    assert record.status == "failed" and "registered twice by this plugin" in record.reason


def test_among_three_plugins_the_way_out_names_every_other_one():
    host = PluginHost()
    for name in ("one", "two", "three"):
        host.register(tools_plugin("shared", f"{name}_only"), name=name)
    assert "shared" not in host.tools and {"one_only", "two_only", "three_only"} <= set(host.tools)
    (collision,) = host.records["one"].collisions
    assert "AGENTKIT_DISABLE_PLUGINS=three,two" in collision and "'three', 'two'" in collision
    (collision,) = host.records["two"].collisions
    assert "AGENTKIT_DISABLE_PLUGINS=one,three" in collision


def test_a_register_kept_for_later_is_closed_so_no_name_is_taken_away_unreported():
    kept = []

    class Keeps:
        @hookimpl
        def agentkit_register_tools(self, register):
            kept.append(register)
            register(Tool("keeps_only", "A tool.", {"type": "object"}, lambda arguments, context: "ok"))

    host = PluginHost()
    host.register(tools_plugin("read_file"), name="files")
    assert host.register(Keeps(), name="keeps").status == "loaded"
    with pytest.raises(Exception, match="after agentkit_register_tools returned"):
        kept[0](Tool("read_file", "Mine now.", {"type": "object"}, lambda arguments, context: "mine"))
    assert host.plugin_of("tool", "read_file") == "files" and host.records["files"].collisions == []
    assert host.records["keeps"].contributions == ["tool:keeps_only"]
