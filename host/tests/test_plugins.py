"""Plugin discovery and isolation, through real entry points of installed distributions."""

from __future__ import annotations

import pytest

from agentkit.host import PluginHost
from agentkit.plugin_api import Tool, hookimpl

GOOD_TOOL = """
from agentkit.plugin_api import Tool, hookimpl

@hookimpl
def agentkit_register_tools(register):
    register(Tool("{name}", "A tool.", {{"type": "object"}}, lambda args, ctx: "ok"))
"""


def install_tool_plugin(site_dir, dist, module, tool="good_tool", requires=("agentkit-plugin-api>=0.1,<0.2",), source=None):
    site_dir(
        dist,
        entry_points={"agentkit.tools": {module: module}},
        requires=list(requires),
        files={f"{module}.py": source if source is not None else GOOD_TOOL.format(name=tool)},
    )


def discover(**env) -> PluginHost:
    return PluginHost.discover(env=env)


def test_discovery_happens_only_when_asked(site_dir):
    install_tool_plugin(site_dir, "good-plugin", "goodplugin")
    assert PluginHost().records == {}
    host = discover()
    record = host.records["goodplugin"]
    assert record.status == "loaded"
    assert record.distribution == "good-plugin" and record.version == "0.1.0"
    assert record.categories == ["tools"]
    assert record.hooks == ["agentkit_register_tools"]
    assert record.contributions == ["tool:good_tool"]
    assert host.plugin_of("tool", "good_tool") == "goodplugin"


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        ("raise ImportError('no such thing')", "raised on import: ImportError: no such thing"),
        ("import sys\nsys.exit(3)", "raised on import: SystemExit: 3"),
        ("from agentkit.plugin_api import hookimpl\n@hookimpl\ndef agentkit_regster_tools(register): pass",
         "unknown hook(s) agentkit_regster_tools"),
        ("from agentkit.plugin_api import hookimpl\n@hookimpl\ndef agentkit_register_tools(registr): pass",
         "invalid hook implementation"),
        ("from agentkit.plugin_api import hookimpl\n@hookimpl\ndef agentkit_register_tools(register):\n    raise ValueError('bad')",
         "agentkit_register_tools raised ValueError: bad"),
        ("from agentkit.plugin_api import hookimpl, Tool\n@hookimpl\ndef agentkit_register_tools(register):\n"
         "    register(Tool('bad name!', 'd', {'type': 'object'}, print))", "tool name 'bad name!' is invalid"),
        ("from agentkit.plugin_api import hookimpl, Tool\n@hookimpl\ndef agentkit_register_tools(register):\n"
         "    register(Tool('t', 'd', {'type': 'object', 'properties': 3}, print))", "not valid JSON Schema"),
    ],
)
def test_a_broken_plugin_is_reported_and_the_others_still_load(site_dir, source, reason):
    install_tool_plugin(site_dir, "broken-plugin", "brokenplugin", source=source)
    install_tool_plugin(site_dir, "good-plugin", "goodplugin")
    host = discover()
    broken = host.records["brokenplugin"]
    assert broken.status == "failed"
    assert reason in broken.reason
    assert host.records["goodplugin"].status == "loaded"
    assert "good_tool" in host.tools


def test_an_incompatible_plugin_api_range_is_refused_before_import(site_dir, tmp_path):
    marker = tmp_path / "imported"
    source = f"open({str(marker)!r}, 'w').close()\n" + GOOD_TOOL.format(name="t")
    install_tool_plugin(site_dir, "old-plugin", "oldplugin", requires=["agentkit-plugin-api<0.1"], source=source)
    record = discover().records["oldplugin"]
    assert record.status == "failed"
    assert "requires agentkit-plugin-api<0.1" in record.reason
    assert not marker.exists(), "the plugin was imported"


@pytest.mark.parametrize("bound", [">=" + "1" * 5000, ">=0.1,<" + "9" * 5000, "~=" + "1" * 5000 + ".0"])
def test_a_range_of_versions_too_long_to_compare_fails_that_plugin_alone(site_dir, tmp_path, bound):
    """Python refuses to read an integer of over 4300 digits; such a range in a plugin's metadata fails that
    plugin, with the way out, and neither stops discovery nor imports the plugin."""
    marker = tmp_path / "imported"
    source = f"open({str(marker)!r}, 'w').close()\n" + GOOD_TOOL.format(name="t")
    install_tool_plugin(site_dir, "long-plugin", "longplugin", requires=[f"agentkit-plugin-api{bound}"],
                        source=source)
    install_tool_plugin(site_dir, "good-plugin", "goodplugin")
    host = discover()
    record = host.records["longplugin"]
    assert record.status == "failed" and not marker.exists()
    assert "agentkit-plugin-api range has a version too long to compare" in record.reason
    assert len(record.reason) < 400
    assert host.records["goodplugin"].status == "loaded"


