"""Message templates: vLLM's message with the profile's values filled in, as vLLM's f-string prints them."""

import pytest

from vllmcheck.engine.lint import build_document, validate
from vllmcheck.engine.messages import compile_template
from vllmcheck.engine.rules import calls_extension, compile_ruleset, load_pack
from vllmcheck.engine.rules.compile import _EXTENSION_CALL
from vllmcheck.engine.types import RuleCompileError
from vllmcheck.linter.data import BUILTIN_PACK

BATCHED = {
    "id": "max-batched-tokens-ge-max-num-seqs",
    "category": "vllm",
    "severity": "error",
    "message": (
        "max_num_batched_tokens ({self.max_num_batched_tokens}) must be greater than or equal to "
        "max_num_seqs ({self.max_num_seqs})."
    ),
    "message_template": (
        "max_num_batched_tokens ({{ effective.max_num_batched_tokens }}) must be greater than or equal to "
        "max_num_seqs ({{ effective.max_num_seqs }})."
    ),
    "when": "effective.max_num_batched_tokens < effective.max_num_seqs",
}
HEADS = {
    "id": "heads-divisible-by-tp",
    "category": "vllm",
    "severity": "error",
    "message": (
        "Total number of attention heads ({num_attention_heads}) must be divisible by tensor parallel size "
        "({tensor_parallel_size})."
    ),
    "message_template": (
        "Total number of attention heads ({{ model.config.num_attention_heads }}) must be divisible by "
        "tensor parallel size ({{ effective.tensor_parallel_size }})."
    ),
    "when": "effective.tensor_parallel_size > 1 && has(args.tensor_parallel_size)",
}


def rule(**fields):
    return {"id": "r", "category": "vllm", "severity": "error", "message": "m", "when": "true", **fields}


def run(rules, args=None, env=None, model_config=None, version="0.33.0", defaults=None):
    pack = {"rules": rules}
    if defaults:
        pack["defaults"] = [{"versions": ">=0.20.0", "values": defaults}]
    ruleset = compile_ruleset(load_pack(pack))
    doc = build_document(
        kind="serving", version=version, model_name="m", args=args, env=env, model_config=model_config
    )
    return validate(doc, ruleset=ruleset).findings


def test_values_fill_the_message_as_vllm_prints_it():
    defaults = {"max_num_batched_tokens": 2048, "max_num_seqs": 256}
    [finding] = run([BATCHED], args={"max_num_batched_tokens": 128}, defaults=defaults)
    assert finding.message == (
        "max_num_batched_tokens (128) must be greater than or equal to max_num_seqs (256)."
    )
    assert finding.message_source == BATCHED["message"]
    assert finding.message_rendered is True
    data = finding.as_dict()
    assert data["message"].startswith("max_num_batched_tokens (128)")
    assert data["message_source"] == BATCHED["message"]
    assert data["message_rendered"] is True


def test_a_rule_without_template_keeps_its_static_message():
    [finding] = run([rule(message="no values here")])
    assert finding.message == finding.message_source == "no values here"
    assert finding.message_rendered is True


@pytest.mark.parametrize(
    ("slot", "value", "python"),
    [
        ("{{ args.x }}", True, f"{True}"),
        ("{{ args.x }}", None, f"{None}"),
        ("{{ args.x | !r }}", "fp8", f"{'fp8'!r}"),
        ("{{ args.x | :.2f }}", 0.5, f"{0.5:.2f}"),
        ("{{ args.x | !r:>10 }}", "auto", f"{'auto'!r:>10}"),
        ("{{ args.x }}", [1, "a", None, False], f"{[1, 'a', None, False]}"),
        ("{{ args.x }}", {"method": "ngram", "k": [1]}, f"{ {'method': 'ngram', 'k': [1]} }"),
        ("{{ args.x | :,}}", 1234567, f"{1234567:,}"),
        ("{{ args.x | :08.3f }}", 3.14159, f"{3.14159:08.3f}"),
        ("{{ args.x }}", 1.0, f"{1.0}"),
        ("{{ args.x | !s }}", "a b", f"{'a b'!s}"),
        ("{{ args.x | !a }}", "é", f"{'é'!a}"),
    ],
)
def test_each_slot_prints_like_the_python_f_string(slot, value, python):
    [finding] = run([rule(message="v={x}", message_template=f"v={slot}.")], args={"x": value})
    assert finding.message == f"v={python}."


