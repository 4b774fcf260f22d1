"""``[[mcp.servers]]`` in agentkit.toml: where it is read from, what wins, and what is refused."""

from __future__ import annotations

from pathlib import Path

import pytest
import tomli_w
from agentkit_tools_mcp._config import (
    McpConfigError,
    ServerConfig,
    load_servers,
    resolve,
    user_config_file,
)


def write(path: Path, servers: list[dict[str, object]], **other: object) -> None:
    path.write_text(tomli_w.dumps({**other, "mcp": {"servers": servers}}), encoding="utf-8")


def test_the_project_entry_replaces_the_user_entry_of_the_same_name(config_home: Path) -> None:
    write(config_home / "agentkit.toml", [{"name": "docs", "url": "https://user.example/mcp"},
                                          {"name": "mine", "command": "user-server"}])
    write(Path("agentkit.toml"), [{"name": "docs", "command": "project-server", "era": "legacy"}])

    servers = {server.name: server for server in load_servers(trusted=True)}

    assert sorted(servers) == ["docs", "mine"]
    assert servers["docs"].command == "project-server" and servers["docs"].url is None
    assert servers["docs"].era == "legacy"
    assert servers["mine"].command == "user-server"


def test_defaults_are_the_documented_ones(config_home: Path) -> None:
    write(Path("agentkit.toml"), [{"name": "calc", "command": "calc-server"}])
    [server] = load_servers(trusted=True)
    assert (server.era, server.timeout_s, server.per_session_call_limit, server.reconnect_limit,
            server.allow_sampling) == ("auto", 30.0, 1000, 3, False)


def test_the_user_file_follows_xdg_when_no_agentkit_dir_is_set(tmp_path: Path) -> None:
    assert user_config_file({"XDG_CONFIG_HOME": str(tmp_path)}) == tmp_path / "agentkit" / "agentkit.toml"
    assert user_config_file({"AGENTKIT_CONFIG_DIR": str(tmp_path)}) == tmp_path / "agentkit.toml"


def test_a_variable_resolves_from_the_environment_and_an_unset_one_is_named() -> None:
    assert resolve("Bearer ${TOKEN}", {"TOKEN": "abc"}, "here") == "Bearer abc"
    with pytest.raises(McpConfigError, match=r"\$\{MISSING_TOKEN\} is not set.*set MISSING_TOKEN"):
        resolve("Bearer ${MISSING_TOKEN}", {}, "here")


def test_variables_are_kept_unresolved_until_the_server_is_reached(config_home: Path) -> None:
    write(Path("agentkit.toml"), [{"name": "gh", "command": "gh-server", "env": {"GH_TOKEN": "${NOT_SET_HERE}"}}])
    [server] = load_servers(trusted=True)
    assert server.env == {"GH_TOKEN": "${NOT_SET_HERE}"}


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"name": "both", "command": "x", "url": "https://e.example"}, "either 'command'"),
        ({"name": "neither"}, "either 'command'"),
        ({"name": "bad__name", "command": "x"}, "must be letters"),
        ({"name": "trailing\n", "command": "x"}, "must be letters"),
        ({"name": "e", "command": "x", "era": "2025-11-25"}, "era '2025-11-25' is not one of auto, legacy, 2026-07-28"),
        ({"name": "t", "command": "x", "timeout_s": 0}, "timeout_s' must be a positive number"),
        ({"name": "u", "command": "x", "colour": "red"}, "unknown key"),
        ({"name": "h", "url": "ftp://e.example"}, "http:// or https://"),
        ({"name": "v", "command": "x", "env": {"A": 1}}, "table of strings"),
    ],
)
def test_a_bad_entry_is_refused_with_the_file_and_the_fix(config_home: Path, entry: dict[str, object],
                                                         message: str) -> None:
    write(Path("agentkit.toml"), [entry])
    with pytest.raises(McpConfigError, match=r"agentkit\.toml") as caught:
        load_servers(trusted=True)
    assert message in str(caught.value)


def test_a_name_configured_twice_in_one_file_is_refused(config_home: Path) -> None:
    write(Path("agentkit.toml"), [{"name": "a", "command": "x"}, {"name": "a", "command": "y"}])
    with pytest.raises(McpConfigError, match="configured twice"):
        load_servers(trusted=True)


def test_broken_toml_is_a_configuration_error(config_home: Path) -> None:
    Path("agentkit.toml").write_text("[mcp\n", encoding="utf-8")
    with pytest.raises(McpConfigError, match="not valid TOML"):
        load_servers(trusted=True)


def test_no_file_means_no_servers(config_home: Path) -> None:
    assert load_servers() == []
    assert ServerConfig(name="x", command="c").transport == "stdio"
