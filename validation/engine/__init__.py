"""The validation engine: plain Python, no Django.

Parses profiles (a ``vllm serve`` command line, a ``--config`` YAML file, JSON) into the canonical
profile document, checks it against a release's argument catalog and a compiled rule set (CEL), and
returns findings. Allowed imports: the standard library, ``cel``, ``yaml``, ``packaging``. Never Django,
never vLLM.
"""
