"""What plugins contributed: tools, providers, skills, attributed and checked.

The registry owns collisions: a second tool, provider (wire API) or skill of
the same name is refused and reported against the plugin that tried, never
renamed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import jsonschema

from agentkit.plugin_api import ModelInfo, Provider, Skill, Tool

TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


class RegistrationError(Exception):
    """A contribution was refused; the message names the problem and the fix."""


@dataclass
class Registry:
    """Tools, providers and skills by name, each with the plugin that registered it."""

    tools: dict[str, Tool] = field(default_factory=dict)
    providers: dict[str, Provider] = field(default_factory=dict)
    skills: dict[str, Skill] = field(default_factory=dict)
    models: dict[str, ModelInfo] = field(default_factory=dict)
    owners: dict[str, str] = field(default_factory=dict)  # "tool:name" -> plugin

    def add_tool(self, plugin: str, tool: Any) -> None:
        if not isinstance(tool, Tool):
            raise RegistrationError(
                f"register() got {type(tool).__name__}, expected agentkit.plugin_api.Tool"
            )
        check_tool(tool)
        self._claim("tool", tool.name, plugin)
        self.tools[tool.name] = tool

    def add_provider(self, plugin: str, provider: Any) -> None:
        api = getattr(provider, "api", None)
        missing = [
            name for name in ("catalog", "encode", "decoder") if not callable(getattr(provider, name, None))
        ]
        if not isinstance(api, str) or not api or missing:
            raise RegistrationError(
                f"register() got {type(provider).__name__}, which is not a provider: it needs an "
                f"'api' name and the methods catalog, encode and decoder (missing: {', '.join(missing) or 'api'})"
            )
        rows = list(provider.catalog())
        for row in rows:
            if not isinstance(row, ModelInfo):
                raise RegistrationError(f"provider {api!r}: catalog rows must be ModelInfo, got {type(row).__name__}")
            if row.api != api:
                raise RegistrationError(f"provider {api!r}: catalog row {row.key!r} names wire {row.api!r}")
            owner = self.owners.get(f"model:{row.key}")
            if owner is not None:
                raise RegistrationError(f"model {row.key!r} is already served by plugin {owner!r}")
        self._claim("provider", api, plugin)
        self.providers[api] = provider
        for row in rows:
            self.owners[f"model:{row.key}"] = plugin
            self.models[row.key] = row

    def add_skill(self, plugin: str, skill: Any) -> None:
        if not isinstance(skill, Skill):
            raise RegistrationError(f"register() got {type(skill).__name__}, expected agentkit.plugin_api.Skill")
        if not skill.name or not skill.description:
            raise RegistrationError("a skill needs a name and a description")
        self._claim("skill", skill.name, plugin)
        self.skills[skill.name] = skill

    def owner(self, kind: str, name: str) -> str | None:
        return self.owners.get(f"{kind}:{name}")

    def _claim(self, kind: str, name: str, plugin: str) -> None:
        key = f"{kind}:{name}"
        owner = self.owners.get(key)
        if owner is not None:
            raise RegistrationError(
                f"{kind} {name!r} is already registered by plugin {owner!r}; "
                f"names are never renamed: uninstall or disable one of the two plugins"
            )
        self.owners[key] = plugin

    def withdraw(self, plugin: str) -> None:
        """Remove everything ``plugin`` contributed (it failed part-way)."""
        for key, owner in list(self.owners.items()):
            if owner != plugin:
                continue
            del self.owners[key]
            kind, name = key.split(":", 1)
            {"tool": self.tools, "provider": self.providers, "skill": self.skills, "model": self.models}[
                kind
            ].pop(name, None)


def check_tool(tool: Tool) -> None:
    """Refuse a tool no provider could send or no loop could call."""
    if not TOOL_NAME.match(tool.name or ""):
        raise RegistrationError(
            f"tool name {tool.name!r} is invalid: use 1-64 letters, digits, '_' or '-'"
        )
    if not (tool.description or "").strip():
        raise RegistrationError(f"tool {tool.name!r} has no description: the model needs one")
    if not callable(tool.handler):
        raise RegistrationError(f"tool {tool.name!r}: handler is not callable")
    schema = tool.input_schema
    if not isinstance(schema, dict) or schema.get("type") != "object":
        raise RegistrationError(
            f"tool {tool.name!r}: input_schema must be a JSON Schema object with \"type\": \"object\""
        )
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise RegistrationError(f"tool {tool.name!r}: input_schema is not valid JSON Schema: {exc.message}") from exc

