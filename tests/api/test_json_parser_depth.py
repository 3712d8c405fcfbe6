"""The API's JSON parser refuses exactly the bodies nested deeper than API_MAX_JSON_DEPTH levels, or holding a
NUL character, whether or not it walks the parsed value (it skips the walk when the text has too few
brackets to nest that deep and no escaped NUL): its answer is the full walk's, body by body."""

from __future__ import annotations

import io
import json

import pytest
from rest_framework import exceptions

from config.parsers import JSONParser, _walk


def _bodies():
    for depth in range(1, 36):
        yield "[" * depth + "1" + "]" * depth
        yield '{"a": ' * depth + "1" + "}" * depth
        yield json.dumps({"kind": "serving", "x": json.loads("[" * depth + '"a"' + "]" * depth)})
        yield json.dumps({"s": "[" * depth + "{" * depth})  # brackets only inside a string
    yield json.dumps({"s": "a\u0000b"})
    yield json.dumps({"a\u0000": 1})
    yield json.dumps({"command": 'vllm serve m --speculative-config \'{"method": "ngram"}\''})


def _walk_refuses(text: str, max_depth: int) -> str | None:
    try:
        _walk(json.loads(text), max_depth)
    except exceptions.ParseError as exc:
        return str(exc.detail)
    return None


@pytest.mark.parametrize("max_depth", [2, 8, 32])
def test_refuses_what_the_full_walk_refuses(settings, max_depth):
    settings.API_MAX_JSON_DEPTH = max_depth
    for text in _bodies():
        expected = _walk_refuses(text, max_depth)
        try:
            JSONParser().parse(io.BytesIO(text.encode()))
            refused = None
        except exceptions.ParseError as exc:
            refused = str(exc.detail)
        assert refused == expected, text
