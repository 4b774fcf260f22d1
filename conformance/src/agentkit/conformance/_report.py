"""What the conformance suite reports: one :class:`Check` per verdict, one :class:`PluginReport` per plugin."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Outcome = Literal["pass", "fail", "warn", "skip"]


@dataclass(frozen=True)
class Check:
    """The verdict of one check on one plugin.

    :param check: the check's name, ``area.what`` (``tools.schema``, ``hooks.narrow``).
    :param outcome: ``pass``; ``fail`` breaks the plugin; ``warn`` is reported and
        kept; ``skip`` says a check could not apply (why is in ``message``).
    :param message: what was found.
    :param fix: how to fix it (empty for a pass).
    :param subject: the tool, provider, skill or hook the check was about.
    """

    check: str
    outcome: Outcome
    message: str = ""
    fix: str = ""
    subject: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Check:
        return cls(**{key: data[key] for key in cls.__dataclass_fields__ if key in data})


def passed(check: str, message: str = "", subject: str | None = None) -> Check:
    return Check(check, "pass", message, "", subject)


def failed(check: str, message: str, fix: str, subject: str | None = None) -> Check:
    return Check(check, "fail", message, fix, subject)


def warned(check: str, message: str, fix: str = "", subject: str | None = None) -> Check:
    return Check(check, "warn", message, fix, subject)


def skipped(check: str, message: str, subject: str | None = None) -> Check:
    return Check(check, "skip", message, "", subject)


@dataclass
class PluginReport:
    """Lint and conformance verdicts on one plugin (one entry-point name).

    :param name: the entry-point name (``files``).
    :param distribution: the distribution that declares it (``agentkit-tools-files``).
    :param categories: the entry-point groups it is found under, without ``agentkit.``.
    :param checks: every verdict, lint findings included (as ``lint`` checks).
    """

    name: str
    distribution: str | None = None
    version: str | None = None
    categories: list[str] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures

    @property
    def failures(self) -> list[Check]:
        return [check for check in self.checks if check.outcome == "fail"]

    @property
    def warnings(self) -> list[Check]:
        return [check for check in self.checks if check.outcome == "warn"]

    @property
    def title(self) -> str:
        """``distribution version``, how the report names the plugin."""
        return f"{self.distribution or self.name} {self.version or ''}".strip()

    def add(self, *checks: Check) -> None:
        self.checks.extend(checks)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "distribution": self.distribution,
            "version": self.version,
            "categories": list(self.categories),
            "result": "PASS" if self.ok else "FAIL",
            "warnings": len(self.warnings),
            "checks": [check.to_dict() for check in self.checks],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PluginReport:
        return cls(
            name=data["name"],
            distribution=data.get("distribution"),
            version=data.get("version"),
            categories=list(data.get("categories", [])),
            checks=[Check.from_dict(item) for item in data.get("checks", [])],
        )


def summary_line(report: PluginReport) -> str:
    """``<distribution> <version> [category] PASS|FAIL (n warnings)``."""
    verdict = "PASS" if report.ok else "FAIL"
    return f"{report.title} [{', '.join(report.categories)}] {verdict} ({len(report.warnings)} warnings)"


def format_reports(reports: list[PluginReport]) -> str:
    """The text report: a line per plugin, the summary, then each failure with its fix."""
    return "".join(summary_line(report) + "\n" for report in reports) + format_summary(reports)


def format_summary(reports: list[PluginReport]) -> str:
    """The end of the text report, after the plugins' lines: the counts, then each failure with its fix,
    then each warning."""
    failed_reports = [report for report in reports if not report.ok]
    lines = [f"Plugins: {len(reports) - len(failed_reports)} passed, {len(failed_reports)} failed."]
    for report in failed_reports:
        lines += ["", f"{report.title} ({report.name}): FAIL"]
        for check in report.failures:
            subject = f" [{check.subject}]" if check.subject else ""
            lines.append(f"  - {check.check}{subject}: {check.message}")
            if check.fix:
                lines.append(f"    fix: {check.fix}")
    warned_reports = [report for report in reports if report.warnings]
    for report in warned_reports:
        lines += ["", f"{report.title} ({report.name}): warnings"]
        for check in report.warnings:
            subject = f" [{check.subject}]" if check.subject else ""
            lines.append(f"  - {check.check}{subject}: {check.message}")
            if check.fix:
                lines.append(f"    fix: {check.fix}")
    return "\n".join(lines) + "\n"
