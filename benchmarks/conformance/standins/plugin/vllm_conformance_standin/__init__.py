"""A vLLM platform plugin (entry point group `vllm.platform_plugins`) that makes vLLM believe it runs on a
node with 8 x NVIDIA H100 80GB. vllm_verdict.py puts this directory on sys.path, so vLLM's own plugin
discovery (importlib.metadata entry points) finds it when `vllm.platforms.current_platform` is first
resolved, which happens while `import vllm` runs. Nothing is installed into the venv.

Out-of-tree platform plugins take precedence over vLLM's built-in detection (which finds no GPU here).
"""


def register() -> str | None:
    return "vllm_conformance_standin.platform.StandInCudaPlatform"
