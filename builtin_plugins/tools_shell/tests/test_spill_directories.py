"""The spill directory of a root lives while a run on that root does, and no longer."""

from __future__ import annotations

import threading

from agentkit_tools_shell import SPILL_DIRECTORY
from agentkit_tools_shell._spill import RunSpills


def test_outside_a_run_there_is_no_workspace_spill_directory(tmp_path):
    assert RunSpills().directory_for(tmp_path) is None
    assert list(tmp_path.iterdir()) == []


def test_the_directory_is_inside_the_root_ignored_by_git_and_removed_at_the_end(tmp_path):
    spills = RunSpills()
    spills.run_started(tmp_path)
    directory = spills.directory_for(tmp_path)
    assert directory is not None and directory.is_dir()
    assert directory.parent == tmp_path.resolve() / SPILL_DIRECTORY
    assert (directory.parent / ".gitignore").read_text().splitlines()[-1] == "*"
    assert spills.directory_for(tmp_path) == directory  # one per run period
    spills.run_ended(tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_overlapping_runs_on_one_root_keep_it_until_the_last_one_ends(tmp_path):
    spills = RunSpills()
    spills.run_started(tmp_path)
    spills.run_started(tmp_path)
    directory = spills.directory_for(tmp_path)
    (directory / "out.log").write_text("still being read")
    spills.run_ended(tmp_path)
    assert (directory / "out.log").exists()
    spills.run_ended(tmp_path)
    assert not directory.exists()


def test_another_processs_spill_directory_is_left_alone(tmp_path):
    other = tmp_path / SPILL_DIRECTORY / "run-1-elsewhere"
    other.mkdir(parents=True)
    spills = RunSpills()
    spills.run_started(tmp_path)
    assert spills.directory_for(tmp_path) != other
    spills.run_ended(tmp_path)
    assert other.is_dir()


def test_runs_starting_and_ending_in_many_threads_leave_nothing_behind(tmp_path):
    spills = RunSpills()
    barrier = threading.Barrier(8)

    def run() -> None:
        barrier.wait()
        for _ in range(50):
            spills.run_started(tmp_path)
            directory = spills.directory_for(tmp_path)
            assert directory is not None
            spills.run_ended(tmp_path)

    threads = [threading.Thread(target=run) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert list(tmp_path.iterdir()) == []
