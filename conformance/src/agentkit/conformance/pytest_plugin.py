"""The pytest plugin of agentkit-conformance (registered under ``pytest11``).

A plugin author adds ``agentkit-conformance`` to their test dependencies and
gets every lint and conformance check for their plugin, either way:

* the fixture, in a test of their own::

      def test_conformance(agentkit_conformance):
          agentkit_conformance()            # the project this test file belongs to
          agentkit_conformance("wordcount")  # or an installed plugin, by name

  It runs the checks (each plugin in its own process, as ``agentkit
  validate-plugins`` does), fails the test with every failure and its fix,
  and returns the :class:`~agentkit.conformance.PluginReport` list;

* the command-line option ``pytest --agentkit-plugin=NAME`` (repeatable; or
  ``--agentkit-plugin-path=DIR``), which adds one test item per check.

Nothing heavy is imported until one of them is used: this module is loaded
by every pytest run in an environment that has the distribution installed.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("agentkit-conformance", "agentkit plugin conformance")
    group.addoption("--agentkit-plugin", action="append", default=[], metavar="NAME",
                    help="add the lint and conformance checks of the installed agentkit plugin NAME as test items")
    group.addoption("--agentkit-plugin-path", action="append", default=[], metavar="DIR",
                    help="add the checks of the agentkit plugin project in DIR as test items")


def _project_of(start: Path) -> Path:
    for directory in [start, *start.parents]:
        if (directory / "pyproject.toml").is_file():
            return directory
    raise pytest.UsageError(f"no pyproject.toml above {start}: pass a plugin name or path= to agentkit_conformance")


def _run(name: str | None, path: str | Path | None) -> list[Any]:
    import agentkit.conformance as conformance

    targets = conformance.path_targets(path) if path is not None else conformance.installed_targets([name] if name else [])
    return conformance.validate(targets)


@pytest.fixture
def agentkit_conformance(request: pytest.FixtureRequest) -> Callable[..., list[Any]]:
    """``check(name=None, *, path=None)``: run the checks, fail the test on any failure, return the reports.

    With neither argument, the project (``pyproject.toml``) the calling test file belongs to.
    """

    def check(name: str | None = None, *, path: str | Path | None = None) -> list[Any]:
        import agentkit.conformance as conformance

        if name is None and path is None:
            path = _project_of(Path(str(request.path)).parent)
        reports = _run(name, path)
        if not all(report.ok for report in reports):
            pytest.fail(conformance.format_reports(reports), pytrace=False)
        return reports

    return check


class ConformanceItem(pytest.Item):
    """One check of one plugin, as a test item."""

    def __init__(self, *, verdict: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.verdict = verdict

    def runtest(self) -> None:
        verdict = self.verdict
        if verdict.outcome == "skip":
            pytest.skip(verdict.message)
        if verdict.outcome == "fail":
            raise ConformanceFailure(verdict)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, ConformanceFailure):
            verdict = excinfo.value.verdict
            return f"{verdict.check}: {verdict.message}\nfix: {verdict.fix}"
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[str, int | None, str]:
        return "agentkit-conformance", None, self.name


class ConformanceFailure(Exception):
    def __init__(self, verdict: Any) -> None:
        super().__init__(verdict.message)
        self.verdict = verdict


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    names = config.getoption("agentkit_plugin") or []
    paths = config.getoption("agentkit_plugin_path") or []
    if not names and not paths:
        return
    import agentkit.conformance as conformance

    targets = conformance.installed_targets(names) if names else []
    for path in paths:
        targets += conformance.path_targets(path)
    for report in conformance.validate(targets):
        counts: dict[str, int] = {}
        for verdict in report.checks:
            label = f"{report.name}::{verdict.check}" + (f"[{verdict.subject}]" if verdict.subject else "")
            counts[label] = counts.get(label, 0) + 1
            if counts[label] > 1:
                label = f"{label}#{counts[label]}"
            items.append(ConformanceItem.from_parent(session, name=label, nodeid=f"agentkit-conformance::{label}",
                                                     verdict=verdict))
