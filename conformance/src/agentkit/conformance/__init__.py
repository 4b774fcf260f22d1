"""agentkit.conformance: does a plugin keep the agentkit plugin contract?

Checks per category, run against the plugin loaded by the host's own loader
(see ``docs/plugins.md``, "Testing a plugin"):

* every plugin: it loads, implements a hook of each category it is
  registered under with a valid signature, declares an ``agentkit-plugin-api``
  range that admits the installed version, collides with no other plugin, and
  keeps to ``agentkit.plugin_api`` (the import lint, :mod:`agentkit.lint`);
* tools: name, description, a schema every wire can send
  (:mod:`agentkit.conformance.schema_rules`), a result (never an escaped
  exception) for a valid and an invalid call through the host's batch, the
  same registration whatever ``sys.platform`` says;
* providers: the shared fixtures (:mod:`agentkit.conformance.fixtures`)
  encode and decode back to the same canonical messages, streaming and whole
  responses agreeing byte for byte on tool-call arguments;
* hooks: a before-tool-call hook can only narrow, and fails closed;
* skills: each skill has a name, a description and instructions.

Public API::

    check_plugin(name) -> PluginReport          # in this process
    validate(targets, jobs=, on_report=) -> list[PluginReport]  # each plugin in its own process
    installed_targets(names) / path_targets(dir) -> list[Target]
    format_reports(reports) -> str              # = each summary_line, then format_summary
    cpu_count() -> int                          # validate's default jobs
    PluginReport, Check

The pytest plugin (``agentkit.conformance.pytest_plugin``, registered under
``pytest11``) gives plugin authors the same checks in their own test suite.
"""

from ._checks import check_plugin
from ._report import Check, PluginReport, format_reports, format_summary, summary_line
from .validate import Target, cpu_count, installed_targets, path_targets, validate

__all__ = [
    "Check",
    "PluginReport",
    "Target",
    "check_plugin",
    "cpu_count",
    "format_reports",
    "format_summary",
    "installed_targets",
    "path_targets",
    "summary_line",
    "validate",
]
