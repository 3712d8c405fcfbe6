"""Run at start-up by every Python process of a conformance run (vllm_verdict.py puts this directory on
PYTHONPATH): the harness itself and the subprocess vLLM starts to inspect a model class
(`python -m vllm.model_executor.models.registry`), which the harness's in-process import hooks never reach.

torchvision: the only builds the package index serves are CUDA builds, whose `_C` extension links
libtorch_cuda.so and so does not load against the CPU torch here. torchvision then still registers fake
(meta) kernels for its ops (`torchvision/_meta_registrations.py`), which fails with "operator torchvision::nms
does not exist", so `import torchvision` fails, and with it every multimodal model's module (their image
processors import torchvision.transforms) and vLLM's model inspection ("Model architectures [...] failed to be
inspected"). On a GPU node the extension loads. Here the ops' schemas (torchvision/csrc/ops/*.cpp) are defined
without kernels when the extension did not load: import works, calling an op raises. No configuration check
calls them.
"""

import importlib.abc
import importlib.machinery
import sys

TORCHVISION_OPS = [
    "nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
    "roi_align(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, SymInt pooled_width, "
    "int sampling_ratio, bool aligned) -> Tensor",
    "_roi_align_backward(Tensor grad, Tensor rois, float spatial_scale, SymInt pooled_height, "
    "SymInt pooled_width, SymInt batch_size, SymInt channels, SymInt height, SymInt width, "
    "int sampling_ratio, bool aligned) -> Tensor",
    "ps_roi_align(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, SymInt pooled_width, "
    "int sampling_ratio) -> (Tensor, Tensor)",
    "_ps_roi_align_backward(Tensor grad, Tensor rois, Tensor channel_mapping, float spatial_scale, "
    "SymInt pooled_height, SymInt pooled_width, int sampling_ratio, SymInt batch_size, SymInt channels, "
    "SymInt height, SymInt width) -> Tensor",
    "roi_pool(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, SymInt pooled_width) "
    "-> (Tensor, Tensor)",
    "_roi_pool_backward(Tensor grad, Tensor rois, Tensor argmax, float spatial_scale, SymInt pooled_height, "
    "SymInt pooled_width, SymInt batch_size, SymInt channels, SymInt height, SymInt width) -> Tensor",
    "ps_roi_pool(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, SymInt pooled_width) "
    "-> (Tensor, Tensor)",
    "_ps_roi_pool_backward(Tensor grad, Tensor rois, Tensor channel_mapping, float spatial_scale, "
    "SymInt pooled_height, SymInt pooled_width, SymInt batch_size, SymInt channels, SymInt height, "
    "SymInt width) -> Tensor",
    "deform_conv2d(Tensor input, Tensor weight, Tensor offset, Tensor mask, Tensor bias, SymInt stride_h, "
    "SymInt stride_w, SymInt pad_h, SymInt pad_w, SymInt dilation_h, SymInt dilation_w, SymInt groups, "
    "SymInt offset_groups, bool use_mask) -> Tensor",
    "_deform_conv2d_backward(Tensor grad, Tensor input, Tensor weight, Tensor offset, Tensor mask, "
    "Tensor bias, SymInt stride_h, SymInt stride_w, SymInt pad_h, SymInt pad_w, SymInt dilation_h, "
    "SymInt dilation_w, SymInt groups, SymInt offset_groups, bool use_mask) "
    "-> (Tensor, Tensor, Tensor, Tensor, Tensor)",
    "box_iou_rotated(Tensor boxes1, Tensor boxes2) -> Tensor",
    "qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
    "qroi_align(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, SymInt pooled_width, "
    "int sampling_ratio, bool aligned) -> Tensor",
]
_LIBS: list = []


def _define_torchvision_ops() -> None:
    import torch

    if hasattr(torch.ops.torchvision, "nms"):
        return
    lib = torch.library.Library("torchvision", "FRAGMENT")
    _LIBS.append(lib)
    for schema in TORCHVISION_OPS:
        try:
            lib.define(schema)
        except Exception:
            continue


class _Loader(importlib.abc.Loader):
    def __init__(self, real):
        self.real = real

    def create_module(self, spec):
        return self.real.create_module(spec)

    def exec_module(self, module):
        self.real.exec_module(module)
        if not module._has_ops():  # torchvision.extension could not load _C
            _define_torchvision_ops()


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name != "torchvision.extension":
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is not None and spec.loader is not None:
            spec.loader = _Loader(spec.loader)
        return spec


sys.meta_path.insert(0, _Finder())
