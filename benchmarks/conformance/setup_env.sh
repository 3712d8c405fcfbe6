#!/usr/bin/env bash
# Create a throw-away venv with one vLLM release installed from its wheel, CPU torch, and only the
# CPU-side requirements needed to import vLLM's CLI and run EngineArgs.create_engine_config().
#
#   benchmarks/conformance/setup_env.sh 0.31.0 [0.32.0 ...]
#
# Venvs, the stand-in model and the stub libcuda go under $VLLM_CONF_DIR (default
# ~/.cache/vllm-profiles/conformance), never into the product's .venv. The release's wheel is read from
# $VLLM_WHEELS (default: the tests' wheel cache, $VLLM_PROFILES_WHEELS or ~/.cache/vllm-profiles/wheels, laid
# out as tests/vllm_sources.py leaves it, <version>/vllm-<version>-*.whl, or flat): fetch one with
# `.venv/bin/python -m tests.vllm_sources X.Y.Z`.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CONF_DIR="${VLLM_CONF_DIR:-$HOME/.cache/vllm-profiles/conformance}"
WHEELS="${VLLM_WHEELS:-${VLLM_PROFILES_WHEELS:-$HOME/.cache/vllm-profiles/wheels}}"
PY="${PYTHON:-python3.11}"
TORCH_VERSION="${TORCH_VERSION:-2.13.0}"   # the CPU build on this machine's disk (pip takes it)
TRITON_VERSION="${TRITON_VERSION:-3.8.0}"
TORCHVISION_VERSION="${TORCHVISION_VERSION:-0.28.0}"   # torchvision's release for TORCH_VERSION

