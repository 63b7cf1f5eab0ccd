//go:build cgo && linux

package audit

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

// The few CUDA driver API types and entry points an audit uses, declared
// here so that the agent builds without CUDA's headers; the library is
// opened at run time, so it also runs without CUDA (ErrUnavailable).
typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef void *CUmodule;
typedef void *CUfunction;
typedef void *CUstream;
typedef unsigned long long CUdeviceptr;
typedef struct { char bytes[16]; } CUuuid;

typedef struct {
	void *lib;
	CUresult (*cuInit)(unsigned int);
	CUresult (*cuDeviceGetCount)(int *);
	CUresult (*cuDeviceGet)(CUdevice *, int);
	CUresult (*cuDeviceGetUuid)(CUuuid *, CUdevice);
	CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
	CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
	CUresult (*cuCtxSetCurrent)(CUcontext);
	CUresult (*cuCtxSynchronize)(void);
	CUresult (*cuModuleLoadData)(CUmodule *, const void *);
	CUresult (*cuModuleUnload)(CUmodule);
	CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
	CUresult (*cuMemGetInfo)(size_t *, size_t *);
	CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
	CUresult (*cuMemFree)(CUdeviceptr);
	CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
	CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
	CUresult (*cuLaunchKernel)(CUfunction, unsigned int, unsigned int, unsigned int,
		unsigned int, unsigned int, unsigned int, unsigned int, CUstream, void **, void **);
	CUresult (*cuGetErrorString)(CUresult, const char **);
} idlegpu_cuda;

// idlegpu_cuda_open loads path and resolves every entry point; it returns
// the name of the first one missing (or dlerror's text), NULL on success.
static const char *idlegpu_cuda_open(idlegpu_cuda *c, const char *path) {
	memset(c, 0, sizeof(*c));
	c->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!c->lib) return dlerror();
