"""The rule evaluator: version ranges, kinds, derived values, unknown inputs, waivers, compile errors."""

import pytest

from vllmcheck.engine.rules import PackError, compile_ruleset, load_pack, referenced_effective_keys
from vllmcheck.engine.types import RuleCompileError

PACK = """
pack: test
defaults:
  - versions: ">=0.28.0"
    values: {logprobs_mode: raw_logprobs}
derived:
  - name: v2_runner
    variants:
      - versions: ">=0.28.0,<0.32.0"
        expr: >-
          has(env.VLLM_USE_V2_MODEL_RUNNER) ? env.VLLM_USE_V2_MODEL_RUNNER == "1"
          : !has(args.speculative_config)
      - versions: ">=0.32.0"
        expr: 'has(env.VLLM_USE_V2_MODEL_RUNNER) ? env.VLLM_USE_V2_MODEL_RUNNER == "1" : true'
  - name: replay
    variants:
      - versions: ">=0.28.0"
        expr: "effective.return_sampling_mask == true && derived.v2_runner"
rules:
  - id: needs-v2
    category: vllm
    severity: error
    message: "sampling distribution replay requires Model Runner V2"
    when: "effective.return_sampling_mask == true && !derived.v2_runner"
    versions: ">=0.28.0"
    fields: [return_sampling_mask]
  - id: no-spec
    category: vllm
    severity: error
    message: "sampling distribution replay does not support speculative decoding"
    when: "derived.replay && has(args.speculative_config)"
    versions: ">=0.28.0,<0.32.0"
    fix: {unset: [speculative_config]}
  - id: needs-processed
    category: vllm
    severity: error
    message: "needs processed logprobs"
    when: "effective.return_sampling_mask == true && effective.logprobs_mode != 'processed_logprobs'"
    versions: ">=0.28.0"
  - id: diffusion
    category: vllm
    severity: error
    message: "sampling distribution replay does not support diffusion models"
    when: "effective.return_sampling_mask == true && model.config.is_diffusion == true"
    needs: [model.config]
  - id: collection-only
    category: policy
    severity: warning
    message: "a serving profile returns sampling masks"
    when: "effective.return_sampling_mask == true"
    kinds: [serving]
"""


def doc(version="0.31.0", kind="collection", args=None, env=None, model=None):
    return {
        "kind": kind,
        "vllm": {"version": version},
        "model": model or {"name": "m"},
        "args": args or {},
        "env": env or {},
        "hardware": {},
    }


@pytest.fixture(scope="module")
def ruleset():
    return compile_ruleset(load_pack(PACK), version_id=7)


def ids(verdict, severity="error"):
    return [f.rule for f in verdict.findings if f.severity == severity]


SEED = {
    "return_sampling_mask": True,
    "logprobs_mode": "processed_logprobs",
    "speculative_config": {"method": "ngram"},
}


def test_derived_value_decides_which_message_per_release(ruleset):
    with_env = ruleset.evaluate(doc("0.31.0", args=SEED, env={"VLLM_USE_V2_MODEL_RUNNER": "1"}))
    assert ids(with_env) == ["no-spec"]
    without_env = ruleset.evaluate(doc("0.31.0", args=SEED))
    assert ids(without_env) == ["needs-v2"]
    assert ruleset.evaluate(doc("0.32.0", args=SEED, env={"VLLM_USE_V2_MODEL_RUNNER": "1"})).valid


def test_version_range_excludes_releases_outside_it(ruleset):
    verdict = ruleset.evaluate(doc("0.27.1", args={"return_sampling_mask": True}))
    assert ids(verdict) == []
    assert verdict.vllm_version == "0.27.1" and verdict.ruleset == 7


def test_pack_defaults_fill_effective(ruleset):
    verdict = ruleset.evaluate(
        doc("0.30.0", args={"return_sampling_mask": True}, env={"VLLM_USE_V2_MODEL_RUNNER": "1"})
    )
    assert ids(verdict) == ["needs-processed"]
    assert not verdict.valid and verdict.state == "invalid"


def test_unknown_input_gives_could_not_verify_never_error(ruleset):
    verdict = ruleset.evaluate(doc(args={"return_sampling_mask": True}))
    info = [f for f in verdict.findings if f.rule == "diffusion"]
    assert len(info) == 1 and info[0].severity == "info"
    assert info[0].message.startswith(
        "could not verify: sampling distribution replay does not support diffusion"
    )
    assert "the model's config.json" in info[0].message and info[0].missing[0]["fact"] == "model.config"
    known = ruleset.evaluate(
        doc(args={"return_sampling_mask": True}, model={"name": "m", "config": {"is_diffusion": True}})
    )
    assert "diffusion" in ids(known)


def test_rule_that_cannot_fire_is_silent_even_with_unknown_inputs(ruleset):
    verdict = ruleset.evaluate(doc(args={}))
    assert verdict.findings == ()
    assert verdict.valid and verdict.state == "valid"


def test_kinds_limit_rules(ruleset):
    args = {"return_sampling_mask": True, "logprobs_mode": "processed_logprobs"}
    serving = ruleset.evaluate(doc(kind="serving", args=args, env={"VLLM_USE_V2_MODEL_RUNNER": "1"}))
    assert ids(serving, "warning") == ["collection-only"]
    assert serving.state == "warning" and serving.valid
    collection = ruleset.evaluate(doc(kind="collection", args=args, env={"VLLM_USE_V2_MODEL_RUNNER": "1"}))
    assert ids(collection, "warning") == []