[ $# -ge 1 ] || { echo "usage: $0 X.Y.Z [X.Y.Z ...]" >&2; exit 2; }
mkdir -p "$CONF_DIR"

# Shared stand-in (idempotent): a stub libcuda.so.1 (see standins/libcuda_stub.c).
if [ ! -f "$CONF_DIR/stub-libcuda/libcuda.so.1" ]; then
  mkdir -p "$CONF_DIR/stub-libcuda"
  gcc -shared -fPIC -O2 -o "$CONF_DIR/stub-libcuda/libcuda.so.1" "$HERE/standins/libcuda_stub.c"
  ln -sf libcuda.so.1 "$CONF_DIR/stub-libcuda/libcuda.so"
fi
# ... and a stub libcudart.so.12 (standins/libcudart_stub.c), loaded by vllm_verdict.py as torch's CUDA build
# loads the real one on a GPU node.
if [ ! -f "$CONF_DIR/stub-libcuda/libcudart.so.12" ]; then
  gcc -shared -fPIC -O2 -o "$CONF_DIR/stub-libcuda/libcudart.so.12" "$HERE/standins/libcudart_stub.c"
fi

# torchvision, as on a default install (vLLM's multimodal models import it), the build made for this torch
# (0.28.x for 2.13), in a directory of its own that only vllm_verdict.py puts on the path: the index serves
# only CUDA builds, whose _C extension does not load here, which breaks `import torchvision` for anything
# that does not also define the ops' schemas as the harness does (standins/pystartup/sitecustomize.py).
TV_DIR="$CONF_DIR/torchvision-$TORCHVISION_VERSION"
if [ ! -d "$TV_DIR/torchvision" ]; then
  "$PY" -m pip install -q --no-deps --target "$TV_DIR" "torchvision==$TORCHVISION_VERSION"
fi

for V in "$@"; do
  # (|| true: ls fails on whichever of the two layouts is not there, which pipefail would make fatal)
  WHL=$(ls "$WHEELS"/vllm-"$V"-*.whl "$WHEELS/$V"/vllm-"$V"-*.whl 2>/dev/null | head -1 || true)
  [ -n "$WHL" ] || {
    echo "no wheel for vllm $V in $WHEELS (or $WHEELS/$V): .venv/bin/python -m tests.vllm_sources $V fetches it" >&2
    exit 2
  }
  VENV="$CONF_DIR/venv-$V"
  echo "== vllm $V -> $VENV"
  rm -rf "$VENV"
  "$PY" -m venv "$VENV"
  "$VENV/bin/pip" install -q --upgrade pip
  "$VENV/bin/pip" install -q "torch==$TORCH_VERSION"
  "$VENV/bin/pip" install -q --no-deps "$WHL"
  "$VENV/bin/pip" install -q packaging
  REQS="$VENV/conformance-requirements.txt"
  "$VENV/bin/python" "$HERE/standins/wheel_requirements.py" "$WHL" > "$REQS"
  echo "   installing $(wc -l < "$REQS") CPU-side requirements (GPU-only ones are skipped, see README)"
  # torch is pinned to the one already installed so nothing pulls a CUDA build.
  "$VENV/bin/pip" install -q -r "$REQS" "torch==$TORCH_VERSION" "triton==$TRITON_VERSION"
  # flashinfer-python (pure Python; its kernels come from flashinfer-cubin or a JIT with nvcc, neither here):
  # some config checks ask only whether the package is installed, as it is on a default install. The pinned
  # version, or the nearest patch release the index serves (0.34.0 pins 0.7.3, which PyPI lacks: 0.7.4).
  FI=$("$VENV/bin/python" "$HERE/standins/wheel_requirements.py" --pinned flashinfer-python "$WHL")
  if [ -n "$FI" ]; then
    "$VENV/bin/pip" install -q --no-deps "flashinfer-python==$FI" 2>/dev/null \
      || "$VENV/bin/pip" install -q --no-deps "flashinfer-python~=$FI"
  fi
  # A torchvision whose compiled ops do not match the CPU torch fails on import ("operator torchvision::nms
  # does not exist"). vLLM inspects a model in a subprocess of its own, which imports transformers' image
  # utilities for some models (Qwen2, multimodal ones): with a broken torchvision that inspection fails and
  # vLLM refuses with "failed to be inspected", which no GPU host says. Without torchvision, transformers
  # skips those utilities, as it is meant to. Multimodal models' modules import torchvision outright:
  # vllm_verdict.py adds the working one installed above ($TV_DIR) to the path instead.
  if "$VENV/bin/python" -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('torchvision') is None)"; then
    if ! LD_LIBRARY_PATH="$CONF_DIR/stub-libcuda" "$VENV/bin/python" -c "import torchvision" 2>/dev/null; then
      echo "   removing torchvision: it does not import against torch $TORCH_VERSION (see the comment above)"
      "$VENV/bin/pip" uninstall -q -y torchvision
    fi
  fi
  # humming-kernels (pure Python, JIT kernels): 0.22.x-0.23.0 import `humming` on CUDA whenever a
  # quantization method is looked up (quantization/humming.py, imported by get_quantization_config), so
  # without it every quantized configuration fails with "No module named 'humming'", which a default
  # install (humming-kernels is a requirement there) never does. Its pure-Python requirements and
  # cuda-bindings (CPU-installable; the driver is only dlopened when called) come with it, not its CUDA extras.
  HM=$("$VENV/bin/python" "$HERE/standins/wheel_requirements.py" --pinned humming-kernels "$WHL")
  if [ -n "$HM" ]; then
    "$VENV/bin/pip" install -q --no-deps "humming-kernels==$HM"
    "$VENV/bin/pip" install -q cuda-bindings pyelftools tabulate nvidia-ml-py "torch==$TORCH_VERSION" \
      "triton==$TRITON_VERSION"
  fi
  "$VENV/bin/python" -c "import vllm, torch; print('   ok: vllm', vllm.__version__, 'torch', torch.__version__)"
  # Shared stand-in models (idempotent): config.json + tokenizer built with `tokenizers`, no weights.
  "$VENV/bin/python" "$HERE/standins/make_model.py" "$CONF_DIR/models"
done
