"""Long vLLM help texts in messages: the first full sentence, the whole text kept for a toggle.

vLLM's help and deprecation texts run to paragraphs with option lists. A finding's ``message`` is their first
full sentence, never a cut in the middle of one: a period ends a sentence only outside parentheses, brackets,
quotes and backticks, and not after an abbreviation (``e.g.``, ``i.e.``, ``etc.``, ``vs.``) or inside a
version number or a file name (``v0.10.0``, ``config.json``). ``message_detail`` keeps the whole text.
Pure functions over strings.
"""

from __future__ import annotations

import re

__all__ = ["first_sentence", "flatten", "summarise"]

# Words ending in a period that do not end a sentence (compared lower-case, without the final period).
ABBREVIATIONS = frozenset({"e.g", "i.e", "etc", "vs", "cf", "approx", "incl", "resp", "fig", "eq", "al"})
_OPEN = {"(": ")", "[": "]", "{": "}"}
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z.]*)$")


def flatten(text: str) -> str:
    """The text on one line: runs of whitespace (line breaks, indentation) become one space."""
    return " ".join(text.split())


def _ends_sentence(text: str, i: int) -> bool:
    """Whether the ``.``, ``!`` or ``?`` at ``i`` ends a sentence (brackets and quotes are the caller's)."""
    after = text[i + 1 : i + 2]
    if after and not after.isspace():
        return False  # v0.10.0, config.json, "e.g.," ...
    if text[i] != ".":
        return True
    word = _WORD_BEFORE.search(text[:i])
    if word and word.group(1).lower() in ABBREVIATIONS:
        return False
    # "Use X. e.g. ..." is rare; a lower-case next word after a period usually means an abbreviation
    rest = text[i + 1 :].lstrip()
    return not rest or not rest[0].islower()


def first_sentence(text: str) -> str | None:
    """The first full sentence of ``text`` (flattened), or None when it has none (it ends mid-sentence:
    an unclosed parenthesis, no final period)."""
    flat = flatten(text)
    closing: list[str] = []
    quote = ""
    for i, char in enumerate(flat):
        if quote:
            if char == quote:
                quote = ""
            continue
        if char in '`"' or (char == "'" and (i == 0 or not flat[i - 1].isalnum())):
            quote = char
        elif char in _OPEN:
            closing.append(_OPEN[char])
        elif closing and char == closing[-1]:
            closing.pop()
        elif not closing and char in ".!?" and _ends_sentence(flat, i):
            return flat[: i + 1]
    return None


def summarise(text: str, limit: int = 300) -> tuple[str, str | None]:
    """(the summary, the whole text or None when the summary is all of it).

    The summary is the first full sentence when there is one no longer than ``limit``; else the text's
    lead-in up to its first colon (``Available options:``) when there is one; else the whole text."""
    flat = flatten(text)
    sentence = first_sentence(flat)
    if sentence is not None and len(sentence) <= limit:
        summary = sentence
    else:
        lead = re.match(r"[^:()\[\]\"`]{3,120}:(?=\s)", flat)
        summary = lead.group(0).rstrip(":") + "." if lead else flat
    return summary, (None if summary == flat else flat)
