"""How many bytes a model's checkpoint holds: its weights as vLLM loads them, from the checkpoint itself.

Plain Python, no Django (``modelhub`` calls it beside config.json; the ``hub`` app stores the outcome). Two
fixed file names, and only these, say it without downloading any weights:

- ``model.safetensors.index.json`` (a sharded checkpoint): ``metadata.total_size``, the bytes of every tensor
  of every shard, as transformers' ``save_pretrained`` writes it;
- ``model.safetensors`` (a single-file checkpoint): its header, 8 bytes of little-endian length and then a
  JSON object naming each tensor's dtype and byte range; read locally (a file of the HF cache or a local
  directory) with its length bounded, or on the Hub with huggingface_hub's ``parse_safetensors_file_metadata``
  (a ranged GET of the header, never the file).

The memory estimate (``vllmcheck/engine/memory.py``) then uses these bytes rather than a count from
config.json's shapes, and says which it used: ``weights_basis`` is ``"checkpoint index"``, ``"safetensors
header"`` or ``"config shapes"`` (no safetensors checkpoint seen).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

INDEX_NAME = "model.safetensors.index.json"
SINGLE_NAME = "model.safetensors"
WEIGHT_FILES = (INDEX_NAME, SINGLE_NAME)  # the only names this module ever asks for

BASIS_INDEX = "checkpoint index"
BASIS_HEADER = "safetensors header"
BASIS_SHAPES = "config shapes"

# Bounds of what is read: huggingface_hub refuses a safetensors header over 25,000,000 bytes (so does this);
# the largest published indexes (DeepSeek-V3's 163 shards) are under 10 MiB.
HEADER_MAX = 25_000_000
INDEX_MAX = 64 << 20


@dataclass(frozen=True)
class CheckpointWeights:
    """The checkpoint's tensor bytes (``size``; None when no safetensors checkpoint was seen, ``basis``
    then ``"config shapes"``), and from a header, the bytes per safetensors dtype (``"BF16"``, ...)."""

    size: int | None
    basis: str
    dtypes: dict[str, int] | None = None

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"size": self.size, "basis": self.basis}
        if self.dtypes is not None:
            data["dtypes"] = dict(self.dtypes)
        return data


NO_CHECKPOINT = CheckpointWeights(None, BASIS_SHAPES)


def index_weights(text: str | bytes, *, where: str = INDEX_NAME) -> CheckpointWeights:
    """The weights a ``model.safetensors.index.json`` declares; ValueError naming ``where`` and what is
    wrong when it is not one (not JSON, not an object, no ``weight_map`` object, no positive
    ``metadata.total_size``)."""
    if len(text) > INDEX_MAX:
        raise ValueError(f"{where} is over {INDEX_MAX:,} bytes: not a safetensors index")
    try:
        index = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{where} is not JSON: {exc}") from exc
    if not isinstance(index, dict):
        raise ValueError(f"{where} must be a JSON object (a safetensors index), not {type(index).__name__}")
    if not isinstance(index.get("weight_map"), dict):
        raise ValueError(
            f"{where} has no weight_map object: it is not a model.safetensors.index.json "
            "(which maps each tensor to its shard)"
        )
    metadata = index.get("metadata")
    total = metadata.get("total_size") if isinstance(metadata, dict) else None
    if isinstance(total, float) and total.is_integer():
        total = int(total)
    if isinstance(total, bool) or not isinstance(total, int) or total <= 0:
        raise ValueError(f"{where} has no metadata.total_size (a positive number of bytes): got {total!r}")
    return CheckpointWeights(total, BASIS_INDEX)


def header_weights(header: Mapping[str, Any], *, where: str = SINGLE_NAME) -> CheckpointWeights:
    """The bytes per dtype of a safetensors header (``{name: {dtype, shape, data_offsets: [start, end]}}``
    and ``__metadata__``); ValueError naming ``where`` when a tensor's entry is malformed."""
    dtypes: dict[str, int] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        offsets = info.get("data_offsets") if isinstance(info, Mapping) else None
        dtype = info.get("dtype") if isinstance(info, Mapping) else None
        if (
            not isinstance(dtype, str)
            or not isinstance(offsets, list | tuple)
            or len(offsets) != 2
            or not all(isinstance(o, int) and not isinstance(o, bool) for o in offsets)
            or not 0 <= offsets[0] <= offsets[1]
        ):
            raise ValueError(f"{where}: the header's entry for tensor {str(name)[:100]!r} is malformed")
        dtypes[dtype] = dtypes.get(dtype, 0) + offsets[1] - offsets[0]
    if not dtypes:
        raise ValueError(f"{where}: the header names no tensor")
    return CheckpointWeights(sum(dtypes.values()), BASIS_HEADER, dtypes)