def test_cel_expressions_with_braces_bars_and_strings_in_a_slot():
    template = (
        '{{ {"a": {"b": 1}}.a.b }}|{{ args.x || false }}|{{ "}} | {{" }}|'
        "{{ [args.n, 2].map(i, i * 2) | !r }}|{{ args.n > 1 ? 'big' : 'small' }}"
    )
    [finding] = run([rule(message_template=template)], args={"x": True, "n": 3})
    assert finding.message == "1|True|}} | {{|[6, 4]|big"


def test_derived_values_and_release_facts_in_a_template():
    pack = {
        "derived": [{"name": "twice", "variants": [{"versions": ">=0.20.0", "expr": "effective.n * 2"}]}],
        "rules": [rule(message_template="{{ derived.twice }} on {{ vllm.version }} ({{ kind }})")],
    }
    ruleset = compile_ruleset(load_pack(pack))
    doc = build_document(kind="collection", version="0.31.0", model_name="m", args={"n": 21})
    [finding] = validate(doc, ruleset=ruleset).findings
    assert finding.message == "42 on 0.31.0 (collection)"


def test_an_unknown_model_fact_never_prints_a_raw_placeholder():
    [finding] = run([HEADS], args={"tensor_parallel_size": 8})
    assert finding.message == (
        "Total number of attention heads (…) must be divisible by tensor parallel size (8)."
    )
    assert "{" not in finding.message and "<unknown" not in finding.message
    assert finding.message_rendered is False
    assert (
        finding.message_note == "The model's config.json: upload the model's config.json on the Models page."
    )
    assert [m["fact"] for m in finding.missing] == ["model.config"]
    assert finding.as_dict()["message_rendered"] is False


def test_the_same_rule_fills_the_model_fact_when_the_profile_gives_it():
    [finding] = run([HEADS], args={"tensor_parallel_size": 8}, model_config={"num_attention_heads": 28})
    assert finding.message == (
        "Total number of attention heads (28) must be divisible by tensor parallel size (8)."
    )
    assert finding.message_rendered is True and finding.message_note is None


def test_a_value_of_the_wrong_type_for_the_spec_is_not_rendered():
    [finding] = run([rule(message="{x}", message_template="{{ args.x | :.2f }}")], args={"x": "auto"})
    # the whole message is the value: the finding names the check instead of printing a bare gap
    assert finding.message == "vLLM's check r"
    assert finding.message_rendered is False
    assert finding.missing[0]["words"] == "the value of --x"


def test_a_could_not_verify_finding_is_filled_too():
    rules = [
        rule(
            message="heads {h} tp {tp}",
            message_template="heads {{ model.config.num_attention_heads }} tp {{ effective.tp }}",
            when="model.config.num_attention_heads % effective.tp != 0",
        )
    ]
    [finding] = run(rules, args={"tp": 8})
    assert finding.severity == "info"
    assert finding.message.startswith("could not verify: heads … tp 8 (without the model's config.json)")


def test_an_unknown_value_of_a_long_expression_is_named_by_what_it_reads():
    # vLLM builds some sentences from many values (max_model_len's check: thousands of characters of CEL).
    # Where one cannot be computed, the finding names the inputs, not the expression: the message stays
    # readable, and the expression stays in the rule's message_template.
    sentence = (
        '"User-specified max_model_len (" + string(args.max_model_len) + ") is greater than the derived '
        'max_model_len (max_position_embeddings=" + string(model.config.max_position_embeddings) + " or '
        'model_max_length=" + string(model.config.model_max_length) + " in model\'s config.json)."'
    )
    rules = [
        rule(
            message="{msg} To allow overriding this maximum, set VLLM_ALLOW_LONG_MAX_MODEL_LEN=1.",
            message_template="{{ " + sentence + " }} To allow overriding this maximum, set "
            "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1.",
            when="args.max_model_len > model.config.max_position_embeddings",
        )
    ]
    [finding] = run(rules, args={"max_model_len": 65536})
    label = (
        "a value computed from args.max_model_len, model.config.max_position_embeddings, "
        "model.config.model_max_length"
    )
    assert finding.message == (
        "could not verify: … To allow overriding this maximum, set "
        "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1. (without the model's config.json)"
    )
    assert (
        finding.message_note == "The model's config.json: upload the model's config.json on the Models page."
    )
    assert rules[0]["message_template"] and label not in finding.message
    [filled] = run(
        rules,
        args={"max_model_len": 65536},
        model_config={"max_position_embeddings": 8192, "model_max_length": 8192},
    )
    assert filled.message.startswith(
        "User-specified max_model_len (65536) is greater than the derived max_model_len "
        "(max_position_embeddings=8192 or model_max_length=8192 in model's config.json)."
    )


