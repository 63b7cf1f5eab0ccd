// A fake CUDA driver for the agent's tests: the entry points an audit uses,
// on the host. "Device memory" is malloc'd, and cuLaunchKernel runs the
// matmul-u32 round the PTX kernel implements, so the whole host path (dlopen,
// symbol lookup, argument passing by address, UUIDs, copies, errors) is
// exercised without a GPU. FAKECUDA_FAIL_LAUNCH=N fails the Nth launch;
// FAKECUDA_LAUNCHES counts launches (read by the test through fake_launches).
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef struct { char bytes[16]; } CUuuid;

static int initialised;
static int launches;
static int module_loaded;
static char fn_token;

int fake_launches(void) { return launches; }

CUresult cuInit(unsigned int flags) { initialised = 1; return flags == 0 ? 0 : 1; }
CUresult cuDeviceGetCount(int *n) { if (!initialised) return 3; *n = 2; return 0; }
CUresult cuDeviceGet(int *d, int i) { if (i < 0 || i > 1) return 101; *d = i; return 0; }
CUresult cuDeviceGetUuid(CUuuid *u, int d) {
	for (int i = 0; i < 16; i++) u->bytes[i] = (char)(0x10 * (d + 1) + i);
	return 0;
}
CUresult cuDevicePrimaryCtxRetain(void **ctx, int d) { *ctx = (void *)(intptr_t)(d + 1); return 0; }
CUresult cuDevicePrimaryCtxRelease_v2(int d) { (void)d; return 0; }
CUresult cuCtxSetCurrent(void *ctx) { return ctx ? 0 : 201; }
CUresult cuCtxSynchronize(void) { return 0; }
CUresult cuModuleLoadData(void **m, const void *image) {
	// The embedded PTX must declare the kernel the host launches.
	if (!strstr((const char *)image, ".visible .entry matmul_u32_round(")) return 218; // INVALID_PTX
	module_loaded = 1;
	*m = &module_loaded;
	return 0;
}
CUresult cuModuleUnload(void *m) { (void)m; module_loaded = 0; return 0; }
CUresult cuModuleGetFunction(void **f, void *m, const char *name) {
	if (m != &module_loaded || strcmp(name, "matmul_u32_round") != 0) return 500; // NOT_FOUND
	*f = &fn_token;
	return 0;
}
CUresult cuMemAlloc_v2(unsigned long long *p, size_t n) { void *b = malloc(n); if (!b) return 2; *p = (uintptr_t)b; return 0; }
CUresult cuMemFree_v2(unsigned long long p) { free((void *)(uintptr_t)p); return 0; }
CUresult cuMemcpyHtoD_v2(unsigned long long dst, const void *src, size_t n) { memcpy((void *)(uintptr_t)dst, src, n); return 0; }
CUresult cuMemcpyDtoH_v2(void *dst, unsigned long long src, size_t n) { memcpy(dst, (void *)(uintptr_t)src, n); return 0; }

static uint32_t lowbias32(uint32_t x) {
	x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; x *= 0x846ca68bU; x ^= x >> 16;
	return x;
}

CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
		unsigned shared, void *stream, void **params, void **extra) {
	(void)stream;
	launches++;
	const char *fail = getenv("FAKECUDA_FAIL_LAUNCH");
	if (fail && atoi(fail) == launches) return 719; // LAUNCH_FAILED
	if (f != &fn_token || gx != 256 || gy != 1 || gz != 1 || bx != 256 || by != 1 || bz != 1 || shared != 0 || extra) return 1;
	uint32_t *out = (uint32_t *)(uintptr_t)*(unsigned long long *)params[0];
	const uint32_t *m = (const uint32_t *)(uintptr_t)*(unsigned long long *)params[1];
	const uint32_t *b = (const uint32_t *)(uintptr_t)*(unsigned long long *)params[2];
	uint32_t r = *(uint32_t *)params[3];
	for (int i = 0; i < 256; i++)
		for (int j = 0; j < 256; j++) {
			uint32_t acc = 0;
			for (int k = 0; k < 256; k++) acc += m[i * 256 + k] * b[k * 256 + j];
			out[i * 256 + j] = lowbias32(acc + r);
		}
	return 0;
}

CUresult cuGetErrorString(CUresult r, const char **s) {
	switch (r) {
	case 719: *s = "unspecified launch failure"; return 0;
	case 218: *s = "a PTX JIT compilation failed"; return 0;
	case 500: *s = "named symbol not found"; return 0;
	}
	*s = "fake error";
	return 0;
}
