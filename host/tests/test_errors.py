"""The host's exceptions: the tree ``agentkit.host.errors`` draws, each class named and pickled from there."""

from __future__ import annotations

import pickle

import pytest

import agentkit.host
import agentkit.host.errors as errors
from agentkit.plugin_api.errors import AgentkitError, UsageError

#: Each class of the tree and its parent, as the module's docstring draws it.
TREE = {
    "UsageError": AgentkitError,
    "ConfigError": UsageError,
    "SkillConflictError": errors.ConfigError,
    "UnsafeDataDirError": errors.ConfigError,
    "ImageError": UsageError,
    "FileInputError": UsageError,
    "ModelNotFound": UsageError,
    "AgentBusy": UsageError,
    "NothingToContinue": UsageError,
    "SessionNotFound": UsageError,
    "SessionError": AgentkitError,
    "SessionLoadError": errors.SessionError,
    "SessionConflict": errors.SessionError,
}


@pytest.mark.parametrize(("name", "parent"), sorted(TREE.items()))
def test_each_error_is_where_the_tree_puts_it_and_named_from_agentkit_host_errors(name, parent):
    error = getattr(errors, name)
    assert error.__bases__[0] is parent
    assert name in errors.__all__ and name in dir(errors)
    assert f"{error.__module__}.{error.__qualname__}" == (
        f"agentkit.plugin_api.errors.{name}" if name == "UsageError" else f"agentkit.host.errors.{name}")
    raised = pickle.loads(pickle.dumps(error("what went wrong")))
    assert type(raised) is error and str(raised) == "what went wrong"


def test_the_errors_the_host_package_exports_are_the_same_classes():
    for name in ("ConfigError", "ImageError", "FileInputError", "ModelNotFound", "AgentBusy"):
        assert getattr(agentkit.host, name) is getattr(errors, name)


def test_a_name_the_module_does_not_have_is_an_attribute_error():
    with pytest.raises(AttributeError, match="has no attribute 'SessionErrror'"):
        errors.SessionErrror  # noqa: B018
