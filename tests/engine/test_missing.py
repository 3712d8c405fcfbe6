"""engine/missing.py: the facts a finding could not be decided without, in words, each once, with the way
to supply them; vLLM's static messages with their placeholders named in words."""

from vllmcheck.engine.missing import PLACEHOLDER, absent, describe, note, template_in_words, words


def test_hardware_and_model_facts_are_named_in_words_with_the_way_to_supply_them():
    facts = describe(
        ["hardware.gpus_per_node", "model.config.num_attention_heads", "model.config.text_config"]
    )
    assert [f["words"] for f in facts] == ["the number of GPUs per node", "the model's config.json"]
    assert "node type" in facts[0]["supply"] and "Models page" in facts[1]["supply"]
    assert words(facts) == "the number of GPUs per node and the model's config.json"


def test_the_note_says_each_way_to_supply_once():
    facts = describe(["model.config", "model.architecture", "hardware.nodes"])
    text = note(facts)
    assert text == (
        "The model's config.json and the model's architecture: upload the model's config.json on the Models "
        "page. The number of nodes: choose a node type for the profile (or give the hardware on the profile)."
    )
    assert note(()) is None


def test_a_key_the_given_config_lacks_is_named_as_the_key():
    document = {"model": {"config": {"num_attention_heads": 32}}}
    [fact] = describe(["model.config.num_key_value_heads"], document)
    assert fact["words"] == "num_key_value_heads in the model's config.json"


def test_only_model_and_hardware_facts_the_document_does_not_give_are_missing():
    document = {"args": {}, "hardware": {"gpus_per_node": 8}, "model": {"name": "m"}}
    paths = ["args.max_model_len", "hardware.gpus_per_node", "hardware.nodes", "model.config.x", "env.X"]
    assert absent(paths, document) == ["hardware.nodes", "model.config.x"]


def test_static_messages_read_in_words_without_python_placeholders():
    text = template_in_words(
        "World size ({self.world_size}) is larger than the number of available GPUs ({gpu_count}) "
        'in this node; got {model_config.dtype!r}. JSON \'{"dtype":"int8"}\' stays.'
    )
    assert "{self." not in text and "{gpu_count}" not in text
    assert (
        "(\u2039world size\u203a)" in text
        and "(\u2039gpu count\u203a)" in text
        and "\u2039dtype\u203a" in text
    )
    assert '\'{"dtype":"int8"}\'' in text
    assert PLACEHOLDER not in text
