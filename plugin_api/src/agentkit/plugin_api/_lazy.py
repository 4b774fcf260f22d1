"""Public names that load where first used (PEP 562), for the packages of ``agentkit``.

A package lists each public name with the module that defines it and gets its
``__getattr__`` and ``__dir__`` from :func:`lazy_exports`: importing one of its
modules (which runs the package's ``__init__`` first) then loads nothing else.
The host's packages use it too; both distributions are released together. The
plugin API's own top package keeps its own (importing it must load no submodule).
"""

from __future__ import annotations

from importlib import import_module
from sys import modules as _loaded

TYPE_CHECKING = False  # spelled out: typing costs more than the packages that use this
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any


def lazy_exports(
    package: str,
    exports: Mapping[str, str],
    namespace: dict[str, Any],
    fallback: Callable[[str], Any] | None = None,
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``, whose ``namespace`` is its ``globals()``.

    :param exports: each public name with the module (relative to ``package``) that defines it.
    :param fallback: the value of a name ``exports`` does not hold (``__version__``); it raises
        ``AttributeError`` for a name the package does not have. Without it, such a name raises.
    """

    def __getattr__(name: str) -> Any:
        where = exports.get(name)
        if where is not None:
            # A module loaded whole is read from sys.modules (a tenth of import_module's bytecodes); one still
            # being loaded (by another thread, say) is left to import_module, which waits for it.
            module = _loaded.get(package + where)
            if module is None or getattr(module.__spec__, "_initializing", False):
                module = import_module(where, package)
            value = getattr(module, name)
        elif fallback is not None:
            value = fallback(name)
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        namespace[name] = value  # looked up once: later uses are plain attribute reads
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(namespace.get("__all__", exports)))

    return __getattr__, __dir__


class DeferredModule:
    """Stands for module ``name`` where only some uses need it: the first attribute read imports it.

    For a name that annotations mention (``typing.get_type_hints`` reads ``httpx.AsyncBaseTransport``
    through it) and a rare check uses, in a module that most processes load without needing ``name``.
    """

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attribute: str) -> Any:
        return getattr(import_module(self._name), attribute)

    def __repr__(self) -> str:
        return f"<deferred module {self._name!r}>"
