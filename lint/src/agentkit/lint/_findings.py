"""What the lint reports: one :class:`Finding` per problem, one :class:`LintReport` per plugin."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Severity = Literal["error", "warning"]

#: Finding kinds, each with the severity it always carries.
KINDS: dict[str, Severity] = {
    # imports something of agentkit other than the public agentkit.plugin_api
    "forbidden-import": "error",
    # imports a third-party module no requirement of the distribution provides
    "undeclared-dependency": "error",
    # a relative import that resolves outside the plugin's own package
    "relative-import-escape": "error",
    # importlib.import_module / __import__ with a name only known at run time
    "unverifiable-import": "warning",
    # a source file that does not parse: its imports are unknown, never "clean"
    "syntax-error": "error",
    # a file that could not be read at all (permissions, undecodable bytes)
    "unreadable-file": "error",
    # a plugin whose distribution yields no Python source to read
    "no-source": "error",
    # an allowance that excused nothing: stale allowances hide future breakage
    "unused-allowance": "error",
}

#: The kinds that mean a file or the whole plugin was not linted at all.
COULD_NOT_LINT_KINDS = frozenset({"syntax-error", "unreadable-file", "no-source"})


@dataclass(frozen=True)
class Finding:
    """One problem found in one plugin.

    :param kind: one of :data:`KINDS`, e.g. ``"forbidden-import"``.
    :param module: the importing module (``"my_plugin.tools"``); for a finding about the
        plugin as a whole (no source, unused allowance) the distribution name.
    :param imported: the module imported, as written after resolving relative imports;
        ``"<dynamic>"`` for an unverifiable import, the allowance for an unused allowance.
    :param file: the file, relative to the plugin's source root or project directory.
    :param line: 1-based line in ``file``; 0 when no line applies.
    :param severity: ``"error"`` breaks the plugin, ``"warning"`` is reported but kept.
    :param message: what is wrong and how to fix it.
    """

    kind: str
    module: str
    imported: str
    file: str
    line: int
    severity: Severity
    message: str

    def location(self) -> str:
        """``file:line``, or just ``file`` when no line applies."""
        return f"{self.file}:{self.line}" if self.line else self.file

    def to_dict(self) -> dict[str, Any]:
        """The finding as JSON-ready data."""
        return asdict(self)


def finding(kind: str, module: str, imported: str, file: str, line: int, message: str) -> Finding:
    """Build a finding whose severity follows from its kind (see :data:`KINDS`)."""
    return Finding(kind, module, imported, file, line, KINDS[kind], message)


@dataclass
class LintReport:
    """The lint's verdict on one plugin.

    :param plugin: the distribution name (or the directory name when none is declared).
    :param version: the distribution version, ``None`` when unknown (a dynamic version in a
        source directory).
    :param findings: every finding, errors and warnings, in file then line order.
    :param source: where the source was read from (a directory or a site-packages path).
    :param files: the number of source files read.
    :param imports: the number of import statements and calls seen.
    """

    plugin: str
    version: str | None
    findings: list[Finding] = field(default_factory=list)
    source: str = ""
    files: int = 0
    imports: int = 0

    @property
    def ok(self) -> bool:
        """True when there is no error-level finding (warnings keep a plugin)."""
        return not any(f.severity == "error" for f in self.findings)

    @property
    def errors(self) -> list[Finding]:
        """The error-level findings."""
        return [f for f in self.findings if f.severity == "error"]

    @property
    def warnings(self) -> list[Finding]:
        """The warning-level findings."""
        return [f for f in self.findings if f.severity == "warning"]

    @property
    def could_not_lint(self) -> list[Finding]:
        """Findings for files (or a whole plugin) whose imports could not be read.

        They are also in :attr:`findings`, as errors: what was not read is never passed.
        """
        return [f for f in self.findings if f.kind in COULD_NOT_LINT_KINDS]

    @property
    def title(self) -> str:
        """``name version``, the way the report names the plugin."""
        return f"{self.plugin} {self.version}" if self.version else self.plugin

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-ready data (``ok`` and ``could_not_lint`` included)."""
        return {
            "plugin": self.plugin,
            "version": self.version,
            "ok": self.ok,
            "source": self.source,
            "files": self.files,
            "imports": self.imports,
            "findings": [f.to_dict() for f in self.findings],
            "could_not_lint": [f.to_dict() for f in self.could_not_lint],
        }
