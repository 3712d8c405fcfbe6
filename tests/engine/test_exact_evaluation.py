"""The optimised evaluation (rules skipped when they read nothing the profile sets, contexts pruned to what the
running rules read, ``has()`` guards) gives exactly the findings of running every rule on the whole document."""

from __future__ import annotations

import copy

import cel
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vllmcheck.engine.catalog import Catalog
from vllmcheck.engine.cel_reads import read_set
from vllmcheck.engine.lint import build_document, validate
from vllmcheck.engine.memo import freeze
from vllmcheck.engine.rules import NAMESPACES, compile_ruleset, load_pack
from vllmcheck.linter.data import BUILTIN_PACK, CATALOG_DIR

ARGS = ("max_num_seqs", "tensor_parallel_size", "enforce_eager", "kv_cache_dtype", "speculative_config")
ENV = ("VLLM_USE_V2_MODEL_RUNNER", "VLLM_DEBUG_X", "VLLM_DEBUG_Y", "HF_TOKEN")
CONFIG = ("num_attention_heads", "max_position_embeddings")
ROOTS = frozenset(NAMESPACES)


def test_the_issue_rules_fire_under_the_optimised_evaluation():
    """Issue 9: with VLLM_DEBUG_X=1 and three arguments both rules are true under CEL."""
    pack = {
        "rules": [
            {
                "id": "debug-env",
                "category": "policy",
                "severity": "error",
                "message": "debug env set",
                "when": 'env.exists(k, k.startsWith("VLLM_DEBUG"))',
            },
            {
                "id": "many-args",
                "category": "policy",
                "severity": "error",
                "message": "more than two args",
                "when": "args.size() > 2",
            },
        ]
    }
    ruleset = compile_ruleset(load_pack(pack))
    doc = build_document(
        kind="serving",
        version="0.31.0",
        model_name="m",
        args={"max_num_seqs": 8, "enforce_eager": True, "tensor_parallel_size": 2},
        env={"VLLM_DEBUG_X": "1"},
    )
    assert [f.rule for f in validate(doc, ruleset=ruleset).findings] == ["debug-env", "many-args"]
    two = build_document(kind="serving", version="0.31.0", model_name="m", args={"max_num_seqs": 8})
    assert validate(two, ruleset=ruleset).findings == ()


@pytest.mark.parametrize(
    ("expr", "reads"),
    [
        ('env.exists(k, k.startsWith("VLLM_DEBUG"))', {"env": None}),
        ("args.size() > 2", {"args": None}),
        ("size(env) > 0", {"env": None}),
        ('"x" in args', {"args": None}),
        ("args.all(k, k != 'x')", {"args": None}),
        ("args == {}", {"args": None}),
        ("args[k] == 1", {"args": None}),
        ("args.?x.orValue(1) == 1", {"args": None}),
        ('has(args.x) && args["y"] == 1', {"args": {"x", "y"}}),
        ("effective.speculative_config.method == 'ngram'", {"effective": {"speculative_config"}}),
        ("args.x.exists(e, e > 1)", {"args": {"x"}}),
        ('"args.x" == env.A', {"env": {"A"}}),
        (
            "model.config.num_attention_heads % 2 == 0",
            {"model": {"config"}, "model.config": {"num_attention_heads"}},
        ),
        ("model.config.exists(k, k == 'a')", {"model": {"config"}, "model.config": None}),
        ("size(model) > 0", {"model": None, "model.config": None}),
        (".args.x == 1 // args.size() in a comment", {"args": {"x"}}),
    ],
)
def test_read_sets_come_from_the_parsed_expression(expr, reads):
    expected = {root: None if keys is None else frozenset(keys) for root, keys in reads.items()}
    assert read_set(expr, ROOTS) == expected


# --- a small grammar of realistic CEL over args / env / effective / model / hardware -----------------------