#define SYM(field, name) if (!(*(void **)(&c->field) = dlsym(c->lib, name))) return name;
	SYM(cuInit, "cuInit")
	SYM(cuDeviceGetCount, "cuDeviceGetCount")
	SYM(cuDeviceGet, "cuDeviceGet")
	SYM(cuDeviceGetUuid, "cuDeviceGetUuid")
	SYM(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain")
	SYM(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2")
	SYM(cuCtxSetCurrent, "cuCtxSetCurrent")
	SYM(cuCtxSynchronize, "cuCtxSynchronize")
	SYM(cuModuleLoadData, "cuModuleLoadData")
	SYM(cuModuleUnload, "cuModuleUnload")
	SYM(cuModuleGetFunction, "cuModuleGetFunction")
	SYM(cuMemGetInfo, "cuMemGetInfo_v2")
	SYM(cuMemAlloc, "cuMemAlloc_v2")
	SYM(cuMemFree, "cuMemFree_v2")
	SYM(cuMemcpyHtoD, "cuMemcpyHtoD_v2")
	SYM(cuMemcpyDtoH, "cuMemcpyDtoH_v2")
	SYM(cuLaunchKernel, "cuLaunchKernel")
	SYM(cuGetErrorString, "cuGetErrorString")
#undef SYM
	return NULL;
}

static CUresult c_init(idlegpu_cuda *c) { return c->cuInit(0); }
static CUresult c_count(idlegpu_cuda *c, int *n) { return c->cuDeviceGetCount(n); }
static CUresult c_device(idlegpu_cuda *c, CUdevice *d, int i) { return c->cuDeviceGet(d, i); }
static CUresult c_uuid(idlegpu_cuda *c, CUdevice d, unsigned char *out) {
	CUuuid u;
	CUresult r = c->cuDeviceGetUuid(&u, d);
	memcpy(out, u.bytes, 16);
	return r;
}
static CUresult c_retain(idlegpu_cuda *c, CUcontext *ctx, CUdevice d) { return c->cuDevicePrimaryCtxRetain(ctx, d); }
static CUresult c_release(idlegpu_cuda *c, CUdevice d) { return c->cuDevicePrimaryCtxRelease(d); }
static CUresult c_set(idlegpu_cuda *c, CUcontext ctx) { return c->cuCtxSetCurrent(ctx); }
static CUresult c_sync(idlegpu_cuda *c) { return c->cuCtxSynchronize(); }
static CUresult c_load(idlegpu_cuda *c, CUmodule *m, const char *ptx) { return c->cuModuleLoadData(m, ptx); }
static CUresult c_unload(idlegpu_cuda *c, CUmodule m) { return c->cuModuleUnload(m); }
static CUresult c_function(idlegpu_cuda *c, CUfunction *f, CUmodule m, const char *name) { return c->cuModuleGetFunction(f, m, name); }
static CUresult c_meminfo(idlegpu_cuda *c, size_t *free, size_t *total) { return c->cuMemGetInfo(free, total); }
static CUresult c_alloc(idlegpu_cuda *c, CUdeviceptr *p, size_t n) { return c->cuMemAlloc(p, n); }
static CUresult c_free(idlegpu_cuda *c, CUdeviceptr p) { return c->cuMemFree(p); }
static CUresult c_htod(idlegpu_cuda *c, CUdeviceptr dst, const void *src, size_t n) { return c->cuMemcpyHtoD(dst, src, n); }
static CUresult c_dtoh(idlegpu_cuda *c, void *dst, CUdeviceptr src, size_t n) { return c->cuMemcpyDtoH(dst, src, n); }

// c_launch passes each argument by address, as cuLaunchKernel wants:
// ptrs[i] is used when is_ptr[i], else u32s[i]. At most 8 arguments.
static CUresult c_launch(idlegpu_cuda *c, CUfunction f, unsigned int grid, unsigned int block,
		int n, const unsigned long long *ptrs, const unsigned int *u32s, const int *is_ptr) {
	void *params[8];
	if (n > 8) return 1; // CUDA_ERROR_INVALID_VALUE
	for (int i = 0; i < n; i++) params[i] = is_ptr[i] ? (void *)&ptrs[i] : (void *)&u32s[i];
	return c->cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, NULL, params, NULL);
}
static const char *c_error(idlegpu_cuda *c, CUresult r) {
	const char *s = NULL;
	if (c->cuGetErrorString(r, &s) != 0 || !s) return "unknown CUDA error";
	return s;
}
*/
import "C"

import (
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"unsafe"
)

// DefaultCUDALibrary is the CUDA driver's library, installed with the
// NVIDIA driver (no toolkit needed).
const DefaultCUDALibrary = "libcuda.so.1"

// CUDA is the CUDA driver loaded from a shared library at run time.
type CUDA struct {
	c *C.idlegpu_cuda
	// mu guards busy. The chain allows one live audit per GPU, and audits
	// of different GPUs run at once (each session on its own OS thread
	// with its device's primary context): an 8-GPU machine's required
	// audits all meet their deadline.
	mu sync.Mutex
	// busy holds the UUIDs with an open session: a second one on the same
	// device waits for the first to close.
	busy map[string]*sync.Mutex
}

// device is the lock of one device's sessions.
func (d *CUDA) device(uuid string) *sync.Mutex {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.busy == nil {
		d.busy = map[string]*sync.Mutex{}
	}
	m, ok := d.busy[uuid]
	if !ok {
		m = &sync.Mutex{}
		d.busy[uuid] = m
	}
	return m
}

// LoadCUDA opens the driver library (DefaultCUDALibrary when path is
// empty) and initialises it. Without an NVIDIA driver it returns
// ErrUnavailable.
func LoadCUDA(path string) (*CUDA, error) {
	if path == "" {
		path = DefaultCUDALibrary
	}
	c := (*C.idlegpu_cuda)(C.calloc(1, C.size_t(unsafe.Sizeof(C.idlegpu_cuda{}))))
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	if missing := C.idlegpu_cuda_open(c, cpath); missing != nil {
		msg := C.GoString(missing)
		if c.lib != nil {
			C.dlclose(c.lib)
		}
		C.free(unsafe.Pointer(c))
		return nil, fmt.Errorf("%w: %s: %s", ErrUnavailable, path, msg)
	}
	d := &CUDA{c: c}
	if err := d.check("cuInit", C.c_init(c)); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	return d, nil
}

