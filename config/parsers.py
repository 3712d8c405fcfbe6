"""The API's JSON parser: it refuses what should not be stored (invalid UTF-8, NUL characters, deep nesting)
with a 400 that says what and where. No app imports: DRF loads it while its own views module is imported."""

from __future__ import annotations

import json

from django.conf import settings
from rest_framework import exceptions, parsers


def _path(where) -> str:
    """``$.a[0].b`` from the (parent, key or index) chain :func:`_walk` keeps, written out for an error."""
    steps = []
    while where is not None:
        where, step = where
        steps.append(f"[{step}]" if isinstance(step, int) else f".{step}")
    return "$" + "".join(reversed(steps))


def _walk(value, max_depth: int, nul_possible: bool = True) -> None:
    """Refuse NUL characters anywhere (PostgreSQL cannot store them) and nesting deeper than ``max_depth``.
    ``nul_possible=False``: the text holds no ``\\u0000``, so no string can hold a NUL (depth only)."""
    stack = [(value, 1, None)]
    while stack:
        item, depth, where = stack.pop()
        if depth > max_depth:
            raise exceptions.ParseError(f"JSON nested deeper than {max_depth} levels (at {_path(where)})")
        if isinstance(item, str):
            if nul_possible and "\x00" in item:
                raise exceptions.ParseError(f"a NUL character (\\u0000) in a string at {_path(where)}")
        elif isinstance(item, dict):
            for key, sub in item.items():
                if nul_possible and "\x00" in key:
                    raise exceptions.ParseError(f"a NUL character (\\u0000) in a key at {_path(where)}")
                stack.append((sub, depth + 1, (where, key)))
        elif isinstance(item, list):
            stack.extend((sub, depth + 1, (where, i)) for i, sub in enumerate(item))


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser, stricter: the body must be UTF-8, hold no NUL character and nest at most
    ``API_MAX_JSON_DEPTH`` levels; each refusal is a 400 that says what and where."""

    def parse(self, stream, media_type=None, parser_context=None):
        raw = stream.read() if stream is not None else b""
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise exceptions.ParseError(
                f"the request body is not valid UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start})"
            ) from None
        try:
            data = json.loads(text)
        except RecursionError:
            raise exceptions.ParseError(
                f"JSON nested deeper than {settings.API_MAX_JSON_DEPTH} levels"
            ) from None
        except ValueError as exc:
            raise exceptions.ParseError(f"JSON parse error - {exc}") from None
        # A NUL can only reach a string through the escape \\u0000 (a raw one is invalid JSON).
        nul_possible = "\\u0000" in text
        max_depth = settings.API_MAX_JSON_DEPTH
        # Each level below the top is opened by a "[" or "{" of the text (those inside strings only add to
        # the count): a text with fewer of them than max_depth cannot nest deeper than max_depth, and then
        # without a possible NUL the walk could refuse nothing, so it is skipped.
        if nul_possible or text.count("[") + text.count("{") >= max_depth:
            _walk(data, max_depth, nul_possible=nul_possible)
        return data