def test_a_missing_plugin_api_requirement_is_a_warning(site_dir):
    install_tool_plugin(site_dir, "loose-plugin", "looseplugin", requires=[])
    record = discover().records["looseplugin"]
    assert record.status == "loaded" and "agentkit-plugin-api" in record.warnings[0]


def test_two_plugins_registering_the_same_tool_is_served_by_neither_never_renamed(site_dir):
    install_tool_plugin(site_dir, "first-plugin", "aplugin", tool="shared")
    install_tool_plugin(site_dir, "second-plugin", "bplugin", tool="shared")
    host = discover()
    for name, other in (("aplugin", "bplugin"), ("bplugin", "aplugin")):
        record = host.records[name]
        assert record.status == "loaded" and f"tool 'shared' is also registered by plugin {other!r}" in record.collisions[0]
    assert not [name for name in host.tools if name.startswith("shared")]


def test_disable_and_allow_lists(site_dir):
    install_tool_plugin(site_dir, "first-plugin", "aplugin", tool="a")
    install_tool_plugin(site_dir, "second-plugin", "bplugin", tool="b")
    host = discover(AGENTKIT_DISABLE_PLUGINS="aplugin")
    assert host.records["aplugin"].status == "disabled" and "a" not in host.tools and "b" in host.tools
    host = discover(AGENTKIT_LOAD_PLUGINS="second-plugin")  # a distribution name works too
    assert host.records["aplugin"].status == "disabled" and host.records["bplugin"].status == "loaded"


def test_the_builtin_scripted_provider_is_found_through_its_entry_point():
    host = discover()
    record = host.records["faux"]
    assert record.status == "loaded" and record.distribution == "agentkit-provider-faux"
    assert host.resolve_model("faux/scripted").api == "faux"


def test_an_unknown_model_of_a_known_vendor_takes_its_default_rows_limits(caplog):
    host = discover()
    row = host.resolve_model("faux/newer-model")
    assert row.id == "newer-model" and row.max_output == host.resolve_model("faux/scripted").max_output
    assert "in no model family the catalog knows" in caplog.text


@pytest.mark.parametrize(
    ("source", "line", "words"),
    [
        ("'''A plugin.'''\n\ndef broken(:\n    pass\n", 3, "SyntaxError: invalid syntax"),
        ("import os\nimport no_such_module_anywhere\n", 2, "ModuleNotFoundError"),
        ("x = 1\nfrom . import nothing\n", 2, "ImportError"),
    ],
)
def test_an_import_failure_names_the_plugins_own_file_and_line(site_dir, source, line, words):
    install_tool_plugin(site_dir, "broken-plugin", "brokenplugin", source=source)
    reason = discover().records["brokenplugin"].reason
    assert f"{site_dir.site / 'brokenplugin.py'}:{line})" in reason and words in reason
    assert "<frozen" not in reason


def test_tool_run_names_the_failed_plugin_that_provides_the_tool(site_dir, monkeypatch, capsys, tmp_path):
    from agentkit.host.cli import main

    source = ("from agentkit.plugin_api import Tool, hookimpl\n@hookimpl\ndef agentkit_register_tools(register):\n"
              "    register(Tool('typo', 'A tool.', {'type': 'object', 'properties': {'n': {'type': 'integr'}}}, print))\n")
    install_tool_plugin(site_dir, "typo-plugin", "typoplugin", source=source)
    monkeypatch.setenv("AGENTKIT_LOAD_PLUGINS", "typoplugin")
    assert main(["tool", "run", "typo", "--root", str(tmp_path)]) == 2
    error = capsys.readouterr().err
    assert "tool 'typo' is provided by plugin 'typoplugin', which failed:" in error
    assert "not valid JSON Schema" in error and "no tool named" not in error
    assert main(["tool", "run", "nothing", "--root", str(tmp_path)]) == 2
    assert "no tool named 'nothing'" in capsys.readouterr().err


SKILL = """
from agentkit.plugin_api import Skill, hookimpl

@hookimpl
def agentkit_register_skills(register):
    register(Skill("x_skill", "A skill.", "Do it."))
"""


