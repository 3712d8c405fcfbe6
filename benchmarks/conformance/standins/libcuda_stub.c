/* Stub of the NVIDIA driver library (libcuda.so.1) for a machine without a GPU driver.
 *
 * Some vLLM extension modules and libraries are linked against libcuda.so.1 or dlopen it at import time.
 * Nothing here ever launches a kernel: every entry point reports "no device" (CUDA_ERROR_NO_DEVICE = 100)
 * except the version/initialisation queries, which answer like a CUDA 13.0 driver. The hardware that the
 * harness pretends to have is described by the stand-in platform class in vllm_verdict.py, not here.
 *
 *   gcc -shared -fPIC -O2 -o libcuda.so.1 libcuda_stub.c
 */
typedef int CUresult;
#define CUDA_SUCCESS 0
#define CUDA_ERROR_NO_DEVICE 100

CUresult cuInit(unsigned int flags) { (void)flags; return CUDA_SUCCESS; }
CUresult cuDriverGetVersion(int *v) { if (v) *v = 13000; return CUDA_SUCCESS; }
CUresult cuDeviceGetCount(int *n) { if (n) *n = 0; return CUDA_SUCCESS; }
CUresult cuDeviceGet(int *d, int ordinal) { (void)d; (void)ordinal; return CUDA_ERROR_NO_DEVICE; }
CUresult cuGetErrorString(CUresult e, const char **s) { (void)e; if (s) *s = "stub libcuda: no device"; return CUDA_SUCCESS; }
CUresult cuGetErrorName(CUresult e, const char **s) { (void)e; if (s) *s = "CUDA_ERROR_NO_DEVICE"; return CUDA_SUCCESS; }
CUresult cuGetProcAddress(const char *sym, void **p, int v, unsigned long long f) { (void)sym; (void)v; (void)f; if (p) *p = 0; return CUDA_ERROR_NO_DEVICE; }
CUresult cuGetProcAddress_v2(const char *sym, void **p, int v, unsigned long long f, void *st) { (void)sym; (void)v; (void)f; (void)st; if (p) *p = 0; return CUDA_ERROR_NO_DEVICE; }
