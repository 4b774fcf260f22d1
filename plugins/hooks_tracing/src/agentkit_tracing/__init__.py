"""Deprecated: the tracing plugin is imported as ``agentkit_hooks_tracing`` (its distribution is
``agentkit-hooks-tracing``, after the naming rule of docs/decisions/0038-layout-by-kind.md).

This module keeps ``import agentkit_tracing`` working, with a ``DeprecationWarning``, until the
next minor release of 0.x.
"""

from __future__ import annotations

import warnings

from agentkit_hooks_tracing import CONTENT_ENV, Tracing, plugin

warnings.warn("agentkit_tracing is deprecated: import agentkit_hooks_tracing instead (the same names)",
              DeprecationWarning, stacklevel=2)

__all__ = ["CONTENT_ENV", "Tracing", "plugin"]