def test_plugin_names_are_unique_per_category_not_across_categories(site_dir):
    install_tool_plugin(site_dir, "agentkit-tools-x", "agentkit_tools_x", tool="x_tool")
    site_dir("agentkit-skills-x", entry_points={"agentkit.skills": {"x": "agentkit_skills_x"}},
             requires=["agentkit-plugin-api>=0.1,<0.2"], files={"agentkit_skills_x.py": SKILL})
    # the tools distribution declares its entry point as "x" too
    info = site_dir.site / "agentkit_tools_x-0.1.0.dist-info" / "entry_points.txt"
    info.write_text("[agentkit.tools]\nx = agentkit_tools_x\n")
    host = discover()
    tools, skills = host.records["x[tools]"], host.records["x[skills]"]
    assert (tools.status, skills.status) == ("loaded", "loaded"), (tools.reason, skills.reason)
    assert (tools.distribution, skills.distribution) == ("agentkit-tools-x", "agentkit-skills-x")
    assert host.plugin_of("tool", "x_tool") == "x[tools]" and host.plugin_of("skill", "x_skill") == "x[skills]"
    assert discover(AGENTKIT_DISABLE_PLUGINS="x[tools]").records["x[skills]"].status == "loaded"
    only_skills = discover(AGENTKIT_DISABLE_PLUGINS="agentkit-tools-x")
    assert only_skills.records["x[tools]"].status == "disabled" and "x_skill" in only_skills.skills


def test_one_name_twice_in_one_category_fails_both_whichever_is_found_first(site_dir):
    install_tool_plugin(site_dir, "first-dist", "first_module", tool="a")
    install_tool_plugin(site_dir, "second-dist", "second_module", tool="b")
    for dist in ("first_dist", "second_dist"):
        module = "first_module" if dist == "first_dist" else "second_module"
        (site_dir.site / f"{dist}-0.1.0.dist-info" / "entry_points.txt").write_text(f"[agentkit.tools]\nsame = {module}\n")
    host = discover()
    record = host.records["same"]
    assert record.status == "failed" and "first_module" in record.reason and "second_module" in record.reason
    assert "a" not in host.tools and "b" not in host.tools
    settled = discover(AGENTKIT_DISABLE_PLUGINS="second-dist")
    assert settled.records["same"].status == "loaded" and "a" in settled.tools and "b" not in settled.tools


def test_the_host_knows_every_hook_pluggy_finds_in_the_plugin_apis_specs_and_an_embedders_own():
    """The host skips the plugin API's names without the ``agentkit_`` prefix when it reads the hookspecs:
    it must find what pluggy finds reading every name, with the same options, and read any other specs whole."""
    import pluggy

    from agentkit.plugin_api import PROJECT_NAME
    from agentkit.plugin_api.hookspecs import CATEGORIES

    plain = pluggy.PluginManager(PROJECT_NAME)
    for module in CATEGORIES.values():
        plain.add_hookspecs(module)
    host = PluginHost()

    def specs(pm):
        return {name: (caller.spec.opts, caller.spec.argnames) for name, caller in vars(pm.hook).items()
                if getattr(caller, "spec", None) is not None}

    assert specs(host.pm) == specs(plain) and len(specs(plain)) >= 11

    class Extra:
        """An embedder's own spec, named without the prefix."""

        @pluggy.HookspecMarker(PROJECT_NAME)
        def on_deploy(self, where: str) -> None:
            """Called on a deploy."""

    host.pm.add_hookspecs(Extra)
    assert "on_deploy" in specs(host.pm)


