"""The rows' JSON parameters (``profiles.inserts._dumps``) are the text ``json.dumps`` writes with the same
settings, for any value a row holds."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from profiles import inserts

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=30,
)


@settings(max_examples=500, deadline=None)
@given(value=values)
def test_the_parameters_are_what_json_dumps_writes(value):
    assert inserts._dumps(value) == json.dumps(value, check_circular=False, separators=(",", ":"))


def test_the_c_encoder_is_the_one_used():
    assert inserts._dumps is not inserts._ENCODER.encode
