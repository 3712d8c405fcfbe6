"""Hashable stand-ins for profile values, so that outcomes computed from them can be reused when they recur.

The engine's outcomes (a rule's finding, a catalog check's findings) are functions of the profile values
they read. Fleets repeat the same values (tensor-parallel sizes, speculative configs, dtypes), so the engine
keeps each outcome under the frozen values it read and reuses it; tables start over past ``LIMIT`` entries.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

LIMIT = 4096
ABSENT = ("<absent>",)  # a value the profile does not give (no frozen value equals it)
ABSENT_NUMBER = 0  # ``number(ABSENT)``, fixed: no other value gets it
NUMBER_LIMIT = 65536

_NUMBERS: dict[Any, int] = {ABSENT: ABSENT_NUMBER}
_COUNT = itertools.count(1)


def number(frozen: Any) -> int:
    """An int standing for a frozen value (``freeze``) in memo keys, which then hash and compare as ints
    rather than as nested tuples. Equal frozen values get one number and a number never stands for another
    value: past ``NUMBER_LIMIT`` values the table starts over but the count goes on, so a key made before
    only stops matching. (``setdefault`` keeps the first number two threads give one new value; ``next`` is
    atomic.)

    A string's number is also kept under the string itself (no frozen form is a bare string), so that a
    caller numbering a str ``s`` may look up ``_NUMBERS.get(s)`` without making the pair ``(str, s)``."""
    found = _NUMBERS.get(frozen)
    if found is None:
        if len(_NUMBERS) >= NUMBER_LIMIT:
            _NUMBERS.clear()
            _NUMBERS[ABSENT] = ABSENT_NUMBER
        found = _NUMBERS.setdefault(frozen, next(_COUNT))
    if type(frozen) is tuple and len(frozen) == 2 and frozen[0] is str:
        _NUMBERS.setdefault(frozen[1], found)
    return found


def number_of(value: Any) -> int:
    """``number(freeze(value))``, a scalar's frozen form written out (most values are one); a string looked
    up under itself first (``number`` keeps it there too), without making the pair."""
    kind = type(value)
    if kind is str:
        found = _NUMBERS.get(value)
        if found is not None:
            return found
        frozen: Any = (kind, value)
    elif kind is int or kind is bool:
        frozen = (kind, value)
    else:
        frozen = freeze(value)
    found = _NUMBERS.get(frozen)
    return found if found is not None else number(frozen)


def freeze(value: Any) -> Any:
    """A hashable stand-in for ``value`` that equals another only for the same value of the same type.

    CEL tells 1, 1.0 and true apart (Python's ``1 == 1.0 == True`` does not), and a message renders -0.0
    and 0.0 differently, so the type is part of it and floats are kept exactly (``float.hex``). Mappings keep
    their order. TypeError for a value of any other type: its outcome is then not reused.
    """
    kind = type(value)
    if kind in _SCALARS:
        return (kind, value)
    if kind is float:
        return (kind, value.hex())
    # Containers: their scalar items frozen in place (a model's config.json has hundreds). A dict or a list
    # is told apart before asking the ABC (a Mapping check costs about as much as the freezing). Loops, not
    # comprehensions: this interpreter makes a function of each comprehension, per call.
    if kind is dict or (kind is not list and isinstance(value, Mapping)):
        if not value:
            return (kind, ())
        pairs = []
        add = pairs.append
        for k, v in value.items():
            tk = type(k)
            tv = type(v)
            add(((tk, k) if tk in _SCALARS else freeze(k), (tv, v) if tv in _SCALARS else freeze(v)))
        return (kind, tuple(pairs))
    if kind is list or isinstance(value, list | tuple):
        if not value:
            return (kind, ())
        items = []
        add = items.append
        for v in value:
            tv = type(v)
            add((tv, v) if tv in _SCALARS else freeze(v))
        return (kind, tuple(items))
    raise TypeError(f"no memo key for a {kind.__name__}")


_SCALARS = frozenset({type(None), str, int, bool})  # frozen as (type, value)
