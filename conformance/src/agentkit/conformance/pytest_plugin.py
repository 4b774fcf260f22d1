"""The pytest plugin of agentkit-conformance (registered under ``pytest11``)."""

from __future__ import annotations
