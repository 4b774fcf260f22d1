"""What plugins contributed: tools, providers, skills and models, attributed and checked.

The registry owns collisions. A name (a tool, a provider's wire API, a
skill, a model key) claimed by two plugins is served by neither, and both
are told, whichever registered first: the outcome never depends on the order
plugins load in, so a newcomer can never take a name from an installed
plugin, nor the other way round. Each plugin's other contributions are
served as usual. Names are never renamed.
"""

from __future__ import annotations

from typing import Any

from agentkit.plugin_api import ModelInfo, Provider, Skill, Tool

from ._schemas import schema_problem

#: What a tool name may hold, 1-64 of them: the strictest wire's rule (OpenAI's ``^[a-zA-Z0-9_-]{1,64}$``).
#: A set rather than that pattern: compiling it at import cost every first use ~0.5 M instructions (callgrind).
TOOL_NAME_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
KINDS = ("tool", "provider", "skill", "model")


class RegistrationError(Exception):
    """A contribution was refused; the message names the problem and the fix."""


class Registry:
    """The served tools, providers, skills and models by name, each with the plugin that registered it.

    ``claims`` holds every contribution, served or not; the four dicts hold
    what is served and are updated in place. A plain class, not a dataclass:
    a host has one, which nothing compares or copies, and declaring it a
    dataclass was 0.4 M instructions of a first use (``bench/_first_use.py``
    under callgrind).
    """

    def __init__(self) -> None:
        self.tools: dict[str, Tool] = {}
        self.providers: dict[str, Provider] = {}
        self.skills: dict[str, Skill] = {}
        self.models: dict[str, ModelInfo] = {}
        self.owners: dict[str, str] = {}  # "tool:name" -> plugin, for what is served
        self.claims: dict[str, dict[str, Any]] = {}  # "tool:name" -> {plugin: object}

    def add_tool(self, plugin: str, tool: Any) -> None:
        if not isinstance(tool, Tool):
            raise RegistrationError(
                f"register() got {type(tool).__name__}, expected agentkit.plugin_api.Tool"
            )
        check_tool(tool)
        self._claim("tool", tool.name, plugin, tool)

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
        keys = set()
        for row in rows:
            if not isinstance(row, ModelInfo):
                raise RegistrationError(f"provider {api!r}: catalog rows must be ModelInfo, got {type(row).__name__}")
            if row.api != api:
                raise RegistrationError(f"provider {api!r}: catalog row {row.key!r} names wire {row.api!r}")
            if row.key in keys or plugin in self.claims.get(f"model:{row.key}", {}):
                raise RegistrationError(f"provider {api!r}: model {row.key!r} is listed twice by this plugin")
            keys.add(row.key)
        # Served once, when all are claimed: serving after each claim walks every claim, once per catalog row.
        self._claim("provider", api, plugin, provider, serve=False)
        for row in rows:  # checked above: none can be refused now
            self._claim("model", row.key, plugin, row, serve=False)
        self._serve()

    def add_skill(self, plugin: str, skill: Any) -> None:
        if not isinstance(skill, Skill):
            raise RegistrationError(f"register() got {type(skill).__name__}, expected agentkit.plugin_api.Skill")
        if not skill.name or not isinstance(skill.name, str):
            raise RegistrationError("a skill needs a name: give Skill(name=...)")
        from .skills._check import (
            skill_name_problem,  # the rule every skill passes, however it arrived
        )

        problem = skill_name_problem(skill.name)
        if problem is not None:
            raise RegistrationError(problem)
        if not isinstance(skill.description, str) or not skill.description.strip():
            raise RegistrationError(f"skill {skill.name!r} has no description: say when the model should use it")
        self._claim("skill", skill.name, plugin, skill)

    def owner(self, kind: str, name: str) -> str | None:
        """The plugin serving ``name`` of ``kind``, or ``None`` (unknown, or contested)."""
        return self.owners.get(f"{kind}:{name}")

    def contested(self, kind: str) -> dict[str, list[str]]:
        """``name -> the plugins claiming it`` for every ``kind`` name more than one plugin registered."""
        return {key.split(":", 1)[1]: sorted(claims) for key, claims in sorted(self.claims.items())
                if key.startswith(f"{kind}:") and len(claims) > 1}

    def collisions_of(self, plugin: str) -> list[str]:
        """What ``plugin`` registered that another plugin registered too, each with the way out."""
        found = []
        for key, claims in sorted(self.claims.items()):
            if plugin not in claims or len(claims) < 2:
                continue
            kind, name = key.split(":", 1)
            others = [other for other in sorted(claims) if other != plugin]
            other, them = ("the others", "them") if len(others) > 1 else ("the other", "it")
            found.append(
                f"{kind} {name!r} is also registered by plugin {', '.join(map(repr, others))}, so no plugin serves "
                f"it: keep the one you want by disabling {other} (e.g. AGENTKIT_DISABLE_PLUGINS={','.join(others)}) "
                f"or uninstalling {them}; names are never renamed"
            )
        return found

    def _claim(self, kind: str, name: str, plugin: str, contribution: Any, *, serve: bool = True) -> None:
        claims = self.claims.setdefault(f"{kind}:{name}", {})
        if plugin in claims:
            raise RegistrationError(f"{kind} {name!r} is registered twice by this plugin: register it once")
        claims[plugin] = contribution
        if serve:
            self._serve()

    def withdraw(self, plugin: str) -> None:
        """Remove everything ``plugin`` contributed (it failed part-way)."""
        for claims in self.claims.values():
            claims.pop(plugin, None)
        self._serve()

    def _serve(self) -> None:
        """Serve each name exactly one plugin claims (a model only with its plugin's wire)."""
        served: dict[str, dict[str, Any]] = {kind: {} for kind in KINDS}
        owners = {}
        for key, claims in self.claims.items():
            if len(claims) == 1:
                kind, name = key.split(":", 1)
                [(plugin, contribution)] = claims.items()
                served[kind][name] = contribution
                owners[key] = plugin
        for key, row in list(served["model"].items()):
            if owners.get(f"provider:{row.api}") != owners[f"model:{key}"]:
                del served["model"][key], owners[f"model:{key}"]
        targets: tuple[dict[str, Any], ...] = (self.tools, self.providers, self.skills, self.models)
        for kind, target in zip(KINDS, targets, strict=True):
            target.clear()
            target.update(served[kind])  # in the order plugins registered them
        self.owners.clear()
        self.owners.update(owners)


def check_tool(tool: Tool) -> None:
    """Refuse a tool no provider could send or no loop could call."""
    name = tool.name or ""
    if not (0 < len(name) <= 64 and TOOL_NAME_CHARACTERS.issuperset(name)):
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
    problem = schema_problem(schema)
    if problem is not None:
        raise RegistrationError(f"tool {tool.name!r}: input_schema is not valid JSON Schema: {problem}")

