"""The plugin keeps the agentkit plugin contract: the lint and the conformance suite.

``agentkit-conformance`` is a test dependency of this project; its pytest
plugin provides the ``agentkit_conformance`` fixture (and the
``--agentkit-plugin=wordcount`` option, which turns each check into a test).
"""

from __future__ import annotations


def test_the_plugin_passes_the_agentkit_conformance_checks(agentkit_conformance):
    [report] = agentkit_conformance()  # this project, from its pyproject.toml; fails the test on any failure
    assert report.distribution == "agentkit-tools-wordcount" and report.categories == ["tools"]
