"""The write and validate serializers' direct validation (``DirectValidation``) gives what DRF's own gives:
the same validated values in the same order, or the same errors, for any body."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework import serializers

from profiles.api.serializers import (
    DirectValidation,
    ProfileWriteSerializer,
    ValidateRequestSerializer,
)

SERIALIZERS = [ProfileWriteSerializer, ValidateRequestSerializer]


def drf_only(cls):
    """The same serializer validated by DRF's loop alone."""
    run = serializers.Serializer.run_validation

    class Plain(cls):
        def run_validation(self, data=serializers.empty):
            return run(self, data)

    Plain.__name__ = f"Plain{cls.__name__}"
    return Plain


def outcome(cls, data, **kwargs):
    serializer = cls(data=data, **kwargs)
    if serializer.is_valid():
        return "valid", list(serializer.validated_data.items())
    return "invalid", serializer.errors


texts = st.one_of(
    st.sampled_from(
        ["", " ", "  x  ", "serving", "collection", "bench-api", "0.33.0", "a\x00b", "\ud800", "é"]
    ),
    st.text(max_size=12),
    st.text(max_size=3).map(lambda t: t * 90),  # around the 255-character limits
)
values = st.one_of(
    texts,
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=False, width=16),
    st.lists(texts, max_size=2),
    st.dictionaries(texts, st.one_of(texts, st.none(), st.integers(0, 5)), max_size=3),
)
names = st.sampled_from(
    [
        "team",
        "name",
        "kind",
        "description",
        "model",
        "model_architecture",
        "model_config",
        "vllm_version",
        "engine_args",
        "env",
        "hardware",
        "node_type",
        "command",
        "config",
        "revision",
        "id",
        "state",
        "unknown",
    ]
)


@pytest.mark.parametrize("cls", SERIALIZERS)
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=st.dictionaries(names, values, max_size=6), partial=st.booleans())
def test_direct_validation_matches_drf(cls, body, partial):
    assert issubclass(cls, DirectValidation)
    kwargs = {"partial": partial} if cls is ProfileWriteSerializer else {}
    assert outcome(cls, body, **kwargs) == outcome(drf_only(cls), body, **kwargs)


@pytest.mark.parametrize(
    "body",
    [
        {
            "team": "ml-platform",
            "name": "  llama  ",
            "kind": "serving",
            "command": "vllm serve m --max-model-len 8",
        },
        {"kind": "collection", "engine_args": {"model": "m", "x": None, "y": [1]}, "env": {"A": " b "}},
        {"kind": "serving", "config": "  model: m\n", "description": "", "vllm_version": ""},
        {"kind": "serving", "command": "vllm serve m", "config": "model: m"},  # refused by validate()
        {"kind": "serving", "team": "not a slug", "command": "vllm serve m"},
        {"kind": "serving", "name": "x" * 300, "command": "vllm serve m"},
        {"kind": "serving", "env": {"A": 1}, "engine_args": {}},
        {"kind": "nope", "command": "vllm serve m"},
        {"command": "vllm serve m"},
        [],
        "text",
    ],
)
@pytest.mark.parametrize("cls", SERIALIZERS)
def test_typical_and_refused_bodies_match_drf(cls, body):
    assert outcome(cls, body) == outcome(drf_only(cls), body)


def test_a_typical_body_is_validated_directly():
    """The bodies the API mostly receives take the direct path (DRF's fields are never bound)."""
    serializer = ValidateRequestSerializer(
        data={"kind": "serving", "vllm_version": "0.33.0", "command": "vllm serve m --max-model-len 8"}
    )
    assert serializer.is_valid()
    assert "_fields" not in serializer.__dict__
    assert dict(serializer.validated_data) == {
        "kind": "serving",
        "vllm_version": "0.33.0",
        "command": "vllm serve m --max-model-len 8",
    }
