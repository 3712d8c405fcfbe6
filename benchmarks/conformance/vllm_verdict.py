#!/usr/bin/env python
"""Ask a REAL vLLM release whether `vllm serve <args>` would be refused at start-up.

Runs INSIDE a venv made by setup_env.sh (vLLM installed from its wheel, CPU torch). For each case it does
what `vllm serve` does up to the point where the engine would start loading weights:

  1. parse the command line with that release's own parser (FlexibleArgumentParser + the `serve`
     subcommand's `subparser_init` / make_arg_parser), as `vllm.entrypoints.cli.main.main` does;
  2. `ServeSubcommand.validate(args)` (validate_parsed_serve_args);
  3. `ServeSubcommand.cmd(args)` up to its dispatch (run_server / run_headless / run_multi_api_server /
     run_dp_supervisor are intercepted, so its own pre-checks run but no socket, process or engine starts);
  4. `AsyncEngineArgs.from_cli_args(args).create_engine_config(usage_context=OPENAI_API_SERVER[, headless])`,
     which builds every *Config and VllmConfig and runs their cross-field checks.

and records {"ok", "stage", "error_class", "message"}: the exception vLLM raised, or argparse's error
message. Nothing is judged here: the verdict is whatever vLLM did.

The machine has no GPU, so a stand-in hardware description is installed (see README.md, "Stand-ins"):
a subclass of vLLM's own CUDA platform class answering 8 x H100 80GB (compute capability 9.0) is set as
`vllm.platforms.current_platform` before anything resolves it; vLLM's compiled CUDA op libraries, which
cannot load against a CPU build of torch, are replaced by empty modules; Triton's CUDA driver is reported
active; models are local directories holding a config.json and tokenizer (no weights, no hub).

usage (inside the venv):
  python vllm_verdict.py --cases cases.json --out verdicts.json [--models-dir DIR] [--no-fork]
cases.json: {"cases": [{"id": "...", "command": "VAR=1 vllm serve meta-llama/Llama-3.1-8B-Instruct ..."}]}
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import importlib.abc
import importlib.util
import io
import json
import os
import re
import shlex
import sys
import time
import traceback
import types

HERE = os.path.dirname(os.path.abspath(__file__))
CONF_DIR = os.path.expanduser(os.environ.get("VLLM_CONF_DIR") or "~/.cache/vllm-profiles/conformance")

# ---------------------------------------------------------------------------------------------------------
# Hub ids used in the case files -> stand-in model directories made by standins/make_model.py.
MODEL_DIRS = {
    "meta-llama/Llama-3.1-8B-Instruct": "Llama-3.1-8B-Instruct",
    "meta-llama/Llama-3.2-1B-Instruct": "Llama-3.2-1B-Instruct",
    "Qwen/Qwen3-30B-A3B": "Qwen3-30B-A3B",
    "Qwen/Qwen2.5-7B-Instruct": "Qwen2.5-7B-Instruct",
    "mistralai/Mistral-7B-Instruct-v0.3": "Mistral-7B-Instruct-v0.3",
    "mistralai/Mixtral-8x7B-Instruct-v0.1": "Mixtral-8x7B-Instruct-v0.1",
    "deepseek-ai/DeepSeek-V3": "DeepSeek-V3",
    "ai21labs/AI21-Jamba-1.5-Mini": "AI21-Jamba-1.5-Mini",
    "google/gemma-3-27b-it": "gemma-3-27b-it",
    "google/gemma-2-9b-it": "gemma-2-9b-it",
    "microsoft/Phi-3.5-mini-instruct": "Phi-3.5-mini-instruct",
    "Qwen/Qwen2.5-VL-7B-Instruct": "Qwen2.5-VL-7B-Instruct",
    "openai/gpt-oss-20b": "gpt-oss-20b",
    "Qwen/Qwen3-8B": "Qwen3-8B",
    "ibm-granite/granite-4.0-h-tiny": "granite-4.0-h-tiny",
    "intfloat/e5-mistral-7b-instruct": "e5-mistral-7b-instruct",
    "meta-llama/Llama-4-Scout-17B-16E-Instruct": "Llama-4-Scout-17B-16E-Instruct",
    # models3.yaml
    "meta-llama/Llama-3.1-70B-Instruct": "Llama-3.1-70B-Instruct",
    "Qwen/Qwen2.5-72B-Instruct": "Qwen2.5-72B-Instruct",
    "Qwen/Qwen3-235B-A22B": "Qwen3-235B-A22B",
    "mistralai/Mistral-Nemo-Instruct-2407": "Mistral-Nemo-Instruct-2407",
    "microsoft/phi-4": "phi-4",
    "BAAI/bge-m3": "bge-m3",
    "sentence-transformers/all-MiniLM-L6-v2": "all-MiniLM-L6-v2",
    "openai/whisper-large-v3": "whisper-large-v3",
    "state-spaces/mamba-2.8b-hf": "mamba-2.8b-hf",
    "deepseek-ai/DeepSeek-R1-Distill-Qwen-32B": "DeepSeek-R1-Distill-Qwen-32B",
    "Qwen/Qwen2.5-7B-Instruct-AWQ": "Qwen2.5-7B-Instruct-AWQ",
    "Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4": "Qwen2.5-7B-Instruct-GPTQ-Int4",
    "RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8": "Meta-Llama-3.1-8B-Instruct-FP8",
    "meta-llama/Llama-3.2-11B-Vision-Instruct": "Llama-3.2-11B-Vision-Instruct",
    "BAAI/bge-reranker-v2-m3": "bge-reranker-v2-m3",
}

# Environment every case starts from (a case's own NAME=value assignments are applied on top).
BASE_ENV = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "VLLM_NO_USAGE_STATS": "1",
    "DO_NOT_TRACK": "1",
    "TOKENIZERS_PARALLELISM": "false",
    "VLLM_LOGGING_LEVEL": os.environ.get("VLLM_LOGGING_LEVEL", "ERROR"),
}


def _cache_root() -> str:
    """vLLM caches model-inspection results under VLLM_CACHE_ROOT (`modelinfos/<module>-<class>.json`,
    keyed by the model module's hash). One directory per release: releases whose model module is the same
    file would otherwise share (and overwrite) each other's entries, so a verdict would depend on which
    release ran last."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        release = version("vllm")
    except PackageNotFoundError:
        release = "unknown"
    return os.path.join(CONF_DIR, "cache", release)


def _reexec_with_stub_libcuda() -> None:
    """The dynamic loader reads LD_LIBRARY_PATH at process start: make the stub libcuda.so.1 visible."""
    stub = os.path.join(CONF_DIR, "stub-libcuda")
    if os.path.exists(os.path.join(stub, "libcuda.so.1")) and stub not in os.environ.get(
        "LD_LIBRARY_PATH", ""
    ):
        env = dict(os.environ)
        env["LD_LIBRARY_PATH"] = stub + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
        os.execve(sys.executable, [sys.executable, *sys.argv], env)


# ---------------------------------------------------------------------------------------------------------
# Bootstrapping vLLM on a CPU-only machine.

# vLLM's compiled CUDA op libraries link against libtorch_cuda.so, which a CPU build of torch does not have.
# They only register kernels (torch.ops._C.*) used when a model runs, so an empty module stands in for any
# of them that fails to load. (An import hook, because they are imported while `import vllm` runs.)
CUDA_EXTENSION = re.compile(r"^vllm\.")  # any compiled extension module inside the vllm package
STUBBED_MODULES: list[str] = []


class _ExtensionFallbackLoader(importlib.abc.Loader):
    def __init__(self, real):
        self.real = real
        self.failed = False

    def create_module(self, spec):
        try:
            return self.real.create_module(spec)
        except (ImportError, OSError) as e:
            self.failed = True
            n = _register_op_schemas(spec.name, spec.origin)
            STUBBED_MODULES.append(f"{spec.name} ({str(e).splitlines()[0][:100]}; {n} op schemas registered)")
            return types.ModuleType(spec.name)

    def exec_module(self, module):
        if not self.failed:
            self.real.exec_module(module)


# Answers of vLLM's CUDA build to its capability-query ops (csrc/quantization/*/scaled_mm_entry.cu etc.),
# as a function of the device capability (90 for H100).
CAPABILITY_OPS = {
    "cutlass_scaled_mm_supports_fp8": lambda cap: cap >= 89,
    "cutlass_scaled_mm_supports_block_fp8": lambda cap: cap >= 90,
    "cutlass_scaled_mm_supports_fp4": lambda cap: cap >= 100,
    "cutlass_group_gemm_supported": lambda cap: 90 <= cap < 110,
    "mxfp4_experts_quant_supported": lambda cap: cap >= 100,
}
_OP_LIBS: list = []  # keep torch.library.Library objects alive


def _register_op_schemas(modname: str, so_path: str | None) -> int:
    """Define, under the extension's torch.ops namespace, every op schema string found in its .so, so
    that `torch.ops._C.<op>` exists as on a CUDA build (vLLM looks some up at config time, e.g. fusion
    passes take `torch.ops._C.rotary_embedding.default`). Capability queries answer as the CUDA build
    would for the stand-in GPU; any other op raises if it is ever *called* (no kernels here)."""
    if not so_path or not os.path.exists(so_path):
        return 0
    try:
        import torch
    except ImportError:
        return 0
    with open(so_path, "rb") as f:
        data = f.read()
    schemas = {
        m.decode()
        for m in re.findall(
            rb"(?<=\x00)([A-Za-z_][A-Za-z0-9_]*(?:\.[a-z0-9_]+)?\([^\x00]*?\) *-> *[^\x00]+)\x00", data
        )
    }
    base = modname.rsplit(".", 1)[-1].replace("_stable_libtorch", "")
    # ops of the main extension live in several namespaces; _custom_ops.py says which
    ns_of: dict[str, str] = {}
    if base == "_C":
        try:
            with open(os.path.join(os.path.dirname(so_path), "_custom_ops.py")) as f:
                src = f.read()
            for ns, name in re.findall(r"torch\.ops\.(_C_[a-z_]+)\.([a-z0-9_]+)", src):
                ns_of[name] = ns
        except OSError:
            pass
    libs: dict[str, object] = {}
    n = 0
    for schema in sorted(schemas):
        full = schema.split("(", 1)[0]
        name = full.split(".", 1)[0]
        ns = ns_of.get(name, base)
        if ns not in libs:
            libs[ns] = torch.library.Library(ns, "FRAGMENT")
            _OP_LIBS.append(libs[ns])
        lib = libs[ns]
        try:
            lib.define(" ".join(schema.split()))
        except Exception:
            continue
        if name in CAPABILITY_OPS:
            fn = CAPABILITY_OPS[name]

            def impl(cap, _fn=fn):
                return _fn(cap)
        else:

            def impl(*a, _op=f"{ns}::{full}", **k):
                raise NotImplementedError(f"harness stand-in: CUDA op {_op} has no kernel on this machine")

        with contextlib.suppress(Exception):
            lib.impl(full, impl, "CompositeExplicitAutograd")
        n += 1
    return n


class _ExtensionFallbackFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if not CUDA_EXTENSION.match(name):
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                if spec.origin and spec.origin.endswith(".so"):
                    spec.loader = _ExtensionFallbackLoader(spec.loader)
                return spec
        return None


def _load_stub_libcudart() -> None:
    stub = os.path.join(CONF_DIR, "stub-libcuda", "libcudart.so.12")
    with open("/proc/self/maps") as f:
        if "libcudart" in f.read():
            return
    if os.path.exists(stub):
        import ctypes

        ctypes.CDLL(stub, mode=ctypes.RTLD_GLOBAL)


def _install_standins() -> None:
    """Must run before `import vllm`: the platform is resolved during that import."""
    for k, v in BASE_ENV.items():
        os.environ.setdefault(k, v)
    os.environ.setdefault("VLLM_CACHE_ROOT", _cache_root())
    # 1. the stand-in CUDA platform, found by vLLM's own platform-plugin discovery (entry points)
    sys.path.insert(0, os.path.join(HERE, "standins", "plugin"))
    # 1b. torchvision (setup_env.sh installs it beside the venvs, in $VLLM_CONF_DIR/torchvision-X) with its
    #     ops' schemas defined when its CUDA-only extension does not load (standins/pystartup/
    #     sitecustomize.py): in this process, and through PYTHONPATH in the subprocess vLLM starts to
    #     inspect a model class.
    startup = os.path.join(HERE, "standins", "pystartup")
    tv_dirs = sorted(glob.glob(os.path.join(CONF_DIR, "torchvision-*")))[-1:]
    sys.path[:0] = tv_dirs
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (startup, *tv_dirs, os.environ.get("PYTHONPATH")) if p
    )
    spec = importlib.util.spec_from_file_location(
        "_conformance_startup", os.path.join(startup, "sitecustomize.py")
    )
    spec.loader.exec_module(importlib.util.module_from_spec(spec))
    # 2. CUDA op libraries that cannot load against CPU torch -> empty modules
    sys.meta_path.insert(0, _ExtensionFallbackFinder())
    # 2b. libcudart: loaded in the process on a GPU node (by torch's CUDA build); FlashInfer's comm module
    #     binds it at import time from /proc/self/maps (standins/libcudart_stub.c)
    _load_stub_libcudart()
    # 3. Triton: vllm.triton_utils sets HAS_TRITON only when exactly one GPU driver is active; on a GPU
    #    node Triton's CUDA driver is, here it asks torch.cuda.is_available() (False).
    try:
        from triton.backends import backends

        nvidia = backends.get("nvidia")
        if nvidia is not None and nvidia.driver is not None:
            nvidia.driver.is_active = staticmethod(lambda: True)
    except Exception as e:
        print(f"warning: triton not usable ({e}); vLLM will see HAS_TRITON=False", file=sys.stderr)