values = st.sampled_from(["1", "8", "true", "false", "'auto'", "'fp8'", "null", "256"])
arg = st.sampled_from(ARGS)
env = st.sampled_from(ENV)
atoms = st.one_of(
    st.builds("has(args.{})".format, arg),
    st.builds("args.{} == {}".format, arg, values),
    st.builds("effective.{} == {}".format, arg, values),
    st.builds("effective.{} != null".format, arg),
    st.builds('args["{}"] == {}'.format, arg, values),
    st.builds("has(env.{})".format, env),
    st.builds('env.{} == "1"'.format, env),
    st.builds("int(env.{}) > 0".format, env),  # an error when the value is not a number: could not verify
    st.builds("args.size() > {}".format, st.integers(0, 4)),
    st.builds("size(env) >= {}".format, st.integers(0, 3)),
    st.builds('env.exists(k, k.startsWith("{}"))'.format, st.sampled_from(["VLLM_DEBUG", "HF_", "X"])),
    st.builds('"{}" in args'.format, arg),
    st.builds("args.all(k, k != '{}')".format, arg),
    st.builds("effective.exists(k, k == '{}')".format, arg),
    st.builds("model.config.{} % 4 == 0".format, st.sampled_from(CONFIG)),
    st.builds("has(model.config.{})".format, st.sampled_from(CONFIG)),
    st.builds("hardware.gpus_per_node >= {}".format, st.integers(1, 8)),
    st.builds("effective.speculative_config.method == '{}'".format, st.sampled_from(["ngram", "mtp"])),
    st.just('kind == "serving"'),
    st.just("vllm.minor >= 31"),
)
conditions = st.recursive(
    atoms,
    lambda inner: st.one_of(
        st.builds("({}) && ({})".format, inner, inner),
        st.builds("({}) || ({})".format, inner, inner),
        st.builds("!({})".format, inner),
        st.builds("({}) ? ({}) : false".format, inner, inner),
        st.builds("has(args.{}) && ({})".format, arg, inner),
    ),
    max_leaves=4,
)
slots = st.one_of(
    st.builds("{{{{ effective.{} }}}}".format, arg),
    st.builds("{{{{ args.{} | !r }}}}".format, arg),
    st.builds("{{{{ env.{} }}}}".format, env),
    st.just("{{ args.size() }}"),
    st.just("{{ model.config.num_attention_heads }}"),
    st.just("{{ env.filter(k, k.startsWith('VLLM')).size() }}"),
)
rules = st.lists(
    st.tuples(conditions, st.sampled_from(["error", "warning", "info"]), st.lists(slots, max_size=2)),
    min_size=1,
    max_size=6,
)
documents = st.fixed_dictionaries(
    {
        "args": st.dictionaries(
            arg,
            st.one_of(
                st.integers(0, 300),
                st.booleans(),
                st.sampled_from(["auto", "fp8"]),
                st.just({"method": "ngram", "num_speculative_tokens": 3}),
            ),
            max_size=4,
        ),
        "env": st.dictionaries(env, st.sampled_from(["0", "1", "x"]), max_size=3),
        "config": st.one_of(
            st.none(), st.dictionaries(st.sampled_from(CONFIG), st.integers(1, 64), max_size=2)
        ),
        "hardware": st.one_of(st.just({}), st.fixed_dictionaries({"gpus_per_node": st.integers(1, 8)})),
        "kind": st.sampled_from(["serving", "collection"]),
        "version": st.sampled_from(["0.28.0", "0.31.0", "0.33.0"]),
    }
)


def pack_of(generated):
    return {
        # Defaults for some arguments only: the others read as null when unset.
        "defaults": [{"versions": ">=0.28.0", "values": {"max_num_seqs": 256, "enforce_eager": False}}],
        "rules": [
            {
                "id": f"rule-{i}",
                "category": "policy",
                "severity": severity,
                "message": f"rule {i}",
                "when": when,
                **({"message_template": " / ".join(template)} if template else {}),
            }
            for i, (when, severity, template) in enumerate(generated)
        ],
    }