def test_the_host_finds_every_hookimpl_pluggy_finds_in_a_plugin_of_any_shape():
    """The host reads an instance's names from its class's MRO, and skips the names a class inherits unchanged
    from ``object``, when it reads the hookimpls: whatever the plugin's shape, it must find what pluggy finds
    reading every name statically, with the same options."""
    import functools
    import types

    import pluggy

    from agentkit.plugin_api import PROJECT_NAME, hookimpl
    from agentkit.plugin_api.hookspecs import CATEGORIES

    class Plain:
        @hookimpl
        def agentkit_register_tools(self, register):
            pass

    class Renamed:
        """Hooks under object's own names, bound to specs by ``specname``: defined here, so read."""

        @hookimpl(specname="agentkit_register_tools")
        def __repr__(self, register):
            return "renamed"

        @hookimpl(specname="agentkit_register_providers", tryfirst=True)
        def __sizeof__(self, register):
            return 0

    class Base:
        @hookimpl(specname="agentkit_register_skills")
        def __format__(self, register):
            return ""

    class Inherits(Base):
        __slots__ = ()

    class Guarded:
        def __getattr__(self, name):
            raise AssertionError(f"looked up {name} through __getattr__")

        @property
        def agentkit_register_tools(self):
            raise AssertionError("ran a property")

    class UnderClassNames:
        """Hooks under the names every class statement fills (``__doc__``, ``__module__``...): defined here, so read."""

        __slots__ = ("__weakref__", "held")

        @hookimpl(specname="agentkit_register_tools")
        def __module__(self, register):
            return None

    class Documented:
        """A docstring, a module name, ``__dict__`` and ``__weakref__``: none a hook."""

    class DocumentedBelow(Documented):
        @hookimpl(specname="agentkit_register_providers")
        def __doc__(self, register):
            return None

    class Meta(type):
        """A metaclass of the plugin's own."""

    class Wrapped(metaclass=Meta):
        """Static and class methods, a partial and a property held by a class of another metaclass."""

        @staticmethod
        @hookimpl
        def agentkit_register_tools(register):
            pass

        @hookimpl
        @classmethod
        def agentkit_register_providers(cls, register):
            pass

        agentkit_register_skills = functools.partial(hookimpl(lambda register: None))

        @property
        def agentkit_session_start(self):
            raise AssertionError("ran a property")

    class WrappedPlainly:
        """The same under a plain metaclass; a bound method held by the class."""

        agentkit_register_tools = vars(Wrapped)["agentkit_register_tools"]
        agentkit_register_providers = Wrapped.agentkit_register_providers
        agentkit_register_skills = vars(Wrapped)["agentkit_register_skills"]
        agentkit_session_start = vars(Wrapped)["agentkit_session_start"]

    in_a_slot = UnderClassNames()
    in_a_slot.held = hookimpl(specname="agentkit_register_skills")(lambda register: None)
    on_the_instance = Plain()
    on_the_instance.__dict__["__str__"] = hookimpl(specname="agentkit_register_skills")(lambda register: None)
    doc_on_the_instance = Documented()
    doc_on_the_instance.__dict__["__doc__"] = hookimpl(specname="agentkit_register_tools")(lambda register: None)
    module = types.ModuleType("plugin_module")
    exec("from agentkit.plugin_api import hookimpl\n"
         "@hookimpl(specname='agentkit_register_tools')\n"
         "def __init__(register): pass\n", module.__dict__)

    def hookimpls(pm, plugin):
        pm.register(plugin, name="p")
        return sorted((name, impl.function.__name__, repr(sorted(impl.opts.items())))
                      for name, caller in vars(pm.hook).items() if isinstance(caller, pluggy.HookCaller)
                      for impl in caller.get_hookimpls())

    for plugin in (Plain(), Renamed(), Renamed, Inherits(), Inherits, Guarded(), on_the_instance, module,
                   UnderClassNames(), in_a_slot, Documented(), DocumentedBelow(), doc_on_the_instance,
                   Wrapped(), WrappedPlainly()):
        plain = pluggy.PluginManager(PROJECT_NAME)
        for spec_module in CATEGORIES.values():
            plain.add_hookspecs(spec_module)
        found = hookimpls(PluginHost().pm, plugin)
        assert found == hookimpls(plain, plugin), plugin
    assert len(hookimpls(PluginHost().pm, Renamed())) == 2
    assert len(hookimpls(PluginHost().pm, on_the_instance)) == 2
    assert len(hookimpls(PluginHost().pm, UnderClassNames())) == 1
    assert len(hookimpls(PluginHost().pm, DocumentedBelow())) == 1
    assert len(hookimpls(PluginHost().pm, doc_on_the_instance)) == 1
    assert len(hookimpls(PluginHost().pm, WrappedPlainly())) == 1  # the static method; pluggy reads no partial


@pytest.mark.parametrize(
    ("name", "served"),
    [("count", True), ("a", True), ("get-weather_2", True), ("x" * 64, True), ("x" * 65, False), ("", False),
     ("café", False), ("two words", False), ("dotted.name", False), ("٣", False)],
)
def test_a_tool_name_is_one_to_sixty_four_ascii_letters_digits_underscores_or_dashes(name, served):
    class Tools:
        @hookimpl
        def agentkit_register_tools(self, register):
            register(Tool(name, "A tool.", {"type": "object"}, print))

    host = PluginHost()
    record = host.register(Tools(), name="tools")
    assert (name in host.tools) is served
    assert (record.status, record.reason and f"tool name {name!r} is invalid" in record.reason) == (
        ("loaded", None) if served else ("failed", True))
