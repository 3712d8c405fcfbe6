/* Stub of the CUDA runtime library (libcudart.so.12) for a machine without a GPU.
 *
 * On a GPU node torch's CUDA build has libcudart loaded in the process before vLLM builds its config, and
 * FlashInfer's communication module (flashinfer/comm/cuda_ipc.py, imported by vLLM's allreduce+RMSNorm
 * fusion pass at config time, e.g. 0.23.0 with DeepSeek-V3 -tp 8) binds these entry points at import time
 * from the libcudart it finds in /proc/self/maps, asserting "libcudart is not loaded in the current
 * process" otherwise. vllm_verdict.py loads this stub when no libcudart is loaded. Nothing here runs a
 * kernel: every call reports "no device" (cudaErrorNoDevice = 100).
 *
 *   gcc -shared -fPIC -O2 -o libcudart.so.12 libcudart_stub.c
 */
#include <stddef.h>
typedef int cudaError_t;
typedef struct { char reserved[64]; } cudaIpcMemHandle_t;
#define NO_DEVICE 100

const char *cudaGetErrorString(cudaError_t e) { (void)e; return "stub libcudart: no CUDA-capable device"; }
cudaError_t cudaSetDevice(int d) { (void)d; return NO_DEVICE; }
cudaError_t cudaDeviceSynchronize(void) { return NO_DEVICE; }
cudaError_t cudaDeviceReset(void) { return NO_DEVICE; }
cudaError_t cudaMalloc(void **p, size_t n) { (void)n; if (p) *p = 0; return NO_DEVICE; }
cudaError_t cudaFree(void *p) { (void)p; return NO_DEVICE; }
cudaError_t cudaMemset(void *p, int v, size_t n) { (void)p; (void)v; (void)n; return NO_DEVICE; }
cudaError_t cudaMemcpy(void *d, const void *s, size_t n, int k) { (void)d; (void)s; (void)n; (void)k; return NO_DEVICE; }
cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t *h, void *p) { (void)h; (void)p; return NO_DEVICE; }
cudaError_t cudaIpcOpenMemHandle(void **p, cudaIpcMemHandle_t h, unsigned int f) { (void)h; (void)f; if (p) *p = 0; return NO_DEVICE; }
