"""The MCP servers an agent reaches: ``[[mcp.servers]]`` tables in ``agentkit.toml``.

Two files are read:

1. the user's: ``$AGENTKIT_CONFIG_DIR/agentkit.toml``, else
   ``$XDG_CONFIG_HOME/agentkit/agentkit.toml``, else ``~/.config/agentkit/agentkit.toml``
   (``%APPDATA%\\agentkit\\agentkit.toml`` on Windows);
2. the project's: ``agentkit.toml`` in the project's folder, used only when
   the user trusts the project (``--trust-project``; docs/decisions/0026).
   Then a server named in both takes the project's entry whole.

``${VAR}`` in ``env``, ``headers``, ``args`` and ``url`` is resolved when the
server is spawned or reached (:func:`resolve`), not when the file is read, so
``agentkit mcp list`` works without the secrets in the environment. In a
project's entry it resolves only the variables the user's own file allows for
that server (``[[mcp.trusted_env]]``), so a trusted project still cannot read
the user's environment.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from agentkit.plugin_api import AgentkitError, user_config_file

ERAS = ("auto", "legacy", "2026-07-28")
"""``auto`` probes ``server/discover`` and falls back to ``initialize``; the others never probe."""

# Patterns, compiled (and kept by re's cache) when a server is named: the plugin loads with none configured.
#: A server name: it prefixes each of its tools (``NAME__tool``), so it keeps to tool-name characters.
SERVER_NAME = r"^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$"
_VARIABLE = r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}"
PROJECT_FILE = "agentkit.toml"


class McpConfigError(AgentkitError):
    """An ``[[mcp.servers]]`` entry cannot be used; the message names the file, the server and the fix."""


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """One configured MCP server.

    :param name: the server's name; its tools are ``name__tool``.
    :param command: the program of a stdio server (with ``args`` and ``env``).
    :param url: the endpoint of a streamable HTTP server (with ``headers``).
    :param era: ``auto`` (the default), ``legacy`` or ``2026-07-28``.
    :param timeout_s: seconds one tool call may take before it is answered with an error.
    :param connect_timeout_s: seconds the connection (spawn, probe, handshake, first listing) may take.
    :param per_session_call_limit: tool calls allowed per connection pool (one ``agentkit run``).
    :param reconnect_limit: reconnects after the server died or hung, then its calls fail.
    :param allow_sampling: let the server ask the embedder's model for a completion.
    :param source: the file the entry came from.
    :param tier: ``user`` (the user's own file) or ``project`` (the project's ``agentkit.toml``).
    :param allowed_variables: the ``${VAR}`` names the entry may resolve; ``None``: any (the user's own entries).
    """

    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    era: str = "auto"
    timeout_s: float = 30.0
    connect_timeout_s: float = 30.0
    per_session_call_limit: int = 1000
    reconnect_limit: int = 3
    allow_sampling: bool = False
    source: str = ""
    tier: str = "user"
    allowed_variables: frozenset[str] | None = None

    @property
    def transport(self) -> str:
        return "stdio" if self.command is not None else "http"



def project_config_file(cwd: Path | None = None) -> Path:
    return (cwd or Path.cwd()) / PROJECT_FILE


def read_document(path: Path) -> dict[str, Any]:
    """The TOML document at ``path``; an empty one when there is no file."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise McpConfigError(f"{path}: cannot read it ({exc.strerror or exc})") from exc
    import tomllib  # here, once per file read: a process with no configuration file (a server, a test) needs none

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise McpConfigError(f"{path}: not valid TOML ({exc})") from exc


def server_tables(document: Mapping[str, Any], path: Path) -> list[Any]:
    """The document's ``[[mcp.servers]]`` array (possibly empty)."""
    mcp = document.get("mcp", {})
    if not isinstance(mcp, Mapping):
        raise McpConfigError(f"{path}: 'mcp' must be a table")
    servers = mcp.get("servers", [])
    if not isinstance(servers, list):
        raise McpConfigError(f"{path}: 'mcp.servers' must be an array of tables ([[mcp.servers]])")
    return servers


def read_servers(cwd: Path | None = None, environ: Mapping[str, str] | None = None, *,
                 problems: list[str] | None = None) -> list[ServerConfig]:
    """Every entry of both files, the user's first, each with its tier; a project's with its allowed variables.

    :param problems: given for a project that is not trusted: an error in its
        file is reported here (one line) instead of raised, so that a broken or
        hostile project file cannot take the user's own servers down.
    """
    user_path, project_path = user_config_file(environ), project_config_file(cwd)
    user_document = read_document(user_path)
    allowed = trusted_variables(user_document, user_path, project_path.parent)
    found = _entries(user_path, user_document, "user", allowed)
    try:
        found += _entries(project_path, read_document(project_path), "project", allowed)
    except McpConfigError as exc:
        if problems is None:
            raise
        problems.append(f"note: {exc} (the project is not trusted, so its MCP servers are not used anyway)")
    return found


def _entries(path: Path, document: Mapping[str, Any], tier: str,
             allowed: Mapping[str, frozenset[str]]) -> list[ServerConfig]:
    found: list[ServerConfig] = []
    seen: set[str] = set()
    for table in server_tables(document, path):
        server = parse_server(table, path)
        if server.name in seen:
            raise McpConfigError(f"{path}: server {server.name!r} is configured twice; remove one entry")
        seen.add(server.name)
        if tier == "project":
            server = replace(server, tier="project", allowed_variables=allowed.get(server.name, frozenset()))
        found.append(server)
    return found


def load_servers(cwd: Path | None = None, environ: Mapping[str, str] | None = None, *,
                 trusted: bool = False) -> list[ServerConfig]:
    """The servers to use, sorted by name: the user's, and a trusted project's replacing those of the same name.

    The project's file is not read at all unless ``trusted``.
    """
    if trusted:
        servers = read_servers(cwd, environ)
    else:
        path = user_config_file(environ)
        servers = _entries(path, read_document(path), "user", {})
    chosen = {server.name: server for server in servers}
    return [chosen[name] for name in sorted(chosen)]


def untrusted_servers(servers: list[ServerConfig]) -> list[ServerConfig]:
    """The project's entries among ``servers``: what an untrusted project would have had started."""
    return [server for server in servers if server.tier == "project"]


def untrusted_note(server: ServerConfig) -> str:
    """The one line telling the user a project's server was not used, and how to use it."""
    return (f"note: MCP server {server.name!r} of {server.source} not started: the project is not trusted; "
            "pass --trust-project (AgentConfig(trust=Trust(project=True))) if you trust it")


def trusted_variables(document: Mapping[str, Any], path: Path, project: Path) -> dict[str, frozenset[str]]:
    """Server name -> the variables the user's ``[[mcp.trusted_env]]`` lets a project's entry of that name resolve.

    An entry with ``project = "FOLDER"`` applies to that project's folder only; without, to every trusted project.
    """
    mcp = document.get("mcp", {})
    tables = mcp.get("trusted_env", []) if isinstance(mcp, Mapping) else []
    if not isinstance(tables, list):
        raise McpConfigError(f"{path}: 'mcp.trusted_env' must be an array of tables ([[mcp.trusted_env]])")
    allowed: dict[str, frozenset[str]] = {}
    for table in tables:
        if not isinstance(table, Mapping) or set(table) - {"server", "variables", "project"}:
            raise McpConfigError(f"{path}: each [[mcp.trusted_env]] is a table of 'server', 'variables' "
                                 "and optionally 'project'")
        server = table.get("server")
        if not isinstance(server, str) or not re.fullmatch(SERVER_NAME, server):
            raise McpConfigError(f"{path}: [[mcp.trusted_env]] 'server' must name a server, got {server!r}")
        variables = _strings(table.get("variables", []), f"{path}: [[mcp.trusted_env]] {server!r} 'variables'")
        where = table.get("project")
        if where is not None and not isinstance(where, str):
            raise McpConfigError(f"{path}: [[mcp.trusted_env]] {server!r} 'project' must be a folder path")
        if where is not None and Path(where).expanduser().resolve() != project.resolve():
            continue
        allowed[server] = allowed.get(server, frozenset()) | frozenset(variables)
    return allowed


_KNOWN_KEYS = frozenset(
    {"name", "command", "args", "env", "url", "headers", "era", "timeout_s", "connect_timeout_s",
     "per_session_call_limit", "reconnect_limit", "allow_sampling"}
)


def parse_server(table: Any, path: Path) -> ServerConfig:
    """Check one ``[[mcp.servers]]`` table; every problem names the file, the server and the fix."""
    if not isinstance(table, Mapping):
        raise McpConfigError(f"{path}: each [[mcp.servers]] entry must be a table")
    name = table.get("name")
    if not isinstance(name, str) or not re.fullmatch(SERVER_NAME, name):
        raise McpConfigError(
            f"{path}: server name {name!r} must be letters, digits, '-' and single '_' (it prefixes its tools as NAME__tool)"
        )
    where = f"{path}: server {name!r}"
    unknown = sorted(set(table) - _KNOWN_KEYS)
    if unknown:
        raise McpConfigError(f"{where}: unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(_KNOWN_KEYS))}")
    command, url = table.get("command"), table.get("url")
    if (command is None) == (url is None):
        raise McpConfigError(f"{where}: give either 'command' (stdio) or 'url' (streamable HTTP)")
    if command is not None and (not isinstance(command, str) or not command):
        raise McpConfigError(f"{where}: 'command' must be a non-empty string")
    if url is not None and (not isinstance(url, str) or not url.startswith(("http://", "https://", "${"))):
        raise McpConfigError(f"{where}: 'url' must be an http:// or https:// URL")
    era = table.get("era", "auto")
    if era not in ERAS:
        raise McpConfigError(f"{where}: era {era!r} is not one of {', '.join(ERAS)}")
    return ServerConfig(
        name=name,
        command=command,
        args=tuple(_strings(table.get("args", []), f"{where}: 'args'")),
        env=_string_table(table.get("env", {}), f"{where}: 'env'"),
        url=url,
        headers=_string_table(table.get("headers", {}), f"{where}: 'headers'"),
        era=era,
        timeout_s=_positive(table.get("timeout_s", 30.0), f"{where}: 'timeout_s'"),
        connect_timeout_s=_positive(table.get("connect_timeout_s", 30.0), f"{where}: 'connect_timeout_s'"),
        per_session_call_limit=_count(table.get("per_session_call_limit", 1000), f"{where}: 'per_session_call_limit'"),
        reconnect_limit=_count(table.get("reconnect_limit", 3), f"{where}: 'reconnect_limit'"),
        allow_sampling=_flag(table.get("allow_sampling", False), f"{where}: 'allow_sampling'"),
        source=str(path),
    )


def resolve(text: str, environ: Mapping[str, str], where: str, allowed: frozenset[str] | None = None) -> str:
    """``text`` with each ``${VAR}`` replaced from ``environ``; an unset one, or one not in ``allowed``, is an error."""

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if allowed is not None and name not in allowed:
            raise McpConfigError(
                f"{where}: ${{{name}}} is not resolved for a project's server; if you trust this server with it, "
                f"allow it in your own agentkit.toml ([[mcp.trusted_env]] server = NAME, variables = [\"{name}\"])"
            )
        if name not in environ:
            raise McpConfigError(f"{where}: ${{{name}}} is not set in the environment; set {name} or edit the entry")
        return environ[name]

    return re.sub(_VARIABLE, value, text)


def resolved_table(table: Mapping[str, str], environ: Mapping[str, str], where: str,
                   allowed: frozenset[str] | None = None) -> dict[str, str]:
    return {key: resolve(value, environ, f"{where} {key}", allowed) for key, value in table.items()}


def _strings(value: Any, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise McpConfigError(f"{where} must be a list of strings")
    return value


def _string_table(value: Any, where: str) -> dict[str, str]:
    if not isinstance(value, Mapping) or not all(isinstance(item, str) for item in value.values()):
        raise McpConfigError(f"{where} must be a table of strings (KEY = \"value\")")
    return dict(value)


def _positive(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise McpConfigError(f"{where} must be a positive number of seconds, got {value!r}")
    return float(value)


def _count(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise McpConfigError(f"{where} must be a whole number, 0 or more, got {value!r}")
    return value


def _flag(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise McpConfigError(f"{where} must be true or false, got {value!r}")
    return value
