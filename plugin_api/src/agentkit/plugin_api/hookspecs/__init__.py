"""The hook specifications, one module per plugin category.

:data:`CATEGORIES` maps each entry-point category (``agentkit.<category>``)
to the module declaring its hooks.
"""

from __future__ import annotations

from types import ModuleType

from . import hooks, providers, skills, tools

CATEGORIES: dict[str, ModuleType] = {
    "providers": providers,
    "tools": tools,
    "skills": skills,
    "hooks": hooks,
}


def hook_names(category: str) -> list[str]:
    """The names of the hooks declared for ``category``."""
    module = CATEGORIES[category]
    return sorted(name for name in vars(module) if name.startswith("agentkit_"))


__all__ = ["CATEGORIES", "hook_names", "hooks", "providers", "skills", "tools"]