# Host memory of the stand-in GPU node (an 8-GPU H100 node has 1-2 TiB). Before 0.12, CacheConfig refuses a
# --swap-space (4 GiB per GPU by default) above 70% of `get_cpu_memory()`: measured on this machine, every
# -tp 8 configuration would be refused, which the GPU node never does.
STANDIN_HOST_MEMORY = int(os.environ.get("VLLM_STANDIN_HOST_MEMORY_GIB", "2048")) << 30


def _standin_host_memory() -> None:
    for name, mod in list(sys.modules.items()):
        if name.startswith("vllm") and callable(getattr(mod, "get_cpu_memory", None)):
            mod.get_cpu_memory = lambda: STANDIN_HOST_MEMORY


class Harness:
    def __init__(self, models_dir: str):
        self.models_dir = models_dir
        self.t_import = 0.0

    def boot(self) -> None:
        t0 = time.perf_counter()
        _install_standins()

        import vllm
        import vllm.envs as envs
        import vllm.platforms as platforms

        self.platform = platforms.current_platform
        if type(self.platform).__name__ != "StandInCudaPlatform":
            raise RuntimeError(
                f"vLLM resolved platform {type(self.platform).__name__}, not the stand-in; "
                "is standins/plugin on sys.path and VLLM_PLUGINS unset?"
            )
        # 0.22.x ask a module function of vllm/config/model.py, not the platform, whether the cumem
        # allocator (vllm/cumem_allocator.abi3.so, shipped by vLLM's CUDA build) loads: here the extension is
        # an empty stand-in, so its `from vllm.cumem_allocator import ...` fails; answer as the platform's
        # method does in the other releases (standins/plugin: True, as on the GPU node).
        try:
            import vllm.config.model as model_config_mod
        except ImportError:  # before 0.11: vllm/config.py or vllm/config/__init__.py
            model_config_mod = None
        if hasattr(model_config_mod, "is_cumem_allocator_available"):
            model_config_mod.is_cumem_allocator_available = self.platform.is_cumem_allocator_available
        from vllm.engine.arg_utils import AsyncEngineArgs
        from vllm.entrypoints.cli import serve as serve_mod
        from vllm.usage.usage_lib import UsageContext

        try:
            from vllm.utils.argparse_utils import FlexibleArgumentParser
        except ImportError:  # before 0.12: in vllm/utils.py or vllm/utils/__init__.py
            from vllm.utils import FlexibleArgumentParser

        self.vllm, self.envs, self.serve_mod = vllm, envs, serve_mod
        self.AsyncEngineArgs, self.UsageContext, self.FlexibleArgumentParser = (
            AsyncEngineArgs,
            UsageContext,
            FlexibleArgumentParser,
        )
        _standin_host_memory()
        try:
            from vllm.triton_utils import HAS_TRITON
        except Exception:
            HAS_TRITON = None
        from vllm_conformance_standin.platform import STANDIN

        self.standin = STANDIN
        self.has_triton = HAS_TRITON
        self.base_environ = dict(os.environ)
        self.t_import = time.perf_counter() - t0

    # -----------------------------------------------------------------------------------------------------
    def map_models(self, token: str) -> str:
        # Longest id first: "Qwen/Qwen2.5-7B-Instruct" is a prefix of "Qwen/Qwen2.5-7B-Instruct-AWQ".
        for hub_id, d in sorted(MODEL_DIRS.items(), key=lambda kv: -len(kv[0])):
            if hub_id in token:
                token = token.replace(hub_id, os.path.join(self.models_dir, d))
        return token

    def unmap_models(self, text: str) -> str:
        for hub_id, d in sorted(MODEL_DIRS.items(), key=lambda kv: -len(kv[1])):
            text = text.replace(os.path.join(self.models_dir, d), hub_id)
        return text

    @staticmethod
    def split_command(command: str) -> tuple[dict[str, str], list[str]]:
        tokens = shlex.split(command, comments=False)
        env: dict[str, str] = {}
        while tokens and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", tokens[0]):
            k, v = tokens.pop(0).split("=", 1)
            env[k] = v
        if tokens[:1] == ["vllm"]:
            tokens = tokens[1:]
        if tokens[:1] != ["serve"]:
            raise ValueError(f"not a `vllm serve` command: {command!r}")
        return env, tokens

    def build_parser(self):
        parser = self.FlexibleArgumentParser(prog="vllm", description="vLLM CLI")
        subparsers = parser.add_subparsers(required=False, dest="subparser")
        cmds = {}
        for cmd in self.serve_mod.cmd_init():
            cmd.subparser_init(subparsers).set_defaults(dispatch_function=cmd.cmd)
            cmds[cmd.name] = cmd
        return parser, cmds

    def reset_env(self, case_env: dict[str, str]) -> None:
        os.environ.clear()
        os.environ.update(self.base_environ)
        os.environ.update(case_env)
        for fn in ("disable_envs_cache",):
            f = getattr(self.envs, fn, None)
            if f is not None:
                f()
        ga = getattr(self.envs, "__getattr__", None)
        if ga is not None and hasattr(ga, "cache_clear"):
            ga.cache_clear()

    # -----------------------------------------------------------------------------------------------------
    def run_case(self, case: dict) -> dict:
        t0 = time.perf_counter()
        out = {"id": case["id"], "ok": False, "stage": None, "error_class": None, "message": None}
        stage = "split"
        try:
            env, tokens = self.split_command(case["command"])
            tokens = [self.map_models(t) for t in tokens]
            self.reset_env(env)
            # as `vllm.entrypoints.cli.main.main` does before parsing
            try:
                from vllm.entrypoints.serve.utils.api_utils import cli_env_setup
            except ImportError:
                cli_env_setup = None
            if cli_env_setup is not None:
                with contextlib.redirect_stdout(io.StringIO()):
                    cli_env_setup()

            stage = "parse"
            parser, cmds = self.build_parser()
            err = io.StringIO()
            try:
                with contextlib.redirect_stderr(err):
                    args = parser.parse_args(tokens)
            except SystemExit as e:
                text = err.getvalue()
                m = re.findall(r"^[^\n]*?error: (.*)", text, flags=re.M | re.S)
                out.update(
                    error_class="ArgumentError", message=(m[-1] if m else text).strip(), exit_code=e.code
                )
                return out
            cmd = cmds[args.subparser]

            stage = "validate"
            cmd.validate(args)

            stage = "dispatch"
            dispatched = self._dispatch(cmd, args)
            if dispatched is None:
                raise RuntimeError("harness: `serve` did not reach a known dispatch point")
            mode, args = dispatched

            if mode in ("api_server", "multi_api_server"):
                # run_server / run_multi_api_server call setup_server() before the engine: its
                # validate_api_server_args() refuses an unknown tool-call parser (with
                # --enable-auto-tool-choice) or reasoning parser. The socket it then binds is left out.
                stage = "server_setup"
                self._server_setup_checks(args)

            stage = "engine_args"
            engine_args = self.AsyncEngineArgs.from_cli_args(args)
            if mode == "multi_api_server":
                engine_args._api_process_count = args.api_server_count
                engine_args._api_process_rank = -1

            stage = "config"
            kwargs = {"usage_context": self.UsageContext.OPENAI_API_SERVER}
            if mode == "headless":
                kwargs["headless"] = True
            engine_args.create_engine_config(**kwargs)
            out.update(ok=True, stage=None, dispatch=mode)
        except SystemExit as e:
            out.update(error_class="SystemExit", message=str(e.code))
        except BaseException as e:
            out.update(error_class=type(e).__name__, message=str(e))
            self._unwrap_pydantic(e, out)
            out["raised_at"] = self._raised_at(e)
        finally:
            if not out["ok"]:
                out["stage"] = stage
            if out.get("message"):
                # object addresses (`<function loads at 0x7f...>`) change every run
                out["message"] = re.sub(r" at 0x[0-9a-f]+>", " at 0x...>", self.unmap_models(out["message"]))
            out["elapsed_ms"] = round((time.perf_counter() - t0) * 1000, 1)
        return out

    @staticmethod
    def _raised_at(e: BaseException) -> str | None:
        """file:line of the innermost vLLM frame that raised (looking inside pydantic's wrapping)."""
        inner = e
        errors = getattr(e, "errors", None)
        if type(e).__name__ == "ValidationError" and callable(errors):
            try:
                ctx_err = (errors()[0].get("ctx") or {}).get("error")
                if isinstance(ctx_err, BaseException) and ctx_err.__traceback__ is not None:
                    inner = ctx_err
            except Exception:
                pass
        frames = [f for f in traceback.extract_tb(inner.__traceback__) if "/vllm/" in f.filename]
        if not frames:
            return None
        f = frames[-1]
        return f"vllm/{f.filename.rsplit('/vllm/', 1)[-1]}:{f.lineno}"

    @staticmethod
    def _unwrap_pydantic(e: BaseException, out: dict) -> None:
        """vLLM's config classes are pydantic dataclasses: a ValueError raised in __post_init__ or a
        validator reaches the caller wrapped in a pydantic ValidationError. Record the text vLLM raised
        (and its class) as the message; keep pydantic's own rendering in `detail`."""
        errors = getattr(e, "errors", None)
        if type(e).__name__ != "ValidationError" or not callable(errors):
            return
        try:
            errs = errors()
        except Exception:
            return
        parts, classes = [], []
        for err in errs:
            ctx = err.get("ctx") or {}
            inner = ctx.get("error")
            if isinstance(inner, BaseException):
                parts.append(str(inner))
                classes.append(type(inner).__name__)
            elif err.get("type") in ("value_error", "assertion_error"):
                parts.append(re.sub(r"^(Value|Assertion) error, ", "", err.get("msg", "")))
                classes.append("ValueError" if err.get("type") == "value_error" else "AssertionError")
            else:
                loc = ".".join(str(x) for x in err.get("loc", ()))
                parts.append(f"{loc}: {err.get('msg')}" if loc else str(err.get("msg")))
                classes.append(f"pydantic:{err.get('type')}")
        out["detail"] = str(e)[:2000]
        out["wrapped_in"] = f"ValidationError({getattr(e, 'title', '')})"
        out["message"] = "\n".join(parts)
        out["error_class"] = classes[0] if len(set(classes)) == 1 else "ValidationError"

    def warm_up(self, models: list[str]) -> None:
        """Build one config per model in this process before forking: every lazily imported module and
        vLLM's model-inspection cache are then shared by the forked cases (which take milliseconds)."""
        for m in models:
            res = self.run_case({"id": f"warm-up {m}", "command": f"vllm serve {m}"})
            if not res["ok"]:
                print(
                    f"warning: warm-up with {m} failed: {res['error_class']}: {res['message']}",
                    file=sys.stderr,
                )

    @staticmethod
    def _server_setup_checks(args) -> None:
        """The argument checks of vLLM's own setup_server(), from the module that defines it in this release
        (entrypoints/launchers/launcher.py from 0.31.0, entrypoints/openai/api_server.py before)."""
        import importlib

        for name in ("vllm.entrypoints.launchers.launcher", "vllm.entrypoints.openai.api_server"):
            try:
                mod = importlib.import_module(name)
            except ImportError:
                continue
            if not hasattr(mod, "setup_server"):
                continue
            for fn in ("init_parser_plugin", "validate_api_server_args"):
                if callable(getattr(mod, fn, None)):
                    getattr(mod, fn)(args)
            return

    def _dispatch(self, cmd, args):
        """Run ServeSubcommand.cmd(args) with its dispatch targets replaced by a catcher."""
        mod = self.serve_mod

        class _Reached(Exception):
            pass

        def catcher(mode):
            def f(a, *rest, **kw):
                raise _Reached(mode, a)

            return f

        targets = {
            "run_server": "api_server",
            "run_headless": "headless",
            "run_multi_api_server": "multi_api_server",
            "run_dp_supervisor": "dp_supervisor",
            "run_api_server_worker_proc": "api_server",
        }
        saved = {}
        for name, mode in targets.items():
            if hasattr(mod, name):
                saved[name] = getattr(mod, name)
                setattr(mod, name, catcher(mode))
        try:
            cmd.cmd(args)
        except _Reached as r:
            return r.args[0], r.args[1]
        finally:
            for name, fn in saved.items():
                setattr(mod, name, fn)
        return None


