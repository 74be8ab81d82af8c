"""Packages whose names load on first use (PEP 562), so that importing one module of a
package does not import all of it: a command that needs the package's pure half builds
neither the models nor the database layer its other half needs."""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module

__all__ = ["exports"]


def exports(package: str, where: dict[str, tuple[str, ...]]) -> tuple[Callable, Callable]:
    """``__getattr__`` and ``__dir__`` for ``package``, whose names live in the submodules
    ``where`` lists (``{"submodule": ("name", ...)}``)."""
    home = {name: module for module, names in where.items() for name in names}
    namespace = import_module(package).__dict__

    def __getattr__(name: str):
        if name not in home:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(f"{package}.{home[name]}"), name)
        namespace[name] = value  # found directly from now on
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *home})

    return __getattr__, __dir__
