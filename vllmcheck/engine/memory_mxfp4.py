"""The bytes vLLM holds for mxfp4 MoE experts (gpt-oss), per release and GPU (plain Python, no Django).

The checkpoint stores each expert as fp4 values (two per byte) with one e8m0 scale per 32 values and bf16
biases. vLLM does not hold them as stored: ``Mxfp4MoEMethod.create_weights`` pads the expert matrices to
what the chosen kernel needs, and the Triton kernel's Hopper layout pads them again when it swizzles them.
The kernel (``get_mxfp4_backend``; ``fused_moe/oracle/mxfp4.py`` from 0.19) depends on the GPU and on the
torch the release pins, read in each release's ``quantization/mxfp4.py``:

- compute capability below 9 (A100, L4, L40S, RTX): Marlin, intermediate (per partition) rounded up to
  128, hidden to 256 (``n % 256 == 0 and k % 128 == 0``);
- Hopper on 0.10.0-0.10.1 (torch 2.7.1: ``not is_torch_equal_or_newer("2.8.0")``): Marlin;
- Hopper on 0.10.2-0.11.0 (torch 2.8.0): Triton, intermediate rounded to 64, and ``_swizzle_mxfp4`` keeps
  the strided layout ("Mxfp4 on hopper is running on torch < 2.8.1"): no more padding;
- Hopper from 0.11.1 (torch 2.9.0): Triton with triton_kernels' Hopper layouts: ``_swizzle_mxfp4`` makes a
  swizzled copy of the values (which replaces ``w13_weight``/``w2_weight``) and of the scales (kept in the
  precision config, while ``w13_weight_scale``/``w2_weight_scale`` stay registered: the scales are held
  twice), and the biases become float32. The layouts' own padding (triton_kernels' ``HopperMXValueLayout``
  and ``HopperMXScaleLayout``, read at triton's main branch: 64 x 256 bytes, scale rows to 256) is not
  counted: triton_kernels is not vLLM's code and the version vLLM 0.11.1 pins was not read;
- Blackwell (FlashInfer TRT-LLM): intermediate and hidden rounded to 256 (0.10-0.21; 128 for the
  intermediate in 0.27.1's oracle);
- ROCm: both rounded to 256.
"""

from __future__ import annotations

from .types import parse_version

# Compute capability by the GPU names memory.GPU_MEMORY_GIB knows (others: below 9, i.e. Marlin).
_HOPPER = ("H100", "H200", "H20", "H800", "GH200")
_BLACKWELL = ("B200", "B300", "GB200", "GB300", "RTX-PRO-6000")
_ROCM = ("MI300", "MI325", "MI350", "MI355")


def _up(n: int, to: int) -> int:
    return -(-n // to) * to


def mxfp4_kernel(gpu: str | None, version: str | None) -> str:
    """The kernel vLLM loads gpt-oss's experts for: marlin | triton | triton-hopper | flashinfer | rocm."""
    name = (gpu or "").upper().replace("NVIDIA", "").replace(" ", "-").strip("-")
    v = parse_version(version)
    release = v.release if v is not None else (99, 0)
    if name.startswith(_ROCM):
        return "rocm"
    if name.startswith(_BLACKWELL):
        return "flashinfer"
    if not name.startswith(_HOPPER):
        return "marlin"
    if release < (0, 10, 2):
        return "marlin"
    return "triton" if release < (0, 11, 1) else "triton-hopper"


def mxfp4_expert_bytes(hidden: int, intermediate: int, kernel: str, version: str | None = None) -> int:
    """Bytes of one expert's w13 (gate and up, 2 x intermediate rows) and w2 as vLLM holds them, for an
    ``intermediate`` already divided over the tensor-parallel ranks."""
    h, i = hidden, intermediate
    if kernel == "marlin":
        i, h = _up(i, 128), _up(h, 256)
    elif kernel in ("flashinfer", "rocm"):
        v = parse_version(version)
        late = kernel == "flashinfer" and v is not None and v.release >= (0, 27)
        i, h = _up(i, 128 if late else 256), _up(h, 256)
    else:
        i = _up(i, 64)
    values = 2 * i * h // 2 + h * i // 2
    scales = 2 * i * h // 32 + h * i // 32
    biases = (2 * i + h) * 2
    if kernel != "triton-hopper":
        return values + scales + biases
    return values + 2 * scales + 2 * biases
