// Package gpu reads the provider's GPUs: their identity (what x/provider
// registers) and their telemetry (what proofs of execution are made of).
// Two backends implement Backend: nvml (the NVIDIA driver through
// github.com/NVIDIA/go-nvml) and sim (deterministic simulated GPUs for tests
// and machines without a GPU).
package gpu

import (
	"context"
	"errors"
	"time"
)

// Info is a GPU's identity, in the shape x/provider's GPUInfo registers.
type Info struct {
	// UUID is the NVML UUID ("GPU-…").
	UUID string `json:"uuid"`
	// Model is the name NVML reports, e.g. "NVIDIA H100 80GB HBM3".
	Model string `json:"model"`
	// MemoryMiB is the total memory.
	MemoryMiB uint64 `json:"memory_mib"`
	// PCIBusID is the PCI bus id, e.g. "00000000:3B:00.0".
	PCIBusID string `json:"pci_bus_id"`
	// DriverVersion, VBIOSVersion and CUDAVersion ("12.4") describe the stack.
	DriverVersion string `json:"driver_version"`
	VBIOSVersion  string `json:"vbios_version"`
	CUDAVersion   string `json:"cuda_version"`
}

// Reading is one telemetry sample of one GPU.
type Reading struct {
	UUID string
	Time time.Time
	// UtilBps is the GPU utilisation over the driver's last sample period, in bps.
	UtilBps uint32
	// MemUsedMiB is the memory in use.
	MemUsedMiB uint64
	// EnergyMJ is the board's total energy counter since driver load, in mJ.
	EnergyMJ uint64
	// PowerMW is the current power draw in mW.
	PowerMW uint32
	// TempC is the GPU temperature.
	TempC uint32
	// SMClockMHz is the current SM clock.
	SMClockMHz uint32
	// PIDs are the compute processes running on the GPU.
	PIDs []uint32
	// XIDErrors counts the critical XID events seen since the previous reading.
	XIDErrors uint32
}

// Backend is a source of GPU identity and telemetry.
type Backend interface {
	// Name is "nvml" or "sim".
	Name() string
	// Devices lists the GPUs, in index order.
	Devices(ctx context.Context) ([]Info, error)
	// Read samples one GPU now.
	Read(ctx context.Context, uuid string) (Reading, error)
	// Close releases the backend (nvml.Shutdown).
	Close() error
}

// ErrUnavailable is returned when a backend cannot run on this machine
// (no NVIDIA driver, or built without cgo).
var ErrUnavailable = errors.New("gpu backend unavailable")

// ErrUnknownGPU is returned by Read for a UUID the backend does not have.
var ErrUnknownGPU = errors.New("unknown GPU")

// JobProcs are the processes of one job of the agent and the GPUs its
// lease holds.
type JobProcs struct {
	LeaseID uint64
	GPUs    []string
	PIDs    []uint32
}

// JobAttacher is a backend that cannot see which processes run on its
// GPUs and is told instead: the sim, which has no driver to ask. The agent
// calls AttachJobs before each tick's reads with every job it runs (not
// ended); processes of jobs not in the list leave their GPUs. A real
// driver lists the processes itself, so nvml does not implement it.
type JobAttacher interface {
	AttachJobs(jobs []JobProcs)
}
