"""The text report, in import-linter's shape.

A banner, one ``KEPT``/``BROKEN`` line per plugin, the summary
``Plugins: N kept, M broken.``, then a section per broken plugin listing each finding
as ``module -> imported (file:line)`` with the fix underneath, and the warnings last.
"""

from __future__ import annotations

from collections.abc import Iterable

from ._findings import COULD_NOT_LINT_KINDS, Finding, LintReport

_HEADINGS = {
    "syntax-error": "Could not lint (a file that does not parse is never passed):",
    "unreadable-file": "Could not lint (a file that cannot be read is never passed):",
    "no-source": "Could not lint (a plugin without source is never passed):",
    "forbidden-import": "Forbidden imports (a plugin imports only agentkit.plugin_api from agentkit):",
    "relative-import-escape": "Relative imports that leave the plugin's package:",
    "undeclared-dependency": "Undeclared dependencies (every third-party import needs a requirement):",
    "unused-allowance": "Unused allowances (an allowance that matches nothing is an error):",
    "unverifiable-import": "Unverifiable imports (names computed at run time):",
}
_ORDER = list(_HEADINGS)


def _underline(text: str, char: str = "-") -> list[str]:
    return [text, char * len(text)]


def _boxed(text: str, char: str) -> list[str]:
    return [char * len(text), text, char * len(text)]


def format_finding(item: Finding) -> str:
    """One finding as report lines: ``-   module -> imported (file:line)`` and the fix."""
    if item.kind in COULD_NOT_LINT_KINDS:
        head = f"-   {item.module} ({item.location()})"
        if item.kind == "no-source" and item.imported:
            head = f"-   {item.module} -> {item.imported} ({item.location()})"
    else:
        head = f"-   {item.module} -> {item.imported} ({item.location()})"
    return f"{head}\n    {item.message}"


def _section(findings: list[Finding]) -> list[str]:
    lines: list[str] = []
    for kind in _ORDER + sorted({f.kind for f in findings} - set(_ORDER)):
        group = [f for f in findings if f.kind == kind]
        if not group:
            continue
        lines += [_HEADINGS.get(kind, f"{kind}:"), ""]
        lines += [format_finding(f) for f in group]
        lines.append("")
    return lines


def format_report(reports: Iterable[LintReport]) -> str:
    """The import-linter style text for ``reports``, ending in a newline."""
    reports = list(reports)
    kept = [r for r in reports if r.ok]
    broken = [r for r in reports if not r.ok]
    files = sum(r.files for r in reports)
    imports = sum(r.imports for r in reports)
    lines = [*_boxed("agentkit lint", "="), ""]
    lines += [*_boxed("Plugins", "-"), ""]
    lines += _underline(f"Analyzed {files} files, {imports} imports.")
    lines.append("")
    for report in reports:
        lines.append(f"{report.title} {'KEPT' if report.ok else 'BROKEN'}")
    lines += ["", f"Plugins: {len(kept)} kept, {len(broken)} broken.", ""]
    if broken:
        lines += ["", *_boxed("Broken plugins", "-"), ""]
        for report in broken:
            lines += [*_underline(report.title), ""]
            lines += _section(report.errors)
    warned = [r for r in reports if r.warnings]
    if warned:
        lines += ["", *_boxed("Warnings", "-"), ""]
        for report in warned:
            lines += [*_underline(report.title), ""]
            lines += _section(report.warnings)
    while lines and lines[-1] == "":
        lines.pop()
    return "\n".join(lines) + "\n"
