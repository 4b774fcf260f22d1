"""No test of the suite depends on how fast the machine runs it.

Hypothesis times each example (``deadline``, 200 ms by default) and each
test's data generation (``HealthCheck.too_slow``): on a loaded machine (two
``make test`` side by side, a busy CI runner) a test that is right failed
for being slow. The root ``conftest.py`` loads the suite's profile, without a
deadline and without that check, for every test directory; a test that sets
its own ``suppress_health_check`` replaces the profile's list, so collection
refuses one that leaves ``too_slow`` out, or sets a deadline, naming it.
"""

from __future__ import annotations

import importlib.util
import textwrap
from pathlib import Path

from hypothesis import HealthCheck, settings

ROOT_CONFTEST = Path(__file__).resolve().parents[1] / "conftest.py"


def _root_conftest():
    """The root conftest.py as a module of its own (the name ``conftest`` is every directory's)."""
    spec = importlib.util.spec_from_file_location("agentkit_root_conftest", ROOT_CONFTEST)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_suite_profile_has_no_deadline_and_no_speed_check():
    assert settings.default.deadline is None
    assert HealthCheck.too_slow in settings.default.suppress_health_check


def _collected(tmp_path, source: str):
    """The hypothesis test functions of a module written from ``source``."""
    module = tmp_path / "module_under_check.py"
    module.write_text(textwrap.dedent(source))
    namespace: dict = {}
    exec(compile(module.read_text(), str(module), "exec"), namespace)
    return [value for name, value in namespace.items() if name.startswith("test_")]


def test_a_test_that_brings_back_a_speed_check_is_named(tmp_path):
    tests = _collected(tmp_path, """
        from hypothesis import HealthCheck, given, settings, strategies as st

        @settings(max_examples=5, suppress_health_check=[HealthCheck.function_scoped_fixture])
        @given(st.integers())
        def test_own_list(n):
            pass

        @settings(deadline=500)
        @given(st.integers())
        def test_own_deadline(n):
            pass

        @settings(max_examples=5, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
        @given(st.integers())
        def test_fine(n):
            pass

        @given(st.integers())
        def test_profile(n):
            pass

        def test_plain():
            pass
    """)
    speed_dependent = _root_conftest().speed_dependent
    assert [(test.__name__, why) for test in tests if (why := speed_dependent(test))] == [
        ("test_own_list", "its suppress_health_check leaves out HealthCheck.too_slow"),
        ("test_own_deadline", "it sets deadline=500 ms"),
    ]