def _run_forked(h: Harness, case: dict) -> dict:
    """Run one case in a forked child so no state leaks from one case into the next."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        os.close(r)
        try:
            res = h.run_case(case)
        except BaseException as e:
            res = {
                "id": case["id"],
                "ok": False,
                "stage": "harness",
                "error_class": type(e).__name__,
                "message": str(e),
            }
        res["_stubbed"] = STUBBED_MODULES  # extensions first imported (and substituted) in this child
        data = json.dumps(res).encode()
        with os.fdopen(w, "wb") as f:
            f.write(data)
        os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        data = f.read()
    _, status = os.waitpid(pid, 0)
    if data:
        res = json.loads(data)
        for m in res.pop("_stubbed", []):
            if m not in STUBBED_MODULES:
                STUBBED_MODULES.append(m)
        return res
    return {
        "id": case["id"],
        "ok": False,
        "stage": "harness",
        "error_class": "Crash",
        "message": f"child exited with status {status}",
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--cases", required=True, help="JSON file {'cases': [{'id','command'}]} or - for stdin")
    ap.add_argument("--out", required=True, help="where to write the verdicts (JSON)")
    ap.add_argument("--models-dir", default=os.path.join(CONF_DIR, "models"))
    ap.add_argument(
        "--no-fork", action="store_true", help="run all cases in this process (faster, less isolated)"
    )
    ap.add_argument("--only", help="regex on case ids")
    ap.add_argument(
        "--no-warm-up",
        action="store_true",
        help="fork each case from the process that has only imported vLLM's CLI, as a freshly started "
        "`vllm serve` is after its import: each case then pays vLLM's lazy imports and model inspection "
        "itself (the issue's 'parser and create_engine_config(), after the import'); by default one config "
        "per model is built first and shared by every forked case",
    )
    opts = ap.parse_args()

    _reexec_with_stub_libcuda()
    if opts.cases == "-":
        src = sys.stdin.read()
    else:
        with open(opts.cases) as f:
            src = f.read()
    cases = json.loads(src)["cases"]
    if opts.only:
        cases = [c for c in cases if re.search(opts.only, c["id"])]

    h = Harness(opts.models_dir)
    h.boot()
    used = [m for m in MODEL_DIRS if any(m in c["command"] for c in cases)]
    if not opts.no_warm_up:
        h.warm_up(used or list(MODEL_DIRS)[:1])
    t0 = time.perf_counter()
    results = []
    for case in cases:
        res = h.run_case(case) if opts.no_fork else _run_forked(h, case)
        results.append(res)
        print(
            f"[{res['elapsed_ms']:>7} ms] {case['id']}: "
            f"{'ok' if res['ok'] else res['error_class'] + ': ' + (res['message'] or '')[:150]}",
            file=sys.stderr,
            flush=True,
        )
    doc = {
        "vllm_version": h.vllm.__version__,
        "harness": {
            "platform": f"{type(h.platform).__name__}({type(h.platform).__mro__[1].__name__})",
            "standin_hardware": h.standin,
            "has_triton": h.has_triton,
            "stubbed_extensions": sorted(STUBBED_MODULES),
            "import_seconds": round(h.t_import, 2),
            "cases_seconds": round(time.perf_counter() - t0, 2),
            "isolation": "in-process" if opts.no_fork else "fork per case",
            "warm_up": not opts.no_warm_up,
        },
        "verdicts": results,
    }
    with open(opts.out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
