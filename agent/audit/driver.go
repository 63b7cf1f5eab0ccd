package audit

// Driver is the narrow part of the CUDA driver API an audit needs. The
// production Driver is libcuda loaded at run time (cuda_cgo.go); tests use
// a fake that interprets the kernels.
type Driver interface {
	// Open makes a session on the device whose NVML-style UUID is uuid
	// ("GPU-xxxxxxxx-…"), with the PTX module loaded and each of kernels
	// found in it. The caller keeps to one OS thread until Close (CUDA
	// binds contexts to threads).
	Open(uuid, ptx string, kernels ...string) (Session, error)
}

// Ptr is a device pointer.
type Ptr uint64

// Arg is one kernel argument: a device pointer or a 32-bit value.
type Arg struct {
	Ptr   Ptr
	U32   uint32
	IsPtr bool
}

// PtrArg and U32Arg build kernel arguments.
func PtrArg(p Ptr) Arg    { return Arg{Ptr: p, IsPtr: true} }
func U32Arg(v uint32) Arg { return Arg{U32: v} }

// Session is one device context with the kernels loaded.
type Session interface {
	// MemInfo reports the device's free and total memory in bytes.
	MemInfo() (free, total uint64, err error)
	// Alloc reserves words 32-bit words of device memory (a table can
	// exceed 2^32 words).
	Alloc(words uint64) (Ptr, error)
	// Upload copies src to the device.
	Upload(dst Ptr, src []uint32) error
	// Download copies len(dst) words from the device.
	Download(dst []uint32, src Ptr) error
	// Launch queues the named kernel (one of those Open found) on grid ×
	// block threads (1-D).
	Launch(kernel string, grid, block uint32, args ...Arg) error
	// Sync waits for the queued launches and reports their failure.
	Sync() error
	// Close frees the memory, unloads the module and releases the context.
	Close() error
}
