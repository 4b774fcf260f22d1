"""Fixtures shared by every test directory of the workspace."""

from __future__ import annotations

import contextlib
import gc
import importlib
import io
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

REPO = Path(__file__).resolve().parent
#: The console script pip installed beside this interpreter: what a user runs.
AGENTKIT = Path(sys.executable).parent / "agentkit"
#: Never handed to the command from the developer's shell: real credentials, and the replay seams a
#: test sets itself when it wants them.
WITHHELD = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_OAUTH_TOKEN", "OPENAI_API_KEY",
            "GEMINI_API_KEY", "GOOGLE_API_KEY", "OLLAMA_API_KEY", "AGENTKIT_REPLAY", "AGENTKIT_REPLAY_LOG")


# No test may depend on how fast the machine runs it (decision 0047): hypothesis's per-example deadline
# and its check that data generation is not too slow both failed tests that were right on a loaded
# machine. Loaded here, when this file is imported and so before any test module is, for every test
# directory; a test that sizes its data on purpose also suppresses data_too_large itself.
settings.register_profile("agentkit", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("agentkit")


def speed_dependent(test: object) -> str | None:
    """Why the hypothesis test ``test`` would depend on the machine's speed, or None.

    A test's own ``suppress_health_check`` replaces the profile's list (hypothesis does not merge
    them), so one that leaves ``too_slow`` out brings the check back; so does its own deadline.
    """
    chosen = getattr(test, "_hypothesis_internal_use_settings", None)
    if chosen is None or not getattr(test, "is_hypothesis_test", False):
        return None
    if chosen.deadline is not None:
        return f"it sets deadline={chosen.deadline.total_seconds() * 1000:g} ms"
    if HealthCheck.too_slow not in chosen.suppress_health_check:
        return "its suppress_health_check leaves out HealthCheck.too_slow"
    return None


class AgentkitCommand:
    """Runs the ``agentkit`` command as a user runs it: a real process, its output and its exit code.

    :meth:`inline` runs the same command in the test's process, for a test of its output alone.
    """

    def __call__(
        self,
        *args: str,
        env: Mapping[str, str] | None = None,
        site: Path | None = None,
        cwd: Path | None = None,
        timeout: float = 600,
    ) -> subprocess.CompletedProcess[str]:
        """Run ``agentkit *args`` and wait for it.

        :param env: variables set for this run, over the test process's own environment
            (less :data:`WITHHELD`).
        :param site: a directory put first on the command's ``PYTHONPATH``: the plugins installed
            there (see :func:`write_distribution`) are installed for the command.
        :param cwd: the working directory of the command.
        :param timeout: seconds after which the test fails instead of hanging.
        """
        return subprocess.run([self.path(), *args], capture_output=True, text=True, cwd=cwd, timeout=timeout,
                              env=self.environment(env, site), stdin=subprocess.DEVNULL)

    def start(
        self, *args: str, env: Mapping[str, str] | None = None, site: Path | None = None, cwd: Path | None = None
    ) -> subprocess.Popen[bytes]:
        """Start ``agentkit *args`` without waiting, to watch it while it runs; the caller ends it.

        Its stdout is a pipe of bytes, read as they come; its stderr is dropped.
        """
        return subprocess.Popen([self.path(), *args], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                cwd=cwd, env=self.environment(env, site), stdin=subprocess.DEVNULL)

    def inline(
        self,
        *args: str,
        env: Mapping[str, str] | None = None,
        site: Path | None = None,
        cwd: Path | None = None,
        input: str = "",
    ) -> subprocess.CompletedProcess[str]:
        """Run ``agentkit *args`` in this process: its exit code and output, without a process's start-up.

        The command's ``main`` runs with the environment :meth:`__call__` would give the process, in
        ``cwd``, with ``site`` first on ``sys.path``, ``input`` on its stdin (a pipe's, not a terminal's)
        and its own stdout and stderr; the test's are restored after (the modules imported from ``site``
        stay: :func:`site_dir` forgets them).
        For a test of what the command says and returns. A test of the process itself (signals, a
        kill, what a child inherits, a hang) runs it with :meth:`__call__` or :meth:`start`.
        """
        from agentkit.host.cli import main

        written = io.BytesIO(), io.BytesIO()
        stdout, stderr = (io.TextIOWrapper(buffer, encoding="utf-8", write_through=True) for buffer in written)
        with _isolated(self.environment(env, site), site, cwd), _streams(input, stdout, stderr):
            try:
                code = main(list(args))
            except SystemExit as exit:  # argparse's --help and --version end the command this way
                code = exit.code if isinstance(exit.code, int) else 0 if exit.code is None else 1
            stdout.flush()
            stderr.flush()
        out, err = (_as_text(buffer.getvalue()) for buffer in written)
        return subprocess.CompletedProcess(["agentkit", *args], code, out, err)

    @staticmethod
    def path() -> str:
        if not AGENTKIT.is_file():
            pytest.fail(f"the agentkit command is not installed next to {sys.executable}: run 'make bootstrap'")
        return str(AGENTKIT)

    @staticmethod
    def environment(env: Mapping[str, str] | None = None, site: Path | None = None) -> dict[str, str]:
        """The test process's environment less :data:`WITHHELD`, with ``env`` over it and ``site`` on the path."""
        environment = {key: value for key, value in os.environ.items() if key not in WITHHELD}
        environment.update(env or {})
        if site is not None:
            environment["PYTHONPATH"] = os.pathsep.join(filter(None, [str(site), environment.get("PYTHONPATH")]))
        return environment


@contextlib.contextmanager
def _isolated(environment: Mapping[str, str], site: Path | None, cwd: Path | None) -> Iterator[None]:
    """``environment`` as the process's, ``site`` first on its path, ``cwd`` its directory; then the previous ones."""
    saved, path, here = dict(os.environ), list(sys.path), Path.cwd()
    os.environ.clear()
    os.environ.update(environment)
    if site is not None:
        sys.path.insert(0, str(site))
        importlib.invalidate_caches()
    try:
        if cwd is not None:
            os.chdir(cwd)
        yield
    finally:
        os.chdir(here)
        sys.path[:] = path
        os.environ.clear()
        os.environ.update(saved)


@contextlib.contextmanager
def _streams(input: str, stdout: io.TextIOWrapper, stderr: io.TextIOWrapper) -> Iterator[None]:
    """A stdin that reads ``input``, and ``stdout`` and ``stderr``, as the process's."""
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin = io.TextIOWrapper(io.BytesIO(input.encode("utf-8")), encoding="utf-8")
    sys.stdout, sys.stderr = stdout, stderr
    try:
        yield
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved


def _as_text(written: bytes) -> str:
    """``written`` read as a pipe in text mode reads it: decoded, with universal newlines."""
    return io.TextIOWrapper(io.BytesIO(written), encoding="utf-8").read()


@pytest.fixture(autouse=True)
def _private_data_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep what a test's agents store (sessions, artifacts) out of the developer's data directory."""
    monkeypatch.setenv("AGENTKIT_DATA_DIR", str(tmp_path_factory.mktemp("agentkit-data")))


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto`` (``make test``) starts one worker more than the machine has cores.

    A large part of the suite waits on what it started (``agentkit`` processes, servers,
    PostgreSQL, pseudo-terminals), and a core left idle meanwhile is wasted: on 2 cores,
    3 workers ran the suite in about 140 s where 2 took about 200 s. xdist's own
    ``PYTEST_XDIST_AUTO_NUM_WORKERS`` still decides when it is set.
    """
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (cores or 1) + 1


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Refuse a hypothesis test that depends on the machine's speed (see :func:`speed_dependent`); then,
    on an xdist worker, the tests marked ``slow`` first (in their order), then the rest.

    ``--dist worksteal`` hands each worker a contiguous share of this list and lets an idle worker
    take the unstarted end of another's: a slow test started last would keep one worker busy
    while the other has nothing left to take. A plain ``pytest`` keeps the files' order.
    """
    refused = [f"{item.nodeid} ({why})" for item in items if (why := speed_dependent(getattr(item, "obj", None)))]
    if refused:
        raise pytest.UsageError(
            "these tests depend on the machine's speed: " + "; ".join(refused) + ". Drop the deadline, and "
            "add HealthCheck.too_slow to a test's own suppress_health_check (it replaces the suite's profile)."
        )
    if hasattr(config, "workerinput"):
        items.sort(key=lambda item: item.get_closest_marker("slow") is None)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Leave what collection built out of the garbage collector's later passes.

    The collected items and every module imported to collect them (SDKs, hypothesis) live
    until the run ends, yet each full collection walked all of them again: gc.freeze puts
    them in the permanent generation (measured: a third less time in the collector).
    """
    gc.collect()  # garbage left by collection is freed, not frozen
    gc.freeze()


@pytest.fixture(scope="session")
def agentkit() -> AgentkitCommand:
    """The ``agentkit`` command, the one way tests run it: in its own process, or ``agentkit.inline(...)`` in this one."""
    return AgentkitCommand()


def write_distribution(
    site: Path,
    name: str,
    *,
    version: str = "0.1.0",
    entry_points: dict[str, dict[str, str]] | None = None,
    requires: list[str] | None = None,
    files: dict[str, str] | None = None,
) -> Path:
    """Write an installed distribution (dist-info plus its modules) into ``site``.

    This is what pip leaves behind, so ``importlib.metadata`` discovers it the
    same way it discovers any installed plugin.
    """
    site.mkdir(parents=True, exist_ok=True)
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    metadata = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    metadata += [f"Requires-Dist: {requirement}" for requirement in requires or []]
    (info / "METADATA").write_text("\n".join(metadata) + "\n")
    lines = []
    for group, entries in (entry_points or {}).items():
        lines.append(f"[{group}]")
        lines += [f"{key} = {value}" for key, value in entries.items()]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n")
    record = []
    for relative, source in (files or {}).items():
        path = site / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source))
        record.append(f"{relative},,")
    (info / "RECORD").write_text("\n".join([*record, f"{info.name}/METADATA,,"]) + "\n")
    return info


@pytest.fixture
def site_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Path]:
    """Returns ``install(name, **kwargs)`` writing a distribution onto ``sys.path``."""
    site = tmp_path / "site-packages"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    before = set(sys.modules)

    def install(name: str, **kwargs: object) -> Path:
        info = write_distribution(site, name, **kwargs)
        importlib.invalidate_caches()
        return info

    install.site = site
    yield install
    for name in set(sys.modules) - before:  # forget the plugins this test imported
        if str(site) in str(getattr(sys.modules[name], "__file__", "") or ""):
            del sys.modules[name]
