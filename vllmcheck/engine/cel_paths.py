"""Whether the paths a rule's CEL reads exist in the releases the rule applies to.

A rule that reads ``args.max_num_seq`` (for ``max_num_seqs``) compiles and never fires. The keys of ``args``
and ``effective`` a condition reads (:func:`cel_reads.read_set`) are looked up in the argument catalog of
every release in the rule's range:

- unknown to every one of them: an error, with the closest argument names as a did-you-mean;
- unknown to some of them only: a warning naming those releases (a ``has()`` guard may be intended);
- ``env.NAME``: vLLM's catalogs list no environment variables, only the ``VLLM_*`` names their help texts
  and messages mention, so an unknown name is flagged (as a warning) only when it is close to a mentioned one.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass

from .catalog import Catalog
from .cel_reads import read_set

ARGUMENT_ROOTS = ("args", "effective")
ROOTS = frozenset((*ARGUMENT_ROOTS, "env"))
_ENV_NAME = re.compile(r"\bVLLM_[A-Z0-9_]*[A-Z0-9]\b")


@dataclass(frozen=True)
class PathIssue:
    severity: str  # "error" or "warning"
    path: str  # e.g. "args.max_num_seq"
    message: str
    suggestions: tuple[str, ...] = ()


def _versions(versions: list[str]) -> str:
    return ", ".join(versions) if len(versions) <= 4 else f"{versions[0]} to {versions[-1]} ({len(versions)})"


def _did_you_mean(key: str, known, root: str) -> tuple[str, ...]:
    return tuple(f"{root}.{m}" for m in difflib.get_close_matches(key, sorted(known), n=3, cutoff=0.75))


def _suffix(suggestions: tuple[str, ...]) -> str:
    return f"; did you mean {' or '.join(suggestions)}?" if suggestions else ""


def _env_names(catalog: Catalog) -> frozenset[str]:
    texts = [a.help or "" for a in catalog.arguments]
    texts += [a.deprecation or "" for a in catalog.arguments]
    texts += [str(e.get("message") or "") for e in catalog.errors]
    return frozenset(name for text in texts for name in _ENV_NAME.findall(text))


def check_paths(expr: str, catalogs: Mapping[str, Catalog]) -> list[PathIssue]:
    """The issues of the ``args.*``, ``effective.*`` and ``env.*`` paths ``expr`` reads, against the catalogs
    of the rule's releases (``{version: catalog}``, oldest first). No catalog: nothing can be said."""
    if not catalogs or not expr.strip():
        return []
    reads = read_set(expr, ROOTS)
    versions = list(catalogs)
    issues: list[PathIssue] = []
    for root in ARGUMENT_ROOTS:
        for key in sorted(reads.get(root) or ()):
            path = f"{root}.{key}"
            missing = [v for v in versions if key not in catalogs[v].by_name]
            if not missing:
                continue
            if len(missing) == len(versions):
                known = {name for c in catalogs.values() for name in c.by_name}
                suggestions = _did_you_mean(key, known, root)
                issues.append(
                    PathIssue(
                        "error",
                        path,
                        f"{path} is not an argument of any vLLM release this rule applies to "
                        f"({_versions(versions)}), so the rule can never read it{_suffix(suggestions)}",
                        suggestions,
                    )
                )
            else:
                present = [v for v in versions if v not in missing]
                issues.append(
                    PathIssue(
                        "warning",
                        path,
                        f"{path} is not an argument of vLLM {_versions(missing)} (it is in "
                        f"{_versions(present)}); on those releases the rule reads it as absent",
                    )
                )
    env_keys = reads.get("env") or ()
    if env_keys:
        mentioned = frozenset().union(*(_env_names(c) for c in catalogs.values()))
        for key in sorted(env_keys):
            if key in mentioned:
                continue
            suggestions = _did_you_mean(key, mentioned, "env")
            if suggestions:
                issues.append(
                    PathIssue(
                        "warning",
                        f"env.{key}",
                        f"env.{key} is not mentioned by vLLM {_versions(versions)}{_suffix(suggestions)}",
                        suggestions,
                    )
                )
    return issues
