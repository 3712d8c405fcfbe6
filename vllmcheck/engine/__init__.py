"""The validation engine: plain Python, no Django.

Parses profiles (a ``vllm serve`` command line, a ``--config`` YAML file, JSON) into the canonical
profile document, checks it against a release's argument catalog and a compiled rule set (CEL), and
returns findings. Allowed imports: the standard library, ``cel``, ``yaml``, ``packaging``. Never Django,
never vLLM.
"""

import sys
import types

# The `cel` package (common-expression-language) imports its interactive REPL (`cel.cli`, with prompt_toolkit
# and rich) on `import cel`: about a second of start-up, and the engine never uses the REPL. Registering an
# empty module under that name first makes `import cel` load only the evaluator, which every process (web,
# worker, `manage.py lint`, `vllm-profiles-lint`) feels as a faster start.
sys.modules.setdefault("cel.cli", types.ModuleType("cel.cli"))
