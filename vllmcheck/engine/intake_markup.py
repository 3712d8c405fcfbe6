"""What is around a launch pasted into an issue, a review or a chat, and that no shell would see: markdown
code fences and code spans, the ``+``/``-``/`` `` markers of a diff, reply quote markers ``> >``, and a
comment written after a line's continuation backslash.

:func:`unwrap` removes them line for line (every line keeps its number, so what the intake step says of a
launch still points at the pasted text) and says what it removed. Plain Python, no Django.
"""

from __future__ import annotations

import re

__all__ = ["REMOVED", "unwrap"]

# A line a diff removes: kept as a line (the numbers stay), but it neither ends nor continues a command.
REMOVED = "\x01"

# A fence line: ``` or ~~~ (or a row of middle dots, as some editors paste them), with an info word at most.
_FENCE_LINE = re.compile(r"^\s*(?:`{3,}|~{3,}|\u00b7{3,})\s*[\w+.#-]*\s*$")
_DIFF_FENCE = re.compile(r"^\s*`{3,}\s*diff\s*$", re.I)
_HUNK = re.compile(r"^@@ .* @@")
_QUOTES = re.compile(r"^(\s*)((?:>[ \t]?)+)")
_OPEN_SPAN = re.compile(r"^(\s*)(`+)(?=\S)")
_COMMENT_AFTER_CONTINUATION = re.compile(r"\\[ \t]+#[^\n'\"]*$")


def unwrap(text: str) -> tuple[str, list[str]]:
    """``text`` without the markup a shell would not see, line for line, and a note for each kind removed."""
    lines = text.replace("\r\n", "\n").split("\n")
    notes: list[str] = []
    if _is_diff(lines):
        lines = [_diff_line(line) for line in lines]
        notes.append("read as a diff: the lines it adds (`+`) or keeps, not the ones it removes (`-`)")
    if _is_quoted(lines):
        lines = [_QUOTES.sub(r"\1", line) for line in lines]
        notes.append("reply quote markers (`>`) removed")
    lines, spans = _code_spans(lines)
    if spans:
        notes.append("read from inside a markdown code span (`...`)")
    commented = [i for i, line in enumerate(lines) if _COMMENT_AFTER_CONTINUATION.search(line)]
    for i in commented:
        lines[i] = _COMMENT_AFTER_CONTINUATION.sub("\\\\", lines[i])
    if commented:
        where = ", ".join(str(i + 1) for i in commented[:5])
        notes.append(
            f"line {where}: a comment after the continuation backslash is left out and the line read as "
            "continued (a shell would end the command at that backslash)"
        )
    return "\n".join(lines), notes


def _is_diff(lines: list[str]) -> bool:
    """A diff: under a ```diff fence, with a hunk header, or every line but fences added (``+``)."""
    if any(_DIFF_FENCE.match(line) or _HUNK.match(line) for line in lines):
        return True
    body = [line for line in lines if line.strip() and not _FENCE_LINE.match(line)]
    return len(body) >= 2 and all(line.startswith("+") for line in body)


def _diff_line(line: str) -> str:
    if _HUNK.match(line) or line.startswith(("+++ ", "--- ", "\\ No newline")):
        return ""
    if line.startswith("+"):
        return line[1:]
    if line.startswith("-"):
        return REMOVED  # not part of what the text now runs
    if line.startswith(" "):
        return line[1:]
    return line


def _is_quoted(lines: list[str]) -> bool:
    """A reply quote: ``> >`` markers, or most lines quoted with ``>``."""
    body = [line for line in lines if line.strip()]
    quoted = [line for line in body if _QUOTES.match(line)]
    nested = any(re.match(r"^\s*>[ \t]?>", line) for line in body)
    return bool(quoted) and (nested or len(quoted) * 2 > len(body) and len(quoted) >= 2)


def _code_spans(lines: list[str]) -> tuple[list[str], bool]:
    """Markdown code spans that open a line (`` `vllm serve ...` ``, ```` ```docker run ...``` ````): their
    backticks removed, also when the closing run ends a later line. Fence lines become blank."""
    out: list[str] = []
    found = False
    open_run: str | None = None
    for line in lines:
        if _FENCE_LINE.match(line) and open_run is None:
            out.append("")
            continue
        if open_run is None:
            match = _OPEN_SPAN.match(line)
            if match:
                open_run = match.group(2)
                line = match.group(1) + line[match.end() :]
                found = True
        if open_run is not None:
            stripped = line.rstrip()
            if stripped.endswith(open_run):
                line = stripped[: -len(open_run)]
                open_run = None
        out.append(line)
    return out, found
