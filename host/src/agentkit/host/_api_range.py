"""The ``agentkit-plugin-api`` range a plugin's distribution declares, read without ``packaging.requirements``.

A requirement line is parsed by ``packaging.requirements.Requirement`` only when
it may name ``agentkit-plugin-api`` and is not a plain ``name specifiers`` line;
the plain line (what every plugin declares) needs ``packaging.specifiers``
alone, and a line naming another distribution needs nothing. The
requirements module costs about three times the specifiers' (markers, tags,
the tokenizer), for a check the plain line does not use. The result is the
one ``Requirement`` gives: the same lines found, the same ranges, the same
lines skipped as invalid.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ._dist_info import canonical

if TYPE_CHECKING:
    from packaging.specifiers import SpecifierSet

PLUGIN_API = "agentkit-plugin-api"

_SPEC = r"(?:~=|==|!=|<=|>=|<|>)\s*[A-Za-z0-9.*+!_-]+"
#: A requirement that is a name and specifiers only: no extras, URL, parentheses, marker or ``===``.
_PLAIN = re.compile(rf"\s*(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s*(?P<specifier>(?:{_SPEC}(?:\s*,\s*{_SPEC})*)?)\s*")


def declared_range(requires: list[str] | None) -> SpecifierSet | None:
    """The specifiers of the first unmarked ``agentkit-plugin-api`` requirement; None when there is none."""
    for line in requires or []:
        if not canonical(line.lstrip()).startswith(PLUGIN_API):
            continue  # names another distribution: Requirement(line).name could not be ours
        plain = _PLAIN.fullmatch(line)
        if plain is not None and canonical(plain["name"]) != PLUGIN_API:
            continue
        specifier = _plain_specifier(plain["specifier"]) if plain is not None else None
        if specifier is None:
            specifier = _parsed_specifier(line)
        if specifier is not None:
            return specifier
    return None


def _plain_specifier(text: str) -> SpecifierSet | None:
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        return SpecifierSet(text)
    except InvalidSpecifier:  # Requirement decides: it refuses the line or reads it otherwise
        return None


def _parsed_specifier(line: str) -> SpecifierSet | None:
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        requirement = Requirement(line)
    except InvalidRequirement:
        return None
    if canonical(requirement.name) == PLUGIN_API and not requirement.marker:
        return requirement.specifier
    return None


def range_problem(requires: list[str] | None) -> str | None:
    """Why a plugin declaring ``requires`` cannot load beside the installed plugin API; None when it can."""
    specifier = declared_range(requires)
    if not specifier:  # none declared, or any version
        return None
    # Here, not at the top: the version is read from the metadata, which a host given its plugins never reads.
    from agentkit.plugin_api import __version__ as installed

    if specifier.contains(installed, prereleases=True):
        return None
    return (
        f"requires {PLUGIN_API}{specifier} but {installed} is installed: "
        "install a version of the plugin built for this agentkit-plugin-api"
    )
