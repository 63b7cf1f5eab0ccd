//go:build cgo

package gpu

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// NVML reads the GPUs through the NVIDIA driver's management library.
type NVML struct {
	lib nvml.Interface
	now func() time.Time

	// mu serialises the backend: Read drains the shared XID event set and
	// updates per-GPU counts, and Close must not race a Read.
	mu     sync.Mutex
	xid    *xidEvents
	closed bool
}

var _ Backend = (*NVML)(nil)

// NVMLOption configures NewNVML.
type NVMLOption func(*NVML)

// WithClock sets the clock that stamps readings (tests pin it; default time.Now).
func WithClock(now func() time.Time) NVMLOption {
	return func(n *NVML) {
		if now != nil {
			n.now = now
		}
	}
}

// NewNVMLDefault opens the machine's NVIDIA driver (libnvidia-ml.so.1).
func NewNVMLDefault() (Backend, error) {
	return NewNVML(nvml.New())
}

// NewNVML initialises lib (nvml.New() in production, a go-nvml mock in
// tests) and subscribes to critical XID events. Any Init failure, such as
// ERROR_LIBRARY_NOT_FOUND on a machine without the driver, wraps
// ErrUnavailable so callers can fall back.
func NewNVML(lib nvml.Interface, opts ...NVMLOption) (*NVML, error) {
	if lib == nil {
		return nil, fmt.Errorf("%w: nil NVML interface", ErrUnavailable)
	}
	if err := call0("Init", lib.Init); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	xid, err := openXIDEvents(lib)
	if err != nil {
		return nil, errors.Join(err, call0("Shutdown", lib.Shutdown))
	}
	n := &NVML{lib: lib, now: time.Now, xid: xid}
	for _, o := range opts {
		o(n)
	}
	return n, nil
}

// Name implements Backend.
func (n *NVML) Name() string { return "nvml" }

// Devices implements Backend.
func (n *NVML) Devices(ctx context.Context) ([]Info, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return nil, errClosed
	}
	driver, err := call("SystemGetDriverVersion", n.lib.SystemGetDriverVersion)
	if err != nil {
		return nil, err
	}
	cuda, err := call("SystemGetCudaDriverVersion", n.lib.SystemGetCudaDriverVersion)
	if err != nil {
		return nil, err
	}
	count, err := call("DeviceGetCount", n.lib.DeviceGetCount)
	if err != nil {
		return nil, err
	}
	infos := make([]Info, 0, count)
	for i := range count {
		dev, err := call("DeviceGetHandleByIndex", func() (nvml.Device, nvml.Return) { return n.lib.DeviceGetHandleByIndex(i) })
		if err != nil {
			return nil, fmt.Errorf("GPU %d: %w", i, err)
		}
		info, err := deviceInfo(dev)
		if err != nil {
			return nil, fmt.Errorf("GPU %d: %w", i, err)
		}
		info.DriverVersion, info.CUDAVersion = driver, cudaVersion(cuda)
		infos = append(infos, info)
	}
	return infos, nil
}

// deviceInfo reads one GPU's own identity (the system versions are shared).
func deviceInfo(dev nvml.Device) (Info, error) {
	var info Info
	var err error
	if info.UUID, err = call("GetUUID", dev.GetUUID); err != nil {
		return Info{}, err
	}
	if info.Model, err = call("GetName", dev.GetName); err != nil {
		return Info{}, err
	}
	mem, err := call("GetMemoryInfo", dev.GetMemoryInfo)
	if err != nil {
		return Info{}, err
	}
	info.MemoryMiB = mem.Total / mib
	pci, err := call("GetPciInfo", dev.GetPciInfo)
	if err != nil {
		return Info{}, err
	}
	info.PCIBusID = pciBusID(pci)
	if info.VBIOSVersion, err = call("GetVbiosVersion", dev.GetVbiosVersion); err != nil {
		return Info{}, err
	}
	return info, nil
}

// Read implements Backend.
func (n *NVML) Read(ctx context.Context, uuid string) (Reading, error) {
	if err := ctx.Err(); err != nil {
		return Reading{}, err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return Reading{}, errClosed
	}
	dev, err := call("DeviceGetHandleByUUID", func() (nvml.Device, nvml.Return) { return n.lib.DeviceGetHandleByUUID(uuid) })
	if errors.Is(err, nvml.ERROR_NOT_FOUND) || errors.Is(err, nvml.ERROR_INVALID_ARGUMENT) {
		return Reading{}, fmt.Errorf("%w %q: %w", ErrUnknownGPU, uuid, err)
	}
	if err != nil {
		return Reading{}, fmt.Errorf("read %s: %w", uuid, err)
	}
	r, err := sample(dev)
	if err != nil {
		return Reading{}, fmt.Errorf("read %s: %w", uuid, err)
	}
	if r.XIDErrors, err = n.xid.take(uuid); err != nil {
		return Reading{}, fmt.Errorf("read %s: %w", uuid, err)
	}
	r.UUID, r.Time = uuid, n.now()
	return r, nil
}

// sample reads one GPU's telemetry, converting NVML units to Reading's.
func sample(dev nvml.Device) (Reading, error) {
	var r Reading
	util, err := call("GetUtilizationRates", dev.GetUtilizationRates)
	if err != nil {
		return Reading{}, err
	}
	r.UtilBps = util.Gpu * 100 // percent to basis points
	mem, err := call("GetMemoryInfo", dev.GetMemoryInfo)
	if err != nil {
		return Reading{}, err
	}
	r.MemUsedMiB = mem.Used / mib
	if r.EnergyMJ, err = call("GetTotalEnergyConsumption", dev.GetTotalEnergyConsumption); err != nil {
		return Reading{}, err
	}
	if r.PowerMW, err = call("GetPowerUsage", dev.GetPowerUsage); err != nil {
		return Reading{}, err
	}
	if r.TempC, err = call("GetTemperature", func() (uint32, nvml.Return) { return dev.GetTemperature(nvml.TEMPERATURE_GPU) }); err != nil {
		return Reading{}, err
	}
	if r.SMClockMHz, err = call("GetClockInfo", func() (uint32, nvml.Return) { return dev.GetClockInfo(nvml.CLOCK_SM) }); err != nil {
		return Reading{}, err
	}
	procs, err := call("GetComputeRunningProcesses", dev.GetComputeRunningProcesses)
	if err != nil {
		return Reading{}, err
	}
	r.PIDs = make([]uint32, 0, len(procs))
	for _, p := range procs {
		r.PIDs = append(r.PIDs, p.Pid)
	}
	return r, nil
}

// Close frees the XID event set and shuts NVML down; later calls fail.
func (n *NVML) Close() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return nil
	}
	n.closed = true
	return errors.Join(n.xid.close(), call0("Shutdown", n.lib.Shutdown))
}

// mib is one MiB in bytes.
const mib = 1 << 20

// errClosed is returned by a backend used after Close.
var errClosed = fmt.Errorf("%w: nvml backend closed", ErrUnavailable)