def document_of(data):
    return build_document(
        kind=data["kind"],
        version=data["version"],
        model_name="m",
        args=data["args"],
        env=data["env"],
        hardware=data["hardware"],
        model_config=data["config"],
    )


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(generated=rules, docs=st.lists(documents, min_size=1, max_size=4))
def test_optimised_evaluation_equals_plain_evaluation(generated, docs):
    ruleset = compile_ruleset(load_pack(pack_of(generated)))
    for data in docs:
        doc = document_of(data)
        assert ruleset.evaluate(doc).as_dict() == ruleset.evaluate(doc, plain=True).as_dict()
        assert ruleset.evaluate(doc, memo=False).as_dict() == ruleset.evaluate(doc, plain=True).as_dict()
    # A second pass, waiving some rules: outcomes the first pass memoised are still the plain evaluation's.
    waived = [f"rule-{i}" for i in range(0, len(generated), 2)]
    for data in reversed(docs):
        doc = document_of(data)
        optimised = ruleset.evaluate(doc, waived=waived)
        assert optimised.as_dict() == ruleset.evaluate(doc, plain=True, waived=waived).as_dict()


def _shows_x(template: str):
    """A rule set of one rule, ``shows-x``: a warning with ``template`` whenever ``args.x`` is set."""
    rule = {"id": "shows-x", "category": "policy", "severity": "warning", "message": "x is set"}
    return compile_ruleset(
        load_pack({"rules": [{**rule, "message_template": template, "when": "has(args.x)"}]})
    )


def test_a_reused_outcome_tells_values_of_other_types_apart():
    """1, true and 1.0 are equal in Python but not in CEL: each gets its own outcome and message."""
    ruleset = _shows_x("x is {{ args.x }} ({{ type(args.x) }})")
    messages = []
    for value in (1, True, 1.0, -0.0, 0.0, 1, {"a": 1}, {"a": True}):
        doc = build_document(kind="serving", version="0.31.0", model_name="m", args={"x": value})
        (finding,) = ruleset.evaluate(doc).findings
        assert finding.as_dict() == ruleset.evaluate(doc, plain=True).findings[0].as_dict()
        messages.append(finding.message)
    assert messages[0] == messages[5]
    assert len(set(messages)) == 7, messages


_SCALAR_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 2),
    st.floats(allow_nan=False, min_value=-1, max_value=1),
    st.sampled_from(["a", "b", "1"]),
)
_PROFILE_VALUES = st.recursive(
    _SCALAR_VALUES,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(
            st.one_of(st.sampled_from(["a", "b"]), st.integers(0, 1), st.booleans()), inner, max_size=3
        ),
    ),
    max_leaves=6,
)


def _same_value(a, b) -> bool:
    """The same value to CEL and to a message: types (1, true, 1.0), float signs and a mapping's order count."""
    if type(a) is not type(b):
        return False
    if type(a) is float:
        return a.hex() == b.hex()
    if type(a) is list:
        return len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b, strict=True))
    if type(a) is dict:
        return len(a) == len(b) and all(
            _same_value(ka, kb) and _same_value(va, vb)
            for (ka, va), (kb, vb) in zip(a.items(), b.items(), strict=True)
        )
    return a == b


@settings(max_examples=300, deadline=None)
@given(_PROFILE_VALUES, _PROFILE_VALUES)
def test_a_memo_key_stands_for_one_value_only(a, b):
    """Outcomes are reused under ``memo.freeze`` of the values read: two values get equal keys only when they
    are the same value (flat containers and nested ones alike), and a copy of a value gets its key."""
    assert (freeze(a) == freeze(b)) is _same_value(a, b)
    assert freeze(a) == freeze(copy.deepcopy(a))
    assert hash(freeze(a)) == hash(freeze(copy.deepcopy(a)))


