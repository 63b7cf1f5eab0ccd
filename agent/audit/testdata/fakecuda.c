// A fake CUDA driver for the agent's tests: the entry points an audit uses,
// on the host. "Device memory" is malloc'd, and cuLaunchKernel runs, thread
// by thread, a C version of the memwalk/v1 kernel it is asked for (written
// from x/settlement/audit/memwalk.go, as the PTX kernels are), so the whole
// host path (dlopen, symbol lookup, argument passing by address, UUIDs,
// memory checks, chunked launches, copies, errors) is exercised without a
// GPU. Built with -DFAKECUDA_IR and linked with kernels/memwalk.ll compiled
// for the host, it runs the kernels' own IR instead (cuda_fake_test.go).
// FAKECUDA_FAIL_LAUNCH=N fails a session's Nth launch;
// FAKECUDA_FREE_BYTES sets the free memory cuMemGetInfo reports (1 GiB by
// default).
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef struct { char bytes[16]; } CUuuid;

static int initialised;
static int launches;
static int module_loaded;
static char fn_build, fn_walk;
static unsigned block_dim;

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
	// The embedded PTX must declare both kernels the host launches.
	if (!strstr((const char *)image, ".visible .entry memwalk_build(") ||
	    !strstr((const char *)image, ".visible .entry memwalk_walk("))
		return 218; // INVALID_PTX
	module_loaded = 1;
	launches = 0;
	*m = &module_loaded;
	return 0;
}
CUresult cuModuleUnload(void *m) { (void)m; module_loaded = 0; return 0; }
CUresult cuModuleGetFunction(void **f, void *m, const char *name) {
	if (m != &module_loaded) return 400; // INVALID_HANDLE
	if (strcmp(name, "memwalk_build") == 0) *f = &fn_build;
	else if (strcmp(name, "memwalk_walk") == 0) *f = &fn_walk;
	else return 500; // NOT_FOUND
	return 0;
}
CUresult cuMemGetInfo_v2(size_t *free_, size_t *total) {
	const char *f = getenv("FAKECUDA_FREE_BYTES");
	*free_ = f ? (size_t)strtoull(f, NULL, 10) : (size_t)1 << 30;
	*total = (size_t)2 << 30;
	return 0;
}
CUresult cuMemAlloc_v2(unsigned long long *p, size_t n) { void *b = malloc(n); if (!b) return 2; *p = (uintptr_t)b; return 0; }
CUresult cuMemFree_v2(unsigned long long p) { free((void *)(uintptr_t)p); return 0; }
CUresult cuMemcpyHtoD_v2(unsigned long long dst, const void *src, size_t n) { memcpy((void *)(uintptr_t)dst, src, n); return 0; }
CUresult cuMemcpyDtoH_v2(void *dst, unsigned long long src, size_t n) { memcpy(dst, (void *)(uintptr_t)src, n); return 0; }

#define PTR(i) ((uint32_t *)(uintptr_t)*(unsigned long long *)params[i])
#define U32(i) (*(uint32_t *)params[i])

#ifdef FAKECUDA_IR
// The kernels as written in memwalk.ll, compiled for the host with the
// PTX special registers renamed to these.
void memwalk_build(uint32_t *, uint32_t *, uint32_t, uint32_t);
void memwalk_walk(uint32_t *, uint32_t *, uint32_t *, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t);
static uint32_t cur_ctaid, cur_tid;
uint32_t fake_ctaid_x(void) { return cur_ctaid; }
uint32_t fake_ntid_x(void) { return block_dim; }
uint32_t fake_tid_x(void) { return cur_tid; }

static void build(void **params, uint64_t gid) {
	cur_ctaid = (uint32_t)(gid / block_dim), cur_tid = (uint32_t)(gid % block_dim);
	memwalk_build(PTR(0), PTR(1), U32(2), U32(3));
}
static void walk(void **params, uint64_t gid) {
	cur_ctaid = (uint32_t)(gid / block_dim), cur_tid = (uint32_t)(gid % block_dim);
	memwalk_walk(PTR(0), PTR(1), PTR(2), U32(3), U32(4), U32(5), U32(6), U32(7));
}
#else
// memwalk/v1, as x/settlement/audit/memwalk.go specifies it.
enum { ITEM_WORDS = 16, STATE_WORDS = 8, CACHE_ITEMS = 1 << 14, PARENTS = 256 };