// check turns a CUresult into an error naming the call.
func (d *CUDA) check(call string, r C.CUresult) error {
	if r == 0 {
		return nil
	}
	return fmt.Errorf("%s: CUDA error %d: %s", call, int(r), C.GoString(C.c_error(d.c, r)))
}

// UUIDs lists the devices' NVML-style UUIDs, in CUDA's order.
func (d *CUDA) UUIDs() ([]string, error) {
	var n C.int
	if err := d.check("cuDeviceGetCount", C.c_count(d.c, &n)); err != nil {
		return nil, err
	}
	out := make([]string, 0, int(n))
	for i := 0; i < int(n); i++ {
		var dev C.CUdevice
		if err := d.check("cuDeviceGet", C.c_device(d.c, &dev, C.int(i))); err != nil {
			return nil, err
		}
		u, err := d.uuid(dev)
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, nil
}

func (d *CUDA) uuid(dev C.CUdevice) (string, error) {
	var raw [16]byte
	if err := d.check("cuDeviceGetUuid", C.c_uuid(d.c, dev, (*C.uchar)(unsafe.Pointer(&raw[0])))); err != nil {
		return "", err
	}
	return nvmlUUID(raw), nil
}

// nvmlUUID writes CUDA's 16 UUID bytes as NVML names the same GPU.
func nvmlUUID(b [16]byte) string {
	h := hex.EncodeToString(b[:])
	return "GPU-" + h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// Open implements Driver.
func (d *CUDA) Open(uuid, ptx string, kernels ...string) (Session, error) {
	lock := d.device(uuid)
	lock.Lock()
	s, err := d.open(uuid, ptx, kernels)
	if err != nil {
		lock.Unlock()
		return nil, err
	}
	s.lock = lock
	return s, nil
}

func (d *CUDA) open(uuid, ptx string, kernels []string) (*cudaSession, error) {
	var n C.int
	if err := d.check("cuDeviceGetCount", C.c_count(d.c, &n)); err != nil {
		return nil, err
	}
	found := false
	var dev C.CUdevice
	for i := 0; i < int(n) && !found; i++ {
		if err := d.check("cuDeviceGet", C.c_device(d.c, &dev, C.int(i))); err != nil {
			return nil, err
		}
		u, err := d.uuid(dev)
		if err != nil {
			return nil, err
		}
		found = strings.EqualFold(u, uuid)
	}
	if !found {
		return nil, fmt.Errorf("%w: %s (is CUDA_VISIBLE_DEVICES hiding it?)", ErrNoDevice, uuid)
	}
	s := &cudaSession{d: d, dev: dev, fns: make(map[string]C.CUfunction, len(kernels))}
	if err := d.check("cuDevicePrimaryCtxRetain", C.c_retain(d.c, &s.ctx, dev)); err != nil {
		return nil, err
	}
	s.retained = true
	if err := d.check("cuCtxSetCurrent", C.c_set(d.c, s.ctx)); err != nil {
		return nil, s.fail(err)
	}
	src := C.CString(ptx)
	defer C.free(unsafe.Pointer(src))
	if err := d.check("cuModuleLoadData (PTX JIT)", C.c_load(d.c, &s.mod, src)); err != nil {
		return nil, s.fail(err)
	}
	for _, k := range kernels {
		var fn C.CUfunction
		name := C.CString(k)
		r := C.c_function(d.c, &fn, s.mod, name)
		C.free(unsafe.Pointer(name))
		if err := d.check("cuModuleGetFunction "+k, r); err != nil {
			return nil, s.fail(err)
		}
		s.fns[k] = fn
	}
	return s, nil
}

// cudaSession is one audit's context on one device.
type cudaSession struct {
	d        *CUDA
	lock     *sync.Mutex // the device's, held until Close
	dev      C.CUdevice
	ctx      C.CUcontext
	retained bool
	mod      C.CUmodule
	fns      map[string]C.CUfunction
	bufs     []C.CUdeviceptr
}

// fail releases what open acquired and returns err.
func (s *cudaSession) fail(err error) error {
	s.release()
	return err
}

func (s *cudaSession) MemInfo() (free, total uint64, err error) {
	var f, t C.size_t
	if err := s.d.check("cuMemGetInfo", C.c_meminfo(s.d.c, &f, &t)); err != nil {
		return 0, 0, err
	}
	return uint64(f), uint64(t), nil
}

func (s *cudaSession) Alloc(words uint64) (Ptr, error) {
	if words > 1<<61 {
		return 0, fmt.Errorf("cuMemAlloc: %d words", words)
	}
	var p C.CUdeviceptr
	if err := s.d.check(fmt.Sprintf("cuMemAlloc of %d bytes", 4*words), C.c_alloc(s.d.c, &p, C.size_t(4*words))); err != nil {
		return 0, err
	}
	s.bufs = append(s.bufs, p)
	return Ptr(p), nil
}

func (s *cudaSession) Upload(dst Ptr, src []uint32) error {
	if len(src) == 0 {
		return nil
	}
	// src is copied into C memory: cgo forbids handing the driver a Go
	// pointer it might keep.
	n := C.size_t(4 * len(src))
	buf := C.malloc(n)
	defer C.free(buf)
	copy(unsafe.Slice((*uint32)(buf), len(src)), src)
	return s.d.check("cuMemcpyHtoD", C.c_htod(s.d.c, C.CUdeviceptr(dst), buf, n))
}

func (s *cudaSession) Download(dst []uint32, src Ptr) error {
	if len(dst) == 0 {
		return nil
	}
	n := C.size_t(4 * len(dst))
	buf := C.malloc(n)
	defer C.free(buf)
	if err := s.d.check("cuMemcpyDtoH", C.c_dtoh(s.d.c, buf, C.CUdeviceptr(src), n)); err != nil {
		return err
	}
	copy(dst, unsafe.Slice((*uint32)(buf), len(dst)))
	return nil
}

func (s *cudaSession) Launch(kernel string, grid, block uint32, args ...Arg) error {
	fn, ok := s.fns[kernel]
	if !ok {
		return fmt.Errorf("cuLaunchKernel: kernel %q was not loaded", kernel)
	}
	if len(args) > 8 {
		return fmt.Errorf("cuLaunchKernel: %d arguments, at most 8", len(args))
	}
	var ptrs [8]C.ulonglong
	var u32s [8]C.uint
	var isPtr [8]C.int
	for i, a := range args {
		if a.IsPtr {
			ptrs[i], isPtr[i] = C.ulonglong(a.Ptr), 1
		} else {
			u32s[i] = C.uint(a.U32)
		}
	}
	return s.d.check("cuLaunchKernel "+kernel, C.c_launch(s.d.c, fn, C.uint(grid), C.uint(block), C.int(len(args)),
		&ptrs[0], &u32s[0], &isPtr[0]))
}

func (s *cudaSession) Sync() error { return s.d.check("cuCtxSynchronize", C.c_sync(s.d.c)) }

func (s *cudaSession) Close() error {
	defer s.lock.Unlock()
	return s.release()
}

// release frees buffers, the module and the context, keeping the first
// error.
func (s *cudaSession) release() error {
	var first error
	keep := func(err error) {
		if first == nil {
			first = err
		}
	}
	for _, p := range s.bufs {
		keep(s.d.check("cuMemFree", C.c_free(s.d.c, p)))
	}
	s.bufs = nil
	if s.mod != nil {
		keep(s.d.check("cuModuleUnload", C.c_unload(s.d.c, s.mod)))
		s.mod = nil
	}
	if s.retained {
		keep(s.d.check("cuDevicePrimaryCtxRelease", C.c_release(s.d.c, s.dev)))
		s.retained = false
	}
	return first
}