@pytest.mark.parametrize(
    "values",
    [
        [10, 11, 12, 13, 14, 15, 10, 16, 11, 17, 12, 13],
        # strings are also numbered under themselves (``memo.number``): both start over together
        ["a", "b", "c", "d", "e", "f", "a", "g", "b", "h", "c", "d"],
    ],
)
def test_a_reused_outcome_is_never_served_for_another_value_after_the_value_numbers_start_over(
    monkeypatch, values
):
    """Memo keys number the values (``memo.number``); past its limit the table of numbers starts over, and a
    number given before must never stand for another value after (else an outcome memoised for one value
    would be served for another)."""
    from vllmcheck.engine import memo

    monkeypatch.setattr(memo, "NUMBER_LIMIT", 3)
    ruleset = _shows_x("x is {{ args.x }}")
    for value in values * 2:
        doc = build_document(kind="serving", version="0.31.0", model_name="m", args={"x": value})
        (finding,) = ruleset.evaluate(doc).findings
        assert finding.message == f"x is {value}"


def test_the_benchmark_profiles_get_the_plain_verdicts_with_the_whole_pack():
    """The 5,000-profile benchmark's generator, a few hundred of its profiles, every shipped catalog and the
    built-in pack: catalog checks and rules, optimised and with reused outcomes (two passes), give exactly
    the findings of computing everything afresh (``plain``)."""
    from benchmarks.engine import generate

    catalogs = {p.stem: Catalog.load(p) for p in sorted(CATALOG_DIR.glob("*.json"))}
    ruleset = compile_ruleset(load_pack(BUILTIN_PACK))
    docs = generate(catalogs, 300, 20261202)
    expected = [
        validate(d, ruleset=ruleset, catalog=catalogs[d["vllm"]["version"]], history=catalogs, plain=True)
        for d in docs
    ]
    assert sum(not v.valid for v in expected) > 50  # the profiles exercise refusals, not only valid ones
    for _ in range(2):
        for doc, reference in zip(docs, expected, strict=True):
            verdict = validate(
                doc, ruleset=ruleset, catalog=catalogs[doc["vllm"]["version"]], history=catalogs
            )
            assert verdict.as_dict() == reference.as_dict()


def test_a_stored_rule_set_gives_the_verdicts_of_the_one_it_was_stored_from():
    """The servers and `manage.py lint` load a compiled rule set with its release plans from a cache
    (``engine.store``) instead of compiling it: loaded, it gives the same findings as compiled afresh, and it
    carries no outcome the storing process had memoised."""
    from benchmarks.engine import generate
    from vllmcheck.engine import store

    catalogs = {p.stem: Catalog.load(p) for p in sorted(CATALOG_DIR.glob("*.json"))}
    ruleset = compile_ruleset(load_pack(BUILTIN_PACK))
    docs = generate(catalogs, 150, 7)
    expected = [
        validate(d, ruleset=ruleset, catalog=catalogs[d["vllm"]["version"]], history=catalogs) for d in docs
    ]
    data = store.dumps(ruleset)
    assert data is not None
    loaded = store.loads(data)
    assert set(loaded._plans) == set(ruleset._plans)
    assert all(not any(plan.outcomes) for plan in loaded._plans.values())  # no memoised outcome
    for doc, reference in zip(docs, expected, strict=True):
        verdict = validate(doc, ruleset=loaded, catalog=catalogs[doc["vllm"]["version"]], history=catalogs)
        assert verdict.as_dict() == reference.as_dict()


