"""Shell words, as bash splits them: the one splitter for command lines (``parse``), their ``# env:``
comments, the linter's flag positions and the ``sh -c`` scripts of Kubernetes containers (``manifests``).

POSIX shell quoting as bash reads it (and as ``shlex.split`` does for everything ``shlex.quote`` writes):
single quotes are literal, double quotes honour a backslash before a double quote, a backslash, ``$`` and a
backquote, a backslash outside quotes escapes the next character, backslash-newline continues the line
(also with stray blanks before the newline), ``#`` at the start of a word comments out the rest of the line,
and newlines separate words. A parameter expansion ``${...}`` is one piece of its word whatever it holds
(``${REVISION:+--revision "$REVISION"}``: bash reads the braces before it splits). In a script
(:func:`split_commands`), unquoted ``;``, ``&`` and ``|`` also separate commands.
"""

from __future__ import annotations

import re

from .types import ParseError

__all__ = ["preview", "split_commands", "split_words"]

_CONTINUATION = re.compile(r"\\[ \t]*\r?\n")
_PLAIN = re.compile(r"[^ \t\r\n\\'\"]+")  # characters a shell word takes as they are (`#` too, inside a word)
_PLAIN_IN_SCRIPT = re.compile(r"[^ \t\r\n\\'\";&|]+")  # ... and in a script, up to a command separator
_OPERATOR = re.compile(r"[;&|]+")  # `;`, `&&`, `||`, `|`, `&` (a run, as shlex's punctuation_chars reads it)
_BLANK_SEPARATED = re.compile(r"[^ \t\r\n]+")
_QUOTING = re.compile(r"[\\'\"#]|\$\{")  # a line without these is split at blanks and newlines alone
_QUOTING_IN_SCRIPT = re.compile(r"[\\'\"#;&|]|\$\{")


def preview(text: str, limit: int = 60) -> str:
    """A word or line as a message quotes it: newlines shown as ``\\n``, long ones cut."""
    text = text.replace("\n", "\\n")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def split_words(text: str) -> list[tuple[str, int]]:
    """Split a command line into shell words, returning ``(word, offset)`` pairs (see the module's text)."""
    return [(word, offset) for word, offset, _ in _split(text, script=False)]


def split_commands(script: str) -> list[list[str]]:
    """The words of each command of a shell script, split at unquoted ``;``, ``&&``, ``||``, ``|`` and ``&``.
    Newlines are blanks here, as they were for the ``sh -c`` scripts read before: ``export A=1`` on one line
    stays beside the ``vllm serve`` of the next, so its assignment is seen."""
    commands: list[list[str]] = [[]]
    for word, _, operator in _split(script, script=True):
        if operator:
            commands.append([])
        else:
            commands[-1].append(word)
    return commands


def _double_quoted(text: str, i: int, buf: list[str]) -> int | None:
    """Append the text of a double-quoted string starting at ``i`` to ``buf``; the closing quote's index, or
    None if it is never closed. A backslash escapes ``"``, ``\\``, ``$`` and a backquote, and joins lines."""
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            return i
        if ch == "\\" and i + 1 < n:
            nxt = text[i + 1]
            if nxt in '"\\$`':
                buf.append(nxt)
                i += 2
                continue
            if nxt == "\n":
                i += 2
                continue
        buf.append(ch)
        i += 1
    return None


def _split(text: str, *, script: bool) -> list[tuple[str, int, bool]]:
    """``(word, offset, is_operator)`` triples; operators only when ``script``."""
    if not (_QUOTING_IN_SCRIPT if script else _QUOTING).search(text):  # most lines: no quote, escape, comment
        return [(m.group(), m.start(), False) for m in _BLANK_SEPARATED.finditer(text)]
    plain = _PLAIN_IN_SCRIPT if script else _PLAIN
    words: list[tuple[str, int, bool]] = []
    buf: list[str] | None = None
    start = 0
    i, n = 0, len(text)

    def begin(at: int) -> None:
        nonlocal buf, start
        if buf is None:
            buf, start = [], at

    def unbalanced(quote: str, at: int) -> ParseError:
        rest = text[start if buf is not None else at :].split("\n", 1)[0]
        kind = "single" if quote == "'" else "double"
        return ParseError(
            f"unbalanced quotes: the {kind} quote at character {at} is never closed",
            where=f"token {len(words)} '{preview(rest)}'",
            position=at,
        )

    while i < n:
        c = text[i]
        if c in " \t\r\n":
            if buf is not None:
                words.append(("".join(buf), start, False))
                buf = None
            i += 1
        elif c == "\\":
            match = _CONTINUATION.match(text, i)
            if match:
                if match.group(0) not in ("\\\n", "\\\r\n") and buf is not None:
                    words.append(("".join(buf), start, False))
                    buf = None
                i = match.end()
            elif i + 1 < n:
                begin(i)
                buf.append(text[i + 1])
                i += 2
            else:
                i += 1  # a lone trailing backslash: nothing to escape
        elif c == "'":
            end = text.find("'", i + 1)
            if end < 0:
                raise unbalanced("'", i)
            begin(i)
            buf.append(text[i + 1 : end])
            i = end + 1
        elif c == '"':
            begin(i)
            end = _double_quoted(text, i + 1, buf)
            if end is None:
                raise unbalanced('"', i)
            i = end + 1
        elif c == "#" and buf is None:
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif script and c in ";&|":
            if buf is not None:
                words.append(("".join(buf), start, False))
                buf = None
            end = _OPERATOR.match(text, i).end()  # type: ignore[union-attr]
            words.append((text[i:end], i, True))
            i = end
        elif text.startswith("${", i) and (close := _brace_end(text, i + 2)) is not None:
            begin(i)
            buf.append(text[i : close + 1])  # `${...}` whole: its blanks and quotes are the expansion's
            i = close + 1
        else:
            begin(i)
            end = _plain_end(plain, text, i)
            buf.append(text[i:end])
            i = end
    if buf is not None:
        words.append(("".join(buf), start, False))
    return words


def _plain_end(plain: re.Pattern[str], text: str, i: int) -> int:
    """The end of the run of plain characters at ``i``; a ``${`` inside it starts a piece of its own."""
    end = plain.match(text, i).end()  # type: ignore[union-attr]
    brace = text.find("${", i + 1, end)
    return brace if brace > 0 else end


def _brace_end(text: str, i: int) -> int | None:
    """The index of the ``}`` that closes a ``${`` opened before ``i`` (quotes inside followed), if any on
    the same line."""
    quote = None
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\n" and quote is None:
            return None
        if quote:
            if c == quote:
                quote = None
            elif c == "\\" and quote == '"':
                i += 1
        elif c in "'\"":
            quote = c
        elif c == "\\":
            i += 1
        elif c == "}":
            return i
        i += 1
    return None
