"""The plugin API range read from a distribution's requirements is the one ``packaging.requirements`` reads.

The plugin host parses a plain ``name specifiers`` line with
``packaging.specifiers`` alone and hands every other line that may name
``agentkit-plugin-api`` to ``Requirement``; the lines below, each alone and all
together, must give what ``Requirement`` gives: the first valid, unmarked
requirement on the plugin API, its specifiers, or none.
"""

from __future__ import annotations

import pytest
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from agentkit.host._api_range import _plain_release_in_range, check, declared_range, range_problem

LINES = [
    "agentkit-plugin-api>=0.1,<0.2",
    "agentkit-plugin-api >= 0.1 , < 0.2",
    "agentkit_plugin_api>=0.1",
    "Agentkit.Plugin.API~=0.1.0",
    "agentkit-plugin-api",
    "agentkit-plugin-api ",
    "  agentkit-plugin-api==0.1.*",
    "agentkit-plugin-api>=0.1,",
    "agentkit-plugin-api>=0.1,,<2",
    "agentkit-plugin-api>=0.1 <2",
    "agentkit-plugin-api (>=0.1,<0.2)",
    "agentkit-plugin-api[extra]>=0.1",
    "agentkit-plugin-api>=0.1; python_version >= '3.11'",
    "agentkit-plugin-api @ https://example.invalid/a.whl",
    "agentkit-plugin-api===0.1.0",
    "agentkit-plugin-api===0.1,<2",
    "agentkit-plugin-api==0.1.*.1",
    "agentkit-plugin-api>=not a version",
    "agentkit-plugin-api-extra>=1",
    "agentkit-plugin-api.>=1",
    "agentkit_plugin_api_>=1",
    "agentkit-plugin-api!=0.1.post1.dev2+local",
    "agentkit-plugin-apix>=1",
    "mcp<3,>=2.3",
    "agentkit-plugin-api<0.1",
    "not a requirement at all",
    "",
]


def reference(requires: list[str]) -> str | None:
    for line in requires:
        try:
            requirement = Requirement(line)
        except InvalidRequirement:
            continue
        if canonicalize_name(requirement.name) == "agentkit-plugin-api" and not requirement.marker:
            return str(requirement.specifier)
    return None


def found(requires: list[str]) -> str | None:
    specifier = declared_range(requires)
    return None if specifier is None else str(specifier)


@pytest.mark.parametrize("line", LINES)
def test_each_requirement_line_gives_the_range_packaging_reads(line):
    assert found([line]) == reference([line])


def test_the_first_valid_unmarked_line_wins_as_with_packaging():
    for start in range(len(LINES)):
        requires = LINES[start:] + LINES[:start]
        assert found(requires) == reference(requires), requires


def test_no_requirements_declare_no_range():
    assert declared_range(None) is None
    assert declared_range([]) is None


# -- the check without packaging ------------------------------------------------------------------

#: Release numbers of different lengths, to meet every padding: ``0.1`` is ``0.1.0`` is ``0.1.0.0``.
RELEASES = ["0", "0.0.9", "0.1", "0.1.0", "0.1.0.0", "0.1.1", "0.2", "0.10.0", "1", "1.0.0", "01.0"]
OPERATORS = [">=", "<=", ">", "<", "==", "!="]
#: Plain ranges: one clause of each operator and release, and the two-clause ranges plugins declare.
PLAIN_RANGES = [f"agentkit-plugin-api{op}{release}" for op in OPERATORS for release in RELEASES] + [
    "agentkit-plugin-api>=0.1,<0.2", "agentkit_plugin_api >= 0.1 , < 0.2", "Agentkit.Plugin.API>0,!=0.1,<=1",
    "agentkit-plugin-api",
]


def contains(requires: list[str], installed: str) -> bool:
    specifier = declared_range(requires)
    return specifier is None or specifier.contains(installed, prereleases=True)


@pytest.mark.parametrize("installed", RELEASES)
def test_a_plain_range_of_release_numbers_is_met_exactly_when_packaging_says_so(installed):
    for line in PLAIN_RANGES:
        assert _plain_release_in_range([line], installed) == contains([line], installed), (line, installed)


@pytest.mark.parametrize("installed", [*RELEASES, "0.1.0rc1", "0.1.0.post1", "0.1.0+local", "v0.1.0", "1!0.1"])
def test_the_check_says_in_range_only_where_packaging_does(installed):
    for start in range(len(LINES)):
        requires = LINES[start:] + LINES[:start]
        if _plain_release_in_range(requires, installed):
            assert declared_range(requires) is not None and contains(requires, installed), (requires, installed)


def test_the_check_gives_what_the_range_and_its_problem_give():
    for requires in [None, [], *([line] for line in LINES + PLAIN_RANGES)]:
        assert check(requires) == (declared_range(requires) is not None, range_problem(requires)), requires


def test_the_installed_version_is_read_only_for_a_range(monkeypatch):
    import agentkit.plugin_api as api

    monkeypatch.delitem(vars(api), "__version__", raising=False)
    monkeypatch.setattr(api, "_version", lambda: pytest.fail("the installed version was read"))
    assert check(None) == (False, None)
    assert check(["mcp>=1", "agentkit-plugin-api"]) == (True, None)