def read_header(path: Path, *, where: str = SINGLE_NAME) -> dict[str, Any]:
    """The JSON header of a local safetensors file, reading at most 8 + :data:`HEADER_MAX` bytes of it."""
    with open(path, "rb") as handle:
        prefix = handle.read(8)
        if len(prefix) < 8:
            raise ValueError(f"{where} is shorter than a safetensors header")
        length = int.from_bytes(prefix, "little")
        if length > HEADER_MAX:
            raise ValueError(f"{where}: a header of {length:,} bytes is over the {HEADER_MAX:,} read")
        body = handle.read(length)
    if len(body) < length:
        raise ValueError(f"{where} ends inside its header")
    try:
        header = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{where}: the header is not JSON: {exc}") from exc
    if not isinstance(header, dict):
        raise ValueError(f"{where}: the header is not a JSON object")
    return header


def local_weights(
    directory: Path, *, allowed: Callable[[Path], bool] | None = None, unknown_if_none: bool = False
) -> CheckpointWeights | None:
    """The weights of a checkpoint folder (a snapshot of the HF cache, or a local model directory): its index,
    else its single file's header, else :data:`NO_CHECKPOINT` (None with ``unknown_if_none``: a snapshot that
    may simply not hold them); None when the file found cannot be read. ``allowed(path)``: whether a file may
    be read (a file a symbolic link takes out of the server's roots is a missing file)."""
    for name in WEIGHT_FILES:
        path = directory / name
        if not path.is_file() or (allowed is not None and not allowed(path)):
            continue
        try:
            if name == INDEX_NAME:
                if os.path.getsize(path) > INDEX_MAX:
                    return None
                return index_weights(path.read_bytes(), where=name)
            return header_weights(read_header(path), where=name)
        except (OSError, ValueError):
            return None
    return None if unknown_if_none else NO_CHECKPOINT


def hub_weights(
    repo: str, revision: str, names: Collection[str], settings: Any, download: Callable[[str], str]
) -> CheckpointWeights | None:
    """The weights of a Hub repository whose files are ``names``: its index (downloaded into the cache with
    ``download(name)``, as config.json is), else its single file's header (a ranged GET of the header only),
    else :data:`NO_CHECKPOINT`; None when the file found cannot be read now."""
    try:
        if INDEX_NAME in names:
            path = download(INDEX_NAME)
            if os.path.getsize(path) > INDEX_MAX:
                return None
            return index_weights(Path(path).read_bytes(), where=INDEX_NAME)
        if SINGLE_NAME in names:
            from huggingface_hub import HfApi

            metadata = HfApi(
                endpoint=settings.endpoint, token=settings.token
            ).parse_safetensors_file_metadata(
                repo, SINGLE_NAME, revision=revision or None, timeout=settings.timeout
            )
            header = {
                name: {"dtype": info.dtype, "data_offsets": list(info.data_offsets)}
                for name, info in metadata.tensors.items()
            }
            return header_weights(header, where=SINGLE_NAME)
    except (
        Exception
    ):  # a fact beside config.json: unknown when it cannot be read, never an error of the fetch
        return None
    return NO_CHECKPOINT
