"""Where skills are looked for, and whether an agent may have any: asked before the tiers are loaded.

An agent whose plugins give no skill and whose skill folders do not exist has
no skill and nothing to report about skills; it loads none of the tiers, the
checks or the block (:mod:`._tiers` reads the same folders when it may find one).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .._plugins import PluginHost

__all__ = ["PROJECT_SKILLS", "USER_SKILLS", "may_have_skills", "user_home"]

#: The project's skills folder, under the workspace root.
PROJECT_SKILLS = Path(".agentkit") / "skills"
#: The user's skills folder, under HOME.
USER_SKILLS = Path(".agentkit") / "skills"


def user_home() -> Path | None:
    """HOME as an absolute folder, or ``None`` when it cannot be resolved."""
    raw = os.environ.get("HOME")
    if raw is None:
        try:
            raw = os.path.expanduser("~")
        except (KeyError, RuntimeError):  # no passwd entry
            return None
    if not raw or raw == "~" or not os.path.isabs(raw):
        return None
    return Path(raw)


def may_have_skills(host: PluginHost | None, root: Path, home: Path | None) -> bool:
    """Whether loading the skills (:func:`._tiers.load_skills`) could find a skill or a problem to report:
    a plugin gives one, a skills folder exists (the project's, trusted or not), or HOME cannot be resolved."""
    return (bool(host is not None and host.skills) or (root / PROJECT_SKILLS).is_dir() or home is None
            or (home / USER_SKILLS).is_dir())
