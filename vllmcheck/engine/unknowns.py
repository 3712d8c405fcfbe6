"""Values a text leaves open: shell variables, command substitutions, template variables, placeholders.

``vllm serve m --tensor-parallel-size $TP``: the parser keeps ``$TP`` as written whatever the argument's type,
and ``lint.validate`` reports each rule that reads it as "could not verify" (see ``intake``).
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["REFERENCE", "WHOLE_PLACEHOLDER", "unknown_reference"]


# A value that is a reference the text does not resolve: shell variables and substitutions, Kubernetes
# $(VAR), Go templates, and the <placeholder> of documentation.
REFERENCE = re.compile(
    r"\$\{[^}]*\}|\$\([^)]*\)|\$[A-Za-z_][A-Za-z0-9_]*|\$[0-9@*#]|`[^`]*`|\{\{[^}]*\}\}|<[A-Za-z_][\w .:/-]*>"
)
WHOLE_PLACEHOLDER = re.compile(r"<[A-Za-z_][\w .:/-]*>|\{\{[^}]*\}\}")


def unknown_reference(value: Any) -> str | None:
    """What kind of unknown ``value`` holds (``"a shell variable"``, ...), or None for a plain value.

    Any shell reference counts (``$TP``, ``${TP}0``, ``$(nproc)``); a ``<placeholder>`` or ``{{.Name}}``
    counts only as the whole value (``<`` and ``>`` inside a value are ordinary characters to vLLM)."""
    if not isinstance(value, str) or not value:
        return None
    if WHOLE_PLACEHOLDER.fullmatch(value):
        return "a template variable" if value.startswith("{{") else "a placeholder"
    for match in REFERENCE.finditer(value):
        text = match.group()
        if text.startswith("<") or text.startswith("{{"):
            continue
        if text.startswith("$(") or text.startswith("`"):
            if re.fullmatch(r"\$\([A-Z_][A-Z0-9_]*\)", text):
                return "a Kubernetes variable"  # $(VAR) of a container's args, not in its env
            return "a command substitution"
        if text[1:2].isdigit() or text[1:2] in "@*#":
            return "a script argument"
        return "a shell variable"
    return None
