"""A module imported when one of its names is first used.

The server-free linter starts for every CI step and pre-commit hook: a module only some inputs need (PyYAML
for manifests and YAML configs, not for a `vllm serve` command file) is imported when first used. The
import statement runs under the import system's lock, so threads that first use it together are safe.
"""

from __future__ import annotations

import importlib
from typing import Any


class LazyModule:
    """Stands for the module ``name``: the first use of any of its names imports it (each name is then kept
    on this object, so later uses cost a plain attribute read)."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        value = getattr(importlib.import_module(self._name), attr)
        self.__dict__[attr] = value
        return value


def lazy_module(name: str) -> Any:
    return LazyModule(name)