@pytest.mark.parametrize(
    ("template", "detail"),
    [
        ("a {{ args.x + }} b", "slot 1"),
        ("a {{ args.x }} b {{ args.y | :q }}", "slot 2 {{ args.y }}: ':q' is not a Python format spec"),
        ("{{ args.x | !z }}", "unknown conversion !z"),
        ("{{ args.x | r }}", "not a conversion and/or format spec"),
        ("{{ args.x }", "unbalanced braces: slot 1 (character 1) never closes"),
        ("value }} here", "unbalanced braces: '}}' at character 7"),
        ("{{ args.x }} and {{   }}", "slot 2 is empty"),
        ('{{ "open }}', "unbalanced braces"),
    ],
)
def test_a_template_that_does_not_compile_is_refused_naming_rule_and_slot(template, detail):
    with pytest.raises(RuleCompileError) as caught:
        compile_ruleset(load_pack({"rules": [rule(id="bad-template", message_template=template)]}))
    assert caught.value.rule_id == "bad-template"
    assert caught.value.field_name == "message_template"
    assert detail in caught.value.detail
    assert "rule 'bad-template', message_template" in str(caught.value)


def test_the_pack_loader_refuses_a_template_that_is_not_text():
    with pytest.raises(RuleCompileError, match="message_template: must be a string"):
        load_pack({"rules": [rule(message_template=["a"])]})


def test_a_compiled_template_lists_its_expressions():
    template = compile_template("r", "a {{ args.x }} b {{ effective.y | !r }}")
    assert template.expressions == ("args.x", "effective.y")
    assert [s.conversion for s in template.slots] == [None, "r"]


def test_rendering_sees_the_keys_only_the_template_reads():
    # The condition reads nothing of the profile's arguments; the template reads one the profile sets:
    # the message must show the profile's value, not the default of the release's empty profile.
    rules = [rule(message_template="seqs {{ effective.max_num_seqs }}", when='kind == "serving"')]
    [finding] = run(rules, args={"max_num_seqs": 7}, defaults={"max_num_seqs": 256})
    assert finding.message == "seqs 7"
    [finding] = run(rules, defaults={"max_num_seqs": 256})
    assert finding.message == "seqs 256"


@pytest.mark.parametrize(
    ("template", "calls"),
    [
        ("{{ args.names.join(', ') }}", True),
        ("{{ args.x.myjoin(', ') }}", False),
        ("{{ math.abs(args.x) }}", True),
        ("{{ xmath.abs(args.x) }}", False),
        ("{{ lists.range (3) }}", True),
        ("{{ args.range(3) }}", False),
        ("{{ args.x }} join ( {{ args.y }}", True),
        ("{{ size(args.x) }}", False),
    ],
)
def test_a_template_calling_an_extension_is_given_the_extensions(template, calls):
    # A template calling CEL's strings, lists or math extensions (join, math.abs ...) renders on a context
    # that registers them; the search is a scan of the template's words, and says what the reference
    # expression (a regular expression of every extension's name) says.
    assert calls_extension(template) is calls
    assert (_EXTENSION_CALL.search(template) is not None) is calls
    for text in [r.get("message_template") or r["when"] for r in load_pack(BUILTIN_PACK).get("rules", [])]:
        assert calls_extension(text) is (_EXTENSION_CALL.search(text) is not None)


def test_a_long_slot_is_labelled_by_the_inputs_it_reads_from_its_rule_read_set():
    # A label restricts the read set the rules' planning worked out (over every namespace) to the roots a
    # label names: the same inputs as reading the expression for those roots alone, on every slot of the
    # built-in pack.
    from vllmcheck.engine.cel_reads import read_set
    from vllmcheck.engine.messages import _LABEL_ROOTS, _READ_ROOTS, _label
    from vllmcheck.engine.rules import NAMESPACES

    assert frozenset(NAMESPACES) == _READ_ROOTS
    slots = [
        expr
        for raw in load_pack(BUILTIN_PACK)["rules"]
        if raw.get("message_template")
        for expr in compile_template(raw["id"], raw["message_template"].strip()).expressions
    ]
    assert any(len(expr) > 80 for expr in slots)
    for expr in slots:
        alone = read_set(expr, _LABEL_ROOTS)
        restricted = {
            root: keys for root, keys in read_set(expr, _READ_ROOTS).items() if root in _LABEL_ROOTS
        }
        assert restricted == alone
        assert _label(expr).startswith(("a value computed from", " ".join(expr.split())[:40]))