def test_an_outcome_reused_across_releases_only_where_the_release_and_kind_cannot_change_it():
    """A rule that reads only the profile's own values gives one outcome per values in every release (so
    releases share it); one that reads the release's defaults, the release, a derived value or the kind
    gives each release and kind its own, unless they read the same (two releases with the same default)."""
    pack = {
        "defaults": [
            {"versions": "<0.30.0", "values": {"y": 8}},
            {"versions": ">=0.30.0", "values": {"y": 2}},
        ],
        "derived": [
            {
                "name": "big",
                "variants": [{"versions": "<0.30.0", "expr": "8"}, {"versions": ">=0.30.0", "expr": "2"}],
            }
        ],
        "rules": [
            {
                "id": "own",
                "category": "policy",
                "severity": "warning",
                "message": "x set",
                "when": "has(args.x)",
            },
            {
                "id": "by-kind",
                "category": "policy",
                "severity": "warning",
                "message": "x on serving",
                "when": "has(args.x) && kind == 'serving'",
            },
            {
                "id": "by-release",
                "category": "policy",
                "severity": "warning",
                "message": "x on 0.31",
                "when": "has(args.x) && vllm.minor == 31",
            },
            {
                "id": "by-derived",
                "category": "policy",
                "severity": "warning",
                "message": "x above",
                "message_template": "x above {{ derived.big }}",
                "when": "has(args.x) && args.x > derived.big",
            },
            {
                "id": "below-default",
                "category": "policy",
                "severity": "warning",
                "message": "x below y",
                "when": "has(args.x) && args.x < effective.y",
            },
            {
                "id": "says-default",
                "category": "policy",
                "severity": "info",
                "message": "y",
                "message_template": "x set, y {{ effective.y }}",
                "when": "has(args.x)",
            },
        ],
    }
    ruleset = compile_ruleset(load_pack(pack))
    seen = []
    for _ in range(2):
        for version in ("0.28.0", "0.31.0", "0.33.0"):
            for kind in ("serving", "collection"):
                doc = build_document(kind=kind, version=version, model_name="m", args={"x": 4})
                verdict = ruleset.evaluate(doc)
                assert verdict.as_dict() == ruleset.evaluate(doc, plain=True).as_dict()
                seen.append((version, kind, sorted(f.message for f in verdict.findings)))
    assert ("0.31.0", "serving", ["x above 2", "x on 0.31", "x on serving", "x set", "x set, y 2"]) in seen
    assert ("0.28.0", "collection", ["x below y", "x set", "x set, y 8"]) in seen
    assert ("0.33.0", "collection", ["x above 2", "x set", "x set, y 2"]) in seen


def test_a_value_with_no_memo_key_is_evaluated_afresh_each_time():
    """A value of a type ``memo.freeze`` has no key for (a timestamp) is never looked up nor memoised: each
    profile that sets one gets its own outcome, the plain evaluation's."""
    from datetime import UTC, datetime

    ruleset = _shows_x("x is {{ string(args.x) }}")
    messages = []
    for year in (2026, 2027, 2026):
        doc = build_document(
            kind="serving", version="0.31.0", model_name="m", args={"x": datetime(year, 1, 1, tzinfo=UTC)}
        )
        verdict = ruleset.evaluate(doc)
        assert verdict.as_dict() == ruleset.evaluate(doc, plain=True).as_dict()
        messages.append(verdict.findings[0].message)
    assert messages[0] == messages[2] != messages[1]


def test_a_group_guarded_by_one_key_runs_only_with_that_key():
    """Rules that all need ``has(args.a)`` give nothing while the profile lacks ``a``, whatever else they read
    it sets; with ``a`` they run (and a model-config guard is "could not verify" without a config)."""
    pack = {
        "rules": [
            {
                "id": "a-and-b",
                "category": "policy",
                "severity": "error",
                "message": "a and b",
                "when": "has(args.a) && args.b > 1",
            },
            {
                "id": "a-or-b",
                "category": "policy",
                "severity": "warning",
                "message": "a, b",
                "when": "has(args.a) && (args.b == 1 || args.a == 2)",
            },
            {
                "id": "heads",
                "category": "policy",
                "severity": "warning",
                "message": "heads",
                "when": "has(model.config.num_attention_heads) && args.b > model.config.num_attention_heads",
            },
        ]
    }
    ruleset = compile_ruleset(load_pack(pack))
    cases = [
        ({"b": 2}, None, []),
        ({"a": 1, "b": 2}, None, ["a-and-b"]),
        ({"a": 2}, None, ["a-or-b"]),
        ({"a": 2, "b": 3}, {"num_attention_heads": 2}, ["a-and-b", "a-or-b", "heads"]),
        ({"b": 3}, {"num_attention_heads": 4}, []),
        ({"b": 3}, {}, []),
    ]
    for _ in range(2):  # the second time from the memoised outcomes
        for args, config, fired in cases:
            doc = build_document(
                kind="serving", version="0.31.0", model_name="m", args=args, model_config=config
            )
            verdict = ruleset.evaluate(doc)
            assert verdict.as_dict() == ruleset.evaluate(doc, plain=True).as_dict()
            assert [f.rule for f in verdict.findings if f.severity != "info"] == fired


