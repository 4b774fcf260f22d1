"""Choosing the session store from the command line: ``--store URL`` or ``AGENTKIT_SESSION_STORE``, by URL scheme."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentkit.testing import write_script

# A store a third party ships: the JSONL store, in the folder the URL names.
FOLDER_STORE = '''
from agentkit.host.sessions import JsonlSessionStore

def from_url(url):
    return JsonlSessionStore(url.split("://", 1)[1])
'''


@pytest.fixture
def data(tmp_path: Path) -> dict[str, str]:
    return {"AGENTKIT_DATA_DIR": str(tmp_path / "data")}


def run(agentkit: Any, tmp_path: Path, *args: str, env: dict[str, str], answer: str = "ok", **kwargs: Any) -> Any:
    return agentkit.inline("run", "Say it", "--model", "faux/scripted", "--root", str(tmp_path),
                    "--script", str(write_script(tmp_path / f"{answer}.json", [answer])), *args, env=env, **kwargs)


def test_a_url_scheme_reaches_the_store_a_distribution_declares(agentkit: Any, site_dir: Any, tmp_path: Path,
                                                                data: dict[str, str]) -> None:
    site_dir("folder-store", entry_points={"agentkit.session_stores": {"folder": "folderstore:from_url"}},
             files={"folderstore.py": FOLDER_STORE})
    url = f"folder://{tmp_path / 'elsewhere'}"
    first = run(agentkit, tmp_path, "--session", "new", "--store", url, env=data, site=site_dir.site)
    assert first.returncode == 0, first.stderr
    written = list((tmp_path / "elsewhere").glob("*.jsonl"))
    assert len(written) == 1 and not (tmp_path / "data" / "sessions").exists()

    chosen = {**data, "AGENTKIT_SESSION_STORE": url}
    listed = agentkit.inline("sessions", "list", "--json", env=chosen, site=site_dir.site)
    assert [row["id"] for row in json.loads(listed.stdout)] == [written[0].stem]
    again = run(agentkit, tmp_path, "--resume", env=chosen, answer="again", site=site_dir.site)
    assert again.returncode == 0, again.stderr
    assert f"session: {written[0].stem}" in again.stderr


def test_a_directory_or_file_url_is_the_file_store_there(agentkit: Any, tmp_path: Path, data: dict[str, str]) -> None:
    for store, folder in ((str(tmp_path / "plain"), tmp_path / "plain"), ((tmp_path / "url").as_uri(), tmp_path / "url")):
        result = run(agentkit, tmp_path, "--session", "new", "--store", store, env=data)
        assert result.returncode == 0, result.stderr
        assert len(list(folder.glob("*.jsonl"))) == 1


def test_a_scheme_no_distribution_serves_is_a_usage_error_naming_the_entry_points(agentkit: Any, tmp_path: Path,
                                                                                  data: dict[str, str]) -> None:
    result = agentkit.inline("sessions", "list", "--store", "mysql://user:pw-not-shown@db/x", env=data)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "agentkit.session_stores" in result.stderr
    assert "pw-not-shown" not in result.stderr


def test_postgresql_without_its_store_names_the_distribution_to_install(agentkit: Any, tmp_path: Path,
                                                                        data: dict[str, str]) -> None:
    # Switched off, the store is as good as not installed.
    env = {**data, "AGENTKIT_DISABLE_PLUGINS": "agentkit-store-postgres",
           "AGENTKIT_SESSION_STORE": "postgresql://worker@127.0.0.1/agentkit"}
    result = run(agentkit, tmp_path, "--session", "new", env=env)
    assert result.returncode == 2 and result.stdout == ""
    assert "pip install agentkit-store-postgres" in result.stderr and "Traceback" not in result.stderr


def test_a_store_that_fails_to_load_is_one_line_naming_its_distribution(agentkit: Any, site_dir: Any, tmp_path: Path,
                                                                        data: dict[str, str]) -> None:
    site_dir("broken-store", entry_points={"agentkit.session_stores": {"broken": "brokenstore:from_url"}},
             files={"brokenstore.py": "raise ImportError('a driver is missing')\n"})
    result = agentkit.inline("sessions", "show", "abc", "--store", "broken://x", env=data, site=site_dir.site)
    assert result.returncode == 2
    assert "broken-store" in result.stderr and "a driver is missing" in result.stderr
    assert "Traceback" not in result.stderr


def test_store_without_a_session_is_a_usage_error(agentkit: Any, tmp_path: Path, data: dict[str, str]) -> None:
    result = run(agentkit, tmp_path, "--store", str(tmp_path), env=data)
    assert result.returncode == 2 and "--session" in result.stderr


# A store whose driver quotes the whole URL it was given in its errors, as psycopg's parser does.
ECHOING_STORE = '''
from agentkit.host.errors import ConfigError

def from_url(url):
    if "config" in url:
        raise ConfigError(f'not a connection string (bad URI: "{url}"); write it as leaky://user@host/db')
    raise ValueError(f"cannot parse {url!r}")
'''

LEAKY_URLS = ["leaky://agent:S3CRET@[bad", "leaky://agent:S3CRET@[bad/config", "leaky://agent:S3CRET@host:99999999/x",
              "leaky://agent:S3CRET%21@host/config", "leaky://agent:S3CRET:more@h@st/db?config"]


@pytest.mark.parametrize("url", LEAKY_URLS)
@pytest.mark.parametrize("chosen_by", ["--store", "environment"])
def test_a_malformed_store_url_never_prints_its_password(agentkit: Any, site_dir: Any, tmp_path: Path,
                                                         data: dict[str, str], url: str, chosen_by: str) -> None:
    site_dir("leaky-store", entry_points={"agentkit.session_stores": {"leaky": "leakystore:from_url"}},
             files={"leakystore.py": ECHOING_STORE})
    args, env = (["--store", url], data) if chosen_by == "--store" else ([], {**data, "AGENTKIT_SESSION_STORE": url})
    for command in (["sessions", "list", *args], ["run", "hi", "--model", "faux/scripted", "--root", str(tmp_path),
                                                  "--script", str(write_script(tmp_path / "ok.json", ["ok"])), "--session", "new", *args]):
        result = agentkit.inline(*command, env=env, site=site_dir.site)
        assert result.returncode == 2, result.stderr
        assert result.stderr.startswith("agentkit: error: ") and result.stderr.count("\n") == 1, result.stderr
        assert "S3CRET" not in result.stderr + result.stdout
        assert "leaky://agent:***@" in result.stderr  # what URL it was stays readable
