"""Print the requirements of a vLLM wheel that are needed on a CPU-only machine to import vLLM's CLI
and build its engine config: every Requires-Dist whose marker holds here, minus torch's companions
(torch itself is installed separately from the local CPU build) and GPU-kernel packages that are
only imported when a model runs (they would pull CUDA wheels of several GB).

usage: python wheel_requirements.py vllm-X.Y.Z-....whl
       python wheel_requirements.py --pinned flashinfer-python vllm-X.Y.Z-....whl  # its pinned version
"""

import re
import sys
import zipfile

from packaging.requirements import Requirement

SKIP = re.compile(
    r"^(torch|torchaudio|torchvision|torchcodec|triton|pynvvideocodec|flashinfer.*|apache-tvm-ffi|tilelang|"
    r"nvidia-.*|nvtx|fastsafetensors|instanttensor|quack-kernels|tokenspeed-mla|humming-kernels|cupy.*|"
    r"deep[-_]?gemm|deep[-_]?ep|b12x|helion|zentorch|xformers|vllm[-_]flash[-_]attn)$",
    re.I,
)


def metadata(path: str) -> str:
    with zipfile.ZipFile(path) as zf:
        meta_name = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        return zf.read(meta_name).decode()


def pinned(name: str, path: str) -> None:
    """Print the version the wheel pins NAME to (`==X`), nothing if it does not pin it."""
    for line in metadata(path).splitlines():
        if line.startswith("Requires-Dist:"):
            req = Requirement(line.split(":", 1)[1].strip())
            if req.name.lower() == name.lower():
                for spec in req.specifier:
                    if spec.operator == "==":
                        print(spec.version)
                        return


def main(path: str) -> None:
    meta = metadata(path)
    for line in meta.splitlines():
        if not line.startswith("Requires-Dist:"):
            continue
        req = Requirement(line.split(":", 1)[1].strip())
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        if SKIP.match(req.name):
            print(f"# skipped (GPU-only or installed separately): {req}", file=sys.stderr)
            continue
        req.marker = None
        print(str(req))


if __name__ == "__main__":
    if sys.argv[1] == "--pinned":
        pinned(sys.argv[2], sys.argv[3])
    else:
        main(sys.argv[1])
