"""How the host takes a plugin's hook implementations from pluggy.

Of pluggy's marker options, ``tryfirst``, ``trylast`` and ``specname`` are
pluggy's to honour, ``optionalhook`` is honoured here (an unknown optional
hook is a warning), and ``wrapper``/``hookwrapper`` are refused with the
reason: the host calls each plugin on its own (see ``_hooks``).
"""

from __future__ import annotations

import types

import pluggy

from agentkit.plugin_api import PROJECT_NAME
from agentkit.plugin_api.hookspecs import CATEGORIES

#: Why each pluggy marker option agentkit does not honour is refused (the others are:
#: tryfirst/trylast order the plugins, specname names the hook, optionalhook is below).
_REFUSED_OPTIONS = {
    "wrapper": "agentkit calls each plugin's implementations on their own, so that no plugin can skip, "
               "see or undo another's answer, and a wrapper around the others cannot be honoured",
    "hookwrapper": "agentkit calls each plugin's implementations on their own, so that no plugin can skip, "
                   "see or undo another's answer, and a wrapper around the others cannot be honoured",
}


def hashable(plugin: object, name: str) -> object:
    """``plugin``, or a module holding its hook implementations when it cannot be hashed.

    pluggy's per-plugin callers keep plugins in sets; a ``SimpleNamespace``
    or a dataclass instance defines ``__eq__`` without ``__hash__``.
    """
    try:
        hash(plugin)
        return plugin
    except TypeError:
        pass
    holder = types.ModuleType(f"agentkit-plugin-{name}", f"The hook implementations of {plugin!r}.")
    marker = f"{PROJECT_NAME}_impl"
    for attr in dir(plugin):
        try:
            value = getattr(plugin, attr)
        except Exception:
            continue
        if getattr(value, marker, None) is not None:
            setattr(holder, attr, value)
    return holder


def check_markers(pm: pluggy.PluginManager, plugin: object) -> tuple[str | None, list[str], list[str]]:
    """``(why the plugin is refused or None, the hooks it implements, warnings)``.

    An implementation of a hook nobody declared fails the plugin, unless it
    is marked ``optionalhook=True`` (written for a later agentkit): then it
    is only never called.
    """
    hooks, unknown, warnings, refused = [], [], [], []
    for caller in pm.get_hookcallers(plugin) or []:
        impls = [impl for impl in caller.get_hookimpls() if impl.plugin is plugin]
        if caller.spec is None:
            if all(impl.optionalhook for impl in impls):
                warnings.append(f"implements {caller.name}, which this agentkit does not declare; it is marked "
                                "optionalhook=True, so it is never called")
            else:
                unknown.append(caller.name)
            continue
        hooks.append(caller.name)
        for impl in impls:
            refused += [f"{caller.name} is declared with {option}=True, which is not supported: {why}; implement it "
                        "as a plain function (return a Block to object)"
                        for option, why in _REFUSED_OPTIONS.items() if impl.opts.get(option)]
    if unknown:
        known = sorted(name for module in CATEGORIES.values() for name in vars(module) if name.startswith("agentkit_"))
        return (f"implements unknown hook(s) {', '.join(sorted(unknown))}; known hooks are: {', '.join(known)}",
                sorted(hooks), warnings)
    return ("; ".join(refused) or None), sorted(hooks), warnings