def test_a_rule_whose_other_branch_its_release_rules_out_fires_only_with_the_key():
    """``has(env.X) ? A : B`` where ``B`` is false for the release whatever the profile (a version bound): the
    rule then fires only for profiles that set ``X``; where the release keeps ``B``, also without it."""
    pack = {
        "rules": [
            {
                "id": "gated",
                "category": "policy",
                "severity": "error",
                "message": "gated",
                "when": "has(env.X) ? (int(env.X) != 0 && args.a > 1) : (vllm.minor >= 30 && args.a > 1)",
            }
        ]
    }
    ruleset = compile_ruleset(load_pack(pack))
    cases = [
        ("0.31.0", {"a": 2}, {}, ["gated"]),
        ("0.28.0", {"a": 2}, {}, []),
        ("0.28.0", {"a": 2}, {"X": "1"}, ["gated"]),
        ("0.28.0", {"a": 2}, {"X": "0"}, []),
        ("0.28.0", {"a": 1}, {"X": "1"}, []),
        ("0.31.0", {"a": 2}, {"X": "0"}, []),
    ]
    for _ in range(2):  # the second time from the memoised outcomes
        for version, args, env, fired in cases:
            doc = build_document(kind="serving", version=version, model_name="m", args=args, env=env)
            verdict = ruleset.evaluate(doc)
            assert verdict.as_dict() == ruleset.evaluate(doc, plain=True).as_dict()
            assert [f.rule for f in verdict.findings] == fired


def test_a_rule_known_false_by_one_of_its_inputs_stays_false_whatever_the_others():
    """A rule reading several inputs, one of which makes it false: profiles that differ in the others (each
    a new combination) get no finding from it, and one whose deciding input changes gets it."""
    pack = {
        "rules": [
            {
                "id": "many",
                "category": "policy",
                "severity": "warning",
                "message": "many",
                "when": 'env.MODE == "on" && args.a + args.b > 3',
            }
        ]
    }
    ruleset = compile_ruleset(load_pack(pack))
    for a in range(1, 5):
        for b in range(1, 5):
            for mode, fires in (("off", False), ("on", a + b > 3)):
                doc = build_document(
                    kind="serving",
                    version="0.31.0",
                    model_name="m",
                    args={"a": a, "b": b},
                    env={"MODE": mode},
                )
                verdict = ruleset.evaluate(doc)
                assert verdict.as_dict() == ruleset.evaluate(doc, plain=True).as_dict()
                assert [f.rule for f in verdict.findings] == (["many"] if fires else [])


def test_a_condition_for_one_release_has_its_constants_written_in():
    """``specialise``: the release's fields and defaults become literals, an argument the profile sets still
    wins over its default, and what is not a constant of the release is left as it is."""
    from vllmcheck.engine.rules import specialise

    effective = {"max_num_seqs": 256, "dtype": 'a"\\b', "ratio": 0.5, "spec": None, "sizes": [1, 2]}
    vllm = {"version": "0.31.0", "major": 0, "minor": 31, "patch": 0}
    expr = (
        "vllm.minor >= 31 && has(effective.max_num_seqs) && effective.max_num_seqs > args.max_num_seqs"
        ' && effective.dtype == "x" && effective.ratio < 1.0 && effective.spec == null'
        ' && size(effective.sizes) == 2 && vllm.version.startsWith("0.3") && "vllm.minor" != env.A'
    )
    written = specialise(expr, effective, vllm)
    assert "vllm." not in written.replace('"vllm.minor"', "") and "effective" not in written
    contexts = [
        {"args": {"max_num_seqs": 8}, "env": {"A": "1"}},
        {"args": {"max_num_seqs": 300, "dtype": "x"}, "env": {"A": "1"}},
        {"args": {"max_num_seqs": 8, "dtype": "x", "sizes": [1]}, "env": {"A": "1"}},
        {"args": {"max_num_seqs": 8, "dtype": "x", "spec": {}}, "env": {"A": "1"}},
    ]
    for variables in contexts:
        full = {**variables, "vllm": vllm, "effective": {**effective, **variables["args"]}}
        assert cel.evaluate(written, variables) == cel.evaluate(expr, full)
    # A comprehension binding a variable of that name: left as it is.
    bound = "[1].exists(effective, effective == 1) && effective.max_num_seqs > 1"
    assert specialise(bound, effective, vllm) == bound