static uint32_t lowbias32(uint32_t x) {
	x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; x *= 0x846ca68bU; x ^= x >> 16;
	return x;
}
static uint32_t fnv(uint32_t a, uint32_t b) { return a * 0x01000193U ^ b; }

// item is Cache.Item: table item j from the cache.
static void item(const uint32_t *cache, uint32_t j, uint32_t *out) {
	uint32_t mix[ITEM_WORDS];
	memcpy(mix, cache + (uint64_t)(j % CACHE_ITEMS) * ITEM_WORDS, sizeof mix);
	mix[0] ^= j;
	for (int w = 0; w < ITEM_WORDS; w++) mix[w] = lowbias32(mix[w]);
	for (uint32_t p = 0; p < PARENTS; p++) {
		const uint32_t *par = cache + (uint64_t)(fnv(j ^ p, mix[p % ITEM_WORDS]) % CACHE_ITEMS) * ITEM_WORDS;
		for (int w = 0; w < ITEM_WORDS; w++) mix[w] = fnv(mix[w], par[w]);
	}
	for (int w = 0; w < ITEM_WORDS; w++) out[w] = lowbias32(mix[w]);
}

// build is one memwalk_build thread: (table, cache, first, end).
static void build(void **params, uint64_t gid) {
	uint32_t *table = PTR(0);
	const uint32_t *cache = PTR(1);
	uint32_t first = U32(2), end = U32(3);
	uint64_t j = (uint64_t)first + gid;
	if (j >= end) return;
	item(cache, (uint32_t)j, table + j * ITEM_WORDS);
}

// walk is one memwalk_walk thread: (table, states, out, items, count,
// seg_first, seg_count, seg_steps).
static void walk(void **params, uint64_t lane) {
	const uint32_t *table = PTR(0);
	uint32_t *states = PTR(1), *out = PTR(2);
	uint32_t items = U32(3), count = U32(4), seg_first = U32(5), seg_count = U32(6), seg_steps = U32(7);
	if (lane >= count) return;
	uint32_t s[STATE_WORDS];
	memcpy(s, states + lane * STATE_WORDS, sizeof s);
	uint32_t t = seg_first * seg_steps;
	for (uint32_t k = 0; k < seg_count; k++) {
		for (uint32_t i = 0; i < seg_steps; i++, t++) {
			const uint32_t *it = table + (uint64_t)(fnv(t ^ s[0], s[t % STATE_WORDS]) % items) * ITEM_WORDS;
			for (int w = 0; w < STATE_WORDS; w++) s[w] = lowbias32(fnv(s[w], it[w]) ^ it[w + STATE_WORDS]);
		}
		memcpy(out + (lane * seg_count + k) * STATE_WORDS, s, sizeof s);
	}
	memcpy(states + lane * STATE_WORDS, s, sizeof s);
}
#endif

CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
		unsigned shared, void *stream, void **params, void **extra) {
	(void)stream;
	launches++;
	const char *fail = getenv("FAKECUDA_FAIL_LAUNCH");
	if (fail && atoi(fail) == launches) return 719; // LAUNCH_FAILED
	if (gx == 0 || gy != 1 || gz != 1 || bx == 0 || bx > 1024 || by != 1 || bz != 1 || shared != 0 || extra) return 1;
	void (*thread)(void **, uint64_t);
	if (f == &fn_build) thread = build;
	else if (f == &fn_walk) thread = walk;
	else return 400; // INVALID_HANDLE
	block_dim = bx;
	for (uint64_t gid = 0; gid < (uint64_t)gx * bx; gid++) thread(params, gid);
	return 0;
}

CUresult cuGetErrorString(CUresult r, const char **s) {
	switch (r) {
	case 2: *s = "out of memory"; return 0;
	case 719: *s = "unspecified launch failure"; return 0;
	case 218: *s = "a PTX JIT compilation failed"; return 0;
	case 500: *s = "named symbol not found"; return 0;
	}
	*s = "fake error";
	return 0;
}
