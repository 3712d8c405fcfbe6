"""One way to say "unknown": the facts a finding could not be decided or worded without, in a person's words.

A rule reads paths of the profile document (``hardware.gpus_per_node``, ``model.config.num_attention_heads``,
``args.tensor_parallel_size``). Where the profile does not give one, the finding names it once, in words ("the
number of GPUs per node", "the model's config.json"), with the way to supply it ("choose a node type for the
profile"), never as an expression (``<unknown: hardware.gpus_per_node>``). Pure functions over strings and
plain mappings: no CEL, no Django.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = [
    "PLACEHOLDER",
    "absent",
    "describe",
    "fact",
    "note",
    "template_in_words",
    "variable_fact",
    "words",
]

# What a message shows where vLLM would print a value the profile does not give.
PLACEHOLDER = "\u2026"

_CONFIG = "upload the model's config.json on the Models page"
_NODE = "choose a node type for the profile (or give the hardware on the profile)"
_HUB = "let the server reach the Hugging Face Hub, then refresh the model on the Models page"

# model.<key> facts: (words, how to supply them)
_MODEL: dict[str, tuple[str, str]] = {
    "config": ("the model's config.json", _CONFIG),
    "architecture": ("the model's architecture", _CONFIG),
    "files": ("the list of the checkpoint's files", _HUB),
    "tokens": ("the special tokens of the model's tokenizer", _HUB),
    "encoder_config": ("the model's sentence_bert_config.json", _HUB),
    "tokenizer_max_length": ("the model_max_length of the model's tokenizer_config.json", _HUB),
    "name": ("the model's name", "give the model in the command (vllm serve MODEL)"),
}
# hardware.<key> facts
_HARDWARE: dict[str, str] = {
    "gpus_per_node": "the number of GPUs per node",
    "nodes": "the number of nodes",
    "gpu": "the GPU model",
    "gpu_memory_gib": "the GPU's memory",
    "gpu_memory_gb": "the GPU's memory",
}


def fact(path: str) -> dict[str, str]:
    """``{"fact": path, "words": ..., "supply": ...}`` for one document path (``model.config.x`` is the
    model's config.json as a whole: that is what a user supplies)."""
    root, _, rest = path.partition(".")
    key = rest.split(".", 1)[0]
    if root == "model":
        if not key or key == "config":
            return _fact("model.config", *_MODEL["config"])
        words_, supply = _MODEL.get(key, (f"the model's {key.replace('_', ' ')}", _CONFIG))
        return _fact(f"model.{key}", words_, supply)
    if root == "hardware":
        if not key:
            return _fact("hardware", "the node's hardware", _NODE)
        return _fact(f"hardware.{key}", _HARDWARE.get(key, f"the node's {key.replace('_', ' ')}"), _NODE)
    if root in ("args", "effective") and key:
        flag = "--" + key.replace("_", "-")
        return _fact(f"args.{key}", f"the value of {flag}", f"give {flag} a value (or the variable's value)")
    if root == "env" and key:
        return _fact(
            f"env.{key}", f"the environment variable {key}", f"set {key} in the profile's environment"
        )
    if root == "derived" and key:
        return _fact(f"derived.{key}", f"the value vLLM derives for {key.replace('_', ' ')}", "")
    if root == "vllm":
        return _fact("vllm", "the target vLLM release", "choose the profile's vLLM release")
    return _fact(path, f"the profile's {path.replace('_', ' ')}", "")


def variable_fact(name: str, value: str) -> dict[str, str]:
    """An argument the text gives as a variable (``--tensor-parallel-size $TP``): its value is the fact."""
    return _fact(f"args.{name}", f"the value of `{value}`", "give the variable's value")


def _fact(path: str, words_: str, supply: str) -> dict[str, str]:
    return {"fact": path, "words": words_, "supply": supply}


def describe(paths: Iterable[str], document: Mapping[str, Any] | None = None) -> tuple[dict[str, str], ...]:
    """The facts of ``paths``, each once, in the order first named. A key the model's config.json does not
    hold, where the document gives that config, is named as the key."""
    config = ((document or {}).get("model") or {}).get("config")
    seen: dict[str, dict[str, str]] = {}
    for path in paths:
        key = path.split(".")[2] if path.startswith("model.config.") else None
        if key and isinstance(config, Mapping):
            item = _fact(
                f"model.config.{key}",
                f"{key} in the model's config.json",
                "check the model's config.json on the Models page (the profile's model may be another)",
            )
        else:
            item = fact(path)
        seen.setdefault(item["fact"], item)
    return tuple(seen.values())


def words(missing: Iterable[Mapping[str, str]]) -> str:
    """``"the number of GPUs per node and the model's config.json"``."""
    names = [m["words"] for m in missing]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def note(missing: Iterable[Mapping[str, str]]) -> str | None:
    """How to supply the missing facts, one sentence per way: ``"The model's config.json and the model's
    architecture: upload the model's config.json on the Models page."``; None when nothing is missing."""
    by_supply: dict[str, list[Mapping[str, str]]] = {}
    for item in missing:
        by_supply.setdefault(item.get("supply") or "", []).append(item)
    sentences = []
    for supply, items in by_supply.items():
        named = words(items)
        named = named[:1].upper() + named[1:]
        sentences.append(f"{named}: {supply}." if supply else f"{named}: not known for this profile.")
    return " ".join(sentences) or None


# The parts of the document a profile may leave unknown: an argument or a variable it does not set has vLLM's
# default (``effective``), a derived value follows from the others.
FACT_ROOTS = ("model", "hardware")


def absent(paths: Iterable[str], document: Mapping[str, Any] | None) -> list[str]:
    """The ``paths`` of the model and the hardware that the document does not give (a path under an absent
    map counts as absent). Without a document every such path counts."""
    out = []
    for path in paths:
        if path.split(".", 1)[0] not in FACT_ROOTS:
            continue
        if document is None or not _present(path, document):
            out.append(path)
    return out


def _present(path: str, document: Mapping[str, Any]) -> bool:
    value: Any = document
    for part in path.split("."):
        if not isinstance(value, Mapping) or value.get(part) is None:
            return False
        value = value[part]
    return True


# A Python f-string placeholder of vLLM's source text: {self.world_size}, {gpu_count}, {model_config.dtype!r}
_FIELD = re.compile(r"\{(?:self\.)?([A-Za-z_][\w.]*)[^{}\"']*\}")


def template_in_words(message: str) -> str:
    """vLLM's static message with each ``{self.x}`` placeholder as the value's name in words: ``World size
    ({self.world_size}) is ...`` reads ``World size (‹world size›) is ...``; JSON braces stay as they are."""

    def name(match: re.Match[str]) -> str:
        last = match.group(1).split(".")[-1]
        return "\u2039" + last.replace("_", " ").strip() + "\u203a"

    return _FIELD.sub(name, message)
