"""Skill folders in both formats, read into :class:`~agentkit.plugin_api.Skill` values.

- ``skill.toml`` + ``prompt.md``: a ``[skill]`` table (``name``, ``description``,
  ``version``, ``author``, ``sdk_min_version``, ``disable_model_invocation``)
  and ``[skill.tools]`` (``enable``: installed tools to turn on, ``overrides``);
  the instructions are ``prompt.md`` beside it.
- ``SKILL.md``: front matter (``name``, ``description``, and optionally
  ``version``, ``author``, ``min-api-version``, ``disable-model-invocation``,
  ``tools``, ``metadata``), then the instructions.

Manifests are lenient: an unknown key is a warning; a missing name or
description, or missing instructions, rejects the folder with the file and the fix.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from agentkit.plugin_api import Skill

from ._frontmatter import FrontMatterError, split_front_matter

__all__ = ["MANIFESTS", "SkillRejected", "read_skill_folder"]

#: The files that make a folder a skill, in the order they are looked for.
MANIFESTS = ("SKILL.md", "skill.toml")

_TOML_KEYS = {"name", "description", "version", "author", "sdk_min_version", "min_api_version",
              "disable_model_invocation", "tools"}
_TOML_TOOL_KEYS = {"enable", "overrides"}
_MD_KEYS = {"name", "description", "version", "author", "min-api-version", "min_api_version",
            "disable-model-invocation", "disable_model_invocation", "tools", "overrides", "metadata",
            "license", "compatibility", "allowed-tools"}
_MD_METADATA_KEYS = {"version", "author"}


class SkillRejected(ValueError):
    """A skill that cannot be used; the message names the file and the fix."""


def read_skill_folder(folder: Path) -> tuple[Skill, list[str]]:
    """The skill in ``folder`` and the warnings its manifest raised.

    :raises SkillRejected: no manifest, both manifests, or one that cannot be used.
    """
    present = [name for name in MANIFESTS if (folder / name).is_file()]
    if not present:
        raise SkillRejected(f"{folder}: no SKILL.md or skill.toml; add one or remove the folder")
    if len(present) == 2:
        raise SkillRejected(f"{folder}: has both SKILL.md and skill.toml; keep one")
    manifest = folder / present[0]
    try:
        text = manifest.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise SkillRejected(f"{manifest}: cannot be read ({exc})") from exc
    if manifest.name == "SKILL.md":
        return _from_skill_md(manifest, text)
    return _from_skill_toml(manifest, text)


def _from_skill_md(manifest: Path, text: str) -> tuple[Skill, list[str]]:
    try:
        data, body = split_front_matter(text)
    except FrontMatterError as exc:
        raise SkillRejected(f"{manifest}: {exc}; start the file with '---', 'name: ...', "
                            "'description: ...', '---', then the instructions") from exc
    warnings = [f"{manifest}: unknown key {key!r} ignored" for key in data if key not in _MD_KEYS]
    metadata = data.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise SkillRejected(f"{manifest}: 'metadata' must be a map of 'key: value' lines")
    warnings += [f"{manifest}: unknown metadata key {key!r} ignored" for key in metadata
                 if key not in _MD_METADATA_KEYS]
    if not body.strip():
        raise SkillRejected(f"{manifest}: has no instructions; write them after the closing '---'")
    invocation = data.get("disable-model-invocation", data.get("disable_model_invocation", False))
    return _skill(
        manifest, data,
        path=manifest,
        tools=data.get("tools", []),
        overrides=data.get("overrides", []),
        version=data.get("version", metadata.get("version")),
        author=data.get("author", metadata.get("author")),
        min_api_version=data.get("min-api-version", data.get("min_api_version")),
        disable=invocation,
        fix_name="add 'name: <skill-name>' to the front matter",
        fix_description="add 'description: <when to use it>' to the front matter",
    ), warnings


def _from_skill_toml(manifest: Path, text: str) -> tuple[Skill, list[str]]:
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SkillRejected(f"{manifest}: not valid TOML ({exc})") from exc
    table = document.get("skill")
    if not isinstance(table, dict):
        raise SkillRejected(f"{manifest}: has no [skill] table; put name and description under [skill]")
    warnings = [f"{manifest}: unknown table or key {key!r} ignored" for key in document if key != "skill"]
    warnings += [f"{manifest}: unknown key 'skill.{key}' ignored" for key in table if key not in _TOML_KEYS]
    tools = table.get("tools", {})
    if not isinstance(tools, dict):
        raise SkillRejected(f"{manifest}: [skill.tools] must be a table with 'enable' and 'overrides'")
    warnings += [f"{manifest}: unknown key 'skill.tools.{key}' ignored" for key in tools
                 if key not in _TOML_TOOL_KEYS]
    prompt = manifest.parent / "prompt.md"
    if not prompt.is_file():
        raise SkillRejected(f"{manifest}: the instructions file {prompt} is missing; write the "
                            "instructions in prompt.md beside skill.toml")
    return _skill(
        manifest, table,
        path=prompt,
        tools=tools.get("enable", []),
        overrides=tools.get("overrides", []),
        version=table.get("version"),
        author=table.get("author"),
        min_api_version=table.get("sdk_min_version", table.get("min_api_version")),
        disable=table.get("disable_model_invocation", False),
        fix_name="add name = \"<skill-name>\" under [skill]",
        fix_description="add description = \"<when to use it>\" under [skill]",
    ), warnings


def _skill(manifest: Path, data: dict[str, Any], *, path: Path, tools: Any, overrides: Any, version: Any,
           author: Any, min_api_version: Any, disable: Any, fix_name: str, fix_description: str) -> Skill:
    name, description = data.get("name"), data.get("description")
    if not isinstance(name, str) or not name.strip():
        raise SkillRejected(f"{manifest}: the skill has no name; {fix_name}")
    if not isinstance(description, str) or not description.strip():
        raise SkillRejected(f"{manifest}: skill {name!r} has no description; {fix_description}")
    for label, value in (("tools", tools), ("overrides", overrides)):
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise SkillRejected(f"{manifest}: {label} must be a list of tool names")
    if not isinstance(disable, bool):
        raise SkillRejected(f"{manifest}: disable-model-invocation must be true or false")
    return Skill(
        name=name.strip(),
        description=" ".join(description.split()),
        tools=tuple(tools),
        source=str(manifest),
        path=path.parent.resolve() / path.name,  # a linked file stays under its folder's grant
        overrides=tuple(overrides),
        version=None if version is None else str(version),
        author=None if author is None else str(author),
        min_api_version=None if min_api_version is None else str(min_api_version),
        model_invocable=not disable,
    )
