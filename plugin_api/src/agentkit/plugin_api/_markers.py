"""The pluggy project name and the two markers built from it."""

from __future__ import annotations

import pluggy

#: The pluggy project name every agentkit hook belongs to.
PROJECT_NAME = "agentkit"

#: Marks a plugin function as an implementation of an ``agentkit_*`` hook.
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)

# Private: only the hookspec modules of this package declare hooks.
hookspec = pluggy.HookspecMarker(PROJECT_NAME)
