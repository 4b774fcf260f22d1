"""``agentkit mcp add|remove|list [--check]``, and ``serve`` handed to the server's module."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from agentkit_tools_mcp.cli import main

from .conftest import V2_SERVER


def project_document() -> dict[str, Any]:
    return tomllib.loads(Path("agentkit.toml").read_text(encoding="utf-8"))


def test_add_writes_a_stdio_entry_and_keeps_the_user_s_other_keys(config_home: Path) -> None:
    Path("agentkit.toml").write_text('title = "mine"\n\n[tools]\nallow_http = true\n', encoding="utf-8")

    assert main(["add", "calc", "--env", "TOKEN=${CALC_TOKEN}", "--era", "legacy", "--timeout", "12",
                 "--", sys.executable, str(V2_SERVER)]) == 0

    document = project_document()
    assert document["title"] == "mine" and document["tools"] == {"allow_http": True}
    assert document["mcp"]["servers"] == [{"name": "calc", "command": sys.executable, "args": [str(V2_SERVER)],
                                           "env": {"TOKEN": "${CALC_TOKEN}"}, "era": "legacy", "timeout_s": 12.0}]


def test_add_writes_an_http_entry_to_the_user_file_with_user(config_home: Path) -> None:
    assert main(["add", "docs", "--user", "--url", "https://docs.example/mcp", "--header",
                 "Authorization=Bearer ${DOCS_TOKEN}", "--allow-sampling"]) == 0
    document = tomllib.loads((config_home / "agentkit.toml").read_text(encoding="utf-8"))
    assert document["mcp"]["servers"] == [{"name": "docs", "url": "https://docs.example/mcp",
                                           "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"},
                                           "allow_sampling": True}]
    assert not Path("agentkit.toml").exists()


def test_remove_takes_out_only_that_server(config_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["add", "one", "--", "one-server"])
    main(["add", "two", "--", "two-server"])
    assert main(["remove", "one"]) == 0
    assert [entry["name"] for entry in project_document()["mcp"]["servers"]] == ["two"]
    assert main(["remove", "one"]) == 1
    assert "no server named 'one'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["add", "x"], "give --url URL, or -- COMMAND [ARGS...]"),
        (["add", "x", "--url", "https://e.example", "--", "cmd"], "not both"),
        (["add", "bad__name", "--", "cmd"], "must be letters"),
        (["add", "x", "--env", "NOEQUALS", "--", "cmd"], "KEY=VALUE"),
        (["add", "x", "--era", "1999", "--", "cmd"], "invalid choice"),
        (["frobnicate"], "invalid choice"),
        (["remove"], "the following arguments are required: name"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(config_home: Path, capsys: pytest.CaptureFixture[str],
                                              argv: list[str], message: str) -> None:
    assert main(argv) == 2
    error = capsys.readouterr().err.strip()
    assert message in error and "Traceback" not in error
    assert error.splitlines()[-1].startswith("agentkit mcp")


def test_adding_a_name_twice_is_refused(config_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["add", "calc", "--", "a"]) == 0
    assert main(["add", "calc", "--", "b"]) == 1
    assert "already configured" in capsys.readouterr().err


def test_list_shows_where_each_server_comes_from(config_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["add", "calc", "--", "calc-server", "--fast"])
    main(["add", "docs", "--user", "--url", "https://docs.example/mcp"])
    capsys.readouterr()
    assert main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:5] == ["calc", "stdio", "auto", "calc-server", "--fast"]
    assert lines[0].endswith("(project, not trusted: not used; pass --trust-project to use it)")
    assert lines[1].split() == ["docs", "http", "auto", "https://docs.example/mcp", "(user)"]
    assert main(["list", "--trust-project"]) == 0
    assert capsys.readouterr().out.splitlines()[0].endswith("(project, trusted)")


def test_list_check_connects_and_shows_the_negotiated_era(config_home: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    main(["add", "calc", "--", sys.executable, str(V2_SERVER)])
    main(["add", "old", "--era", "legacy", "--", sys.executable, str(V2_SERVER)])
    main(["add", "gone", "--", sys.executable, "-c", "raise SystemExit(1)"])
    capsys.readouterr()
    assert main(["list", "--check", "--trust-project"]) == 1
    out = capsys.readouterr().out
    assert "calc  ok  modern 2026-07-28" in out and "old  ok  legacy 2025-11-25" in out
    assert "gone  FAILED" in out


def test_a_broken_config_file_is_a_one_line_error(config_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    Path("agentkit.toml").write_text("[mcp\n", encoding="utf-8")
    assert main(["list"]) == 1
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and "not valid TOML" in error


def test_serve_reaches_the_server_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["serve", "--help"])
    assert exited.value.code == 0 and "--http" in capsys.readouterr().out


def test_the_agentkit_command_runs_mcp_list(agentkit: Any, tmp_path: Path) -> None:
    (tmp_path / "agentkit.toml").write_text('[[mcp.servers]]\nname = "calc"\ncommand = "calc-server"\n')
    result = agentkit("mcp", "list", cwd=tmp_path, env={"AGENTKIT_CONFIG_DIR": str(tmp_path / "none")}, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[:2] == ["calc", "stdio"]
