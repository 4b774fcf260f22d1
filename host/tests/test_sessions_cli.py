"""``agentkit sessions list|show|fork|export`` and ``agentkit run --session/--resume``, through the command's
``main``; the run killed mid-response is a process of its own, and the one that resumes it runs in another."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentkit.testing import write_script


@pytest.fixture
def data(tmp_path: Path) -> dict[str, str]:
    """An environment whose data directory is the test's own."""
    return {"AGENTKIT_DATA_DIR": str(tmp_path / "data")}


def run(agentkit: Any, tmp_path: Path, env: dict[str, str], task: str, *args: str, answer: str = "ok") -> Any:
    return agentkit.inline("run", task, "--root", str(tmp_path), "--script", str(write_script(tmp_path / "turns.json", [answer])), *args, env=env)


def session_id(stderr: str) -> str:
    line = next(line for line in stderr.splitlines() if line.startswith("session: "))
    return line.split()[1]


def test_a_run_continues_a_session_by_id_and_the_latest_by_resume(agentkit: Any, tmp_path: Path,
                                                                  data: dict[str, str]) -> None:
    first = run(agentkit, tmp_path, data, "Say one", "--model", "faux/scripted", "--session", "new", answer="one")
    assert first.returncode == 0, first.stderr
    assert first.stdout == "one\n"
    sid = session_id(first.stderr)

    second = run(agentkit, tmp_path, data, "Say two", "--session", sid[:8], answer="two")  # the model is the session's
    assert second.returncode == 0, second.stderr
    third = run(agentkit, tmp_path, data, "Say three", "--resume", answer="three")
    assert third.returncode == 0, third.stderr
    assert session_id(second.stderr) == session_id(third.stderr) == sid

    dry = run(agentkit, tmp_path, data, "Say four", "--resume", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert len(json.loads(dry.stdout)["body"]["messages"]) == 7  # the session's six, and the new task

    shown = agentkit.inline("sessions", "show", sid, "--json", env=data)
    assert shown.returncode == 0, shown.stderr
    entries = json.loads(shown.stdout)["entries"]
    said = [block["text"] for entry in entries if entry["type"] == "message"
            for block in entry["message"]["content"]]
    assert said == ["Say one", "one", "Say two", "two", "Say three", "three"]


def test_list_show_fork_and_export(agentkit: Any, tmp_path: Path, data: dict[str, str]) -> None:
    older = session_id(run(agentkit, tmp_path, data, "First task", "--model", "faux/scripted", "--session", "new").stderr)
    newer = session_id(run(agentkit, tmp_path, data, "Second\x1b[31m task", "--model", "faux/scripted",
                           "--session", "new", answer="Done \x1b]0;title\x07here").stderr)

    listed = agentkit.inline("sessions", "list", env=data)
    assert listed.returncode == 0, listed.stderr
    assert [line.split()[0] for line in listed.stdout.splitlines()] == ["ID", newer, older]
    assert [row["id"] for row in json.loads(agentkit.inline("sessions", "list", "--json", env=data).stdout)] == [newer, older]

    shown = agentkit.inline("sessions", "show", newer[:6], env=data)
    assert shown.returncode == 0, shown.stderr
    assert f"session {newer}" in shown.stdout
    assert "[model] faux/scripted" in shown.stdout
    assert "Second␛[31m task" in shown.stdout and "Done ␛]0;title␇here" in shown.stdout  # shown, never interpreted
    assert "\x1b" not in shown.stdout and "\x07" not in shown.stdout

    exported = agentkit.inline("sessions", "export", older, env=data)
    stored = (tmp_path / "data" / "sessions" / f"{older}.jsonl").read_text()
    assert exported.returncode == 0 and exported.stdout == stored

    entries = json.loads(agentkit.inline("sessions", "show", older, "--json", env=data).stdout)["entries"]
    forked = agentkit.inline("sessions", "fork", older, "--entry", entries[1]["id"], env=data)
    assert forked.returncode == 0, forked.stderr
    copy = json.loads(agentkit.inline("sessions", "show", forked.stdout.strip(), "--json", env=data).stdout)
    assert copy["header"]["parent_session"] == older
    assert copy["entries"] == entries[:2]


def test_session_mistakes_are_usage_errors_naming_the_fix(agentkit: Any, tmp_path: Path, data: dict[str, str]) -> None:
    resume = run(agentkit, tmp_path, data, "x", "--model", "faux/scripted", "--resume")
    assert resume.returncode == 2 and "--session new" in resume.stderr
    missing = agentkit.inline("sessions", "show", "nosuchsession", env=data)
    assert missing.returncode == 2 and "agentkit sessions list" in missing.stderr
    both = run(agentkit, tmp_path, data, "x", "--model", "faux/scripted", "--resume", "--session", "new")
    assert both.returncode == 2 and "one of them" in both.stderr
    no_model = run(agentkit, tmp_path, data, "x", "--session", "new")
    assert no_model.returncode == 2 and "--model" in no_model.stderr
    for result in (resume, missing, both, no_model):
        assert "Traceback" not in result.stderr


def test_show_reports_what_loading_repaired(agentkit: Any, tmp_path: Path, data: dict[str, str]) -> None:
    sid = session_id(run(agentkit, tmp_path, data, "Task", "--model", "faux/scripted", "--session", "new").stderr)
    path = tmp_path / "data" / "sessions" / f"{sid}.jsonl"
    with path.open("ab") as file:
        file.write(b'{"id":"cut","par')
    shown = agentkit.inline("sessions", "show", sid, env=data)
    assert shown.returncode == 0
    assert "repaired: line 5: a truncated last line" in shown.stderr


def test_a_run_killed_mid_response_resumes_in_another_process_with_what_was_written(
        agentkit: Any, tmp_path: Path, data: dict[str, str]) -> None:
    hanging = tmp_path / "hang.json"
    hanging.write_text(json.dumps([{"content": [{"type": "text", "text": "thinking it over"}], "hang": True}]))
    process = agentkit.start("run", "First question", "--root", str(tmp_path), "--model", "faux/scripted",
                             "--script", str(hanging), "--session", "new", env=data)
    sessions = tmp_path / "data" / "sessions"
    try:
        assert process.stdout is not None
        process.stdout.read(len("thinking it over"))  # the response is streaming: the request went out
        logs = list(sessions.glob("*.jsonl"))
        assert len(logs) == 1
    finally:
        process.kill()  # SIGKILL: no cleanup of any kind
        process.wait(timeout=60)

    resumed = run(agentkit, tmp_path, data, "Second question", "--resume", answer="answered")
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout == "answered\n"
    entries = json.loads(agentkit.inline("sessions", "show", logs[0].stem, "--json", env=data).stdout)["entries"]
    said = [entry["message"]["content"][0]["text"] for entry in entries if entry["type"] == "message"]
    assert said == ["First question", "Second question", "answered"]


WHEN = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"  # ISO 8601, UTC, to the second


def test_list_has_column_headers_and_shows_when_each_session_started(agentkit: Any, tmp_path: Path,
                                                                     data: dict[str, str]) -> None:
    import re

    from agentkit.host.sessions import JsonlSessionStore, Session

    sid = session_id(run(agentkit, tmp_path, data, "Task", "--model", "faux/scripted", "--session", "new").stderr)
    started = Session.open(sid, JsonlSessionStore(tmp_path / "data" / "sessions")).header.timestamp
    listed = agentkit.inline("sessions", "list", env=data)
    assert listed.returncode == 0, listed.stderr
    header, row = listed.stdout.splitlines()
    assert header.split() == ["ID", "STARTED", "UPDATED", "CWD"]
    assert re.fullmatch(rf"{sid}  {WHEN}  {WHEN}  {re.escape(str(tmp_path.resolve()))}", row), row
    assert row.split()[1] == started[:19] + "Z"  # the header's start, to the second
    # Each column starts under its name.
    for name, value in zip(header.split(), row.split(), strict=True):
        at = header.index(name)
        assert row[at:].split()[0] == value and (at == 0 or row[at - 1] == " ")

    [listing] = json.loads(agentkit.inline("sessions", "list", "--json", env=data).stdout)
    assert sorted(listing) == ["cwd", "id", "location", "started", "updated"]
    assert re.fullmatch(WHEN, listing["started"]) and re.fullmatch(WHEN, listing["updated"])
    assert listing["started"] == row.split()[1]


def test_delete_takes_a_unique_prefix_and_names_the_candidates_of_an_ambiguous_one(
        agentkit: Any, tmp_path: Path, data: dict[str, str]) -> None:
    from agentkit.host.sessions import JsonlSessionStore, Session
    from agentkit.plugin_api import UserMessage

    store = JsonlSessionStore(tmp_path / "data" / "sessions")
    for sid in ("abc111", "abc222", "def333"):
        with Session.new(store, cwd=tmp_path, id=sid) as session:
            session.append_message(UserMessage.text("hello"))

    ambiguous = agentkit.inline("sessions", "delete", "abc", env=data)
    assert ambiguous.returncode == 2 and "Traceback" not in ambiguous.stderr
    assert len(ambiguous.stderr.strip().splitlines()) == 1
    assert "abc111" in ambiguous.stderr and "abc222" in ambiguous.stderr and "def333" not in ambiguous.stderr
    missing = agentkit.inline("sessions", "delete", "zzz", env=data)
    assert missing.returncode == 2 and len(missing.stderr.strip().splitlines()) == 1
    assert "'zzz'" in missing.stderr and "agentkit sessions list" in missing.stderr

    deleted = agentkit.inline("sessions", "delete", "def", env=data)
    assert deleted.returncode == 0, deleted.stderr
    assert "def333" in deleted.stdout
    assert sorted(listing.id for listing in store.list_sessions()) == ["abc111", "abc222"]
