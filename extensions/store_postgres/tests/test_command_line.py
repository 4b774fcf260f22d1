"""Choosing the PostgreSQL store from the command line, against a real server: what 'agentkit' writes there resumes there."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentkit_store_postgres import PostgresSessionStore

from agentkit.host.sessions import Session
from agentkit.testing import write_script


def session_id(stderr: str) -> str:
    return next(line for line in stderr.splitlines() if line.startswith("session: ")).split()[1]


def test_run_and_sessions_use_the_store_a_postgresql_url_names(agentkit: Any, dsn: str, tmp_path: Path) -> None:
    data = {"AGENTKIT_DATA_DIR": str(tmp_path / "data")}  # the file store, which must stay empty
    first = agentkit("run", "Say one", "--model", "faux/scripted", "--session", "new", "--store", dsn,
                     "--root", str(tmp_path), "--script", str(write_script(tmp_path / "one.json", ["one"])), env=data)
    assert first.returncode == 0, first.stderr
    sid = session_id(first.stderr)

    chosen = {**data, "AGENTKIT_SESSION_STORE": dsn}  # the environment chooses it as well as --store
    second = agentkit("run", "Say two", "--resume", "--root", str(tmp_path), "--script", str(write_script(tmp_path / "two.json", ["two"])),
                      env=chosen)
    assert second.returncode == 0, second.stderr
    assert session_id(second.stderr) == sid

    with PostgresSessionStore(dsn) as store:
        assert [listing.id for listing in store.list_sessions()] == [sid]
        texts = [block.text for message in Session.open(sid, store).messages() for block in message.content]
    assert texts == ["Say one", "one", "Say two", "two"]
    assert not (tmp_path / "data" / "sessions").exists() or not list((tmp_path / "data" / "sessions").iterdir())

    listed = agentkit("sessions", "list", "--json", env=chosen)
    assert listed.returncode == 0, listed.stderr
    assert [row["id"] for row in json.loads(listed.stdout)] == [sid]
    shown = agentkit("sessions", "show", sid[:8], "--store", dsn, env=data)
    assert shown.returncode == 0, shown.stderr
    assert "Say two" in shown.stdout
    forked = agentkit("sessions", "fork", sid, env=chosen)
    assert forked.returncode == 0, forked.stderr
    exported = agentkit("sessions", "export", forked.stdout.strip(), env=chosen)
    assert exported.returncode == 0, exported.stderr
    assert json.loads(exported.stdout.splitlines()[0])["parent_session"] == sid
    assert agentkit("sessions", "list", env=data).stdout == ""  # the file store saw none of it


def test_an_unreachable_server_is_one_line_without_the_password(agentkit: Any, tmp_path: Path, dsn: str) -> None:
    port = dsn.rsplit(":", 1)[1].split("/")[0]
    # The test server's port, with a database that does not exist: refused at once, no wait on the network.
    url = f"postgresql://nobody:hunter2-secret-password@127.0.0.1:{port}/no_such_database_here"
    listed = agentkit("sessions", "list", "--store", url, env={"AGENTKIT_DATA_DIR": str(tmp_path)})
    assert listed.returncode == 1
    assert listed.stderr.startswith("agentkit: error: ") and "Traceback" not in listed.stderr
    assert "hunter2-secret-password" not in listed.stderr + listed.stdout


def test_a_malformed_url_is_one_line_without_the_password(agentkit: Any, tmp_path: Path) -> None:
    # The driver's parser quotes the whole URL it failed on; no server is needed to fail here.
    for url in ("postgresql://agent:S3CRET@[bad", "postgresql://agent:S3CRET%ZZ@127.0.0.1/db",
                "postgresql://agent@127.0.0.1/db?password=S3CRET&no_such_option=1"):
        for args, env in ((["--store", url], {}), ([], {"AGENTKIT_SESSION_STORE": url})):
            listed = agentkit.inline("sessions", "list", *args, env={"AGENTKIT_DATA_DIR": str(tmp_path), **env})
            assert listed.returncode == 2, listed.stderr
            assert listed.stderr.startswith("agentkit: error: ") and "Traceback" not in listed.stderr
            assert "S3CRET" not in listed.stderr + listed.stdout


def test_the_store_itself_never_quotes_the_password_it_was_given() -> None:
    import pytest

    from agentkit.host.errors import ConfigError

    with pytest.raises(ConfigError) as raised:
        PostgresSessionStore("postgresql://agent:S3CRET@[bad")
    assert "S3CRET" not in str(raised.value)


def test_sessions_delete_takes_a_prefix_and_refuses_a_session_being_written(agentkit: Any, dsn: str,
                                                                             tmp_path: Path) -> None:
    data = {"AGENTKIT_DATA_DIR": str(tmp_path / "data"), "AGENTKIT_SESSION_STORE": dsn}
    ran = agentkit("run", "Say one", "--model", "faux/scripted", "--session", "new", "--root", str(tmp_path),
                   "--script", str(write_script(tmp_path / "one.json", ["one"])), env=data)
    assert ran.returncode == 0, ran.stderr
    sid = session_id(ran.stderr)
    with PostgresSessionStore(dsn) as store:
        kept = Session.new(store, cwd=tmp_path, id="kept-session")
        kept.append_custom("note")
        kept.close()

        writing = Session.open(sid, store)
        writing.append_custom("note")  # a writer holds the session until it closes it
        busy = agentkit("sessions", "delete", sid[:8], env=data)
        assert busy.returncode == 2 and "in use" in busy.stderr and "Traceback" not in busy.stderr
        writing.close()

        deleted = agentkit("sessions", "delete", sid[:8], env=data)
        assert deleted.returncode == 0, deleted.stderr
        assert sid in deleted.stdout
        assert [listing.id for listing in store.list_sessions()] == ["kept-session"]
    again = agentkit("sessions", "delete", sid, env=data)
    assert again.returncode == 2 and "agentkit sessions list" in again.stderr


def test_a_wrong_password_is_reported_before_the_run_starts(agentkit: Any, dsn: str, tmp_path: Path) -> None:
    import psycopg

    user = "agentkit_login_user"
    with psycopg.connect(dsn, autocommit=True) as admin:  # a role that must give its password
        admin.execute(f"DROP ROLE IF EXISTS {user}")
        admin.execute(f"CREATE ROLE {user} LOGIN PASSWORD 'the-right-one'")
        hba = Path(admin.execute("SHOW hba_file").fetchone()[0])
        rule = f"host all {user} 127.0.0.1/32 scram-sha-256\n"
        if rule not in hba.read_text():  # before the server's trust rules, for this role only
            hba.write_text(rule + hba.read_text())
        admin.execute("SELECT pg_reload_conf()")
    where = dsn.split("@", 1)[1]
    url = f"postgresql://{user}:hunter2-wrong-secret@{where}"

    ran = agentkit("run", "Say one", "--model", "faux/scripted", "--session", "new", "--store", url,
                   "--root", str(tmp_path), "--script", str(write_script(tmp_path / "one.json", ["one"])),
                   env={"AGENTKIT_DATA_DIR": str(tmp_path / "data")})
    assert ran.returncode == 1
    assert ran.stdout == ""  # the model was never asked
    assert ran.stderr.startswith("agentkit: error: ") and len(ran.stderr.strip().splitlines()) == 1, ran.stderr
    assert "password authentication failed" in ran.stderr
    assert "--session" not in ran.stderr and "hunter2-wrong-secret" not in ran.stderr
