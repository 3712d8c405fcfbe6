"""StandInCudaPlatform: vLLM's own CUDA platform class with the questions about the hardware answered
from STANDIN instead of NVML / torch.cuda (which have no device here). Everything else (attention backend
selection, check_and_update_config, supported dtypes, FP8 support, ...) is vLLM's own CUDA code.

The hardware can be changed with VLLM_STANDIN_* environment variables (set before vLLM is imported):
VLLM_STANDIN_GPUS (8), VLLM_STANDIN_CAPABILITY ("9.0"), VLLM_STANDIN_NAME ("NVIDIA H100 80GB HBM3"),
VLLM_STANDIN_MEMORY_MIB (81559).
"""

from __future__ import annotations

import os

from vllm.platforms import cuda as _cuda
from vllm.platforms.interface import DeviceCapability, Platform

_cap = os.environ.get("VLLM_STANDIN_CAPABILITY", "9.0").split(".")
STANDIN = {
    "device_count": int(os.environ.get("VLLM_STANDIN_GPUS", "8")),
    "capability": (int(_cap[0]), int(_cap[1])),
    "device_name": os.environ.get("VLLM_STANDIN_NAME", "NVIDIA H100 80GB HBM3"),
    "total_memory": int(os.environ.get("VLLM_STANDIN_MEMORY_MIB", "81559")) * 1024 * 1024,
    "sm_count": 132,
    "cuda_runtime_major": 12,
}

# On a GPU node NVML is available and vLLM picks NvmlCudaPlatform; here `CudaPlatform` is bound to the
# non-NVML variant because nvmlInit() fails, so subclass the NVML one explicitly when it exists.
_Base = getattr(_cuda, "NvmlCudaPlatform", None) or _cuda.CudaPlatform


class StandInCudaPlatform(_Base):  # type: ignore[misc, valid-type]
    @classmethod
    def get_device_capability(cls, device_id: int = 0):
        return DeviceCapability(*STANDIN["capability"])

    @classmethod
    def has_device_capability(cls, capability, device_id: int = 0) -> bool:
        return Platform.has_device_capability.__func__(cls, capability, device_id)

    @classmethod
    def get_device_name(cls, device_id: int = 0) -> str:
        return STANDIN["device_name"]

    @classmethod
    def _get_physical_device_name(cls, device_id: int = 0) -> str:
        return STANDIN["device_name"]

    @classmethod
    def get_device_uuid(cls, device_id: int = 0) -> str:
        return f"GPU-00000000-0000-0000-0000-{device_id:012d}"

    @classmethod
    def get_device_total_memory(cls, device_id: int = 0) -> int:
        return STANDIN["total_memory"]

    @classmethod
    def is_fully_connected(cls, physical_device_ids) -> bool:
        return True  # NVLink/NVSwitch, as on an HGX H100 node

    @classmethod
    def device_count(cls) -> int:
        return STANDIN["device_count"]

    @classmethod
    def device_id_to_physical_device_id(cls, device_id: int) -> int:
        return device_id

    @classmethod
    def device_control_id_to_physical_device_id(cls, device_id) -> int:
        return int(device_id)

    @classmethod
    def get_device_numa_node(cls, device_id: int = 0):
        return 0 if device_id < STANDIN["device_count"] // 2 else 1

    @classmethod
    def get_all_device_numa_nodes(cls):
        return [cls.get_device_numa_node(i) for i in range(STANDIN["device_count"])]

    @classmethod
    def get_cuda_runtime_major(cls) -> int:
        return STANDIN["cuda_runtime_major"]

    @classmethod
    def is_pin_memory_available(cls) -> bool:
        return True

    @classmethod
    def get_current_memory_usage(cls, device=None) -> float:
        return 0.0

    @classmethod
    def num_compute_units(cls, device_id: int = 0) -> int:
        return STANDIN["sm_count"]

    @classmethod
    def is_integrated_gpu(cls, device_id: int = 0) -> bool:
        return False

    @classmethod
    def log_warnings(cls):
        return None

    def is_cumem_allocator_available(self) -> bool:
        # vLLM's CUDA build ships the cumem allocator (vllm/cumem_allocator.abi3.so); it cannot load here
        # (it links libcuda/libnvrtc/libtorch_cuda), so answer as on the GPU node.
        return True
