"""The ``agentkit-plugin-api`` range a plugin's distribution declares, read without ``packaging.requirements``.

A requirement line is parsed by ``packaging.requirements.Requirement`` only when
it may name ``agentkit-plugin-api`` and is not a plain ``name specifiers`` line;
the plain line (what every plugin declares) needs ``packaging.specifiers``
alone, and a line naming another distribution needs nothing. The
requirements module costs about three times the specifiers' (markers, tags,
the tokenizer), for a check the plain line does not use. The result is the
one ``Requirement`` gives: the same lines found, the same ranges, the same
lines skipped as invalid.

The range every plugin declares (``>=0.1,<0.2``: release numbers and the six
plain comparisons) is checked against a plain installed release without
``packaging`` at all (:func:`check`): for release numbers alone, PEP 440's
comparisons are those of the numbers padded with zeros, so the answer is
the one ``SpecifierSet.contains`` gives. Whatever else (``~=``, ``.*``, a
pre-release, a line beyond name and specifiers) and every version out of range,
whose message quotes ``packaging``'s form of the range, goes through
``packaging``.
"""

from __future__ import annotations

import operator
import re
from typing import TYPE_CHECKING

from ._dist_info import canonical

if TYPE_CHECKING:
    from packaging.specifiers import SpecifierSet

PLUGIN_API = "agentkit-plugin-api"

_SPEC = r"(?:~=|==|!=|<=|>=|<|>)\s*[A-Za-z0-9.*+!_-]+"
#: A requirement that is a name and specifiers only: no extras, URL, parentheses, marker or ``===``. Compiled
#: when first needed (by ``re``'s cache): the plain range every plugin declares is read without it.
_PLAIN = rf"\s*(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s*(?P<specifier>(?:{_SPEC}(?:\s*,\s*{_SPEC})*)?)\s*"
#: The characters of a distribution name, as ``_PLAIN`` reads it.
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")


def declared_range(requires: list[str] | None) -> SpecifierSet | None:
    """The specifiers of the first unmarked ``agentkit-plugin-api`` requirement; None when there is none."""
    for line in requires or []:
        if not canonical(line.lstrip()).startswith(PLUGIN_API):
            continue  # names another distribution: Requirement(line).name could not be ours
        plain = re.fullmatch(_PLAIN, line)
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


#: The comparisons the check reads without ``packaging``, two-character ones first (``<=`` before ``<``).
_COMPARE = {">=": operator.ge, "<=": operator.le, "==": operator.eq, "!=": operator.ne, ">": operator.gt,
            "<": operator.lt}


def check(requires: list[str] | None) -> tuple[bool, str | None]:
    """Whether ``requires`` declares a plugin API range, and why the installed plugin API is out of it (or None).

    The same answer as ``declared_range(requires) is not None`` and :func:`range_problem`.
    """
    try:
        if _plain_release_in_range(requires):
            return True, None
        return declared_range(requires) is not None, range_problem(requires)
    except ValueError:  # a version number past Python's limit on an integer's digits (4300), here or in packaging
        return True, (f"its {PLUGIN_API} range has a version too long to compare: install a version of the "
                      "plugin built for this agentkit-plugin-api")


def _plain_release_in_range(requires: list[str] | None, installed: str | None = None) -> bool:
    """True when the first line naming the plugin API is a plain range of release numbers that the plain
    release ``installed`` (default: the installed plugin API's) meets; False when that cannot be told without
    ``packaging``, or it is out of range."""
    clauses = _plain_clauses(requires)
    if clauses is None:
        return False
    if not clauses:  # the name alone: any version
        return True
    got = _release(installed if installed is not None else _installed())
    return got is not None and all(_COMPARE[op](*_padded(got, bound)) for op, bound in clauses)


def _installed() -> str:
    # Read from the metadata only now, as range_problem reads it only for a range.
    from agentkit.plugin_api import __version__

    return __version__


def _plain_clauses(requires: list[str] | None) -> list[tuple[str, tuple[int, ...]]] | None:
    """The clauses of the first line naming the plugin API when each is a plain comparison with a release
    number; None when there is no such line or it holds anything else."""
    for line in requires or []:
        if not canonical(line.lstrip()).startswith(PLUGIN_API):
            continue
        text = line.strip()
        end = next((index for index, char in enumerate(text) if char not in _NAME_CHARS), len(text))
        if canonical(text[:end]) != PLUGIN_API:  # a longer name, or one _PLAIN would not read: packaging decides
            return None
        rest = text[end:].strip()
        clauses = [_clause(part) for part in rest.split(",")] if rest else []
        return None if None in clauses else [clause for clause in clauses if clause is not None]
    return None


def _clause(text: str) -> tuple[str, tuple[int, ...]] | None:
    """``(operator, release)`` of one plain clause (``>= 0.1``); None for any other (``~=``, ``.*``, ``===``...)."""
    text = text.strip()
    for op in _COMPARE:
        if text.startswith(op):
            bound = _release(text[len(op):].lstrip())
            return None if bound is None else (op, bound)
    return None


def _release(text: str) -> tuple[int, ...] | None:
    """The numbers of a plain release (``0.1.0``), or None for any other version (``0.1rc1``, ``v1``, ``1!2``)."""
    parts = text.split(".")
    if all(part.isascii() and part.isdigit() for part in parts):
        return tuple(int(part) for part in parts)
    return None


def _padded(got: tuple[int, ...], bound: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Both release numbers padded with zeros to one length: ``1.0`` is ``1.0.0`` (PEP 440)."""
    width = max(len(got), len(bound))
    return got + (0,) * (width - len(got)), bound + (0,) * (width - len(bound))


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