def test_waived_findings_are_shown_but_do_not_invalidate(ruleset):
    verdict = ruleset.evaluate(
        doc(args={"return_sampling_mask": True}, env={"VLLM_USE_V2_MODEL_RUNNER": "1"}),
        waived=["needs-processed"],
    )
    finding = next(f for f in verdict.findings if f.rule == "needs-processed")
    assert finding.waived and verdict.valid


def test_findings_document_shape(ruleset):
    document = ruleset.evaluate(doc("0.31.0", args=SEED, env={"VLLM_USE_V2_MODEL_RUNNER": "1"})).as_dict()
    assert document["valid"] is False
    assert document["vllm_version"] == "0.31.0"
    finding = document["findings"][0]
    assert finding["rule"] == "no-spec" and finding["category"] == "vllm"
    assert finding["fields"] == [] and finding["fix"] == {"unset": ["speculative_config"]}


def test_cel_syntax_error_names_rule_and_position():
    with pytest.raises(RuleCompileError) as err:
        compile_ruleset(
            load_pack("rules:\n - {id: broken, category: vllm, severity: error, message: m, when: 'a &&& b'}")
        )
    assert err.value.rule_id == "broken" and err.value.field_name == "when"
    assert "1:" in err.value.detail


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("rules:\n - {id: x, category: nope, severity: error, message: m, when: 'true'}", "category"),
        ("rules:\n - {id: x, category: vllm, severity: fatal, message: m, when: 'true'}", "severity"),
        ("rules:\n - {id: x, category: vllm, severity: error, message: m}", "when"),
        (
            "rules:\n - {id: x, category: vllm, severity: error, message: m, when: 'true', versions: '>>1'}",
            "versions",
        ),
        (
            "rules:\n - {id: x, category: vllm, severity: error, message: m, when: 'true', kinds: [batch]}",
            "kinds",
        ),
    ],
)
def test_pack_structure_errors_name_the_field(text, field):
    with pytest.raises(PackError) as err:
        load_pack(text)
    assert err.value.field_name == field and err.value.rule_id == "x"


def test_duplicate_rule_ids_are_refused():
    rule = "{id: x, category: vllm, severity: error, message: m, when: 'true'}"
    with pytest.raises(PackError, match="duplicate"):
        load_pack(f"rules:\n - {rule}\n - {rule}")


def test_yaml_error_names_the_line():
    with pytest.raises(PackError) as err:
        load_pack("rules:\n  - id: x\n   bad: [")
    assert err.value.field_name.startswith("line ")


def test_disabled_rules_do_not_run():
    pack = load_pack(
        "rules:\n - {id: x, category: vllm, severity: error, message: m, when: 'true', enabled: false}"
    )
    assert compile_ruleset(pack).evaluate(doc()).findings == ()


def test_only_read_defaults_reach_cel():
    assert referenced_effective_keys(["effective.a == 1 && has(effective.b)", "args.c"]) == {"a", "b"}
    assert referenced_effective_keys(["size(effective) > 0"]) is None


def test_skipping_rules_that_read_nothing_the_profile_sets_is_exact():
    """The per-profile rule selection must give exactly the findings of running every rule."""
    from pathlib import Path

    from benchmarks.engine import generate
    from vllmcheck.engine.catalog import Catalog
    from vllmcheck.engine.rules.plan import _ReleasePlan

    root = Path(__file__).resolve().parents[2]
    catalogs = {p.stem: Catalog.load(p) for p in sorted((root / "vllmcheck" / "catalogs").glob("*.json"))}
    ruleset = compile_ruleset(load_pack(root / "vllmcheck" / "rulepacks" / "builtin.yaml"))
    docs = generate(catalogs, 600, seed=7)
    selected = [ruleset.evaluate(d, catalog=catalogs[d["vllm"]["version"]]) for d in docs]

    original_inputs, original_runs = _ReleasePlan.inputs, _ReleasePlan.runs

    def every_group(plan, doc, numbers=None, checks=None):
        values, _touched, known = original_inputs(plan, doc, numbers, checks)
        return values, set(range(len(plan.group_inputs))), known

    def every_rule(plan, position, values):
        return True

    try:
        _ReleasePlan.inputs, _ReleasePlan.runs = every_group, every_rule
        everything = [ruleset.evaluate(d, catalog=catalogs[d["vllm"]["version"]], memo=False) for d in docs]
    finally:
        _ReleasePlan.inputs, _ReleasePlan.runs = original_inputs, original_runs
    assert [v.as_dict() for v in selected] == [v.as_dict() for v in everything]
    assert sum(not v.valid for v in selected) > 50  # the sample exercises failing rules too


@pytest.mark.parametrize(
    ("expr", "required"),
    [
        ("has(args.a) && args.a == 1", {("args", "a")}),
        ("(has(args.a) && args.a != null) && has(env.X)", {("args", "a"), ("env", "X")}),
        ("has(env.V) ? (int(env.V) != 0 && x) : false", {("env", "V")}),
        ("has(env.V) ? x : y", set()),
        ("has(args.a) || has(args.b)", set()),
        ("effective.x == true && has(model.config.k)", {("model.config", "k")}),
        ("has(args.a) && (has(args.b) || c)", {("args", "a")}),
        ("'a && b' == s && has(args.z)", {("args", "z")}),
        ("!has(args.a) && x", set()),
    ],
)
def test_required_keys_are_only_top_level_has_guards(expr, required):
    from vllmcheck.engine.rules import required_keys

    assert set(required_keys(expr)) == required
