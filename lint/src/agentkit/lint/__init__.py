"""agentkit.lint: the import lint for agentkit plugins.

It reads a plugin's source with LibCST and never imports it, so a plugin that fails to
import, or does not build against this version of agentkit, is still linted. It is a
lint, not a sandbox: a plugin runs in the user's process with the user's rights, and
nothing here stops it doing what that allows. See ``docs/lint.md``.

Public API (stable; :mod:`agentkit.host`'s ``validate-plugins`` and the conformance
suite import it lazily)::

    lint_distribution(name, *, allow=()) -> LintReport   # an installed distribution
    lint_path(path, *, allow=()) -> LintReport           # a source or package directory
    format_report(reports) -> str                        # import-linter style text
    LintReport, Finding, KINDS, LintUsageError

From the command line: ``python -m agentkit.lint DIST_OR_PATH ... [--json] [--allow MODULE]``.
"""

from ._errors import LintUsageError
from ._findings import KINDS, Finding, LintReport
from ._lint import lint_distribution, lint_path
from ._report import format_report

__all__ = [
    "KINDS",
    "Finding",
    "LintReport",
    "LintUsageError",
    "format_report",
    "lint_distribution",
    "lint_path",
]
