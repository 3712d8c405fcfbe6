"""engine/sentences.py: long vLLM texts as their first full sentence, never cut at an abbreviation or inside
parentheses; the whole text kept."""

from pathlib import Path

import pytest

from vllmcheck.engine.catalog import Catalog
from vllmcheck.engine.checks import deprecation_words
from vllmcheck.engine.sentences import first_sentence, summarise


@pytest.mark.parametrize(
    ("text", "sentence"),
    [
        ("One (e.g. two). Three.", "One (e.g. two)."),
        ("Use it, i.e. always. Then stop.", "Use it, i.e. always."),
        ("Apples, pears etc. are fine. More.", "Apples, pears etc. are fine."),
        ("Removed in v0.10.0 of config.json. Next.", "Removed in v0.10.0 of config.json."),
        ("A list:\n  - x (see `a. b`)\n  - y. Done.", "A list: - x (see `a. b`) - y."),
        ('Say "stop. now" then go. Next.', 'Say "stop. now" then go.'),
        ("Cut at (e.g.", None),
        ("No end at all", None),
    ],
)
def test_the_first_full_sentence(text, sentence):
    assert first_sentence(text) == sentence


def test_a_short_text_is_its_own_summary_and_a_long_one_keeps_the_whole_text():
    assert summarise("Just one sentence.") == ("Just one sentence.", None)
    summary, whole = summarise("First (e.g. this). " + "Second sentence. " * 30)
    assert summary == "First (e.g. this)." and whole.endswith("Second sentence.")


def test_the_all2all_backend_deprecation_of_0_34_0_is_a_full_sentence_with_vllms_whole_help_behind_it():
    catalog = Catalog.load(Path(__file__).resolve().parents[2] / "vllmcheck" / "catalogs" / "0.34.0.json")
    spec = catalog.by_name["all2all_backend"]
    assert spec.deprecation.endswith("(e.g.")  # the catalog's text stops at an abbreviation
    message, detail = deprecation_words(spec, spec.long_flag, "0.34.0")
    assert message == (
        'Some values of --all2all-backend are deprecated in vLLM 0.34.0: "mori_high_throughput" (use "mori"), '
        '"mori_low_latency" (use "mori").'
    )
    assert detail.startswith("All2All backend for MoE expert parallel communication.")
    assert (
        detail.endswith("not selectable from the CLI.")
        and "(e.g. the FlashInfer MoE-EP megakernels)" in detail
    )
