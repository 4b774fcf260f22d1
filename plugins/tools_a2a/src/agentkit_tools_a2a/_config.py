"""The remote agents a model may call: ``[[a2a.agents]]`` tables in ``agentkit.toml``.

Read as the MCP client reads ``[[mcp.servers]]`` (docs/decisions/0026): the
user's file (``$AGENTKIT_CONFIG_DIR/agentkit.toml``, else
``$XDG_CONFIG_HOME/agentkit/agentkit.toml``, else
``~/.config/agentkit/agentkit.toml``), and the project's ``agentkit.toml``
only when the user trusts the project; an agent named in both then takes the
project's entry whole. ``${VAR}`` in ``url`` and ``headers`` is resolved when
the agent is reached; in a project's entry only the variables the user's own
file allows for that agent (``[[a2a.trusted_env]]``).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from agentkit.plugin_api import AgentkitError, user_config_file

PROJECT_FILE = "agentkit.toml"
#: An agent's name: it is part of its tools' names (``a2a__NAME``), so it keeps to tool-name characters.
AGENT_NAME = re.compile(r"^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$")
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
#: Seconds one call may wait for the remote agent's answer (a remote agent runs a model of its own).
DEFAULT_TIMEOUT_S = 300.0
#: Seconds to connect and to read the Agent Card.
DEFAULT_CONNECT_TIMEOUT_S = 10.0
#: The most bytes one call reads from the remote (its whole stream); past it the call fails, bounded.
DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024


class A2AConfigError(AgentkitError):
    """An ``[[a2a.agents]]`` entry cannot be used; the message names the file, the agent and the fix."""


@dataclass(frozen=True, slots=True)
class AgentEntry:
    """One configured remote agent.

    :param name: the agent's name here; its tool is ``a2a__NAME`` (``a2a__NAME__SKILL`` per skill).
    :param url: the agent's base URL; its card is at ``/.well-known/agent-card.json`` under it.
    :param headers: sent with every request (an ``Authorization`` header with ``${VAR}``).
    :param per_skill: one tool per skill the card declares, instead of one for the agent.
    :param timeout_s: seconds one call may wait for the answer; then the remote task is cancelled.
    :param connect_timeout_s: seconds to connect, and to read the card.
    :param max_response_bytes: the most bytes one call reads from the remote.
    :param source: the file the entry came from.
    :param tier: ``user`` or ``project``.
    :param allowed_variables: the ``${VAR}`` names the entry may resolve; ``None``: any (the user's own).
    """

    name: str
    url: str
    headers: Mapping[str, str] = field(default_factory=dict)
    per_skill: bool = False
    timeout_s: float = DEFAULT_TIMEOUT_S
    connect_timeout_s: float = DEFAULT_CONNECT_TIMEOUT_S
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES
    source: str = ""
    tier: str = "user"
    allowed_variables: frozenset[str] | None = None

    def resolved_url(self, environ: Mapping[str, str]) -> str:
        return resolve(self.url, environ, f"{self.source}: agent {self.name!r} url", self.allowed_variables)

    def resolved_headers(self, environ: Mapping[str, str]) -> dict[str, str]:
        where = f"{self.source}: agent {self.name!r} headers"
        return {key: resolve(value, environ, f"{where} {key}", self.allowed_variables)
                for key, value in self.headers.items()}



def read_document(path: Path) -> dict[str, Any]:
    """The TOML document at ``path``; an empty one when there is no file."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise A2AConfigError(f"{path}: cannot read it ({exc.strerror or exc})") from exc
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise A2AConfigError(f"{path}: not valid TOML ({exc})") from exc


def read_agents(cwd: Path, environ: Mapping[str, str] | None = None, *,
                problems: list[str] | None = None) -> list[AgentEntry]:
    """Every entry of both files, the user's first, each with its tier.

    :param problems: given for a project that is not trusted: an error in its
        file is reported here (one line) instead of raised, so that a broken or
        hostile project file cannot take the user's own agents down.
    """
    user_path, project_path = user_config_file(environ), cwd / PROJECT_FILE
    user_document = read_document(user_path)
    allowed = _trusted_variables(user_document, user_path, cwd)
    found = _entries(user_path, user_document, "user", allowed)
    try:
        found += _entries(project_path, read_document(project_path), "project", allowed)
    except A2AConfigError as exc:
        if problems is None:
            raise
        problems.append(f"note: {exc} (the project is not trusted, so its A2A agents are not used anyway)")
    return found


def load_agents(cwd: Path, environ: Mapping[str, str] | None = None, *, trusted: bool) -> list[AgentEntry]:
    """The agents to use, by name: the user's, and a trusted project's replacing those of the same name.

    The project's file is not read at all unless ``trusted``.
    """
    if trusted:
        agents = read_agents(cwd, environ)
    else:
        path = user_config_file(environ)
        agents = _entries(path, read_document(path), "user", {})
    chosen = {agent.name: agent for agent in agents}
    return [chosen[name] for name in sorted(chosen)]


def untrusted_note(agent: AgentEntry) -> str:
    """The one line telling the user a project's agent was not used, and how to use it."""
    return (f"note: A2A agent {agent.name!r} of {agent.source} not used: the project is not trusted; "
            "pass --trust-project (AgentConfig(trust=Trust(project=True))) if you trust it")


def _entries(path: Path, document: Mapping[str, Any], tier: str,
             allowed: Mapping[str, frozenset[str]]) -> list[AgentEntry]:
    section = document.get("a2a", {})
    if not isinstance(section, Mapping):
        raise A2AConfigError(f"{path}: 'a2a' must be a table")
    tables = section.get("agents", [])
    if not isinstance(tables, list):
        raise A2AConfigError(f"{path}: 'a2a.agents' must be an array of tables ([[a2a.agents]])")
    found: list[AgentEntry] = []
    for table in tables:
        agent = parse_agent(table, path)
        if any(other.name == agent.name for other in found):
            raise A2AConfigError(f"{path}: agent {agent.name!r} is configured twice; remove one entry")
        if tier == "project":
            agent = replace(agent, tier="project", allowed_variables=allowed.get(agent.name, frozenset()))
        found.append(agent)
    return found


def _trusted_variables(document: Mapping[str, Any], path: Path, project: Path) -> dict[str, frozenset[str]]:
    """Agent name -> the variables the user's ``[[a2a.trusted_env]]`` lets a project's entry of that name resolve."""
    section = document.get("a2a", {})
    tables = section.get("trusted_env", []) if isinstance(section, Mapping) else []
    if not isinstance(tables, list):
        raise A2AConfigError(f"{path}: 'a2a.trusted_env' must be an array of tables ([[a2a.trusted_env]])")
    allowed: dict[str, frozenset[str]] = {}
    for table in tables:
        if not isinstance(table, Mapping) or set(table) - {"agent", "variables", "project"}:
            raise A2AConfigError(f"{path}: each [[a2a.trusted_env]] is a table of 'agent', 'variables' "
                                 "and optionally 'project'")
        agent, variables, where = table.get("agent"), table.get("variables", []), table.get("project")
        if not isinstance(agent, str) or not AGENT_NAME.fullmatch(agent):
            raise A2AConfigError(f"{path}: [[a2a.trusted_env]] 'agent' must name an agent, got {agent!r}")
        if not isinstance(variables, list) or not all(isinstance(item, str) for item in variables):
            raise A2AConfigError(f"{path}: [[a2a.trusted_env]] {agent!r} 'variables' must be a list of strings")
        if where is not None and (not isinstance(where, str)
                                  or Path(where).expanduser().resolve() != project.resolve()):
            continue
        allowed[agent] = allowed.get(agent, frozenset()) | frozenset(variables)
    return allowed


_KNOWN_KEYS = frozenset({"name", "url", "headers", "per_skill", "timeout_s", "connect_timeout_s",
                         "max_response_bytes"})


def parse_agent(table: Any, path: Path) -> AgentEntry:
    """Check one ``[[a2a.agents]]`` table; every problem names the file, the agent and the fix."""
    if not isinstance(table, Mapping):
        raise A2AConfigError(f"{path}: each [[a2a.agents]] entry must be a table")
    name = table.get("name")
    if not isinstance(name, str) or not AGENT_NAME.fullmatch(name) or len(name) > 40:
        raise A2AConfigError(f"{path}: agent name {name!r} must be 1-40 letters, digits, '-' and single '_' "
                             "(it names its tool, a2a__NAME)")
    where = f"{path}: agent {name!r}"
    unknown = sorted(set(table) - _KNOWN_KEYS)
    if unknown:
        raise A2AConfigError(f"{where}: unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(_KNOWN_KEYS))}")
    url = table.get("url")
    if not isinstance(url, str) or not url.startswith(("http://", "https://", "${")):
        raise A2AConfigError(f"{where}: 'url' must be the agent's http:// or https:// base URL")
    headers = table.get("headers", {})
    if not isinstance(headers, Mapping) or not all(isinstance(value, str) for value in headers.values()):
        raise A2AConfigError(f"{where}: 'headers' must be a table of strings (KEY = \"value\")")
    per_skill = table.get("per_skill", False)
    if not isinstance(per_skill, bool):
        raise A2AConfigError(f"{where}: 'per_skill' must be true or false, got {per_skill!r}")
    return AgentEntry(
        name=name, url=url, headers=dict(headers), per_skill=per_skill,
        timeout_s=_positive(table.get("timeout_s", DEFAULT_TIMEOUT_S), f"{where}: 'timeout_s'"),
        connect_timeout_s=_positive(table.get("connect_timeout_s", DEFAULT_CONNECT_TIMEOUT_S),
                                    f"{where}: 'connect_timeout_s'"),
        max_response_bytes=int(_positive(table.get("max_response_bytes", DEFAULT_MAX_RESPONSE_BYTES),
                                         f"{where}: 'max_response_bytes'")),
        source=str(path),
    )


def resolve(text: str, environ: Mapping[str, str], where: str, allowed: frozenset[str] | None = None) -> str:
    """``text`` with each ``${VAR}`` replaced from ``environ``; an unset one, or one not in ``allowed``, is an error."""

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if allowed is not None and name not in allowed:
            raise A2AConfigError(
                f"{where}: ${{{name}}} is not resolved for a project's agent; if you trust this agent with it, "
                f"allow it in your own agentkit.toml ([[a2a.trusted_env]] agent = NAME, variables = [\"{name}\"])")
        if name not in environ:
            raise A2AConfigError(f"{where}: ${{{name}}} is not set in the environment; set {name} or edit the entry")
        return environ[name]

    return _VARIABLE.sub(value, text)


def _positive(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise A2AConfigError(f"{where} must be a positive number, got {value!r}")
    return float(value)