def test_the_conjuncts_of_a_condition_each_make_it_false():
    from vllmcheck.engine.rules import conjuncts

    assert list(conjuncts("a && (b && c) && (d || e)")) == [
        (None, "a"),
        (None, "b"),
        (None, "c"),
        (None, "d || e"),
    ]
    assert list(conjuncts("has(env.X) ? (int(env.X) != 0 && args.y) : args.z == 1 && false")) == [
        (("env", "X", True), "int(env.X) != 0"),
        (("env", "X", True), "args.y"),
        (("env", "X", False), "args.z == 1"),
        (("env", "X", False), "false"),
    ]
    assert list(conjuncts("has(model.config.k) ? a : b")) == [(None, "has(model.config.k) ? a : b")]
    assert list(conjuncts("a || b && c")) == [(None, "a || b && c")]


def test_every_condition_of_the_builtin_pack_compiles_with_its_release_constants_written_in():
    """Release plans compile a rule's specialised condition and its conjuncts when first run: every one of
    the built-in pack, in every shipped release, compiles."""
    from vllmcheck.engine.messages import LazyProgram

    catalogs = {p.stem: Catalog.load(p) for p in sorted(CATALOG_DIR.glob("*.json"))}
    ruleset = compile_ruleset(load_pack(BUILTIN_PACK))
    programs = set()
    for version, catalog in catalogs.items():
        for kind in ("serving", "collection"):
            plan = ruleset._plan(version, kind, catalog)
            programs.update(p.source for p in plan.programs if isinstance(p, LazyProgram))
            programs.update(f[2].source for filters in plan.filters for f in filters)
    assert len(programs) > 500
    for source in programs:
        cel.compile(source)


@pytest.mark.parametrize("lazy", [False, True])
def test_a_release_plan_compiles_its_filters_unless_the_rule_set_is_lazy(lazy, monkeypatch):
    """A served rule set compiles the conjuncts it filters rules with when it plans a release, so no profile
    pays for compiling one; the linter's lazy rule set compiles only what a run executes. Either way a
    conjunct that decides the rule gives the verdicts of the plain evaluation."""
    import vllmcheck.engine.messages as messages

    marker = f"filter-{lazy}-{id(monkeypatch)}"  # texts no other test compiled (compile_cel keeps them)
    pack = {
        "rules": [
            {
                "id": "many",
                "category": "policy",
                "severity": "warning",
                "message": "many",
                "when": f'env.MODE == "{marker}" && args.a + args.b > 3',
            }
        ]
    }
    ruleset = compile_ruleset(load_pack(pack), lazy=lazy)
    ruleset.evaluate(build_document(kind="serving", version="0.31.0", model_name="m"))  # plans the release
    compiled: list[str] = []
    real = messages.cel.compile

    def counting(source: str):
        compiled.append(source)
        return real(source)

    monkeypatch.setattr(messages.cel, "compile", counting)
    for mode in ("off", marker):
        doc = build_document(
            kind="serving", version="0.31.0", model_name="m", args={"a": 1, "b": 1}, env={"MODE": mode}
        )
        verdict = ruleset.evaluate(doc)
        assert verdict.findings == ()
        assert verdict.as_dict() == ruleset.evaluate(doc, plain=True).as_dict()
    filters = [source for source in compiled if marker in source and "args" not in source]
    assert (filters != []) is lazy
